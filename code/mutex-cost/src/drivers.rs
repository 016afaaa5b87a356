//! The published round (counter, 100,000 futures, `join_all`, final read)
//! driven the ways a careful reproducer might drive it, each round timed on
//! its own with the minor page faults and context switches the process took
//! meanwhile. These are the method choices that move the published ratio;
//! `probe` runs each in a process of its own, under one allocator.
use std::sync::Arc;
use std::time::Instant;

use anyhow::{ensure, Context, Result};
use serde::{Deserialize, Serialize};

use crate::experiments::RuntimeUsed;
use crate::workload::{expected_value, join_all_round};
use crate::{ActorCounter, Counter, StdMutexCounter, TokioBudgetFirstCounter, TokioMutexCounter};

/// How the rounds reach the runtime.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Driver {
    /// Rounds looped inside one `block_on`, as criterion's `to_async` runs
    /// its iterations: the round is polled on the calling thread.
    LoopedInBlockOn,
    /// A `block_on` of its own for every round.
    BlockOnPerRound,
    /// Rounds looped inside one spawned task, polled by a worker thread.
    SpawnedTask,
}

impl Driver {
    pub fn name(self) -> &'static str {
        match self {
            Driver::LoopedInBlockOn => "looped_in_block_on",
            Driver::BlockOnPerRound => "block_on_per_round",
            Driver::SpawnedTask => "spawned_task",
        }
    }

    pub fn label(self) -> &'static str {
        match self {
            Driver::LoopedInBlockOn => "rounds looped in one block_on (criterion's to_async)",
            Driver::BlockOnPerRound => "one block_on per round",
            Driver::SpawnedTask => "rounds in one spawned task",
        }
    }
}

/// The lock under the round, and how tokio's co-op budget meets it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Lock {
    #[serde(rename = "std_mutex")]
    Std,
    /// tokio's Mutex as this build has it: the budget is asked after the
    /// permit is taken (tokio 1.54 and later).
    #[serde(rename = "tokio_mutex")]
    Tokio,
    /// tokio's Mutex with the budget asked first, as before tokio 1.54
    /// (see `tokio_budget_first_counter`).
    #[serde(rename = "tokio_mutex_budget_first")]
    TokioBudgetFirst,
    /// tokio's Mutex with the round run under `tokio::task::unconstrained`:
    /// no budget, so a free lock never answers `Pending`.
    #[serde(rename = "tokio_mutex_no_budget")]
    TokioNoBudget,
    /// The actor (mpsc requests, oneshot replies): counted for its polls
    /// only, not part of the timed grid (`ALL`).
    #[serde(rename = "actor")]
    Actor,
}

impl Lock {
    pub const ALL: [Lock; 4] = [
        Lock::Std,
        Lock::Tokio,
        Lock::TokioBudgetFirst,
        Lock::TokioNoBudget,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Lock::Std => "std_mutex",
            Lock::Tokio => "tokio_mutex",
            Lock::TokioBudgetFirst => "tokio_mutex_budget_first",
            Lock::TokioNoBudget => "tokio_mutex_no_budget",
            Lock::Actor => "actor",
        }
    }

    pub fn label(self) -> &'static str {
        match self {
            Lock::Std => "std Mutex",
            Lock::Tokio => "tokio Mutex",
            Lock::TokioBudgetFirst => {
                "tokio Mutex, budget asked before the permit (tokio before 1.54)"
            }
            Lock::TokioNoBudget => "tokio Mutex, round unconstrained (no co-op budget)",
            Lock::Actor => "actor (mpsc + oneshot)",
        }
    }
}

/// The bytes of one future of the published round under `lock`: the round
/// allocates a Vec of them and a task of `join_all`'s around each.
pub fn future_bytes(lock: Lock) -> Option<usize> {
    fn of<C: Counter>() -> usize {
        std::mem::size_of_val(&crate::workload::one_future(Arc::new(C::start())))
    }
    Some(match lock {
        Lock::Std => of::<StdMutexCounter>(),
        Lock::Tokio | Lock::TokioNoBudget => of::<TokioMutexCounter>(),
        Lock::TokioBudgetFirst => of::<TokioBudgetFirstCounter>(),
        // Starting an actor needs a runtime; the grid does not time it.
        Lock::Actor => return None,
    })
}

/// What one round cost the process.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct RoundCost {
    pub ns: u64,
    /// Minor page faults of the whole process during the round: pages the
    /// kernel had to hand (back) to the allocator.
    pub minor_faults: u64,
    /// Voluntary and involuntary context switches of every thread of the
    /// process during the round: threads that slept and were woken.
    pub context_switches: u64,
}

/// (minor faults, context switches) of the whole process so far.
fn usage() -> (u64, u64) {
    // Safety: getrusage fills the struct it is given; zeroes are a valid start.
    let mut u: libc::rusage = unsafe { std::mem::zeroed() };
    // Safety: RUSAGE_SELF with a valid pointer cannot fail.
    unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut u) };
    let n = |v: libc::c_long| v.max(0) as u64;
    (n(u.ru_minflt), n(u.ru_nvcsw) + n(u.ru_nivcsw))
}

// ANCHOR: timed_round
/// One published round, timed as the published `iter` times it: the counter
/// and the futures are made inside the timed region.
async fn timed_round<C: Counter>(futures: usize, unconstrained: bool) -> Result<RoundCost> {
    let (faults, switches) = usage();
    let start = Instant::now();
    let round = join_all_round(Arc::new(C::start()), futures);
    let value = if unconstrained {
        tokio::task::unconstrained(round).await
    } else {
        round.await
    };
    let ns = start.elapsed().as_nanos() as u64;
    let (faults_after, switches_after) = usage();
    ensure!(
        value == expected_value(futures),
        "a round ended at {value}, expected {}",
        expected_value(futures)
    );
    Ok(RoundCost {
        ns: ns.max(1),
        minor_faults: faults_after - faults,
        context_switches: switches_after - switches,
    })
}
// ANCHOR_END: timed_round

async fn looped<C: Counter>(
    futures: usize,
    unconstrained: bool,
    rounds: usize,
) -> Result<Vec<RoundCost>> {
    let mut out = Vec::with_capacity(rounds);
    for _ in 0..rounds {
        out.push(timed_round::<C>(futures, unconstrained).await?);
    }
    Ok(out)
}

fn drive<C: Counter>(
    driver: Driver,
    runtime: &RuntimeUsed,
    futures: usize,
    unconstrained: bool,
    rounds: usize,
) -> Result<Vec<RoundCost>> {
    let rt = runtime.build()?;
    match driver {
        Driver::LoopedInBlockOn => rt.block_on(looped::<C>(futures, unconstrained, rounds)),
        Driver::BlockOnPerRound => (0..rounds)
            .map(|_| rt.block_on(timed_round::<C>(futures, unconstrained)))
            .collect(),
        Driver::SpawnedTask => rt
            .block_on(async { tokio::spawn(looped::<C>(futures, unconstrained, rounds)).await })
            .context("the task driving the rounds panicked")?,
    }
}

/// `rounds` rounds of `futures` futures under `lock`, driven by `driver` on
/// a fresh runtime, each validated; every round's cost in order.
pub fn run_rounds(
    lock: Lock,
    driver: Driver,
    runtime: &RuntimeUsed,
    futures: usize,
    rounds: usize,
) -> Result<Vec<RoundCost>> {
    ensure!(rounds > 0 && futures > 0, "nothing to run");
    match lock {
        Lock::Std => drive::<StdMutexCounter>(driver, runtime, futures, false, rounds),
        Lock::Tokio => drive::<TokioMutexCounter>(driver, runtime, futures, false, rounds),
        Lock::TokioBudgetFirst => {
            drive::<TokioBudgetFirstCounter>(driver, runtime, futures, false, rounds)
        }
        Lock::TokioNoBudget => drive::<TokioMutexCounter>(driver, runtime, futures, true, rounds),
        Lock::Actor => drive::<ActorCounter>(driver, runtime, futures, false, rounds),
    }
}
