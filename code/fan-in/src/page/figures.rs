//! The two log-log figures: time per burst against workers, every design,
//! over TCP (with the published numbers dashed) and into memory.
use anyhow::Result;
use harness_page::{
    render::blocks::Axis, render::blocks::Block, render::blocks::Figure, render::blocks::Point,
    render::blocks::Series, Book,
};

use super::shared::{on_rig, published, time_per_burst, PublishedRow, PUBLISHED_PER_WORKER};
use fan_in::run::FanInData;
use fan_in::sink::SinkKind;
use fan_in::Design;

/// Colours follow the order of the series: the published rows come last and
/// land on the colour of the design they measured (the palette has seven).
const FIGURE_ORDER: [Design; 7] = [
    Design::MpscUnbounded,
    Design::StdMutexSwap,
    Design::TokioMutexSwap,
    Design::MpscBounded,
    Design::MpscRecvMany,
    Design::WorkerChunks,
    Design::Floor,
];

/// The burst-figure exhibit: over the loopback TCP sink, published dashed.
pub(super) fn tcp(book: &Book<FanInData>) -> Result<Vec<Block>> {
    burst_figure(book, SinkKind::Tcp, true)
}

/// The memory-figure exhibit: into the in-memory sink.
pub(super) fn memory(book: &Book<FanInData>) -> Result<Vec<Block>> {
    burst_figure(book, SinkKind::Memory, false)
}

fn burst_figure(
    book: &Book<FanInData>,
    kind: SinkKind,
    with_published: bool,
) -> Result<Vec<Block>> {
    let mut blocks = Vec::new();
    for run in &book.runs {
        let d = &run.data;
        let mut series: Vec<Series> = FIGURE_ORDER
            .iter()
            .map(|&design| {
                let points = d
                    .workers
                    .iter()
                    .filter_map(|&w| d.get(kind, design, w))
                    .map(|m| {
                        let e = time_per_burst(m);
                        Point::with_band(
                            m.workers as f64,
                            e.point_ns / 1e3,
                            e.lower_ns / 1e3,
                            e.upper_ns / 1e3,
                        )
                    })
                    .collect();
                Series::measured(design.label(), points)
            })
            .collect();
        let mut caption = format!(
            "Time per burst into the {}, from spawning the producers until the sink holds all {} \
             bytes of every worker, on {}. Median of criterion's samples, pooled \
             over the run's passes, with its 95 % interval.",
            kind.label(),
            d.per_worker,
            on_rig(run)
        );
        if with_published {
            let (rows, citation) = published(book)?;
            let line = |label: &str, design: Design, f: fn(&PublishedRow) -> f64| {
                Series::published(
                    format!("published: {label}"),
                    rows.iter()
                        .map(|r| Point::new(r.workers as f64, f(r)))
                        .collect(),
                )
                .coloured_like(design.label())
            };
            series.push(line("mpsc unbounded", Design::MpscUnbounded, |r| {
                r.tokio_mpsc_us
            }));
            series.push(line("std Mutex swap", Design::StdMutexSwap, |r| {
                r.std_mutex_us
            }));
            series.push(line("tokio Mutex swap", Design::TokioMutexSwap, |r| {
                r.tokio_mutex_us
            }));
            caption.push_str(&format!(
                " Dashed: the published numbers ({citation}; {PUBLISHED_PER_WORKER} messages per \
                 worker, different stop points, see above), same colour as the design they claim to measure."
            ));
        }
        let kind_id = match kind {
            SinkKind::Tcp => "tcp",
            SinkKind::Memory => "memory",
        };
        blocks.push(Block::Figure(Figure {
            id: format!("fan-in-{kind_id}-{}", run.machine()),
            title: format!("Fan-in burst time, {}", kind.label()),
            caption,
            x: Axis::log("producer tasks (workers)"),
            y: Axis::log("time per burst (µs)"),
            series,
            line_at: None,
        }));
    }
    Ok(blocks)
}
