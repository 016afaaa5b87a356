//! What one run keeps: the results file's data, the bottom of `run` (the
//! run itself, `measure`, fills it; the contract in `run` names it).
use harness_measure::schedule::RecordedSchedule;
use serde::{Deserialize, Serialize};

use crate::experiments::{CoopProbe, HeartbeatResult, PerOpTiming, RoundTiming};
use crate::polls::PollCount;
use crate::sensitivity::SampledRounds;

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
    pub instructions: Vec<harness_measure::PerOp>,
    /// Bytes of one future of the published round, per lock (std, tokio,
    /// tokio budget first).
    pub future_bytes: Vec<(crate::drivers::Lock, u64)>,
    /// CPU profiles of the std and tokio counters in both shapes
    /// (`crate::profiles`).
    pub profiles: Vec<crate::profiles::RoundProfile>,
}
