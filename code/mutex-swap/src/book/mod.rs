//! The chapter as the book sees it: the results one run keeps, the claim
//! they decide, and the exhibits the page shows, each in a module of its own.
mod batching;
mod check;
mod claims;
mod lock_hold;
mod measure;
mod parameters;
mod profiles;
mod throughput;
mod wait;

use std::collections::BTreeSet;

use anyhow::Result;
use harness::chapter::{Exhibit, ExhibitKind};
use harness::stacks::Stacks;
use harness::timing::Timing;
use harness::{Chapter, Claim, Estimate, Lab, Run};
use serde::{Deserialize, Serialize};

use crate::experiment::Passes;
use crate::{Design, Wait, LIGHT_WORK};

pub struct MutexSwap;

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

    /// Messages per pass with a 95% interval drawn over the rounds: the
    /// batch swings with when the consumer thread gets a core, and a round
    /// is one stretch of the run. `None` with a single round, which has no
    /// spread to draw from.
    pub fn batch(&self) -> Option<Estimate> {
        let rounds: Vec<(f64, f64)> = self
            .rounds
            .iter()
            .map(|r| (r.messages as f64, r.passes_with_messages as f64))
            .collect();
        harness::stats::ratio_of_sums(&rounds).ok()
    }

    /// The same with each burst's largest pass left out (its interval drawn
    /// the same way): the pass after the consumer's longest wait for a core,
    /// which can hold half of a short burst and would make the mean depend
    /// on the burst's length. `None` with a single round.
    pub fn steady_batch(&self) -> Option<Estimate> {
        let rounds: Vec<(f64, f64)> = self
            .rounds
            .iter()
            .map(|r| {
                let messages = r.messages.saturating_sub(r.largest_batches);
                let passes = r.passes_with_messages.saturating_sub(r.bursts);
                (messages as f64, passes as f64)
            })
            .collect();
        harness::stats::ratio_of_sums(&rounds).ok()
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
    pub points: Vec<Measured>,
    /// CPU profiles of the std swap with each consumer the busy-cost
    /// comparison sets side by side, busy polling first.
    pub profiles: Vec<WaitProfile>,
}

/// Bursts of one design and wait strategy run under the CPU profiler
/// (`harness::stacks::record`), outside any timing.
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
        harness::grid::find(
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

/// "light" or "heavy": how the page names a work level.
fn work_kind(work_rounds: u32) -> &'static str {
    if work_rounds == crate::HEAVY_WORK {
        "heavy"
    } else {
        "light"
    }
}

/// The set-up every results caption states.
fn runtime_note(run: &Run<Data>) -> String {
    format!(
        "producers: tokio multi-thread runtime, {} worker threads; consumer: current-thread \
         runtime on its own OS thread; {} messages per burst; machine {}",
        run.data.worker_threads,
        harness::fmt::thousands(run.data.messages_per_burst),
        run.machine()
    )
}

/// Messages per second, from the time of one burst.
fn rate(messages: u64, ns: f64) -> f64 {
    messages as f64 / (ns * 1e-9)
}

/// Millions of messages per second, as the tables give throughput.
fn million_per_s(messages: u64, ns: f64) -> f64 {
    rate(messages, ns) / 1e6
}

const EXHIBITS: &[Exhibit<Data>] = &[
    Exhibit {
        name: "parameters",
        kind: ExhibitKind::Table,
        about: "experiment parameters per profile and the measured machine's runtime set-up",
        render: parameters::render,
    },
    Exhibit {
        name: "throughput",
        kind: ExhibitKind::Figure,
        about: "messages per second against producer count, per design (log-log)",
        render: throughput::figure,
    },
    Exhibit {
        name: "throughput-table",
        kind: ExhibitKind::Table,
        about: "the throughput figure's numbers with their confidence intervals",
        render: throughput::table,
    },
    Exhibit {
        name: "batching",
        kind: ExhibitKind::Table,
        about: "messages per consumer pass against producer count, per design",
        render: batching::render,
    },
    Exhibit {
        name: "wait",
        kind: ExhibitKind::Table,
        about: "burst time and consumer CPU per design and wait strategy",
        render: wait::tables,
    },
    Exhibit {
        name: "busy-cost",
        kind: ExhibitKind::Text,
        about: "how much a busy-polling consumer slows the producers, against Notify",
        render: wait::busy_cost,
    },
    Exhibit {
        name: "profiles",
        kind: ExhibitKind::Figure,
        about: "flame graphs of the std swap with a busy-polling and a Notify consumer, and \
                where their CPU samples went",
        render: profiles::render,
    },
    Exhibit {
        name: "lock-hold",
        kind: ExhibitKind::Table,
        about: "swap-only critical section against draining under the lock",
        render: lock_hold::render,
    },
    Exhibit {
        name: "verdicts",
        kind: ExhibitKind::Verdicts,
        about: "verdict on FAN-4",
        render: claims::verdicts,
    },
];

impl Chapter for MutexSwap {
    type Data = Data;
    const NAME: &'static str = "mutex-swap";
    const MEASURED_CRATES: &'static [&'static str] = &["tokio", "parking_lot"];
    const CLAIMS: &'static [Claim] = claims::CLAIMS;
    const EXHIBITS: &'static [Exhibit<Data>] = EXHIBITS;

    fn measure(lab: &Lab) -> Result<Data> {
        measure::measure(lab)
    }

    fn check(data: &Data) -> Result<()> {
        check::check(data)
    }

    fn headline(data: &Data) -> Vec<(String, Estimate)> {
        claims::decisive_estimates(data)
    }
}
