//! The results' data model: what one run keeps of every measured point,
//! the CPU profiles and the consumer's work timed alone.
use std::collections::BTreeSet;

use anyhow::Result;
use harness_measure::schedule::RecordedSchedule;
use harness_measure::stacks::Stacks;
use harness_measure::timing::Timing;
use serde::{Deserialize, Serialize};

use crate::experiment::Passes;
use crate::{Design, Wait, LIGHT_WORK};

/// Which question a measured point answers.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Experiment {
    /// Every swap design across producer counts, Notify consumer.
    Throughput,
    /// Every swap design, and one message per lock, against every wait
    /// strategy, at a few producer counts.
    Wait,
    /// The std swap's critical section moved: draining under the lock, and
    /// one message per lock (compared with the throughput experiment's std swap).
    LockHold,
}

/// What identifies a point: experiment, design, wait, producers, work rounds.
pub type Key = (Experiment, Design, Wait, u64, u32);

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Measured {
    pub experiment: Experiment,
    pub design: Design,
    pub wait: Wait,
    pub producers: u64,
    /// Rounds of hashing the consumer does per message.
    pub work_rounds: u32,
    /// Criterion's estimates of one burst's timed region.
    pub timing: Timing,
    /// The consumer's counts over every round of the point.
    pub passes: Passes,
    /// The same counts round by round (they merge into `passes`).
    pub rounds: Vec<Passes>,
}

impl Measured {
    pub fn key(&self) -> Key {
        (
            self.experiment,
            self.design,
            self.wait,
            self.producers,
            self.work_rounds,
        )
    }
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Data {
    /// Worker threads of the producers' multi-thread runtime.
    pub worker_threads: u64,
    pub messages_per_burst: u64,
    /// The L1 coherency line size the kernel reported, if any.
    pub cache_line_bytes: Option<u64>,
    /// The alignment the sharded design gives each shard.
    pub shard_align_bytes: u64,
    /// What the consumer's work per message costs on its own, per work level.
    pub work_cost: Vec<WorkCost>,
    /// Rounds pooled into every point (`Params::repeats`).
    pub repeats: usize,
    /// Rounds pooled into each point FAN-4 is decided on
    /// (`Params::decisive_repeats`, never fewer than `repeats`).
    pub decisive_repeats: usize,
    /// The timetable the run followed (`run::schedule`), as recorded;
    /// empty in files measured before runs recorded it.
    #[serde(default)]
    pub schedules: Vec<RecordedSchedule>,
    pub points: Vec<Measured>,
    /// CPU profiles of the std swap with each consumer the busy-cost
    /// comparison sets side by side, busy polling first.
    pub profiles: Vec<WaitProfile>,
}

/// Bursts of one design and wait strategy run under the CPU profiler
/// (`harness_measure::stacks::record`), outside any timing.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct WaitProfile {
    pub design: Design,
    pub wait: Wait,
    pub producers: u64,
    /// The consumer's counts over the profiled bursts (each one validated).
    pub passes: Passes,
    pub stacks: Stacks,
}

impl Data {
    /// The point of `experiment` with the light consumer work.
    pub fn point(
        &self,
        experiment: Experiment,
        design: Design,
        wait: Wait,
        producers: u64,
    ) -> Result<&Measured> {
        self.point_with(experiment, design, wait, producers, LIGHT_WORK)
    }

    pub fn point_with(
        &self,
        experiment: Experiment,
        design: Design,
        wait: Wait,
        producers: u64,
        work_rounds: u32,
    ) -> Result<&Measured> {
        harness_core::grid::find(
            &self.points,
            "the measured points",
            (experiment, design, wait, producers, work_rounds),
            Measured::key,
        )
    }

    /// The producer counts `experiment` measured, smallest first.
    pub fn producers(&self, experiment: Experiment) -> Vec<u64> {
        let set: BTreeSet<u64> = self
            .points
            .iter()
            .filter(|m| m.experiment == experiment)
            .map(|m| m.producers)
            .collect();
        set.into_iter().collect()
    }

    pub fn work_cost(&self, work_rounds: u32) -> Option<&WorkCost> {
        self.work_cost.iter().find(|w| w.work_rounds == work_rounds)
    }
}

/// The consumer's per-message work timed alone: one iteration hashes
/// `messages` messages into a sink.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct WorkCost {
    pub work_rounds: u32,
    pub messages: u64,
    pub timing: Timing,
}

impl WorkCost {
    pub fn ns_per_message(&self) -> f64 {
        self.timing.mean.point_ns / self.messages as f64
    }
}
