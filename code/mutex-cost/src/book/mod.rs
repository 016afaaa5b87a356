//! The chapter as the page shows it: the claims it judges, the rules that
//! judge them and the exhibits, each in a module of its own. Everything
//! here reads results and nothing here measures: it is left out of the
//! results' fingerprint, so a change to a caption or a rule makes no result
//! stale (`crate::run` holds what does).
mod actor;
mod check;
mod claims;
mod conditions;
mod contended;
mod heartbeat;
mod instructions;
mod ladder;
mod locks;
mod parameters;
mod per_op;
mod profiles;
mod published_shape;
mod reader;
mod sensitivity;
mod summary;

use std::collections::BTreeSet;

use anyhow::Result;
use harness::{grid, Cell, Estimate, Exhibit, ExhibitKind, Point};
use serde::Deserialize;

use crate::experiments::{HeartbeatResult, PerOpTiming, RoundTiming};
use crate::heartbeat::Load;
use crate::run::Data;
use crate::{Variant, PUBLISHED_FUTURES};

pub use check::data as check;
pub use claims::CLAIMS;

pub const EXHIBITS: &[Exhibit<Data>] = &[
    Exhibit {
        name: "in-short",
        kind: ExhibitKind::Text,
        about: "the answer in plain words, its numbers beside the post's",
        render: reader::in_short,
    },
    Exhibit {
        name: "summary-list",
        kind: ExhibitKind::Text,
        about: "what to use, each with its number and verdict (gathered by the What to use page)",
        render: reader::summary_list,
    },
    Exhibit {
        name: "reproduction",
        kind: ExhibitKind::Table,
        about: "the published shape at 100,000 futures, beside the published numbers",
        render: published_shape::reproduction,
    },
    Exhibit {
        name: "sweep",
        kind: ExhibitKind::Figure,
        about: "time per round against futures, published shape",
        render: published_shape::sweep,
    },
    Exhibit {
        name: "sweep-table",
        kind: ExhibitKind::Table,
        about: "the scale sweep with ratios",
        render: published_shape::sweep_table,
    },
    Exhibit {
        name: "contended",
        kind: ExhibitKind::Figure,
        about: "time per round against futures, spawned tasks, per worker count",
        render: contended::figure,
    },
    Exhibit {
        name: "contended-table",
        kind: ExhibitKind::Table,
        about: "the contended shape with ratios",
        render: contended::table,
    },
    Exhibit {
        name: "locks",
        kind: ExhibitKind::Table,
        about: "every lock (std, parking_lot, tokio, async-lock, futures) in the contended shape",
        render: locks::table,
    },
    Exhibit {
        name: "locks-chart",
        kind: ExhibitKind::Figure,
        about: "time per lock taken in the contended shape, every lock, as bars",
        render: locks::chart,
    },
    Exhibit {
        name: "actor",
        kind: ExhibitKind::Table,
        about: "actor against the mutexes at 10,000 futures, both shapes",
        render: actor::table,
    },
    Exhibit {
        name: "actor-chart",
        kind: ExhibitKind::Figure,
        about: "actor time over mutex time, published and per shape",
        render: actor::chart,
    },
    Exhibit {
        name: "per-op",
        kind: ExhibitKind::Table,
        about: "nanoseconds per uncontended lock + unlock, and the co-op probe",
        render: per_op::table,
    },
    Exhibit {
        name: "per-op-chart",
        kind: ExhibitKind::Figure,
        about: "the uncontended cost as bars",
        render: per_op::chart,
    },
    Exhibit {
        name: "heartbeat",
        kind: ExhibitKind::Table,
        about: "lateness percentiles of an unrelated task under each load",
        render: heartbeat::table,
    },
    Exhibit {
        name: "heartbeat-chart",
        kind: ExhibitKind::Figure,
        about: "the heartbeat's lateness percentile curves",
        render: heartbeat::chart,
    },
    Exhibit {
        name: "ladder",
        kind: ExhibitKind::Table,
        about: "MUT-1 and MUT-2 as published, then one correction at a time to the fair experiment",
        render: ladder::tables,
    },
    Exhibit {
        name: "sensitivity",
        kind: ExhibitKind::Table,
        about: "tokio ÷ std on the published round by driver, runtime, allocator and co-op budget",
        render: sensitivity::grid,
    },
    Exhibit {
        name: "sensitivity-chart",
        kind: ExhibitKind::Figure,
        about: "the sensitivity grid as bars",
        render: sensitivity::chart,
    },
    Exhibit {
        name: "sensitivity-causes",
        kind: ExhibitKind::Table,
        about: "time, page faults and context switches per round in every cell of the grid",
        render: sensitivity::causes,
    },
    Exhibit {
        name: "polls",
        kind: ExhibitKind::Table,
        about: "polls per future of the published round, counted",
        render: sensitivity::polls,
    },
    Exhibit {
        name: "instructions",
        kind: ExhibitKind::Table,
        about: "instructions per operation (callgrind), tokio ÷ std counted and timed",
        render: instructions::table,
    },
    Exhibit {
        name: "profiles",
        kind: ExhibitKind::Figure,
        about: "flame graphs: std and tokio counters in the published and the contended round",
        render: profiles::render,
    },
    Exhibit {
        name: "parameters",
        kind: ExhibitKind::Table,
        about: "what each profile measures, and the fixed parameters",
        render: parameters::table,
    },
    Exhibit {
        name: "verdicts",
        kind: ExhibitKind::Verdicts,
        about: "MUT-1 to MUT-3",
        render: claims::verdicts,
    },
    Exhibit {
        name: "summary",
        kind: ExhibitKind::Text,
        about: "the ratios the decision guide rests on",
        render: summary::text,
    },
];

/// How the counter work is spread: the published shape, or spawned tasks on
/// a number of worker threads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Shape {
    JoinAll,
    Spawned { workers: usize },
}

impl Shape {
    /// The published shape, then the spawned one on each worker count.
    fn all(d: &Data) -> Vec<Shape> {
        let spawned = workers_of(&d.contended)
            .into_iter()
            .map(|workers| Shape::Spawned { workers });
        std::iter::once(Shape::JoinAll).chain(spawned).collect()
    }
}

/// The timing of `variant` at `futures` per round in `shape`.
fn round(d: &Data, shape: Shape, variant: Variant, futures: usize) -> Result<&RoundTiming> {
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
fn per_op_of<'a>(d: &'a Data, lock: &str, flavor: Option<&str>) -> Result<&'a PerOpTiming> {
    // The keys are owned: `grid::find`'s key cannot borrow from the point.
    let key = (lock.to_string(), flavor.map(str::to_string));
    grid::find(&d.per_op, "the uncontended experiment", key, |p| {
        (p.lock.clone(), p.runtime.as_ref().map(|r| r.flavor.clone()))
    })
}

fn heartbeat_of(d: &Data, load: Load) -> Result<&HeartbeatResult> {
    grid::find(&d.heartbeat, "the heartbeat experiment", load, |h| h.load)
}

fn sizes(rows: &[RoundTiming]) -> Vec<usize> {
    rows.iter()
        .map(|r| r.futures)
        .collect::<BTreeSet<_>>()
        .into_iter()
        .collect()
}

fn workers_of(rows: &[RoundTiming]) -> Vec<usize> {
    rows.iter()
        .map(|r| r.runtime.workers)
        .collect::<BTreeSet<_>>()
        .into_iter()
        .collect()
}

/// A round's mean with its interval, in milliseconds, at `futures`.
fn mean_ms(futures: usize, r: &RoundTiming) -> Point {
    let e = &r.timing.mean;
    Point::with_band(
        futures as f64,
        e.point_ns / MS,
        e.lower_ns / MS,
        e.upper_ns / MS,
    )
}

fn plural(n: usize) -> &'static str {
    if n == 1 {
        ""
    } else {
        "s"
    }
}

/// The published size if this run has it, else its largest (smoke runs).
fn reproduction_size(data: &Data) -> usize {
    let s = sizes(&data.join_all);
    if s.contains(&PUBLISHED_FUTURES) {
        PUBLISHED_FUTURES
    } else {
        *s.last().expect("checked: at least one size")
    }
}

fn join_all_runtime(data: &Data) -> String {
    data.join_all
        .first()
        .map_or(String::new(), |r| r.runtime.describe())
}

/// A row of the published datasets (`published-mutex.json`,
/// `published-actor.json`): milliseconds per round.
#[derive(Deserialize)]
struct PublishedRow {
    variant: String,
    futures: usize,
    lower_ms: Option<f64>,
    point_ms: f64,
    upper_ms: Option<f64>,
}

const MS: f64 = 1e6;

impl PublishedRow {
    /// The published time per round in nanoseconds, with its interval when
    /// the post gave one.
    fn time(&self) -> Result<Cell> {
        Ok(match (self.lower_ms, self.upper_ms) {
            (Some(lo), Some(hi)) => {
                Cell::time(&Estimate::new(self.point_ms * MS, lo * MS, hi * MS)?)
            }
            _ => Cell::nanos(self.point_ms * MS),
        })
    }
}

/// The published row of `variant` at `futures`, if the post has one.
fn published_at<'a>(
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

/// The estimates MUT-1 and MUT-2 rest on, for the precision exhibit.
pub fn headline(data: &Data) -> Vec<(String, Estimate)> {
    claims::decisive_estimates(data)
}
