//! The estimates FAN-1..FAN-4 are decided by, each computed once by the
//! judge and stored under its name: ratios of two designs' statistics over
//! the TCP sink, a geometric mean of ratios and a share, each with a
//! bootstrapped 95 % interval. The fair experiment's are the headline
//! (precision, `harness compare`) and mark the answer's numbers; their
//! names are the ones results files have always carried. Every other row of
//! a verdict map names its own with the row's setting after the claim.
use anyhow::Result;
use harness_core::{Estimate, Unit};
use harness_measure::stats::Statistic;
use harness_measure::timing::Timing;
use harness_page::Judge;

use super::views;

/// FAN-2 is decided only at a largest count in the thousands (so the gap
/// at a smaller largest count is FAN-4's alone, and named so).
pub(super) const FAN2_LARGEST_AT_LEAST: usize = 1000;

/// Which row of a verdict map an estimate belongs to: `None` for the fair
/// experiment, else the row's setting (`View::row`).
pub(super) type Row<'a> = Option<&'a str>;

/// The fair experiment's row: its names are the headline's.
pub(super) const FAIR: Row<'static> = None;

/// The name of an estimate of `row`: the fair row's as the headline has it
/// (`{claims}{rest}`), any other row's with its setting after the claim
/// (`{claims}, {setting}{rest}`).
fn named(row: Row<'_>, claims: &str, rest: &str) -> String {
    match row {
        None => format!("{claims}{rest}"),
        Some(setting) => format!("{claims}, {setting}{rest}"),
    }
}

fn workers(w: usize) -> String {
    format!("{w} worker{}", if w == 1 { "" } else { "s" })
}

/// FAN-1's swap ÷ mpsc at the fewest workers.
pub(super) fn fan_1(row: Row<'_>, w: usize) -> String {
    named(
        row,
        "FAN-1",
        &format!(", {}: std swap ÷ mpsc unbounded", workers(w)),
    )
}

/// mpsc ÷ swap at the row's largest count: FAN-2's wide margin when that
/// count is in the thousands, and FAN-4's gap either way.
pub(super) fn gap_at_top(row: Row<'_>, top: usize) -> String {
    let claims = if top >= FAN2_LARGEST_AT_LEAST {
        "FAN-2 and FAN-4"
    } else {
        "FAN-4"
    };
    named(
        row,
        claims,
        &format!(", {top} workers: mpsc unbounded ÷ std swap"),
    )
}

/// mpsc ÷ swap at a count below the largest, from 8 workers up (FAN-2).
pub(super) fn fan_2(row: Row<'_>, w: usize) -> String {
    named(
        row,
        "FAN-2",
        &format!(", {w} workers: mpsc unbounded ÷ std swap"),
    )
}

/// The same ratio at the count nearest to deciding against FAN-2.
pub(super) fn fan_2_closest(row: Row<'_>, w: usize) -> String {
    named(
        row,
        "FAN-2",
        &format!(", {w} workers (closest call): mpsc unbounded ÷ std swap"),
    )
}

/// FAN-3's geometric mean of tokio swap ÷ std swap.
pub(super) fn fan_3(row: Row<'_>) -> String {
    named(
        row,
        "FAN-3",
        ": tokio swap ÷ std swap, geometric mean over worker counts",
    )
}

/// FAN-4's share of mpsc's excess that recv_many removes.
pub(super) fn fan_4_share(row: Row<'_>, top: usize) -> String {
    named(
        row,
        "FAN-4",
        &format!(", {top} workers: share of mpsc's excess over the swap removed by recv_many"),
    )
}

/// `a ÷ b` of two timings' statistic, named `name` (`views::ratio_of`:
/// paired pass by pass when both have as many passes, else pooled; the
/// stored method says which).
pub(super) fn ratio(
    j: &mut Judge,
    name: &str,
    a: &Timing,
    b: &Timing,
    stat: Statistic,
) -> Result<Estimate> {
    let (e, method) = views::ratio_of_with_method(a, b, stat);
    j.estimate(name, e, Unit::Ratio, method)
}

/// The geometric mean of `first ÷ second` over `pairs`, its interval
/// bootstrapped by resampling every timing at once. The timings are
/// flattened pair by pair in the order given (`[first, second]` per pair).
pub(super) fn geometric_mean(
    j: &mut Judge,
    name: &str,
    pairs: &[[&Timing; 2]],
    stat: Statistic,
) -> Result<Estimate> {
    let flat: Vec<&Timing> = pairs.iter().flatten().copied().collect();
    j.bootstrap(
        name,
        &flat,
        stat,
        Unit::Ratio,
        "geometric mean of per-count ratios, bootstrapped",
        |s| {
            let logs: f64 = s.chunks(2).map(|p| (p[0] / p[1]).ln()).sum();
            (logs / (s.len() / 2) as f64).exp()
        },
    )
}

/// `(mpsc − recv_many) ÷ (mpsc − swap)`, bootstrapped: the share of
/// mpsc's excess over the swap that recv_many removes.
pub(super) fn share(
    j: &mut Judge,
    name: &str,
    [mpsc, many, swap]: [&Timing; 3],
    stat: Statistic,
) -> Result<Estimate> {
    j.bootstrap(
        name,
        &[mpsc, many, swap],
        stat,
        Unit::Share,
        "(mpsc − recv_many) ÷ (mpsc − swap), bootstrapped",
        |s| (s[0] - s[1]) / (s[0] - s[2]),
    )
}
