//! The two checks made around every timing: the round trip of a cache line
//! between two cores, and a fixed piece of work that shows how fast one
//! core runs.
use std::cell::RefCell;
use std::hint::black_box;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::statistic::Statistic;

/// Round trips per batch and batches per check; a check reports the median
/// batch, so one interrupted batch does not move it.
const TRIPS: u64 = 4_000;
const BATCHES: usize = 7;
/// A check that runs longer than this gives up: the partner thread is not
/// getting a core of its own (the machine is busy, or has one core).
const CHECK_LIMIT: Duration = Duration::from_millis(250);
/// The speed probe: bytes copied and dependent integer steps per batch,
/// and batches per probe (the fastest batch counts). About half a
/// millisecond in all.
const PROBE_BYTES: usize = 256 * 1024;
const PROBE_STEPS: u64 = 20_000;
const PROBE_BATCHES: usize = 15;

/// Nanoseconds for one round trip of a cache line between this thread and a
/// partner, both spinning; with both busy, the OS puts them on different
/// cores. `None` on a one-core machine or when the partner could not get a
/// core in time.
pub fn round_trip_ns() -> Option<f64> {
    if std::thread::available_parallelism().map_or(1, |n| n.get()) < 2 {
        return None;
    }
    let line = Arc::new(AtomicU64::new(0));
    let stop = Arc::new(AtomicBool::new(false));
    let partner = {
        let (line, stop) = (Arc::clone(&line), Arc::clone(&stop));
        std::thread::spawn(move || {
            // Answers every odd value with the next even one.
            while !stop.load(Ordering::Relaxed) {
                let v = line.load(Ordering::Acquire);
                if v % 2 == 1 {
                    line.store(v + 1, Ordering::Release);
                } else {
                    std::hint::spin_loop();
                }
            }
        })
    };
    let started = Instant::now();
    let mut batches = Vec::with_capacity(BATCHES);
    let mut v = 0u64;
    'check: for _ in 0..BATCHES {
        let batch = Instant::now();
        for _ in 0..TRIPS {
            line.store(v + 1, Ordering::Release);
            let mut spins = 0u32;
            while line.load(Ordering::Acquire) != v + 2 {
                spins = spins.wrapping_add(1);
                if spins % 4096 == 0 && started.elapsed() > CHECK_LIMIT {
                    break 'check;
                }
                std::hint::spin_loop();
            }
            v += 2;
        }
        batches.push(batch.elapsed().as_nanos() as f64 / TRIPS as f64);
    }
    stop.store(true, Ordering::Relaxed);
    let _ = partner.join();
    (batches.len() == BATCHES).then(|| Statistic::Median.of(&mut batches))
}

/// Nanoseconds for a fixed piece of work on this thread: a copy of
/// `PROBE_BYTES` (a working set that stays in a core's own caches) and a
/// chain of dependent integer steps, the fastest of `PROBE_BATCHES`. Only
/// its changes mean anything: the same work, slower, on the same machine.
///
/// The fastest batch, not the median: on the book's virtual machine the
/// first batches after a pause run slow (a core waking, caches another
/// guest used), and a probe taken between timings always follows a pause.
/// The fastest batch is what the core can do at that moment.
pub fn speed_probe_ns() -> Option<f64> {
    thread_local! {
        static BUFFERS: RefCell<(Vec<u8>, Vec<u8>)> =
            RefCell::new(((0..PROBE_BYTES).map(|i| i as u8).collect(), vec![0; PROBE_BYTES]));
    }
    BUFFERS.with(|b| {
        let (from, to) = &mut *b.borrow_mut();
        let mut x = black_box(0x9e37_79b9_7f4a_7c15_u64);
        let mut batches = Vec::with_capacity(PROBE_BATCHES);
        for _ in 0..PROBE_BATCHES {
            let batch = Instant::now();
            to.copy_from_slice(black_box(&from[..]));
            black_box(&mut to[..]);
            for _ in 0..PROBE_STEPS {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
            }
            black_box(x);
            batches.push(batch.elapsed().as_nanos() as f64);
        }
        batches.into_iter().reduce(f64::min)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_real_check_measures_a_round_trip() {
        if std::thread::available_parallelism().map_or(1, |n| n.get()) < 2 {
            assert_eq!(round_trip_ns(), None);
            return;
        }
        // Either a plausible round trip (tens of ns to tens of µs), or none
        // when the test runner kept the other core busy.
        if let Some(ns) = round_trip_ns() {
            assert!((5.0..100_000.0).contains(&ns), "round trip {ns} ns");
        }
    }

    #[test]
    fn a_real_probe_times_its_fixed_work() {
        let ns = speed_probe_ns().expect("the probe runs on any machine");
        // A quarter MiB copied and twenty thousand steps: microseconds, not
        // nothing (optimised away) and not seconds.
        assert!((1_000.0..100_000_000.0).contains(&ns), "probe {ns} ns");
    }
}
