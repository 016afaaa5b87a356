//! What one run of the chapter keeps, and the chapter's contract with the
//! harness. The run itself is `crate::sweep::run`. This half decides the
//! numbers, so it is in the results' fingerprint; `crate::book` only reads
//! them, and is not.
use anyhow::Result;
use harness::{Chapter, Claim, Estimate, Exhibit, Experiment, Lab};
use serde::{Deserialize, Serialize};

use crate::book;
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
    /// Bytes design 6's consumer gathers before it writes (`WRITE_BYTES`);
    /// zero in results measured before it had such a limit.
    #[serde(default)]
    pub write_bytes: usize,
    pub workers: Vec<usize>,
    /// Counts at which the other crates' inboxes were measured
    /// (`Plan::crate_workers`); `None` in runs from before they were.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub crate_workers: Option<Vec<usize>>,
    /// Counts also measured into the in-memory sink
    /// (`Plan::memory_workers`); `None` in runs that measured every count.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub memory_workers: Option<Vec<usize>>,
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
    /// Whether the run's plan measured this point (runs from before the
    /// other crates measured none of theirs, and every count in memory).
    pub fn planned(&self, sink: SinkKind, design: Design, workers: usize) -> bool {
        let within = |counts: &Option<Vec<usize>>, all: bool| {
            counts.as_ref().map_or(all, |c| c.contains(&workers))
        };
        (sink == SinkKind::Tcp || within(&self.memory_workers, true))
            && (!Design::OTHER_CRATES.contains(&design) || within(&self.crate_workers, false))
    }

    pub fn get(&self, sink: SinkKind, design: Design, workers: usize) -> Option<&Measured> {
        self.points
            .iter()
            .find(|m| m.sink == sink && m.design == design && m.workers == workers)
    }
}

impl Experiment for FanIn {
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

    fn measure(lab: &Lab) -> Result<FanInData> {
        crate::sweep::run(lab)
    }
}

impl Chapter for FanIn {
    const CLAIMS: &'static [Claim] = book::CLAIMS;
    const EXHIBITS: &'static [Exhibit<FanInData>] = book::EXHIBITS;

    fn check(data: &FanInData) -> Result<()> {
        book::check(data)
    }

    fn headline(data: &FanInData) -> Vec<(String, Estimate)> {
        book::headline(data)
    }
}
