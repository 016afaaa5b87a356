//! The chapter as the page shows it: the claim its results decide, the
//! rule that decides it, and the exhibits, each in a module of its own.
//! Everything here reads results and nothing here measures: it is left out
//! of the results' fingerprint, so a change to a caption or a rule makes
//! no result stale (`crate::run` holds what does).
mod batching;
mod check;
mod claims;
mod lock_hold;
mod parameters;
mod profiles;
mod reader;
mod throughput;
mod wait;

use harness::chapter::{Exhibit, ExhibitKind};
use harness::{Estimate, Run};

pub use check::check;
pub use claims::CLAIMS;

use crate::run::{Data, Experiment, Key, Measured, MutexSwap, WaitProfile};

impl Measured {
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
    harness::parameters::exhibit::<MutexSwap>(),
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

/// The estimates FAN-4's verdict rests on, for the precision exhibit.
pub fn headline(data: &Data) -> Vec<(String, Estimate)> {
    claims::decisive_estimates(data)
}
