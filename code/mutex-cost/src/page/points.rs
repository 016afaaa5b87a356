//! What the exhibits, the reader and the judge look up in a run's data: a
//! round of one shape, an uncontended timing, a heartbeat run, the sizes and
//! worker counts a run has, and the published rows. The bottom of the page:
//! it imports nothing else of it.
use std::collections::BTreeSet;

use anyhow::Result;
use harness_core::{grid, Estimate};
use harness_page::{render::blocks::Cell, render::blocks::Point};
use serde::Deserialize;

use mutex_cost::experiments::{HeartbeatResult, PerOpTiming, RoundTiming};
use mutex_cost::heartbeat::Load;
use mutex_cost::run::Data;
use mutex_cost::{Variant, PUBLISHED_FUTURES};

/// How the counter work is spread: the published shape, or spawned tasks on
/// a number of worker threads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Shape {
    JoinAll,
    Spawned { workers: usize },
}

impl Shape {
    /// The published shape, then the spawned one on each worker count.
    pub(super) fn all(d: &Data) -> Vec<Shape> {
        let spawned = workers_of(&d.contended)
            .into_iter()
            .map(|workers| Shape::Spawned { workers });
        std::iter::once(Shape::JoinAll).chain(spawned).collect()
    }
}

/// The timing of `variant` at `futures` per round in `shape`.
pub(super) fn round(
    d: &Data,
    shape: Shape,
    variant: Variant,
    futures: usize,
) -> Result<&RoundTiming> {
    match shape {
        Shape::JoinAll => grid::find(&d.join_all, "the join_all sweep", (variant, futures), |r| {
            (r.variant, r.futures)
        }),
        Shape::Spawned { workers } => grid::find(
            &d.contended,
            "the contended grid",
            (variant, futures, workers),
            |r| (r.variant, r.futures, r.runtime.workers),
        ),
    }
}

/// The uncontended timing of `lock` on a runtime of `flavor` (`None`: a plain thread).
pub(super) fn per_op_of<'a>(
    d: &'a Data,
    lock: &str,
    flavor: Option<&str>,
) -> Result<&'a PerOpTiming> {
    // The keys are owned: `grid::find`'s key cannot borrow from the point.
    let key = (lock.to_string(), flavor.map(str::to_string));
    grid::find(&d.per_op, "the uncontended experiment", key, |p| {
        (p.lock.clone(), p.runtime.as_ref().map(|r| r.flavor.clone()))
    })
}

pub(super) fn heartbeat_of(d: &Data, load: Load) -> Result<&HeartbeatResult> {
    grid::find(&d.heartbeat, "the heartbeat experiment", load, |h| h.load)
}

pub(super) fn sizes(rows: &[RoundTiming]) -> Vec<usize> {
    rows.iter()
        .map(|r| r.futures)
        .collect::<BTreeSet<_>>()
        .into_iter()
        .collect()
}

pub(super) fn workers_of(rows: &[RoundTiming]) -> Vec<usize> {
    rows.iter()
        .map(|r| r.runtime.workers)
        .collect::<BTreeSet<_>>()
        .into_iter()
        .collect()
}

/// A round's mean with its interval, in milliseconds, at `futures`.
pub(super) fn mean_ms(futures: usize, r: &RoundTiming) -> Point {
    let e = &r.timing.mean;
    Point::with_band(
        futures as f64,
        e.point_ns / MS,
        e.lower_ns / MS,
        e.upper_ns / MS,
    )
}

pub(super) fn plural(n: usize) -> &'static str {
    if n == 1 {
        ""
    } else {
        "s"
    }
}

/// The published size if this run has it, else its largest (smoke runs).
pub(super) fn reproduction_size(data: &Data) -> usize {
    let s = sizes(&data.join_all);
    if s.contains(&PUBLISHED_FUTURES) {
        PUBLISHED_FUTURES
    } else {
        *s.last().expect("checked: at least one size")
    }
}

pub(super) fn join_all_runtime(data: &Data) -> String {
    data.join_all
        .first()
        .map_or(String::new(), |r| r.runtime.describe())
}

/// A row of the published datasets (`published-mutex.json`,
/// `published-actor.json`): milliseconds per round.
#[derive(Deserialize)]
pub(super) struct PublishedRow {
    pub variant: String,
    pub futures: usize,
    pub lower_ms: Option<f64>,
    pub point_ms: f64,
    pub upper_ms: Option<f64>,
}

pub(super) const MS: f64 = 1e6;

impl PublishedRow {
    /// The published time per round in nanoseconds, with its interval when
    /// the post gave one.
    pub(super) fn time(&self) -> Result<Cell> {
        Ok(match (self.lower_ms, self.upper_ms) {
            (Some(lo), Some(hi)) => {
                Cell::time(&Estimate::new(self.point_ms * MS, lo * MS, hi * MS)?)
            }
            _ => Cell::nanos(self.point_ms * MS),
        })
    }
}

/// The published row of `variant` at `futures`, if the post has one.
pub(super) fn published_at<'a>(
    rows: &'a [PublishedRow],
    variant: &str,
    futures: usize,
) -> Option<&'a PublishedRow> {
    grid::find(
        rows,
        "the published data",
        (variant.to_string(), futures),
        |r| (r.variant.clone(), r.futures),
    )
    .ok()
}
