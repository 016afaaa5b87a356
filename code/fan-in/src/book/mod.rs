//! The chapter as the book sees it: what a run stores, the exhibits on the
//! page (one module each, or a few related ones), the claims and the checks
//! on stored results. The sweep that measures lives in `crate::sweep`.
mod check;
mod claims;
mod estimates;
mod figures;
mod ladder;
mod own_design;
mod parameters;
mod placement_table;
mod profiles;
mod tables;
mod variations;
mod views;

use anyhow::{Context, Result};
use harness::timing::Statistic;
use harness::{Book, Chapter, Claim, Estimate, Exhibit, ExhibitKind, Lab};
use serde::{Deserialize, Serialize};

use crate::method::MethodData;
use crate::placement::Placement;
use crate::sink::SinkKind;
use crate::sweep::Measured;
use crate::Design;

pub struct FanIn;

/// Everything one run measured, with the parameters it ran under.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct FanInData {
    pub runtime_flavor: String,
    pub worker_threads: usize,
    pub per_worker: usize,
    pub bounded_capacity: usize,
    pub recv_many_limit: usize,
    pub chunk_bytes: usize,
    pub workers: Vec<usize>,
    /// Passes over the sweep pooled into each point (see `Plan::passes`).
    pub passes: usize,
    /// Short passes after each pass over the points FAN-1 and FAN-2 are
    /// decided on (`Plan::decisive_extra`).
    pub decisive_extra: usize,
    /// Criterion samples per point and pass (heavy points excepted).
    pub samples_per_point: usize,
    pub points: Vec<Measured>,
    /// Where the threads of `points` ran (see `placement`).
    pub placement: Placement,
    /// The free-placement control: a few worker counts measured again with
    /// the scheduler choosing (TCP sink, `FREE_DESIGNS`). Empty where the
    /// main sweep itself ran free.
    pub free_points: Vec<Measured>,
    /// The ladder from the published bench, the variations of the method
    /// and the counted swaps (`crate::method`).
    pub method: MethodData,
}

impl FanInData {
    pub fn get(&self, sink: SinkKind, design: Design, workers: usize) -> Option<&Measured> {
        self.points
            .iter()
            .find(|m| m.sink == sink && m.design == design && m.workers == workers)
    }

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

impl Chapter for FanIn {
    type Data = FanInData;

    const NAME: &'static str = "fan-in";
    const MEASURED_CRATES: &'static [&'static str] = &["tokio"];
    const RELEASE_GAPS: &'static [harness::releases::ReleaseGap] =
        &[harness::releases::ReleaseGap {
            krate: "tokio",
            since: crate::cause::BUDGET_QUERY_SINCE,
            lacks: "tokio cannot say whether a task's co-op budget is spent \
                    (`coop::has_budget_remaining`), so the counted runs cannot tell a \
                    lock that yielded for the budget from one that waited: the budget \
                    yields count as waits and their own column stays empty. No verdict \
                    reads those counts.",
        }];
    const CLAIMS: &'static [Claim] = claims::CLAIMS;
    const EXHIBITS: &'static [Exhibit<FanInData>] = &[
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
            name: "own-design",
            kind: ExhibitKind::Table,
            about: "the book's design against the std swap and the floor",
            render: own_design::own_design,
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

    fn measure(lab: &Lab) -> Result<FanInData> {
        crate::sweep::run(lab)
    }

    fn check(data: &FanInData) -> Result<()> {
        check::check(data)
    }

    fn headline(data: &FanInData) -> Vec<(String, Estimate)> {
        estimates::decisive(data)
    }
}
