//! Experiment B: latency per message under back-pressure, both ways of
//! measuring it, and Little's law, which says what the published one measured.
use anyhow::Result;
use harness_core::Unit;
use harness_page::{
    render::blocks::Axis, render::blocks::Block, render::blocks::Cell, render::blocks::Figure,
    render::blocks::Point, render::blocks::Series, render::blocks::Table, Book,
};

use super::published::{self, Backpressure};
use super::{machine_of, runtime_b, Data, Reads};
use channel_latency::backpressure::{Latencies, Run};
use channel_latency::{BOUNDS, TASKS};

/// The published mean of `channel` at this setting, if the post gave one.
fn published_mean(rows: &[Backpressure], channel: &str, tasks: usize, bound: usize) -> Option<f64> {
    let p = rows.iter().find(|p| p.tasks == tasks && p.bound == bound)?;
    match channel {
        "tokio" => Some(p.tokio_mean_ns),
        "kanal-async" => Some(p.kanal_mean_ns),
        // The post measured the pair alone.
        _ => None,
    }
}

/// The two ways of timing a message, as the figure labels them.
type Way = (&'static str, fn(&Run) -> Latencies);
const WAYS: [Way; 2] = [
    ("before send", |r| r.before_send),
    ("in queue", |r| r.enqueue_to_dequeue),
];

fn nanos_or_dash(ns: Option<f64>) -> Cell {
    ns.map_or(Cell::from("–"), Cell::nanos)
}

pub(super) fn table(book: &Book<Data>) -> Result<Vec<Block>> {
    let run = book.primary();
    let d = &run.data;
    let published = published::backpressure(book)?;
    let mut t = Table::new(
        format!(
            "Latency per message under back-pressure on {}, {}. \"Before send\" is the published method (stamped before send().await, so it includes waiting for room); \"in queue\" runs from the completed send to the dequeue; a message the receiver took before its producer's send().await returned counts as 1 ns in the queue (last column: how many). {} messages per point. Published means from {}.",
            machine_of(run),
            runtime_b(d),
            harness_core::fmt::thousands(d.backpressure.messages_per_point as u64),
            published.citation
        ),
        &[
            "tasks",
            "bound",
            "channel",
            "published mean",
            "before send: mean",
            "p50",
            "p99",
            "p99.9",
            "max",
            "in queue: mean",
            "p50",
            "p99",
            "taken before send returned",
        ],
    )
    .left(&[2]);
    for tasks in TASKS {
        for bound in BOUNDS {
            for channel in d.bp_channels() {
                let r = d.bp(channel, tasks, bound)?;
                let (b, q) = (&r.before_send, &r.enqueue_to_dequeue);
                t.push(vec![
                    Cell::Text(tasks.to_string()),
                    Cell::Text(bound.to_string()),
                    Cell::from(channel),
                    nanos_or_dash(published_mean(&published.rows, channel, tasks, bound)),
                    Cell::nanos(b.percentiles.mean_ns),
                    Cell::nanos(b.percentiles.p50_ns as f64),
                    Cell::nanos(b.percentiles.p99_ns as f64),
                    Cell::nanos(b.percentiles.p999_ns as f64),
                    Cell::nanos(b.percentiles.max_ns as f64),
                    Cell::nanos(q.percentiles.mean_ns),
                    Cell::nanos(q.percentiles.p50_ns as f64),
                    Cell::nanos(q.percentiles.p99_ns as f64),
                    Cell::Number(
                        r.dequeued_before_send_returned as f64 / r.received as f64,
                        Unit::Share,
                    ),
                ]);
            }
        }
    }
    Ok(vec![Block::Table(t)])
}

pub(super) fn figure(book: &Book<Data>) -> Result<Vec<Block>> {
    let run = book.primary();
    let d = &run.data;
    let tasks = TASKS[0];
    let mut series = Vec::new();
    for (label, pick) in WAYS {
        for channel in d.bp_channels() {
            let points = BOUNDS
                .iter()
                .map(|&bound| {
                    let r = d.bp(channel, tasks, bound)?;
                    let l = pick(r);
                    Ok(Point::with_band(
                        r.bound as f64,
                        l.percentiles.mean_ns / 1e3,
                        l.percentiles.p50_ns as f64 / 1e3,
                        l.percentiles.p99_ns as f64 / 1e3,
                    ))
                })
                .collect::<Result<Vec<_>>>()?;
            series.push(Series::measured(format!("{channel}, {label}"), points));
        }
    }
    let published = published::backpressure(book)?;
    let at = |f: fn(&Backpressure) -> f64| -> Vec<Point> {
        published
            .rows
            .iter()
            .filter(|p| p.tasks == tasks)
            .map(|p| Point::new(p.bound as f64, f(p) / 1e3))
            .collect()
    };
    series.push(Series::published(
        "tokio, published (before send)",
        at(|p| p.tokio_mean_ns),
    ));
    series.push(Series::published(
        "kanal-async, published (before send)",
        at(|p| p.kanal_mean_ns),
    ));
    Ok(vec![Block::Figure(Figure {
        id: "latency-backpressure".into(),
        title: format!("Mean latency vs channel bound, {tasks} producer tasks"),
        caption: format!(
            "Mean latency per message with {tasks} producer tasks on {}, {}; bands run from p50 to p99. \"Before send\" is the published method, \"in queue\" starts when the send completed. Dashed: published means ({}).",
            machine_of(run),
            runtime_b(d),
            published.citation
        ),
        x: Axis::log("channel bound"),
        y: Axis::log("µs per message"),
        series,
        line_at: None,
    })])
}

pub(super) fn littles_law(book: &Book<Data>) -> Result<Vec<Block>> {
    let run = book.primary();
    let d = &run.data;
    let published = published::backpressure(book)?;
    let mut t = Table::new(
        format!(
            "Little's law on the published method: the average number of stamped, not yet received messages equals throughput x mean latency. \
             At most tasks + bound can exist (every producer holds one stamped message, waiting or queued, and the queue is full). \
             Measured on {}, {}. The last two columns divide the published means by tasks + bound ({}): if they stay flat across settings, the published latency was that queue length times a fixed per-message time.",
            machine_of(run),
            runtime_b(d),
            published.citation
        ),
        &[
            "tasks",
            "bound",
            "channel",
            "throughput (msg/s)",
            "mean (before send)",
            "in flight = throughput x mean",
            "tasks + bound",
            "published tokio / (tasks + bound)",
            "published kanal / (tasks + bound)",
        ],
    )
    .left(&[2]);
    for tasks in TASKS {
        for bound in BOUNDS {
            for channel in d.bp_channels() {
                let r = d.bp(channel, tasks, bound)?;
                let in_flight = (tasks + bound) as f64;
                let per_place = |c: &str| {
                    published_mean(&published.rows, c, tasks, bound).map(|m| m / in_flight)
                };
                t.push(vec![
                    Cell::Text(tasks.to_string()),
                    Cell::Text(bound.to_string()),
                    Cell::from(channel),
                    Cell::count(r.throughput().round() as u64),
                    Cell::nanos(r.before_send.percentiles.mean_ns),
                    Cell::Number(
                        r.throughput() * r.before_send.percentiles.mean_ns / 1e9,
                        Unit::Plain,
                    ),
                    Cell::count((tasks + bound) as u64),
                    nanos_or_dash(per_place("tokio")),
                    nanos_or_dash(per_place("kanal-async")),
                ]);
            }
        }
    }
    Ok(vec![Block::Table(t)])
}
