//! What one run of the chapter measures and keeps: the results' data
//! model, the run itself (`measure`), and the experiment half of the
//! chapter's contract with the harness. This half decides the numbers, so
//! it is in the results' fingerprint; the page (the binary's `page`, which
//! this library cannot name) only reads them, and is not.
mod measure;
mod parameters;

use anyhow::Result;
use harness::schedule::RecordedSchedule;
use harness::{Experiment, Lab, Profile};
use serde::{Deserialize, Serialize};

use crate::experiments::{CoopProbe, HeartbeatResult, PerOpTiming, RoundTiming};
use crate::polls::PollCount;
use crate::sensitivity::SampledRounds;

pub struct MutexCost;

/// Everything one run measured.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Data {
    /// Cores available to the run (the "all cores" worker count).
    pub cores: usize,
    /// Late repeats of MUT-2's points (`Plan::decisive_extra`), made at the
    /// end of the run and pooled with the others.
    pub decisive_extra: usize,
    /// The schedules the round timings followed (`join_all`, `contended`,
    /// `ladder`, `late repeats`), as recorded: what the parameters exhibit
    /// lists and `check` holds the timings to. Empty in a file measured
    /// before they were recorded.
    #[serde(default)]
    pub schedules: Vec<RecordedSchedule>,
    /// Published shape and scale sweep.
    pub join_all: Vec<RoundTiming>,
    /// Same work over spawned tasks, per worker count.
    pub contended: Vec<RoundTiming>,
    pub per_op: Vec<PerOpTiming>,
    pub coop: CoopProbe,
    pub heartbeat: Vec<HeartbeatResult>,
    /// The ladder: the published round in one spawned task on a worker.
    pub in_task: Vec<RoundTiming>,
    /// The ladder: every future of the published round a task of its own.
    pub task_per_future: Vec<RoundTiming>,
    /// Allocator × driver × lock, a fresh process per sample.
    pub sensitivity: Vec<SampledRounds>,
    /// Polls of the published round, counted.
    pub polls: Vec<PollCount>,
    /// Instructions per operation of each `counted` case (callgrind).
    pub instructions: Vec<harness::PerOp>,
    /// Bytes of one future of the published round, per lock (std, tokio,
    /// tokio budget first).
    pub future_bytes: Vec<(crate::drivers::Lock, u64)>,
    /// CPU profiles of the std and tokio counters in both shapes
    /// (`crate::profiles`).
    pub profiles: Vec<crate::profiles::RoundProfile>,
}

impl Experiment for MutexCost {
    type Data = Data;
    const NAME: &'static str = "mutex-cost";
    const MEASURED_CRATES: &'static [&'static str] = &[
        "tokio",
        "futures",
        "parking_lot",
        "async-lock",
        "criterion",
        "hdrhistogram",
        "mimalloc",
    ];
    const COUNTED: &'static [harness::Counted] = crate::counted::COUNTED;
    const RELEASE_GAPS: &'static [harness::releases::ReleaseGap] =
        &[harness::releases::ReleaseGap {
            krate: "tokio",
            since: crate::tokio_budget_first_counter::POLL_PROCEED_SINCE,
            lacks: "tokio has no public `coop::poll_proceed`, so the budget-first \
                    variant is the plain `tokio::sync::Mutex`, which in those releases \
                    asks the budget before the lock by itself (the order changed in \
                    1.54.0).",
        }];

    fn measure(lab: &Lab) -> Result<Data> {
        measure::run(lab)
    }

    /// The run's recorded schedules; for a file older than the record, or
    /// without data, the code's plan for `profile` (its worker counts then
    /// are this machine's).
    fn schedules(profile: Profile, data: Option<&Data>) -> Vec<RecordedSchedule> {
        match data {
            Some(d) if !d.schedules.is_empty() => d.schedules.clone(),
            _ => measure::Schedules::of(&crate::Plan::for_profile(profile))
                .map(|s| s.record())
                .unwrap_or_default(),
        }
    }
}
