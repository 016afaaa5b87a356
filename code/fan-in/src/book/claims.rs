//! The published claims FAN-1..FAN-4 and the rules that decide them.
use anyhow::{anyhow, Result};
use harness::{Block, Book, Claim, Outcome, Run, Unit, Verdict};

use super::estimates::{fan_2_closest, fan_3_ratios, fan_4_share, is_slower, tcp_ratio};
use super::{time_per_burst, FanInData};
use crate::Design;

const SOURCE: &str =
    "[the post accompanying buffered-mpsc](https://github.com/JuxhinDB/buffered-mpsc)";

// ANCHOR: claims
pub(super) const CLAIMS: &[Claim] = &[
    Claim {
        id: "FAN-1",
        statement:
            "With very few workers, the std::sync::Mutex swap is slower than the mpsc design.",
        source: SOURCE,
        rule: "Over the TCP sink at the fewest workers measured, the std Mutex swap's median \
               burst time is above mpsc unbounded's, with the 95 % intervals apart \
               (overlapping intervals: inconclusive).",
    },
    Claim {
        id: "FAN-2",
        statement: "As workers grow, the std::sync::Mutex swap soon beats mpsc, by a wide margin \
                    at thousands of workers.",
        source: SOURCE,
        rule: "Over the TCP sink, the std Mutex swap is faster than mpsc unbounded, intervals \
               apart, at every measured worker count from 8 up, and mpsc ÷ swap (medians, 95 % \
               interval bootstrapped from both designs' samples) is at least 10× at the largest count \
               (which must be in the thousands). Does not hold if the swap is slower, intervals \
               apart, at one of these counts or the ratio's interval lies wholly below 10×; \
               inconclusive if intervals overlap or the ratio's interval straddles 10×.",
    },
    Claim {
        id: "FAN-3",
        statement:
            "Using tokio::sync::Mutex for the swap is roughly 25x slower than std::sync::Mutex.",
        source: SOURCE,
        rule: "Over the TCP sink, the geometric mean across worker counts of tokio swap ÷ std \
               swap (medians; its 95 % interval bootstrapped by \
               resampling every count's timings at once) lies within a factor 2 of 25× (12.5× to 50×). Does not \
               hold if the bounds lie wholly outside that range; inconclusive if they straddle \
               an end of it.",
    },
    Claim {
        id: "FAN-4",
        statement: "Swapping the buffer drains many messages per pass, which is why it wins \
                    (batching).",
        source: SOURCE,
        rule: "At the largest worker count over the TCP sink, the std Mutex swap hands the socket \
               at least 16 messages per write call, beats mpsc unbounded with the intervals \
               apart, and mpsc with recv_many (a channel that also writes in batches) removes at \
               least 90 % of the time by which mpsc unbounded trails the swap (medians; the \
               share's bounds are its extremes over the three 95 % intervals). Does not hold if \
               fewer messages per call, if mpsc unbounded is faster with the intervals apart, or \
               if the share's bounds lie wholly below 90 %; inconclusive if the swap's and mpsc's \
               intervals overlap or the share's bounds straddle 90 %.",
    },
];
// ANCHOR_END: claims

/// Worker counts from which FAN-2 wants the swap ahead.
pub(super) const FAN2_FROM_WORKERS: usize = 8;
/// FAN-2 is decided only when the sweep reaches thousands of workers.
pub(super) const FAN2_LARGEST_AT_LEAST: usize = 1000;
const FAN2_MIN_GAP: f64 = 10.0;
const FAN3_RANGE: (f64, f64) = (12.5, 50.0);
const FAN4_MIN_PER_WRITE: f64 = 16.0;
const FAN4_MIN_SHARE: f64 = 0.9;

/// The verdicts exhibit: every claim on every machine.
pub(super) fn verdicts(book: &Book<FanInData>) -> Result<Vec<Block>> {
    Ok(vec![Block::Verdicts(
        book.runs.iter().flat_map(verdicts_of).collect(),
    )])
}

fn verdicts_of(run: &Run<FanInData>) -> Vec<Verdict> {
    CLAIMS
        .iter()
        .map(|claim| {
            let decided = match claim.id {
                "FAN-1" => fan_1(&run.data),
                "FAN-2" => fan_2(&run.data),
                "FAN-3" => fan_3(&run.data),
                "FAN-4" => fan_4(&run.data),
                other => Err(anyhow!("no rule for {other}")),
            };
            match decided {
                Ok(Some((outcome, evidence))) => {
                    Verdict::new(claim, run.machine(), outcome, evidence)
                }
                Ok(None) => Verdict::not_measured(
                    claim,
                    format!(
                        "the run on {} does not reach thousands of workers",
                        run.machine()
                    ),
                ),
                Err(e) => Verdict::not_measured(claim, format!("{e:#}")),
            }
        })
        .collect()
}

/// An outcome and its evidence; `None` when the run cannot decide the claim.
type Decision = Result<Option<(Outcome, String)>>;

fn fan_1(d: &FanInData) -> Decision {
    let w = d.workers[0];
    let (m_swap, m_mpsc) = (
        d.tcp(Design::StdMutexSwap, w)?,
        d.tcp(Design::MpscUnbounded, w)?,
    );
    let outcome = Outcome::decided(is_slower(m_swap, m_mpsc));
    Ok(Some((
        outcome,
        format!(
            "{w} worker(s): swap {}, mpsc {}; swap ÷ mpsc {}",
            time_per_burst(m_swap).show(Unit::Nanos),
            time_per_burst(m_mpsc).show(Unit::Nanos),
            tcp_ratio(d, Design::StdMutexSwap, Design::MpscUnbounded, w)?.show(Unit::Ratio)
        ),
    )))
}

fn fan_2(d: &FanInData) -> Decision {
    let top = d.largest();
    if top < FAN2_LARGEST_AT_LEAST {
        return Ok(None);
    }
    let (mut slower, mut unclear) = (Vec::new(), Vec::new());
    for &w in d.workers.iter().filter(|&&w| w >= FAN2_FROM_WORKERS) {
        let swap = d.tcp(Design::StdMutexSwap, w)?;
        let mpsc = d.tcp(Design::MpscUnbounded, w)?;
        match is_slower(swap, mpsc) {
            Some(false) => {}
            Some(true) => slower.push(w.to_string()),
            None => unclear.push(w.to_string()),
        }
    }
    let gap = tcp_ratio(d, Design::MpscUnbounded, Design::StdMutexSwap, top)?;
    let ahead = if !slower.is_empty() {
        Outcome::DoesNotHold
    } else if !unclear.is_empty() {
        Outcome::Inconclusive
    } else {
        Outcome::Holds
    };
    let outcome = Outcome::all_of(&[ahead, Outcome::at_least(&gap, FAN2_MIN_GAP)]);
    let mut evidence = format!("at {top} workers mpsc ÷ swap = {}", gap.show(Unit::Ratio));
    if let Some((w, r)) = fan_2_closest(d)? {
        evidence.push_str(&format!(
            "; closest call {w} workers, {}",
            r.show(Unit::Ratio)
        ));
    }
    if !slower.is_empty() {
        evidence.push_str(&format!(
            "; swap slower, intervals apart, at {} workers",
            slower.join(", ")
        ));
    }
    if !unclear.is_empty() {
        evidence.push_str(&format!(
            "; intervals overlap at {} workers",
            unclear.join(", ")
        ));
    }
    Ok(Some((outcome, evidence)))
}

fn fan_3(d: &FanInData) -> Decision {
    let (ratios, geo) = fan_3_ratios(d)?;
    let (lo, hi) = ratios.iter().fold((f64::INFINITY, 0.0f64), |(a, b), r| {
        (a.min(r.point_ns), b.max(r.point_ns))
    });
    Ok(Some((
        Outcome::within(&geo, FAN3_RANGE.0, FAN3_RANGE.1),
        format!(
            "tokio ÷ std swap: geometric mean {}, from {} to {} across worker counts",
            geo.show(Unit::Ratio),
            Unit::Ratio.show(lo),
            Unit::Ratio.show(hi)
        ),
    )))
}

fn fan_4(d: &FanInData) -> Decision {
    let top = d.largest();
    let swap = d.tcp(Design::StdMutexSwap, top)?;
    let mpsc = d.tcp(Design::MpscUnbounded, top)?;
    let per_write = swap.bytes_per_burst as f64 / swap.writes_per_burst;
    let batched = Outcome::from_bool(per_write >= FAN4_MIN_PER_WRITE);
    let times = format!(
        "recv_many {}, swap {}, mpsc {}",
        time_per_burst(d.tcp(Design::MpscRecvMany, top)?).show(Unit::Nanos),
        time_per_burst(swap).show(Unit::Nanos),
        time_per_burst(mpsc).show(Unit::Nanos)
    );
    let per_call = format!(
        "at {top} workers the swap writes {} messages per call",
        Unit::Plain.show(per_write)
    );
    let Some(share) = fan_4_share(d, top)? else {
        let (outcome, why) = match is_slower(mpsc, swap) {
            Some(false) => (
                Outcome::DoesNotHold,
                "mpsc is faster than the swap: nothing for batching to explain",
            ),
            _ => (
                Outcome::all_of(&[batched, Outcome::Inconclusive]),
                "the swap's and mpsc's intervals overlap: whether the swap wins is undecided",
            ),
        };
        return Ok(Some((outcome, format!("{per_call}; {why} ({times})"))));
    };
    Ok(Some((
        Outcome::all_of(&[batched, Outcome::at_least(&share, FAN4_MIN_SHARE)]),
        format!(
            "{per_call}; recv_many removes {} of mpsc's excess over the swap ({times})",
            share.show(Unit::Share)
        ),
    )))
}
