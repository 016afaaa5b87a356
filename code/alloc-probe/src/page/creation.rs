//! Bytes at creation against message size, every channel on one log-log
//! figure, with the published tokio figures dashed.
use anyhow::Result;

use harness_page::{
    render::blocks::Axis, render::blocks::Block, render::blocks::Figure, render::blocks::Point,
    render::blocks::Series, Book,
};

use super::{machine_caption, published_rows, AllocData};
use alloc_probe::{Channel, GridPoint, SWEEP_CAPACITY};

pub(super) fn render(book: &Book<AllocData>) -> Result<Vec<Block>> {
    let (_, rows) = published_rows(book)?;
    let mut blocks = Vec::new();
    for run in &book.runs {
        let mut series: Vec<Series> = Channel::ALL
            .iter()
            .map(|&c| {
                Series::measured(
                    c.label(),
                    run.data
                        .sweep
                        .iter()
                        .filter(|p| p.channel == c)
                        .map(|p| Point::new(p.msg_size as f64, p.footprint.created as f64))
                        .collect(),
                )
            })
            .collect();
        let mut published_points: Vec<Point> = rows
            .iter()
            .filter(|r| r.capacity == SWEEP_CAPACITY)
            .map(|r| Point::new(r.msg_size as f64, r.heap_after_create as f64))
            .collect();
        published_points.sort_by(|a, b| a.x.total_cmp(&b.x));
        let same = coinciding(&run.data.sweep);
        series.push(Series::published(
            "tokio mpsc, bounded (published)",
            published_points,
        ));
        blocks.push(Block::Figure(Figure {
            id: format!("creation-{}", run.machine()),
            title: format!("Heap at creation, capacity {SWEEP_CAPACITY}"),
            caption: format!(
                "Live heap bytes right after creating one channel of <code>[u8; N]</code> with capacity {}, \
                 against N, on {}. Dashed: the published tokio figures. No runtime is involved: \
                 channels are created and filled with <code>try_send</code> on one thread.{same}",
                SWEEP_CAPACITY,
                machine_caption(run)
            ),
            x: Axis::log("message size (bytes)"),
            y: Axis::log("bytes at creation"),
            series,
            line_at: None,
        }));
    }
    Ok(blocks)
}

/// "Lines that coincide exactly: a = b; c = d." for channels with identical
/// sweeps, so a reader knows why some colours seem missing.
fn coinciding(sweep: &[GridPoint]) -> String {
    let created = |c: Channel| -> Vec<u64> {
        sweep
            .iter()
            .filter(|p| p.channel == c)
            .map(|p| p.footprint.created)
            .collect()
    };
    let mut groups: Vec<Vec<Channel>> = Vec::new();
    for c in Channel::ALL {
        match groups.iter_mut().find(|g| created(g[0]) == created(c)) {
            Some(g) => g.push(c),
            None => groups.push(vec![c]),
        }
    }
    let same: Vec<String> = groups
        .iter()
        .filter(|g| g.len() > 1)
        .map(|g| g.iter().map(|c| c.label()).collect::<Vec<_>>().join(" = "))
        .collect();
    if same.is_empty() {
        String::new()
    } else {
        format!(" Lines that coincide exactly: {}.", same.join("; "))
    }
}
