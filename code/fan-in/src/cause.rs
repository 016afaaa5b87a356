//! What the consumer's placement does to the two swaps, counted rather than
//! timed: the swaps of designs 4 and 5 with every lock they take counted,
//! run where the published bench ran the consumer (the `block_on` thread)
//! and where the book runs it (a task on a worker).
//!
//! `tokio::sync::Mutex` hands the lock over in the order it was asked for:
//! when the holder unlocks and someone is queued, the first in the queue
//! gets it and is woken, and anyone else who asks meanwhile queues behind.
//! A task on a worker is woken by pushing it onto a run queue; a consumer
//! polled by `block_on` sleeps in the operating system and is woken by it.
//! Until it runs, the lock is its own and every producer that wants to push
//! queues. `std::sync::Mutex` hands nothing over: whoever asks when it is
//! free takes it. The counts show which happens, and how often.
use std::future::{poll_fn, Future};
use std::io;
use std::pin::pin;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, TryLockError};
use std::time::Instant;

use serde::{Deserialize, Serialize};
use tokio::task::LocalSet;

use crate::burst::{message, Departure, LiveProducers};
use crate::sink::Sink;
use crate::Design;

/// The first tokio release that can say whether a task's co-op budget is
/// spent (`tokio::task::coop::has_budget_remaining`); set by `build.rs`.
pub const BUDGET_QUERY_SINCE: &str = env!("TOKIO_BUDGET_QUERY_SINCE");

/// Whether the task's co-op budget has room, where this tokio can say.
fn budget_left() -> Option<bool> {
    #[cfg(tokio_budget_query)]
    return Some(tokio::task::coop::has_budget_remaining());
    #[cfg(not(tokio_budget_query))]
    None
}

/// The counters one burst fills.
#[derive(Debug, Default)]
pub struct Counters {
    consumer_turns: AtomicU64,
    consumer_waits: AtomicU64,
    consumer_wait_ns: AtomicU64,
    pushes: AtomicU64,
    pushes_waited: AtomicU64,
    budget_yields: AtomicU64,
}

/// What one burst counted.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Counts {
    /// Times the consumer held the lock (one swap each).
    pub consumer_turns: u64,
    /// Of those, times it found the lock taken and had to wait.
    pub consumer_waits: u64,
    /// Nanoseconds from finding the lock taken to holding it, summed.
    pub consumer_wait_ns: u64,
    /// Pushes of every producer.
    pub pushes: u64,
    /// Of those, pushes whose lock was taken when asked for.
    pub pushes_waited: u64,
    /// Locks (the consumer's or a producer's) that made their task yield
    /// because it had spent tokio's cooperative budget (128 operations a
    /// turn): `tokio::sync::Mutex::lock` spends it, `std`'s never does.
    /// `None` under a tokio that cannot tell (before
    /// `coop::has_budget_remaining`, see [`BUDGET_QUERY_SINCE`]): its budget
    /// yields are counted as waits.
    pub budget_yields: Option<u64>,
    /// Voluntary context switches of the whole process during the burst
    /// (a thread that sleeps until the OS wakes it); `None` where the OS
    /// does not report them.
    pub context_switches: Option<u64>,
}

impl Counters {
    /// The counts so far, and zero again.
    pub fn take(&self) -> Counts {
        let take = |c: &AtomicU64| c.swap(0, Ordering::Relaxed);
        Counts {
            consumer_turns: take(&self.consumer_turns),
            consumer_waits: take(&self.consumer_waits),
            consumer_wait_ns: take(&self.consumer_wait_ns),
            pushes: take(&self.pushes),
            pushes_waited: take(&self.pushes_waited),
            budget_yields: Some(take(&self.budget_yields)).filter(|_| cfg!(tokio_budget_query)),
            context_switches: None,
        }
    }
}

/// Voluntary context switches of every thread of this process so far
/// (Linux: `/proc/self/task/*/status`).
pub fn context_switches() -> Option<u64> {
    let tasks = std::fs::read_dir("/proc/self/task").ok()?;
    let mut total = 0;
    for task in tasks.flatten() {
        // A thread that ended since the listing has no status: skip it.
        let Ok(status) = std::fs::read_to_string(task.path().join("status")) else {
            continue;
        };
        total += status
            .lines()
            .find_map(|l| l.strip_prefix("voluntary_ctxt_switches:"))?
            .trim()
            .parse::<u64>()
            .ok()?;
    }
    Some(total)
}

/// A swap's mutex, locked with the wait counted.
trait CountedLock: Send + Sync + 'static {
    fn new() -> Self;
    /// Runs `f` under the lock; counts a wait in `waits` (and its length in
    /// `wait_ns`, when given) if the lock was taken when asked for, and a
    /// yield in `yields` if the task had to yield for its budget instead.
    fn with<R: Send>(
        &self,
        waits: &AtomicU64,
        wait_ns: Option<&AtomicU64>,
        yields: &AtomicU64,
        f: impl FnOnce(&mut Vec<u8>) -> R + Send,
    ) -> impl Future<Output = R> + Send;
}

impl CountedLock for std::sync::Mutex<Vec<u8>> {
    fn new() -> Self {
        std::sync::Mutex::new(Vec::new())
    }

    async fn with<R: Send>(
        &self,
        waits: &AtomicU64,
        wait_ns: Option<&AtomicU64>,
        _yields: &AtomicU64,
        f: impl FnOnce(&mut Vec<u8>) -> R + Send,
    ) -> R {
        let mut guard = match self.try_lock() {
            Ok(guard) => guard,
            Err(TryLockError::WouldBlock) => {
                waits.fetch_add(1, Ordering::Relaxed);
                let asked = Instant::now();
                let guard = self.lock().unwrap();
                if let Some(ns) = wait_ns {
                    ns.fetch_add(asked.elapsed().as_nanos() as u64, Ordering::Relaxed);
                }
                guard
            }
            Err(TryLockError::Poisoned(e)) => panic!("{e}"),
        };
        f(&mut guard)
    }
}

impl CountedLock for tokio::sync::Mutex<Vec<u8>> {
    fn new() -> Self {
        tokio::sync::Mutex::new(Vec::new())
    }

    async fn with<R: Send>(
        &self,
        waits: &AtomicU64,
        wait_ns: Option<&AtomicU64>,
        yields: &AtomicU64,
        f: impl FnOnce(&mut Vec<u8>) -> R + Send,
    ) -> R {
        // The lock future itself, polled as `.await` would poll it, noting
        // when it first said "not yet", and whether that was for the budget
        // (the lock says "not yet" before trying when the budget is spent).
        let mut lock = pin!(self.lock());
        let mut asked: Option<Instant> = None;
        let mut spent = false;
        let mut guard = poll_fn(|cx| {
            let budget_left = budget_left();
            let polled = lock.as_mut().poll(cx);
            if polled.is_pending() && asked.is_none() {
                asked = Some(Instant::now());
                spent = budget_left == Some(false);
            }
            polled
        })
        .await;
        if spent {
            yields.fetch_add(1, Ordering::Relaxed);
        } else if let Some(asked) = asked {
            waits.fetch_add(1, Ordering::Relaxed);
            if let Some(ns) = wait_ns {
                ns.fetch_add(asked.elapsed().as_nanos() as u64, Ordering::Relaxed);
            }
        }
        f(&mut guard)
    }
}

async fn produce<L: CountedLock>(
    inbox: Arc<L>,
    departure: Departure,
    worker: usize,
    per_worker: usize,
    counters: Arc<Counters>,
) {
    let _departure = departure;
    for i in 0..per_worker {
        inbox
            .with(
                &counters.pushes_waited,
                None,
                &counters.budget_yields,
                |b| b.push(message(worker, i)),
            )
            .await;
    }
    counters
        .pushes
        .fetch_add(per_worker as u64, Ordering::Relaxed);
}

/// The fair consumer of designs 4 and 5, its turns counted.
async fn consume<L: CountedLock>(
    inbox: Arc<L>,
    live: LiveProducers,
    mut sink: Sink,
    counters: Arc<Counters>,
) -> io::Result<Sink> {
    let mut batch = Vec::new();
    loop {
        let finished = live.all_done();
        inbox
            .with(
                &counters.consumer_waits,
                Some(&counters.consumer_wait_ns),
                &counters.budget_yields,
                |b| std::mem::swap(&mut batch, b),
            )
            .await;
        counters.consumer_turns.fetch_add(1, Ordering::Relaxed);
        if !batch.is_empty() {
            sink.write_all(&batch).await?;
            batch.clear();
        } else if finished {
            return Ok(sink);
        } else {
            tokio::task::yield_now().await;
        }
    }
}

/// The inbox and producers of one counted burst.
fn inbox<L: CountedLock>(
    workers: usize,
    per_worker: usize,
    counters: &Arc<Counters>,
) -> (Arc<L>, LiveProducers, impl FnOnce() + Send + 'static) {
    let inbox = Arc::new(L::new());
    let live = LiveProducers::new(workers);
    let spawn_producers = {
        let (inbox, live, counters) = (Arc::clone(&inbox), live.clone(), Arc::clone(counters));
        move || {
            for w in 0..workers {
                tokio::spawn(produce(
                    Arc::clone(&inbox),
                    live.enlist(),
                    w,
                    per_worker,
                    Arc::clone(&counters),
                ));
            }
        }
    };
    (inbox, live, spawn_producers)
}

async fn on_worker<L: CountedLock>(
    workers: usize,
    per_worker: usize,
    sink: Sink,
    counters: Arc<Counters>,
) -> io::Result<Sink> {
    let (inbox, live, spawn_producers) = inbox::<L>(workers, per_worker, &counters);
    let consumer = tokio::spawn(consume(inbox, live, sink, counters));
    spawn_producers();
    consumer.await?
}

async fn on_driver<L: CountedLock>(
    workers: usize,
    per_worker: usize,
    sink: Sink,
    counters: Arc<Counters>,
) -> io::Result<Sink> {
    let (inbox, live, spawn_producers) = inbox::<L>(workers, per_worker, &counters);
    let local = LocalSet::new();
    let consumer = local.spawn_local(consume(inbox, live, sink, counters));
    tokio::spawn(async move { spawn_producers() });
    local.run_until(consumer).await?
}

fn no_lock(design: Design) -> io::Error {
    io::Error::other(format!("{} has no lock to count", design.label()))
}

/// A burst of design 4 or 5 with its locks counted into `counters`, its
/// consumer spawned as a task (call it from a task, as the fair burst is).
pub async fn burst_on_worker(
    design: Design,
    workers: usize,
    per_worker: usize,
    sink: Sink,
    counters: Arc<Counters>,
) -> io::Result<Sink> {
    match design {
        Design::StdMutexSwap => {
            on_worker::<std::sync::Mutex<Vec<u8>>>(workers, per_worker, sink, counters).await
        }
        Design::TokioMutexSwap => {
            on_worker::<tokio::sync::Mutex<Vec<u8>>>(workers, per_worker, sink, counters).await
        }
        other => Err(no_lock(other)),
    }
}

/// The same with the consumer polled by the calling thread's `block_on`
/// (see `consumer_on_driver`).
pub async fn burst_on_driver(
    design: Design,
    workers: usize,
    per_worker: usize,
    sink: Sink,
    counters: Arc<Counters>,
) -> io::Result<Sink> {
    match design {
        Design::StdMutexSwap => {
            on_driver::<std::sync::Mutex<Vec<u8>>>(workers, per_worker, sink, counters).await
        }
        Design::TokioMutexSwap => {
            on_driver::<tokio::sync::Mutex<Vec<u8>>>(workers, per_worker, sink, counters).await
        }
        other => Err(no_lock(other)),
    }
}
