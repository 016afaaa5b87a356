//! What the consumer's placement does to the two swaps, counted rather than
//! timed: the swaps of designs 4 and 5, their own loops run with a hook
//! (`lock_hook`) that counts every lock they take,
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

use crate::burst::LiveProducers;
use crate::lock_hook::LockHook;
use crate::sink::Sink;
use crate::swap_loops::{StdSwap, SwapLoops, TokioSwap};
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

/// What a counting hook counts its locks as.
#[derive(Debug)]
enum Role {
    /// The consumer: its turns, its waits and how long they lasted.
    Consumer,
    /// A producer of `per_worker` pushes: its waits. `pushed` is its own
    /// tally; at its last push it adds them all to `Counters::pushes`,
    /// before it leaves, so a burst's count is whole when its consumer
    /// returns, and no producer touches a shared counter per push.
    Producer { per_worker: u64, pushed: AtomicU64 },
}

/// The hook the counted bursts pass the swaps: every lock of the swap's own
/// loops (`std_mutex_swap`, `tokio_mutex_swap`) is counted into `counters`.
#[derive(Debug)]
struct Counting {
    counters: Arc<Counters>,
    role: Role,
}

impl Counting {
    fn consumer(counters: &Arc<Counters>) -> Counting {
        Counting {
            counters: Arc::clone(counters),
            role: Role::Consumer,
        }
    }

    fn producer(counters: &Arc<Counters>, per_worker: usize) -> Counting {
        Counting {
            counters: Arc::clone(counters),
            role: Role::Producer {
                per_worker: per_worker as u64,
                pushed: AtomicU64::new(0),
            },
        }
    }

    /// Counts a lock asked for: a consumer's turn, or a producer's push.
    fn asking(&self) {
        match &self.role {
            Role::Consumer => {
                self.counters.consumer_turns.fetch_add(1, Ordering::Relaxed);
            }
            Role::Producer { per_worker, pushed } => {
                // Only this producer's task touches `pushed`.
                let n = pushed.load(Ordering::Relaxed) + 1;
                pushed.store(n, Ordering::Relaxed);
                if n == *per_worker {
                    self.counters.pushes.fetch_add(n, Ordering::Relaxed);
                }
            }
        }
    }

    /// Counts a lock held: a wait if it was taken when asked for (since
    /// `asked`), or a yield if the task had to yield for its budget instead.
    fn taken(&self, asked: Option<Instant>, spent: bool) {
        let c = &self.counters;
        if spent {
            c.budget_yields.fetch_add(1, Ordering::Relaxed);
        } else if let Some(asked) = asked {
            match self.role {
                Role::Consumer => {
                    c.consumer_waits.fetch_add(1, Ordering::Relaxed);
                    let ns = asked.elapsed().as_nanos() as u64;
                    c.consumer_wait_ns.fetch_add(ns, Ordering::Relaxed);
                }
                Role::Producer { .. } => {
                    c.pushes_waited.fetch_add(1, Ordering::Relaxed);
                }
            }
        }
    }
}

impl LockHook for Counting {
    fn std_lock<'a>(
        &self,
        inbox: &'a std::sync::Mutex<Vec<u8>>,
    ) -> std::sync::MutexGuard<'a, Vec<u8>> {
        self.asking();
        match inbox.try_lock() {
            Ok(guard) => guard,
            Err(TryLockError::WouldBlock) => {
                let asked = Instant::now();
                let guard = inbox.lock().unwrap();
                self.taken(Some(asked), false);
                guard
            }
            Err(TryLockError::Poisoned(e)) => panic!("{e}"),
        }
    }

    async fn tokio_lock<'a>(
        &'a self,
        inbox: &'a tokio::sync::Mutex<Vec<u8>>,
    ) -> tokio::sync::MutexGuard<'a, Vec<u8>> {
        self.asking();
        // The lock future itself, polled as `.await` would poll it, noting
        // when it first said "not yet", and whether that was for the budget
        // (the lock says "not yet" before trying when the budget is spent).
        let mut lock = pin!(inbox.lock());
        let mut asked: Option<Instant> = None;
        let mut spent = false;
        let guard = poll_fn(|cx| {
            let budget_left = budget_left();
            let polled = lock.as_mut().poll(cx);
            if polled.is_pending() && asked.is_none() {
                asked = Some(Instant::now());
                spent = budget_left == Some(false);
            }
            polled
        })
        .await;
        self.taken(asked, spent);
        guard
    }
}

/// The inbox and producers of one counted burst.
fn inbox<S: SwapLoops>(
    workers: usize,
    per_worker: usize,
    counters: &Arc<Counters>,
) -> (S::Inbox, LiveProducers, impl FnOnce() + Send + 'static) {
    let inbox = S::Inbox::default();
    let live = LiveProducers::new(workers);
    let spawn_producers = {
        let (inbox, live, counters) = (inbox.clone(), live.clone(), Arc::clone(counters));
        move || {
            for w in 0..workers {
                tokio::spawn(S::produce_with(
                    inbox.clone(),
                    live.enlist(),
                    w,
                    per_worker,
                    Counting::producer(&counters, per_worker),
                ));
            }
        }
    };
    (inbox, live, spawn_producers)
}

async fn on_worker<S: SwapLoops>(
    workers: usize,
    per_worker: usize,
    sink: Sink,
    counters: Arc<Counters>,
) -> io::Result<Sink> {
    let (inbox, live, spawn_producers) = inbox::<S>(workers, per_worker, &counters);
    let consumer = tokio::spawn(S::consume_with(
        inbox,
        live,
        sink,
        Counting::consumer(&counters),
    ));
    spawn_producers();
    consumer.await?
}

async fn on_driver<S: SwapLoops>(
    workers: usize,
    per_worker: usize,
    sink: Sink,
    counters: Arc<Counters>,
) -> io::Result<Sink> {
    let (inbox, live, spawn_producers) = inbox::<S>(workers, per_worker, &counters);
    let local = LocalSet::new();
    let consumer = local.spawn_local(S::consume_with(
        inbox,
        live,
        sink,
        Counting::consumer(&counters),
    ));
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
        Design::StdMutexSwap => on_worker::<StdSwap>(workers, per_worker, sink, counters).await,
        Design::TokioMutexSwap => on_worker::<TokioSwap>(workers, per_worker, sink, counters).await,
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
        Design::StdMutexSwap => on_driver::<StdSwap>(workers, per_worker, sink, counters).await,
        Design::TokioMutexSwap => on_driver::<TokioSwap>(workers, per_worker, sink, counters).await,
        other => Err(no_lock(other)),
    }
}

#[cfg(test)]
mod tests {
    use std::sync::{Barrier, Mutex};
    use std::time::Duration;

    use super::*;

    #[test]
    fn the_counting_hook_counts_turns_waits_and_a_producers_pushes_once() {
        let counters = Arc::new(Counters::default());
        let inbox = Mutex::new(Vec::new());
        let consumer = Counting::consumer(&counters);
        // Free when asked: a turn, no wait.
        drop(consumer.std_lock(&inbox));
        // Held by another thread for 20 ms when asked: a turn and a wait.
        let held = Barrier::new(2);
        std::thread::scope(|s| {
            s.spawn(|| {
                let guard = inbox.lock().unwrap();
                held.wait();
                std::thread::sleep(Duration::from_millis(20));
                drop(guard);
            });
            held.wait();
            drop(consumer.std_lock(&inbox));
        });
        // A producer of three pushes adds them when it makes its last.
        let producer = Counting::producer(&counters, 3);
        for _ in 0..2 {
            producer.std_lock(&inbox).push(1);
        }
        assert_eq!(counters.pushes.load(Ordering::Relaxed), 0);
        producer.std_lock(&inbox).push(1);
        let k = counters.take();
        assert_eq!(
            (
                k.consumer_turns,
                k.consumer_waits,
                k.pushes,
                k.pushes_waited
            ),
            (2, 1, 3, 0)
        );
        assert!(k.consumer_wait_ns >= 10_000_000, "{k:?}");
        assert_eq!(inbox.lock().unwrap().len(), 3);
        // The timed burst's hook takes the same lock and counts nothing.
        crate::lock_hook::NoHook.std_lock(&inbox).clear();
        let k = counters.take();
        assert_eq!((k.consumer_turns, k.consumer_waits, k.pushes), (0, 0, 0));
    }
}
