//! Experiment A's ratio, head to head: tokio's and crossbeam's bursts of one
//! by-value payload size alternate in one loop, so whatever state the machine
//! is in lands on both of a pair.
//!
//! Timed alone, under criterion, each channel draws its own stretch of the
//! run. At the large sizes a burst streams tens of megabytes, about what the
//! last-level cache holds, and how much of its buffer a channel finds still
//! cached depends on what else the host runs: a state that lasts a fraction
//! of a second. Two runs then disagree on the ratio by more than either's
//! interval allows. Here the two channels take turns, burst by burst, at the
//! same stack offset (`stack::shifted`), which channel goes first alternating.
//!
//! The bursts come in *windows*. Each window builds a fresh stock and a fresh
//! pair of channels, and runs one untimed burst on each to touch their
//! memory. It then times [`PAIRS`] bursts of each channel, one at every
//! stack offset. The ratio is the geometric mean over windows of
//! each window's ratio of medians (`harness_measure::stats::paired_ratio`).
//!
//! What this does not reach is the layout a process starts from: where its
//! heap puts the channels depends on everything the process allocated
//! before, and at the small sizes that still moves the ratio from one run to
//! the next by more than a run's interval.
use std::time::Instant;

use anyhow::{ensure, Context, Result};
use harness_core::Estimate;
use harness_measure::stats::{paired_ratio, Statistic};
use harness_measure::timing::Timing;
use serde::{Deserialize, Serialize};
use tokio::runtime::Runtime;

use crate::crossbeam_bounded::CrossbeamBounded;
use crate::payload::{self, burst_checksum, ForSize, Payload};
use crate::stack;
use crate::tokio_mpsc::TokioMpsc;
use crate::{BURST, CAPACITY};

/// Bursts of each channel timed in one window: one at every stack offset.
pub const PAIRS: usize = stack::STEPS;

/// tokio's and crossbeam's burst times at one `[u8; N]` size, timed head to
/// head: each timing pools one repeat per window, window `i` of both timed
/// in the same loop.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct HeadToHead {
    pub bytes: usize,
    /// Nanoseconds per burst.
    pub tokio: Timing,
    pub crossbeam: Timing,
    /// Bursts run and checked, both channels and the untimed ones included.
    pub bursts_checked: u64,
}

impl HeadToHead {
    /// tokio's time per burst over crossbeam's: the geometric mean of the
    /// windows' ratios of medians, with a 95 % interval that draws windows.
    pub fn ratio(&self) -> Result<Estimate> {
        paired_ratio(&self.tokio, &self.crossbeam, Statistic::Median)
            .with_context(|| format!("the head-to-head ratio at {} B", self.bytes))
    }

    /// Windows of one size as one point, in the order they were timed.
    pub fn pooled(bytes: usize, windows: Vec<Window>) -> Result<HeadToHead> {
        ensure!(!windows.is_empty(), "no windows to pool at {bytes} B");
        let bursts_checked = windows.iter().map(|w| w.bursts_checked).sum();
        let (tokio, crossbeam): (Vec<_>, Vec<_>) =
            windows.into_iter().map(|w| (w.tokio, w.crossbeam)).unzip();
        Ok(HeadToHead {
            bytes,
            tokio: Timing::pooled(tokio)?,
            crossbeam: Timing::pooled(crossbeam)?,
            bursts_checked,
        })
    }
}

/// One window at one size.
#[derive(Clone, Debug)]
pub struct Window {
    pub tokio: Timing,
    pub crossbeam: Timing,
    pub bursts_checked: u64,
}

/// Times window number `index` at `bytes` (one of `PAYLOAD_SIZES`) on `rt`,
/// a current-thread runtime.
pub fn window(bytes: usize, index: usize, rt: &Runtime) -> Result<Window> {
    struct At<'a>(usize, &'a Runtime);
    impl ForSize for At<'_> {
        type Out = Window;
        fn run<const N: usize>(self) -> Result<Window> {
            window_of::<[u8; N]>(self.0, self.1)
        }
    }
    payload::for_size(bytes, At(index, rt))
}

/// One tokio burst at stack step `turn`: nanoseconds and checksum. The
/// runtime is entered before the clock starts, as in the sweep.
fn tokio_burst<P: Payload>(
    rt: &Runtime,
    chan: &mut TokioMpsc<P>,
    stock: &mut P::Stock,
    turn: u64,
) -> (f64, u64) {
    stack::shifted(turn, || {
        rt.block_on(async {
            let start = Instant::now();
            let sum = chan.burst(stock, BURST).await;
            (start.elapsed().as_nanos() as f64, sum)
        })
    })
}

/// One crossbeam burst at stack step `turn`: nanoseconds and checksum.
fn crossbeam_burst<P: Payload>(
    chan: &mut CrossbeamBounded<P>,
    stock: &mut P::Stock,
    turn: u64,
) -> (f64, u64) {
    stack::shifted(turn, || {
        let start = Instant::now();
        let sum = chan.burst(stock, BURST);
        (start.elapsed().as_nanos() as f64, sum)
    })
}

fn window_of<P: Payload>(index: usize, rt: &Runtime) -> Result<Window> {
    let id = format!("head to head at {} B, window {index}", P::BYTES);
    let mut stock = P::stock(BURST);
    let mut tokio = TokioMpsc::<P>::new(CAPACITY);
    let mut crossbeam = CrossbeamBounded::<P>::new(CAPACITY);
    let expected = burst_checksum(BURST);
    let mut sums = vec![
        tokio_burst(rt, &mut tokio, &mut stock, 0).1,
        crossbeam_burst(&mut crossbeam, &mut stock, 0).1,
    ];
    // ANCHOR: window
    let (mut tokio_ns, mut crossbeam_ns) = (Vec::new(), Vec::new());
    for pair in 0..PAIRS {
        let turn = pair as u64;
        // Neither channel always runs right after the other.
        let (t, c) = if pair % 2 == 0 {
            let t = tokio_burst(rt, &mut tokio, &mut stock, turn);
            (t, crossbeam_burst(&mut crossbeam, &mut stock, turn))
        } else {
            let c = crossbeam_burst(&mut crossbeam, &mut stock, turn);
            (tokio_burst(rt, &mut tokio, &mut stock, turn), c)
        };
        tokio_ns.push(t.0);
        crossbeam_ns.push(c.0);
        sums.extend([t.1, c.1]);
    }
    // ANCHOR_END: window
    let wrong = sums.iter().filter(|&&s| s != expected).count();
    ensure!(
        wrong == 0,
        "{id}: {wrong} of {} bursts returned the wrong checksum",
        sums.len()
    );
    ensure!(
        tokio.is_drained() && crossbeam.is_drained(),
        "{id}: messages were left in a channel"
    );
    Ok(Window {
        tokio: Timing::of_samples(tokio_ns).with_context(|| format!("{id}: tokio"))?,
        crossbeam: Timing::of_samples(crossbeam_ns).with_context(|| format!("{id}: crossbeam"))?,
        bursts_checked: sums.len() as u64,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_window_times_every_stack_offset_once_per_channel_and_checks_every_burst() {
        let rt = crate::sweep::current_thread_runtime().unwrap();
        let w = window(64, 3, &rt).unwrap();
        assert_eq!(w.tokio.per_sample_ns.len(), PAIRS);
        assert_eq!(w.crossbeam.per_sample_ns.len(), PAIRS);
        assert_eq!(
            w.bursts_checked,
            2 * (PAIRS as u64 + 1),
            "timed and untimed bursts"
        );
        assert!(w.tokio.per_sample_ns.iter().all(|&ns| ns > 0.0));
        assert!(window(100, 0, &rt).is_err(), "no payload type for 100 B");
    }

    #[test]
    fn windows_pool_into_a_pairable_point() {
        let rt = crate::sweep::current_thread_runtime().unwrap();
        let windows = (0..4).map(|i| window(8, i, &rt).unwrap()).collect();
        let h = HeadToHead::pooled(8, windows).unwrap();
        assert_eq!(h.tokio.repeats, vec![PAIRS; 4]);
        assert_eq!(h.crossbeam.repeats, vec![PAIRS; 4]);
        assert_eq!(h.bursts_checked, 4 * 2 * (PAIRS as u64 + 1));
        let r = h.ratio().unwrap();
        assert!(r.lower_ns <= r.point_ns && r.point_ns <= r.upper_ns && r.point_ns > 0.0);
        // Three windows are too few to draw an interval from.
        let three = (0..3).map(|i| window(8, i, &rt).unwrap()).collect();
        let err = HeadToHead::pooled(8, three).unwrap().ratio().unwrap_err();
        assert!(format!("{err:#}").contains("at 8 B"), "{err:#}");
        assert!(HeadToHead::pooled(8, Vec::new()).is_err());
    }
}
