//! The estimates FAN-1..FAN-4 are decided by: ratios of two designs' medians
//! over the TCP sink, a geometric mean of ratios and a share, each with a
//! bootstrapped 95 % interval. The precision exhibit lists them too.
use anyhow::Result;
use harness::stats::{self, MIN_PAIRS};
use harness::timing::Timing;
use harness::Estimate;

use super::claims::{FAN2_FROM_WORKERS, FAN2_LARGEST_AT_LEAST};
use super::{FanInData, STAT};
use crate::sweep::Measured;
use crate::Design;

/// `a ÷ b` of two points' medians with its interval. Two points timed in
/// the same passes pair up pass by pass (`stats::paired_ratio`): whatever
/// state the machine held during a pass, both designs met it, and it
/// cancels in that pass's ratio, where pooling every pass's samples first
/// lets those states decide which of two speeds a pooled median lands on.
/// In this chapter's plan, points with as many timings were timed in the
/// same passes, in the same order (`Plan::slots`, tested); points with
/// different counts pool their samples first (`stats::ratio`).
fn ratio_of(a: &Timing, b: &Timing) -> Estimate {
    if a.repeats.len() == b.repeats.len() && a.repeats.len() >= MIN_PAIRS {
        if let Ok(paired) = stats::paired_ratio(a, b, STAT) {
            return paired;
        }
    }
    stats::ratio(a, b, STAT)
}

/// A ratio tested against 1: `Some(true)` when `a` is slower than `b`
/// (the interval of `a ÷ b` wholly above 1), `Some(false)` when faster,
/// `None` when the interval straddles 1.
pub(super) fn is_slower(a: &Measured, b: &Measured) -> Option<bool> {
    ratio_of(&a.timing, &b.timing).at_least(1.0)
}

/// `a ÷ b` of two designs' TCP figures at `w` workers.
pub(super) fn tcp_ratio(d: &FanInData, a: Design, b: Design, w: usize) -> Result<Estimate> {
    Ok(ratio_of(&d.tcp(a, w)?.timing, &d.tcp(b, w)?.timing))
}

/// The FAN-2 count from 8 workers up, below the largest, whose mpsc ÷ swap
/// interval reaches lowest: the one nearest to deciding against the claim.
pub(super) fn fan_2_closest(d: &FanInData) -> Result<Option<(usize, Estimate)>> {
    let top = d.largest();
    let mut closest: Option<(usize, Estimate)> = None;
    for &w in d
        .workers
        .iter()
        .filter(|&&w| w >= FAN2_FROM_WORKERS && w < top)
    {
        let r = tcp_ratio(d, Design::MpscUnbounded, Design::StdMutexSwap, w)?;
        if closest.is_none_or(|(_, c)| r.lower_ns < c.lower_ns) {
            closest = Some((w, r));
        }
    }
    Ok(closest)
}

/// tokio swap ÷ std swap per worker count, and their geometric mean with a
/// bootstrapped interval (every timing resampled at once).
pub(super) fn fan_3_ratios(d: &FanInData) -> Result<(Vec<Estimate>, Estimate)> {
    let ratios: Vec<Estimate> = d
        .workers
        .iter()
        .map(|&w| tcp_ratio(d, Design::TokioMutexSwap, Design::StdMutexSwap, w))
        .collect::<Result<_>>()?;
    // Pairs (tokio, std) per worker count, flattened.
    let timings: Vec<&Timing> = d
        .workers
        .iter()
        .map(|&w| {
            Ok([
                &d.tcp(Design::TokioMutexSwap, w)?.timing,
                &d.tcp(Design::StdMutexSwap, w)?.timing,
            ])
        })
        .collect::<Result<Vec<_>>>()?
        .into_iter()
        .flatten()
        .collect();
    let mean = stats::bootstrap(&timings, STAT, |s| {
        let logs: f64 = s.chunks(2).map(|p| (p[0] / p[1]).ln()).sum();
        (logs / (s.len() / 2) as f64).exp()
    })?;
    Ok((ratios, mean))
}

/// The share of mpsc unbounded's excess over the swap that recv_many
/// removes, `(mpsc − recv_many) ÷ (mpsc − swap)`, bootstrapped. `None`
/// unless mpsc is slower than the swap, interval clear of 1.
pub(super) fn fan_4_share(d: &FanInData, w: usize) -> Result<Option<Estimate>> {
    let swap = d.tcp(Design::StdMutexSwap, w)?;
    let mpsc = d.tcp(Design::MpscUnbounded, w)?;
    let many = d.tcp(Design::MpscRecvMany, w)?;
    if is_slower(mpsc, swap) != Some(true) {
        return Ok(None);
    }
    let share = stats::bootstrap(&[&mpsc.timing, &many.timing, &swap.timing], STAT, |s| {
        (s[0] - s[1]) / (s[0] - s[2])
    })?;
    Ok(Some(share))
}

/// The estimates FAN-1..FAN-4 are decided by, named (the headline).
pub(super) fn decisive(d: &FanInData) -> Vec<(String, Estimate)> {
    let mut out = Vec::new();
    let first = d.workers[0];
    if let Ok(r) = tcp_ratio(d, Design::StdMutexSwap, Design::MpscUnbounded, first) {
        out.push((
            format!(
                "FAN-1, {first} worker{}: std swap ÷ mpsc unbounded",
                if first == 1 { "" } else { "s" }
            ),
            r,
        ));
    }
    let top = d.largest();
    let fan_2 = top >= FAN2_LARGEST_AT_LEAST;
    if fan_2 {
        if let Ok(Some((w, r))) = fan_2_closest(d) {
            out.push((
                format!("FAN-2, {w} workers (closest call): mpsc unbounded ÷ std swap"),
                r,
            ));
        }
    }
    if let Ok(r) = tcp_ratio(d, Design::MpscUnbounded, Design::StdMutexSwap, top) {
        let claims = if fan_2 { "FAN-2 and FAN-4" } else { "FAN-4" };
        out.push((
            format!("{claims}, {top} workers: mpsc unbounded ÷ std swap"),
            r,
        ));
    }
    if let Ok((_, geo)) = fan_3_ratios(d) {
        out.push((
            "FAN-3: tokio swap ÷ std swap, geometric mean over worker counts".into(),
            geo,
        ));
    }
    if let Ok(Some(share)) = fan_4_share(d, top) {
        out.push((
            format!(
                "FAN-4, {top} workers: share of mpsc's excess over the swap removed by recv_many"
            ),
            share,
        ));
    }
    out
}
