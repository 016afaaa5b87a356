//! Many idle channels held at once: total heap per channel type, as bars
//! and in numbers.
use anyhow::Result;

use harness_core::fmt::thousands;
use harness_core::Unit;
use harness_page::{
    render::blocks::Axis, render::blocks::Bar, render::blocks::BarChart, render::blocks::Block,
    render::blocks::Cell, render::blocks::Table, Book, Run,
};

use super::{machine_caption, AllocData};
use alloc_probe::{ScenarioResult, SCENARIOS};

pub(super) fn render(book: &Book<AllocData>) -> Result<Vec<Block>> {
    Ok(book.runs.iter().flat_map(blocks).collect())
}

/// The channel and its message type; `tick` wraps the type for markdown,
/// figures take it bare.
fn label(r: &ScenarioResult, tick: &str) -> String {
    let message = if r.boxed {
        format!("Box<[u8; {}]>", r.msg_size)
    } else {
        format!("[u8; {}]", r.msg_size)
    };
    format!("{}, {tick}{message}{tick}", r.channel.label())
}

fn blocks(run: &Run<AllocData>) -> Vec<Block> {
    let mut blocks = Vec::new();
    for s in SCENARIOS {
        let rows: Vec<&ScenarioResult> = run
            .data
            .scenarios
            .iter()
            .filter(|r| r.scenario == s.name)
            .collect();
        let Some(first) = rows.first() else { continue };
        let count = first.channels;
        blocks.push(Block::Bars(BarChart {
            id: format!("scenario-{}-{}", s.name, run.machine()),
            title: format!("{} idle channels: {}", thousands(count as u64), s.name),
            caption: format!(
                "Total live heap of {} idle channels ({}), on {}.",
                thousands(count as u64),
                s.about,
                machine_caption(run)
            ),
            value_axis: Axis::linear("total heap bytes"),
            bars: rows
                .iter()
                .map(|r| Bar {
                    label: label(r, ""),
                    value: r.total_bytes as f64,
                    group: if r.boxed {
                        "boxed message".into()
                    } else {
                        "message by value".into()
                    },
                })
                .collect(),
        }));
        let mut t = Table::new(
            format!("The same scenario in numbers: {}.", s.about),
            &["channel and message", "total", "per channel"],
        );
        for r in rows {
            t.push(vec![
                Cell::from(label(r, "`")),
                Cell::size(r.total_bytes),
                Cell::Number(r.per_channel(), Unit::Bytes),
            ]);
        }
        blocks.push(Block::Table(t));
    }
    blocks
}
