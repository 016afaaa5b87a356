//! How often the published round polls its futures, counted rather than
//! timed: how many times each future was polled, how many of those polls
//! answered `Pending`, and how many times the whole `join_all` went back to
//! its driver. With nobody else using the lock, every `Pending` is the co-op
//! budget at work, and the counts are the same on every machine.
use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::task::{Context, Poll};

use anyhow::{ensure, Context as _, Result};
use futures::future::join_all;
use serde::{Deserialize, Serialize};

use crate::drivers::{Driver, Lock};
use crate::experiments::RuntimeUsed;
use crate::workload::{expected_value, one_future};
use crate::{ActorCounter, Counter, StdMutexCounter, TokioBudgetFirstCounter, TokioMutexCounter};

#[derive(Default)]
struct Tally {
    polls: AtomicU64,
    pending: AtomicU64,
}

/// A future that counts its polls and its `Pending` answers into a tally.
struct Counting<F> {
    inner: Pin<Box<F>>,
    tally: Arc<Tally>,
}

impl<F: Future> Future for Counting<F> {
    type Output = F::Output;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<F::Output> {
        self.tally.polls.fetch_add(1, Ordering::Relaxed);
        let out = self.inner.as_mut().poll(cx);
        if out.is_pending() {
            self.tally.pending.fetch_add(1, Ordering::Relaxed);
        }
        out
    }
}

/// What one counted round did.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PollCount {
    pub lock: Lock,
    pub driver: Driver,
    pub runtime: RuntimeUsed,
    pub futures: usize,
    /// Polls of the futures `join_all` joins, all of them together.
    pub polls: u64,
    /// Of those, the ones that answered `Pending`.
    pub pending: u64,
    /// Times the `join_all` future itself was polled: each answer of
    /// `Pending` went back to the driver (the `block_on` loop or the
    /// scheduler) before the round could go on.
    pub round_polls: u64,
}

// ANCHOR: counted_round
/// The published round with each future, and the `join_all`, counted.
async fn counted_round<C: Counter>(futures: usize, unconstrained: bool) -> (i64, u64, u64, u64) {
    let counter = Arc::new(C::start());
    let each = Arc::new(Tally::default());
    let work: Vec<_> = (0..futures)
        .map(|_| Counting {
            inner: Box::pin(one_future(counter.clone())),
            tally: each.clone(),
        })
        .collect();
    let whole = Arc::new(Tally::default());
    let round = Counting {
        inner: Box::pin(join_all(work)),
        tally: whole.clone(),
    };
    if unconstrained {
        tokio::task::unconstrained(round).await;
    } else {
        round.await;
    }
    let value = counter.value().await;
    let read = |t: &Tally| t.polls.load(Ordering::Relaxed);
    (
        value,
        read(&each),
        each.pending.load(Ordering::Relaxed),
        read(&whole),
    )
}
// ANCHOR_END: counted_round

fn count<C: Counter>(
    driver: Driver,
    runtime: &RuntimeUsed,
    futures: usize,
    unconstrained: bool,
) -> Result<(i64, u64, u64, u64)> {
    let rt = runtime.build()?;
    Ok(match driver {
        Driver::LoopedInBlockOn | Driver::BlockOnPerRound => {
            rt.block_on(counted_round::<C>(futures, unconstrained))
        }
        Driver::SpawnedTask => rt
            .block_on(async { tokio::spawn(counted_round::<C>(futures, unconstrained)).await })
            .context("the counted round panicked")?,
    })
}

/// Counts one round of `futures` futures under `lock`, driven by `driver`.
pub fn poll_count(
    lock: Lock,
    driver: Driver,
    runtime: &RuntimeUsed,
    futures: usize,
) -> Result<PollCount> {
    let (value, polls, pending, round_polls) = match lock {
        Lock::Std => count::<StdMutexCounter>(driver, runtime, futures, false)?,
        Lock::Tokio => count::<TokioMutexCounter>(driver, runtime, futures, false)?,
        Lock::TokioBudgetFirst => {
            count::<TokioBudgetFirstCounter>(driver, runtime, futures, false)?
        }
        Lock::TokioNoBudget => count::<TokioMutexCounter>(driver, runtime, futures, true)?,
        Lock::Actor => count::<ActorCounter>(driver, runtime, futures, false)?,
    };
    ensure!(
        value == expected_value(futures),
        "counted round ({} {}): ended at {value}, expected {}",
        lock.name(),
        driver.name(),
        expected_value(futures)
    );
    ensure!(
        polls == pending + futures as u64,
        "counted round: {polls} polls, {pending} of them Pending, for {futures} futures"
    );
    Ok(PollCount {
        lock,
        driver,
        runtime: runtime.clone(),
        futures,
        polls,
        pending,
        round_polls,
    })
}
