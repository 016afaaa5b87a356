//! Throughput against producers: the figure, with the fan-in post's
//! published burst times beside it, and the table of its numbers.
use anyhow::Result;
use harness_core::results::published::Dataset;
use harness_core::{Estimate, Unit};
use harness_page::{
    render::blocks::Axis, render::blocks::Block, render::blocks::Cell, render::blocks::Figure,
    render::blocks::Point, render::blocks::Series, render::blocks::Table, Book,
};
use serde::Deserialize;

use mutex_swap::run::{Data, Experiment, Measured};
use mutex_swap::{Design, Wait};

use super::common::{million_per_s, rate, runtime_note};

/// Published reference: the fan-in chapter's dataset, burst time per design.
#[derive(Deserialize)]
struct PublishedBurst {
    workers: u64,
    std_mutex_us: f64,
    tokio_mutex_us: f64,
}

/// Messages each published worker sent (the published bench's sample size).
const PUBLISHED_MESSAGES_PER_WORKER: u64 = 1000;

/// The published numbers belong to the fan-in post; this chapter reads them
/// from the fan-in chapter's folder rather than keeping a copy.
fn fan_in_published(book: &Book<Data>) -> Result<Dataset> {
    Dataset::load(
        &book
            .store
            .chapter_dir("fan-in")
            .join("published-burst.json"),
    )
}

pub fn figure(book: &Book<Data>) -> Result<Vec<Block>> {
    let run = book.primary();
    let data = &run.data;
    let n = data.messages_per_burst;
    let mut series = Vec::new();
    for design in Design::SWAPS {
        let points = data
            .producers(Experiment::Throughput)
            .into_iter()
            .filter_map(|p| {
                data.point(Experiment::Throughput, design, Wait::Notify, p)
                    .ok()
            })
            .map(|m| {
                let e = &m.timing.mean;
                Point::with_band(
                    m.producers as f64,
                    rate(n, e.point_ns),
                    rate(n, e.upper_ns),
                    rate(n, e.lower_ns),
                )
            })
            .collect();
        series.push(Series::measured(design.label(), points));
    }
    let published = fan_in_published(book)?;
    let rows: Vec<PublishedBurst> = published.rows()?;
    let published_rate = |w: u64, us: f64| rate(w * PUBLISHED_MESSAGES_PER_WORKER, us * 1e3);
    // Series labels are drawn as SVG text, which the plotting crate escapes.
    // Each published line is drawn in the colour of the design it measured.
    series.push(
        Series::published(
            format!("published: std Mutex swap ({})", published.source.machine),
            rows.iter()
                .map(|r| Point::new(r.workers as f64, published_rate(r.workers, r.std_mutex_us)))
                .collect(),
        )
        .coloured_like(Design::StdMutexSwap.label()),
    );
    series.push(
        Series::published(
            format!("published: tokio Mutex swap ({})", published.source.machine),
            rows.iter()
                .map(|r| {
                    Point::new(
                        r.workers as f64,
                        published_rate(r.workers, r.tokio_mutex_us),
                    )
                })
                .collect(),
        )
        .coloured_like(Design::TokioMutexSwap.label()),
    );
    Ok(vec![Block::Figure(Figure {
        id: "mutex-swap-throughput".into(),
        title: "Messages per second through one consumer".into(),
        // The caption sits inside an HTML block, where markdown links stay literal.
        caption: format!(
            "Throughput of one burst against producer count, Notify consumer; bands are \
             criterion's 95% interval of the mean. {}. Dashed: published burst times of the \
             fan-in post ({}), converted at {} messages per worker; their consumer did \
             not drain the buffer (see the text).",
            runtime_note(run),
            published.citation_html(),
            PUBLISHED_MESSAGES_PER_WORKER
        ),
        x: Axis::log("producer tasks"),
        y: Axis::log("messages per second"),
        series,
        line_at: None,
    })])
}

/// A table of the throughput experiment: a row per producer count, a column
/// per design, each cell drawn from its point.
pub(super) fn per_design(data: &Data, caption: String, cell: impl Fn(&Measured) -> Cell) -> Table {
    let mut header = vec!["Producers"];
    header.extend(Design::SWAPS.iter().map(|d| d.label()));
    let mut t = Table::new(caption, &header);
    for p in data.producers(Experiment::Throughput) {
        let mut row = vec![Cell::count(p)];
        for design in Design::SWAPS {
            row.push(
                data.point(Experiment::Throughput, design, Wait::Notify, p)
                    .map_or(Cell::from("—"), &cell),
            );
        }
        t.push(row);
    }
    t
}

pub fn table(book: &Book<Data>) -> Result<Vec<Block>> {
    let run = book.primary();
    let n = run.data.messages_per_burst;
    let caption = format!(
        "Millions of messages per second, mean over a burst (criterion's 95% interval in \
         brackets), Notify consumer. {}.",
        runtime_note(run)
    );
    // The slow end of the time's interval is the low end of the rate's.
    let t = per_design(&run.data, caption, |m| {
        let e = &m.timing.mean;
        let rate = Estimate {
            point_ns: million_per_s(n, e.point_ns),
            lower_ns: million_per_s(n, e.upper_ns),
            upper_ns: million_per_s(n, e.lower_ns),
        };
        Cell::Estimate(rate, Unit::Plain)
    });
    Ok(vec![Block::Table(t)])
}
