//! One consumer draining many producers through a shared buffer it swaps out:
//! which lock (or none) to guard the buffer with, how the consumer should wait
//! when the buffer is empty, and how long the lock may be held.
//!
//! The crate reads top-down: the designs and wait strategies are listed here,
//! one module each; [`experiment`] runs one burst of messages through a design;
//! [`run`] runs the experiments into the chapter's results. This library is
//! the chapter's experiment; the page (the claim, its rule, the exhibits) is
//! the binary's `page` module, which the library cannot name: nothing the
//! page does can move a measured number.
//!
//! A `std::sync::MutexGuard` held across an `.await` makes the future `!Send`,
//! so `tokio::spawn` refuses it. This doctest is the rejected form and must
//! keep failing to compile, with the "cannot be sent between threads" error:
//!
//! ```compile_fail,E0277
#![doc = include_str!("../tests/rejected/guard_held_across_await.rs")]
//! ```
//!
//! The accepted form, which drops the guard before awaiting, is
//! [`guard_across_await::push_then_yield`].
// The lesson of the chapter, enforced on its own code.
#![deny(clippy::await_holding_lock)]

pub mod cpu;
pub mod experiment;
pub mod guard_across_await;
pub mod inbox;
pub mod lock_free_stack;
pub mod parking_lot_swap;
pub mod run;
pub mod sharded_swap;
pub mod std_mutex_drain_locked;
pub mod std_mutex_pop_one;
pub mod std_mutex_swap;
pub mod tokio_mutex_swap;

use std::time::Duration;

use harness_core::Profile;
use harness_measure::timing::Sampling;
use serde::{Deserialize, Serialize};

/// The shared-buffer designs, in the order the page shows them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Design {
    /// `std::sync::Mutex<Vec<u64>>`, swapped for an empty `Vec` by the consumer.
    StdMutexSwap,
    /// The same swap behind `tokio::sync::Mutex`.
    TokioMutexSwap,
    /// The same swap behind `parking_lot::Mutex`.
    ParkingLotSwap,
    /// A lock-free stack the consumer empties with one `AtomicPtr::swap`.
    LockFreeStack,
    /// One `std::sync::Mutex<Vec<u64>>` per producer; the consumer swaps each.
    ShardedSwap,
    /// `std::sync::Mutex<Vec<u64>>`, but the consumer drains while holding the lock.
    StdMutexDrainLocked,
    /// `std::sync::Mutex<VecDeque<u64>>`, one message per lock: no batching.
    StdMutexPopOne,
}

impl Design {
    /// The designs compared in the throughput and wait-strategy experiments.
    /// The variants of the std swap that move its critical section.
    pub const CRITICAL_SECTIONS: [Design; 2] =
        [Design::StdMutexDrainLocked, Design::StdMutexPopOne];

    pub const SWAPS: [Design; 5] = [
        Design::StdMutexSwap,
        Design::TokioMutexSwap,
        Design::ParkingLotSwap,
        Design::LockFreeStack,
        Design::ShardedSwap,
    ];

    /// The designs the wait-strategy experiment sets against every wait:
    /// the swaps, and one message per lock, which FAN-4's published-consumer
    /// row compares with the std swap.
    pub const WAITED: [Design; 6] = [
        Design::StdMutexSwap,
        Design::TokioMutexSwap,
        Design::ParkingLotSwap,
        Design::LockFreeStack,
        Design::ShardedSwap,
        Design::StdMutexPopOne,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Design::StdMutexSwap => "std-mutex-swap",
            Design::TokioMutexSwap => "tokio-mutex-swap",
            Design::ParkingLotSwap => "parking-lot-swap",
            Design::LockFreeStack => "lock-free-stack",
            Design::ShardedSwap => "sharded-swap",
            Design::StdMutexDrainLocked => "std-mutex-drain-locked",
            Design::StdMutexPopOne => "std-mutex-pop-one",
        }
    }

    /// How the page names it.
    pub fn label(self) -> &'static str {
        match self {
            Design::StdMutexSwap => "std Mutex swap",
            Design::TokioMutexSwap => "tokio Mutex swap",
            Design::ParkingLotSwap => "parking_lot Mutex swap",
            Design::LockFreeStack => "lock-free stack (AtomicPtr swap)",
            Design::ShardedSwap => "sharded swap (one std Mutex per producer)",
            Design::StdMutexDrainLocked => "std Mutex, drained under the lock",
            Design::StdMutexPopOne => "std Mutex, one message per lock",
        }
    }
}

/// What the consumer does when a pass over the inbox finds nothing.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Wait {
    /// Try again at once: the published consumer loop.
    BusyPoll,
    /// `tokio::task::yield_now().await`, then try again.
    YieldNow,
    /// Sleep on `tokio::sync::Notify`; a producer that finds the inbox empty wakes it.
    Notify,
}

impl Wait {
    pub const ALL: [Wait; 3] = [Wait::BusyPoll, Wait::YieldNow, Wait::Notify];

    pub fn name(self) -> &'static str {
        match self {
            Wait::BusyPoll => "busy-poll",
            Wait::YieldNow => "yield-now",
            Wait::Notify => "notify",
        }
    }

    pub fn label(self) -> &'static str {
        match self {
            Wait::BusyPoll => "busy polling",
            Wait::YieldNow => "yield_now",
            Wait::Notify => "Notify",
        }
    }
}

/// Rounds of hashing the consumer does per message: light is the default
/// everywhere; heavy stands in for real work (parsing, a copy into a socket
/// buffer) in the lock-hold experiment, where it decides how long a lock
/// held during the drain stays held. Their cost in time is measured and shown.
pub const LIGHT_WORK: u32 = 1;
pub const HEAVY_WORK: u32 = 16;

/// The experiments of one profile.
#[derive(Clone, Debug)]
pub struct Params {
    /// Producer counts for the throughput and lock-hold experiments.
    pub producers: Vec<u64>,
    /// Producer counts at which every design meets every wait strategy;
    /// every profile reaches FAN-4's "at scale" with one.
    pub wait_producers: Vec<u64>,
    /// Messages in one burst, split evenly over the producers: the same total
    /// at every producer count, so throughputs compare directly.
    pub messages_per_burst: u64,
    /// Rounds over the whole plan: each point is timed once per round, on a
    /// runtime of its own, and its rounds are pooled (`Timing::pooled`, so
    /// the interval draws rounds first). One long timing sees one stretch
    /// of the machine; rounds spread over the run see several.
    pub repeats: usize,
    /// Rounds for the points FAN-4 is decided on (the swap and one message
    /// per lock from 128 producers up, with the Notify and the busy-polling
    /// consumer). The swap's burst time moves by a sixth from one round to
    /// the next, each round on its runtime of its own, so its mean needs a
    /// few dozen rounds before the ratio stays within a few percent; ten
    /// left two quick runs 13 % apart, two dozen keep them within the
    /// rule's minimum effect.
    pub decisive_repeats: usize,
    /// Criterion settings for one round of one point.
    pub sampling: Sampling,
    /// How long bursts run under the CPU profiler, per wait strategy
    /// profiled (the std swap at the smallest wait-experiment producer count).
    pub profile_for: Duration,
}

// ANCHOR: params
pub fn params(profile: Profile) -> Params {
    let pow2 = |hi: u32, step: u32| (0..=hi).step_by(step as usize).map(|e| 1u64 << e);
    Params {
        producers: profile.pick(
            vec![1, 16, 256],
            pow2(12, 2).collect(),
            pow2(13, 1).collect(),
        ),
        wait_producers: profile.pick(vec![16, 256], vec![64, 256], vec![16, 1024]),
        messages_per_burst: profile.pick(1 << 12, 1 << 16, 1 << 19),
        repeats: profile.pick(2, 2, 3),
        decisive_repeats: profile.pick(3, 24, 24),
        // Equal samples (flat): a burst takes milliseconds, and criterion's
        // linear ramp would spend most of the run on its longest samples.
        sampling: profile.pick(
            Sampling::new(10, 10, 50).flat(),
            Sampling::new(10, 50, 250).flat(),
            Sampling::new(10, 150, 500).flat(),
        ),
        profile_for: Duration::from_millis(profile.pick(500, 750, 1500)),
    }
}
// ANCHOR_END: params
