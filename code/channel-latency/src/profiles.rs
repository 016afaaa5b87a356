//! Bursts run back to back for a stretch of CPU time, for a sampling
//! profiler to watch (`harness_measure::stacks`): tokio in one task on a
//! current-thread runtime, one `block_on` per burst as in the fair
//! experiment, or crossbeam on the calling thread. Every burst is checked.
use std::time::{Duration, Instant};

use anyhow::{ensure, Result};

use crate::crossbeam_bounded::CrossbeamBounded;
use crate::payload::{burst_checksum, Payload};
use crate::tokio_mpsc::TokioMpsc;
use crate::{BURST, CAPACITY};

/// The channels and sizes profiled: the smallest and largest payload.
pub const PROFILED: [(&str, usize); 4] = [
    ("tokio", 8),
    ("crossbeam", 8),
    ("tokio", 32768),
    ("crossbeam", 32768),
];

/// Runs `channel`'s bursts of `[u8; bytes]` (one of `PROFILED`) for at least
/// `stretch`, and returns how many ran, each with the right sum.
pub fn bursts_for(channel: &str, bytes: usize, stretch: Duration) -> Result<u64> {
    match (channel, bytes) {
        ("tokio", 8) => tokio_for::<[u8; 8]>(stretch),
        ("crossbeam", 8) => crossbeam_for::<[u8; 8]>(stretch),
        ("tokio", 32768) => tokio_for::<[u8; 32768]>(stretch),
        ("crossbeam", 32768) => crossbeam_for::<[u8; 32768]>(stretch),
        _ => anyhow::bail!("no profile of {channel} at {bytes} B"),
    }
}

fn tokio_for<P: Payload>(stretch: Duration) -> Result<u64> {
    let rt = crate::sweep::current_thread_runtime()?;
    let mut chan = TokioMpsc::<P>::new(CAPACITY);
    let mut stock = P::stock(BURST);
    let (mut bursts, mut wrong) = (0u64, 0u64);
    let start = Instant::now();
    while start.elapsed() < stretch {
        let sum = rt.block_on(chan.burst(&mut stock, BURST));
        bursts += 1;
        wrong += u64::from(sum != burst_checksum(BURST));
    }
    ensure!(
        wrong == 0 && chan.is_drained(),
        "tokio profile: {wrong} of {bursts} bursts were wrong"
    );
    Ok(bursts)
}

fn crossbeam_for<P: Payload>(stretch: Duration) -> Result<u64> {
    let mut chan = CrossbeamBounded::<P>::new(CAPACITY);
    let mut stock = P::stock(BURST);
    let (mut bursts, mut wrong) = (0u64, 0u64);
    let start = Instant::now();
    while start.elapsed() < stretch {
        let sum = chan.burst(&mut stock, BURST);
        bursts += 1;
        wrong += u64::from(sum != burst_checksum(BURST));
    }
    ensure!(
        wrong == 0 && chan.is_drained(),
        "crossbeam profile: {wrong} of {bursts} bursts were wrong"
    );
    Ok(bursts)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_profiled_pair_runs_checked_bursts() {
        for (channel, bytes) in PROFILED {
            assert!(bursts_for(channel, bytes, Duration::from_millis(5)).unwrap() >= 1);
        }
        assert!(bursts_for("flume", 8, Duration::ZERO).is_err());
    }
}
