//! Experiment B from the published method to the fair one, a flaw at a time.
//! Three kinds of run ([`RUNGS`]) give every step: the published receiver
//! and ending; the book's lock-free receiver with the published ending; and
//! the fair experiment. Each run records both clocks, so the steps that
//! change what is reported (which stamp, mean or median) read the same run.
use std::time::Duration;

use anyhow::Result;
use harness_core::Profile;
use serde::{Deserialize, Serialize};

use crate::backpressure::{self, AsyncChannel, Ending, Recording, Run, Rung};

/// A kind of run on the ladder.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LadderRung {
    pub id: &'static str,
    pub recording: Recording,
    /// Sleeps a pause instead of awaiting the receiver.
    pub sleeps: bool,
}

pub const RUNGS: [LadderRung; 3] = [
    LadderRung {
        id: "published",
        recording: Recording::SharedVec,
        sleeps: true,
    },
    LadderRung {
        id: "lock-free",
        recording: Recording::Owned,
        sleeps: true,
    },
    LadderRung {
        id: "fair",
        recording: Recording::Owned,
        sleeps: false,
    },
];

impl LadderRung {
    pub fn rung(self, profile: Profile) -> Rung {
        Rung {
            recording: self.recording,
            ending: if self.sleeps {
                Ending::Sleep(pause(profile))
            } else {
                Ending::Join
            },
        }
    }
}

pub fn rung(id: &str) -> Option<LadderRung> {
    RUNGS.into_iter().find(|r| r.id == id)
}

/// Runs of every rung, channel and setting: enough to draw an interval from
/// (`harness_measure::stats::MIN_PAIRS`), each a separate stretch of the run.
pub const REPEATS: usize = 4;

/// Messages per ladder run, split over the producers. The published run
/// sent 100,000 per task; every repeat here is a run of its own.
pub fn messages(profile: Profile) -> usize {
    profile.pick(2_000, 50_000, 250_000)
}

/// The published program slept a second after its last producer finished
/// and before it read the `Vec`. Only the last few messages (at most the
/// bound) are still in flight then, which take well under a millisecond to
/// drain here; the pause stands in for that guess, shorter. It is the same
/// in every profile: smoke runs once paused 2 ms, and with a build running
/// beside them the receiver was sometimes still draining when it ended.
pub fn pause(_: Profile) -> Duration {
    Duration::from_millis(20)
}

/// One run of one rung.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LadderRun {
    pub rung: String,
    /// Which repeat: runs of one repeat are measured in one pass over the
    /// settings, so ratios pair them.
    pub repeat: usize,
    /// Messages the method could report when it read its result (every one
    /// for a joined run; the `Vec`'s length when a sleeping one woke).
    pub counted_at_end: u64,
    /// Latencies over those messages; checks over every message.
    pub run: Run,
}

/// Runs `rung` once for channel `C`.
pub fn run<C: AsyncChannel>(
    rung: LadderRung,
    profile: Profile,
    tasks: usize,
    bound: usize,
    repeat: usize,
) -> Result<LadderRun> {
    let per_task = (messages(profile) / tasks).max(1);
    let (run, counted_at_end) = backpressure::run_rung::<C>(
        tasks,
        per_task,
        bound,
        crate::HANG_LIMIT,
        rung.rung(profile),
    )?;
    Ok(LadderRun {
        rung: rung.id.to_string(),
        repeat,
        counted_at_end,
        run,
    })
}
