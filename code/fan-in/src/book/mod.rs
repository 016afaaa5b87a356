//! The chapter as the page shows it: the exhibits (one module each, or a
//! few related ones), the claims and the checks on stored results.
//! Everything here reads results and nothing here measures: it is left out
//! of the results' fingerprint, so a change to a caption or a rule makes no
//! result stale. What a run stores is `crate::run`; the sweep that measures
//! is `crate::sweep`.
mod check;
mod claims;
mod crates;
mod estimates;
mod figures;
mod ladder;
mod own_design;
mod parameters;
mod placement_table;
mod profiles;
mod reader;
mod tables;
mod variations;
mod views;

use anyhow::{Context, Result};
use harness::timing::Statistic;
use harness::{Book, Estimate, Exhibit, ExhibitKind, Run};
use serde::Deserialize;

use crate::run::FanInData;
use crate::sink::SinkKind;
use crate::sweep::Measured;
use crate::Design;

pub use check::check;
pub use claims::CLAIMS;

impl FanInData {
    /// The TCP point of `design` at `workers`, or an error naming it.
    fn tcp(&self, design: Design, workers: usize) -> Result<&Measured> {
        self.get(SinkKind::Tcp, design, workers)
            .with_context(|| format!("no TCP result for {} at {workers} workers", design.id()))
    }

    /// "multi-thread runtime, 2 worker threads": every caption states it.
    pub fn runtime(&self) -> String {
        format!(
            "tokio {} runtime, {} worker threads",
            self.runtime_flavor, self.worker_threads
        )
    }

    fn largest(&self) -> usize {
        *self
            .workers
            .last()
            .expect("checked: at least one worker count")
    }
}

/// The statistic every figure rests on.
const STAT: Statistic = Statistic::Median;

/// The figure of merit everywhere: the median of one burst, pooled over the
/// run's passes.
fn time_per_burst(m: &Measured) -> &Estimate {
    m.timing.estimate(STAT)
}

/// How a caption names the run it shows: `machine (profile profile)`.
fn on(run: &Run<FanInData>) -> String {
    format!("{} ({} profile)", run.machine(), run.provenance.profile)
}

/// The same with the rig's runtime: `machine (runtime, profile profile)`.
fn on_rig(run: &Run<FanInData>) -> String {
    format!(
        "{} ({}, {} profile)",
        run.machine(),
        run.data.runtime(),
        run.provenance.profile
    )
}

/// The published burst times, one row per worker count (microseconds).
#[derive(Clone, Debug, Deserialize)]
struct PublishedRow {
    workers: usize,
    std_mutex_us: f64,
    tokio_mpsc_us: f64,
    tokio_mutex_us: f64,
}

/// Messages each worker sent in the published bench (`SAMPLE_SIZE` in its
/// benches/bench.rs); the dataset stores times only.
const PUBLISHED_PER_WORKER: f64 = 1000.0;

/// The published rows and their citation, escaped for the page.
fn published(book: &Book<FanInData>) -> Result<(Vec<PublishedRow>, String)> {
    let ds = book.published("burst")?;
    Ok((ds.rows()?, ds.citation()))
}

pub const EXHIBITS: &[Exhibit<FanInData>] = &[
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
        name: "parameters",
        kind: ExhibitKind::Table,
        about: "runtime, message counts, capacities and the sweep of each profile",
        render: parameters::parameters,
    },
    Exhibit {
        name: "burst-figure",
        kind: ExhibitKind::Figure,
        about: "log-log: workers vs time per burst over TCP, every design, published dashed",
        render: figures::tcp,
    },
    Exhibit {
        name: "delta-table",
        kind: ExhibitKind::Table,
        about: "std swap vs mpsc: published times and delta beside measured ones",
        render: tables::delta,
    },
    Exhibit {
        name: "designs-table",
        kind: ExhibitKind::Table,
        about: "time per burst over TCP, every design and worker count, with intervals",
        render: tables::designs,
    },
    Exhibit {
        name: "split-table",
        kind: ExhibitKind::Table,
        about: "channel vs socket: in-memory and TCP times at the largest worker count",
        render: tables::split,
    },
    Exhibit {
        name: "memory-figure",
        kind: ExhibitKind::Figure,
        about: "log-log: workers vs time per burst into the in-memory sink",
        render: figures::memory,
    },
    Exhibit {
        name: "crates-figure",
        kind: ExhibitKind::Figure,
        about: "log-log: workers vs time per message over TCP, flume and async-channel \
                beside recv_many, the swaps and the floor",
        render: crates::figure,
    },
    Exhibit {
        name: "crates-table",
        kind: ExhibitKind::Table,
        about: "flume, async-channel and recv_many per message and against the std swap",
        render: crates::table,
    },
    Exhibit {
        name: "own-design",
        kind: ExhibitKind::Table,
        about: "the book's design against the std swap and the floor, and its targets met or not",
        render: own_design::own_design,
    },
    Exhibit {
        name: "own-design-profile",
        kind: ExhibitKind::Figure,
        about: "flame graphs of the book's design and the floor, samples per burst by frame group",
        render: own_design::own_profile,
    },
    Exhibit {
        name: "placement-table",
        kind: ExhibitKind::Table,
        about: "pinned against free thread placement at a few worker counts, with each \
                placement's spread between passes",
        render: placement_table::placement_table,
    },
    Exhibit {
        name: "ladder-table",
        kind: ExhibitKind::Table,
        about: "from the published bench to the fair experiment, one correction at a time",
        render: ladder::table,
    },
    Exhibit {
        name: "ladder-work",
        kind: ExhibitKind::Table,
        about: "what each step's timed region holds: producers finished, bytes at the sink",
        render: ladder::work,
    },
    Exhibit {
        name: "ladder-figure",
        kind: ExhibitKind::Figure,
        about: "tokio ÷ std swap and mpsc ÷ std swap at each step of the ladder",
        render: ladder::figure,
    },
    Exhibit {
        name: "variations-table",
        kind: ExhibitKind::Table,
        about: "runtime, consumer placement and message count, each beside the fair experiment",
        render: variations::table,
    },
    Exhibit {
        name: "counted-table",
        kind: ExhibitKind::Table,
        about: "the swaps' locks counted with the consumer on a worker or the block_on thread",
        render: variations::counted,
    },
    Exhibit {
        name: "profiles",
        kind: ExhibitKind::Figure,
        about: "flame graphs of the std and tokio swap at the method's largest count",
        render: profiles::profiles,
    },
    Exhibit {
        name: "verdicts",
        kind: ExhibitKind::Verdicts,
        about: "FAN-1..FAN-4",
        render: claims::verdicts,
    },
];

/// The estimates FAN-1 and FAN-2 rest on, for the precision exhibit.
pub fn headline(data: &FanInData) -> Vec<(String, Estimate)> {
    estimates::decisive(data)
}
