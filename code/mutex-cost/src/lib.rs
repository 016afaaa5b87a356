//! tokio vs std mutex: what each lock costs, with and without contention, next
//! to an actor that owns the value, and what a blocked worker thread costs the
//! rest of the program.
//!
//! The variants, one module each:
//! - [`std_mutex_counter`]: the counter behind `std::sync::Mutex`;
//! - [`tokio_mutex_counter`]: the counter behind `tokio::sync::Mutex`;
//! - [`actor_counter`]: the counter owned by a task, reached over mpsc + oneshot;
//! - [`tokio_budget_first_counter`]: tokio's Mutex with the co-op budget asked
//!   before the lock is taken, as tokio did before 1.54.
//!
//! The locks readers choose between besides, compared in the contended,
//! uncontended and heartbeat experiments (no published claim rests on them):
//! - [`parking_lot_counter`]: the counter behind `parking_lot::Mutex`;
//! - [`async_lock_counter`]: the counter behind `async_lock::Mutex`;
//! - [`futures_mutex_counter`]: the counter behind `futures::lock::Mutex`.
//!
//! The experiments: [`workload`] (the published `join_all` shape and the
//! contended spawned-task shape), [`uncontended`] (nanoseconds per
//! lock + unlock), [`heartbeat`] (lateness of an unrelated task), all driven
//! by [`experiments`] and put on the page by the binary's `page` module. The published round's
//! sensitivity: [`drivers`] (how rounds reach the runtime), [`allocator`],
//! [`probe`] (a sample in a fresh process), [`sensitivity`] (the grid),
//! [`polls`] (polls counted, not timed), [`counted`] (instructions, by callgrind),
//! [`profiles`] (where a round's CPU time goes, sampled).
use std::future::Future;
use std::time::Duration;

use harness_core::Profile;
use harness_measure::timing::Sampling;
use serde::{Deserialize, Serialize};

/// Runs `$body` with `$C` standing for the counter type of `$variant`: the
/// one place a variant meets its type, so a new lock is one line here.
macro_rules! with_counter {
    ($variant:expr, $C:ident => $body:expr) => {
        match $variant {
            $crate::Variant::StdMutex => {
                type $C = $crate::StdMutexCounter;
                $body
            }
            $crate::Variant::TokioMutex => {
                type $C = $crate::TokioMutexCounter;
                $body
            }
            $crate::Variant::Actor => {
                type $C = $crate::ActorCounter;
                $body
            }
            $crate::Variant::ParkingLot => {
                type $C = $crate::ParkingLotCounter;
                $body
            }
            $crate::Variant::AsyncLock => {
                type $C = $crate::AsyncLockCounter;
                $body
            }
            $crate::Variant::FuturesMutex => {
                type $C = $crate::FuturesMutexCounter;
                $body
            }
        }
    };
}

pub mod actor_counter;
pub mod allocator;
pub mod async_lock_counter;
pub mod counted;
pub mod drivers;
pub mod experiments;
pub mod futures_mutex_counter;
pub mod heartbeat;
pub mod parking_lot_counter;
pub mod polls;
pub mod probe;
pub mod profiles;
pub mod run;
pub mod sensitivity;
pub mod std_mutex_counter;
pub mod tokio_budget_first_counter;
pub mod tokio_mutex_counter;
pub mod uncontended;
pub mod workload;

pub use actor_counter::ActorCounter;
pub use async_lock_counter::AsyncLockCounter;
pub use futures_mutex_counter::FuturesMutexCounter;
pub use parking_lot_counter::ParkingLotCounter;
pub use std_mutex_counter::StdMutexCounter;
pub use tokio_budget_first_counter::TokioBudgetFirstCounter;
pub use tokio_mutex_counter::TokioMutexCounter;

// ANCHOR: counter
/// One shared counter, several ways to guard it. Every variant starts at zero.
pub trait Counter: Send + Sync + Sized + 'static {
    /// A fresh counter at zero (the actor spawns its task: call inside a runtime).
    fn start() -> Self;
    fn increase_by(&self, n: i64) -> impl Future<Output = ()> + Send;
    fn decrease_by(&self, n: i64) -> impl Future<Output = ()> + Send;
    fn value(&self) -> impl Future<Output = i64> + Send;
}
// ANCHOR_END: counter

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Variant {
    StdMutex,
    TokioMutex,
    Actor,
    ParkingLot,
    AsyncLock,
    FuturesMutex,
}

impl Variant {
    /// The variants the published claims compare, measured at every point.
    pub const ALL: [Variant; 3] = [Variant::StdMutex, Variant::TokioMutex, Variant::Actor];

    /// The other locks readers reach for: compared beside `ALL` in the
    /// contended shape (at `Plan::compared_sizes`), not judged by a claim.
    pub const COMPARED: [Variant; 3] = [
        Variant::ParkingLot,
        Variant::AsyncLock,
        Variant::FuturesMutex,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Variant::StdMutex => "std_mutex",
            Variant::TokioMutex => "tokio_mutex",
            Variant::Actor => "actor",
            Variant::ParkingLot => "parking_lot_mutex",
            Variant::AsyncLock => "async_lock_mutex",
            Variant::FuturesMutex => "futures_mutex",
        }
    }

    pub fn label(self) -> &'static str {
        match self {
            Variant::StdMutex => "std Mutex",
            Variant::TokioMutex => "tokio Mutex",
            Variant::Actor => "actor (mpsc + oneshot)",
            Variant::ParkingLot => "parking_lot Mutex",
            Variant::AsyncLock => "async-lock Mutex",
            Variant::FuturesMutex => "futures Mutex",
        }
    }

    /// Every variant: the claims' three, then the compared locks.
    pub fn every() -> impl Iterator<Item = Variant> {
        Variant::ALL.into_iter().chain(Variant::COMPARED)
    }
}

/// The published experiment: 100,000 futures, final value 200,000.
pub const PUBLISHED_FUTURES: usize = 100_000;

/// The earlier post's mutex-vs-actor size, where MUT-2 is judged.
pub const ACTOR_CLAIM_FUTURES: usize = 10_000;

/// Spawned tasks in the contended shape: the same number for every worker
/// count, so the work is identical and only the parallelism changes. More
/// tasks than threads keeps a waiter queued behind every holder.
pub const CONTENDING_TASKS: usize = 8;

/// The actor's request queue, as deep as the published actor's. In the
/// `join_all` shape at the largest size more requests than this are in flight
/// at once, so senders wait for room there, exactly as in the published code.
pub const ACTOR_QUEUE: usize = 10_000;

/// Uncontended lock + unlock pairs in the co-op budget probe.
pub const COOP_PROBE_OPS: u64 = 100_000;

/// Worker threads for the heartbeat runtime: few, so one blocked thread is a
/// large share of the pool, and fixed, so machines compare.
pub const HEARTBEAT_WORKERS: usize = 2;
/// Twice the workers, so every worker can be holding or waiting at once.
pub const HEARTBEAT_CONTENDERS: usize = 2 * HEARTBEAT_WORKERS;
pub const HEARTBEAT_PERIOD: Duration = Duration::from_millis(1);
pub const CRITICAL_SECTION: Duration = Duration::from_micros(500);

/// What one profile measures.
#[derive(Clone, Debug)]
pub struct Plan {
    /// Futures per round in the published `join_all` shape (the scale sweep).
    pub join_all_sizes: Vec<usize>,
    /// Futures per round in the contended shape. No verdict reads a round
    /// smaller than MUT-2's size (MUT-1 is judged at the published one, MUT-2
    /// at 10,000), so the contended shape starts there.
    pub contended_sizes: Vec<usize>,
    /// The contended sizes at which `Variant::COMPARED` are timed too, on
    /// every worker count, interleaved with the claims' variants: the round
    /// costs the same per operation at every size, so one size compares
    /// them, and the one MUT-2 is judged at has the most repeats beside it.
    pub compared_sizes: Vec<usize>,
    /// Worker thread counts for the contended shape: 1, 2 and all cores.
    pub worker_counts: Vec<usize>,
    /// Each round timing is this many criterion runs, interleaved across
    /// the three variants and each on a freshly built runtime, then pooled
    /// (see `experiments::interleaved`).
    pub repeats: usize,
    /// More interleaved runs of MUT-2's points (`Plan::is_decisive`), made
    /// at the end of the measurement and pooled with the first `repeats`.
    /// The actor's slow mode there catches a whole run now and then (one
    /// of four at 8 ms against 5 ms for the rest), and a mean over four
    /// runs moves by a fifth when it does; these points cost about half a
    /// second a run, so a dozen runs, two stretches of the measurement
    /// apart, are cheap.
    pub decisive_extra: usize,
    /// Criterion settings for one of those runs.
    pub sampling: Sampling,
    /// Criterion settings for the nanosecond-scale uncontended timings.
    pub per_op_sampling: Sampling,
    pub heartbeat_run: Duration,
    /// Interleaved criterion runs of each ladder timing (the published round
    /// in one spawned task, and with a task per future).
    pub ladder_repeats: usize,
    /// Futures per round of the ladder's task-per-future step and of the
    /// round in one task: the earlier post's size, and the published one.
    pub ladder_sizes: Vec<usize>,
    /// Allocator × driver × lock, one fresh process per sample.
    pub sensitivity: sensitivity::Grid,
    /// Futures per counted round (`polls`).
    pub poll_futures: usize,
    /// How long each CPU profile samples rounds (`profiles`): the std and
    /// tokio counters in the published round at `join_all_sizes`' largest
    /// size and in the contended round at MUT-2's size, on every core.
    pub profile_for: Duration,
}

impl Plan {
    pub fn for_profile(profile: Profile) -> Plan {
        let sizes = profile.pick(
            vec![1_000, 10_000],
            vec![1_000, 10_000, PUBLISHED_FUTURES],
            vec![1_000, 10_000, PUBLISHED_FUTURES],
        );
        Plan {
            contended_sizes: sizes
                .iter()
                .copied()
                .filter(|&n| n >= ACTOR_CLAIM_FUTURES)
                .collect(),
            compared_sizes: vec![ACTOR_CLAIM_FUTURES],
            join_all_sizes: sizes,
            worker_counts: worker_counts(cores()),
            // The machine can settle into a slow mode for a runtime's whole
            // life or longer (on the 2-core VM the book was measured on, the
            // actor on two workers ran at one speed or twice it, never in
            // between). Several runtimes per timing put the modes they meet
            // into the mean and, through the repeats-first bootstrap, into
            // its interval; a mode that outlasts all of them is caught only
            // by measuring again later (`harness compare`).
            repeats: profile.pick(2, 4, 5),
            decisive_extra: profile.pick(1, 8, 10),
            sampling: profile.pick(
                Sampling::new(10, 10, 50),
                // Each repeat starts a cold runtime: a warm-up of a few
                // rounds even at 100,000 futures, or the first repeat reads slow.
                Sampling::new(10, 150, 400).flat(),
                // The published benches measured for ten seconds; five
                // repeats of two seconds come close to it.
                Sampling::new(10, 400, 1_600),
            ),
            // Six locks in the time four took: the uncontended timings'
            // intervals are a few per cent wide at these lengths.
            per_op_sampling: profile.pick(
                Sampling::new(10, 15, 65),
                Sampling::new(20, 130, 400),
                Sampling::new(60, 700, 2_000),
            ),
            // Seven loads in the time four took; a run still holds the
            // beats its p99.9 needs many times over.
            heartbeat_run: profile.pick(
                Duration::from_millis(170),
                Duration::from_millis(1_100),
                Duration::from_millis(8_500),
            ),
            ladder_repeats: profile.pick(1, 1, 3),
            ladder_sizes: profile.pick(
                vec![ACTOR_CLAIM_FUTURES],
                vec![ACTOR_CLAIM_FUTURES, PUBLISHED_FUTURES],
                vec![ACTOR_CLAIM_FUTURES, PUBLISHED_FUTURES],
            ),
            sensitivity: sensitivity::Grid {
                allocators: allocator::Allocator::ALL.to_vec(),
                settings: sensitivity::Grid::settings(cores()),
                futures: profile.pick(1_000, PUBLISHED_FUTURES, PUBLISHED_FUTURES),
                // Processes are the repeats: what differs between runs of
                // one driver (the heap's state, the machine) differs between them.
                processes: profile.pick(1, 2, 3),
                warm_up_rounds: profile.pick(1, 1, 2),
                rounds: profile.pick(2, 4, 10),
            },
            poll_futures: profile.pick(2_000, PUBLISHED_FUTURES, PUBLISHED_FUTURES),
            profile_for: Duration::from_millis(profile.pick(150, 500, 1_000)),
        }
    }

    /// The worker count MUT-2 is judged on: the most worker threads up to
    /// the core count (what the page's verdict picks from a run's data).
    pub fn decisive_workers(&self) -> Option<usize> {
        self.worker_counts
            .iter()
            .copied()
            .filter(|&w| w <= cores())
            .max()
    }

    /// The variants timed at a contended point of `futures` per round.
    pub fn contended_variants(&self, futures: usize) -> Vec<Variant> {
        if self.compared_sizes.contains(&futures) {
            Variant::every().collect()
        } else {
            Variant::ALL.to_vec()
        }
    }

    /// Whether a contended point is one MUT-2 is decided on, so that it gets
    /// `decisive_extra` more runs (of `Variant::ALL`, the variants it compares).
    pub fn is_decisive(&self, futures: usize, workers: usize) -> bool {
        futures == ACTOR_CLAIM_FUTURES
            && self.contended_sizes.contains(&futures)
            && self.decisive_workers() == Some(workers)
    }
}

/// Cores the OS lets this process use: the runtime's default worker count.
pub fn cores() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// 1, 2 and all cores, without repeats (on a 2-core machine: 1 and 2).
pub fn worker_counts(cores: usize) -> Vec<usize> {
    let mut counts = vec![1, 2, cores];
    counts.sort_unstable();
    counts.dedup();
    counts
}
