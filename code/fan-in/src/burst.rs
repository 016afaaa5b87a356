//! What every producer sends, and how the sink proves it all arrived.
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use serde::{Deserialize, Serialize};
use tokio::sync::Notify;

/// The `i`-th byte of worker `w`. It depends on both, so bytes lost from one
/// worker and duplicated from another rarely leave the tally unchanged.
#[inline]
pub fn message(worker: usize, i: usize) -> u8 {
    ((worker.wrapping_mul(7) + i) % 251) as u8
}

/// An order-independent checksum: producers interleave differently on every
/// run, so the sink can only compare the multiset of bytes it received.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Tally {
    pub bytes: u64,
    pub sum: u64,
    pub sum_of_squares: u64,
}

impl Tally {
    pub fn add(&mut self, buf: &[u8]) {
        self.bytes += buf.len() as u64;
        for &b in buf {
            let b = u64::from(b);
            self.sum = self.sum.wrapping_add(b);
            self.sum_of_squares = self.sum_of_squares.wrapping_add(b * b);
        }
    }

    /// `n` bursts' worth of this tally (the sums wrap as `add` does).
    pub fn times(self, n: u64) -> Tally {
        Tally {
            bytes: self.bytes * n,
            sum: self.sum.wrapping_mul(n),
            sum_of_squares: self.sum_of_squares.wrapping_mul(n),
        }
    }

    /// What a burst of `workers` producers, `per_worker` messages each,
    /// must deliver.
    pub fn expected(workers: usize, per_worker: usize) -> Tally {
        let mut t = Tally::default();
        for w in 0..workers {
            let bytes: Vec<u8> = (0..per_worker).map(|i| message(w, i)).collect();
            t.add(&bytes);
        }
        t
    }
}

/// Counts producers still running, so a consumer that drains a shared
/// buffer (the swap designs) knows when it has seen the last byte. The count
/// drops when the guard drops, so a panicking producer cannot hang the
/// consumer, and the last one to leave wakes a consumer that sleeps on `left`.
#[derive(Clone, Debug)]
pub struct LiveProducers(Arc<Live>);

#[derive(Debug)]
struct Live {
    count: AtomicUsize,
    left: Notify,
}

pub struct Departure(Arc<Live>);

impl LiveProducers {
    pub fn new(workers: usize) -> Self {
        LiveProducers(Arc::new(Live {
            count: AtomicUsize::new(workers),
            left: Notify::new(),
        }))
    }

    pub fn enlist(&self) -> Departure {
        Departure(Arc::clone(&self.0))
    }

    /// Acquire pairs with the Release in `Departure::drop`: once this reads
    /// zero, every push made before a producer left is visible to the next lock.
    pub fn all_done(&self) -> bool {
        self.0.count.load(Ordering::Acquire) == 0
    }

    /// Notified when the last producer leaves (a permit is kept if nobody waits).
    pub fn last_left(&self) -> &Notify {
        &self.0.left
    }
}

impl Drop for Departure {
    fn drop(&mut self) {
        if self.0.count.fetch_sub(1, Ordering::Release) == 1 {
            self.0.left.notify_one();
        }
    }
}
