//! The grid in numbers: tokio beside the published table, then every
//! channel at every stage.
use anyhow::Result;

use harness_page::{render::blocks::Block, render::blocks::Cell, render::blocks::Table, Book};

use super::{machine_caption, point, published_rows, AllocData};
use alloc_probe::Channel;

pub(super) fn grid(book: &Book<AllocData>) -> Result<Vec<Block>> {
    let (published, rows) = published_rows(book)?;
    let mut blocks = Vec::new();
    for run in &book.runs {
        let mut t = Table::new(
            format!(
                "`tokio::sync::mpsc::channel::<[u8; N]>(capacity)`: live heap bytes measured on {} beside the published table ({}).",
                machine_caption(run),
                published.citation()
            ),
            &[
                "message size",
                "capacity",
                "at creation",
                "published",
                "after filling",
                "published",
                "exact match",
            ],
        );
        let mut matched = 0;
        for row in &rows {
            let f = &point(&run.data, Channel::TokioBounded, row.msg_size, row.capacity)?.footprint;
            let same = f.created == row.heap_after_create && f.full == row.heap_after_fill;
            matched += usize::from(same);
            t.push(vec![
                Cell::bytes(row.msg_size as u64),
                Cell::count(row.capacity as u64),
                Cell::bytes(f.created),
                Cell::bytes(row.heap_after_create),
                Cell::bytes(f.full),
                Cell::bytes(row.heap_after_fill),
                Cell::from(if same { "yes" } else { "**no**" }),
            ]);
        }
        blocks.push(Block::Table(t));
        blocks.push(Block::Text(format!(
            "On {}, {matched} of {} rows match the published bytes exactly.",
            run.machine(),
            rows.len()
        )));
    }
    Ok(blocks)
}

pub(super) fn channels(book: &Book<AllocData>) -> Result<Vec<Block>> {
    Ok(book
        .runs
        .iter()
        .map(|run| {
            let mut t = Table::new(
                format!(
                    "Live heap bytes of each channel at each stage, on {}. \"–\": the capacity holds fewer than 33 messages.",
                    machine_caption(run)
                ),
                &[
                    "channel",
                    "message",
                    "capacity",
                    "created",
                    "32 queued",
                    "33 queued",
                    "full",
                    "drained",
                ],
            );
            let queued = |b: Option<u64>| b.map_or(Cell::from("–"), Cell::bytes);
            for p in &run.data.grid {
                let f = &p.footprint;
                t.push(vec![
                    Cell::from(p.channel.label()),
                    Cell::bytes(p.msg_size as u64),
                    Cell::count(p.capacity as u64),
                    Cell::bytes(f.created),
                    queued(f.after_32),
                    queued(f.after_33),
                    Cell::bytes(f.full),
                    Cell::bytes(f.drained),
                ]);
            }
            Block::Table(t)
        })
        .collect())
}
