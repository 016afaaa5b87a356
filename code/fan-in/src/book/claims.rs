//! The published claims FAN-1..FAN-4, the rules that decide them, and their
//! verdict maps: each rule applied to every way of measuring the claim (the
//! fair experiment, the ladder from the published bench, the variations of
//! the method), the headline derived from the rows.
use anyhow::Result;
use harness::stats;
use harness::{Block, Book, Claim, Condition, Estimate, Outcome, Run, Unit, Verdict};

use super::views::{self, View};
use super::FanInData;
use crate::Design;

const SOURCE: &str =
    "[the post accompanying buffered-mpsc](https://github.com/JuxhinDB/buffered-mpsc)";

// ANCHOR: claims
pub const CLAIMS: &[Claim] = &[
    Claim {
        id: "FAN-1",
        short: "with very few workers, the std swap is slower than mpsc",
        statement:
            "With very few workers, the std::sync::Mutex swap is slower than the mpsc design.",
        source: SOURCE,
        rule: "At the fewest workers a row measured, over the TCP sink: std Mutex swap ÷ mpsc \
               unbounded (medians; means on the ladder; 95 % interval) is at least 1 + MIN_EFFECT (1.25×). Holds when \
               the whole interval is at or above it, does not hold when it lies wholly below, \
               inconclusive when it straddles it. The headline comes from the verdict map: holds \
               or does not hold when every decided row agrees, else \"holds only when\" the rows \
               where it holds or \"holds except when\" the rows where it fails, whichever \
               list is shorter.",
    },
    Claim {
        id: "FAN-2",
        short: "with many workers, the std swap beats mpsc by far",
        statement: "As workers grow, the std::sync::Mutex swap soon beats mpsc, by a wide margin \
                    at thousands of workers.",
        source: SOURCE,
        rule: "Over the TCP sink, mpsc unbounded ÷ std Mutex swap (medians; means on the ladder; 95 % interval) is at \
               least 1 + MIN_EFFECT (1.25×) at every count a row measured from 8 workers up, and \
               at least 10× (the wide margin) at its largest count, which must be in the \
               thousands. Does not hold if one of these intervals lies wholly below its line, \
               inconclusive if one straddles it. Headline from the verdict map as for FAN-1.",
    },
    Claim {
        id: "FAN-3",
        short: "tokio's Mutex makes the swap about 25x slower than std's",
        statement:
            "Using tokio::sync::Mutex for the swap is roughly 25x slower than std::sync::Mutex.",
        source: SOURCE,
        rule: "Over the TCP sink, the geometric mean across a row's worker counts of tokio swap \
               ÷ std swap (medians, means on the ladder; its 95 % interval bootstrapped by resampling every count's \
               timings at once) lies within FAN3_TOLERANCE (a factor 2) of 25×, 12.5× to 50×: a \
               band far wider than the run-to-run spread. Does not hold if the interval lies \
               wholly outside, inconclusive if it straddles an end. Headline from the verdict \
               map as for FAN-1.",
    },
    Claim {
        id: "FAN-4",
        short: "with a socket to write to, batching is why the swap wins",
        statement: "Swapping the buffer drains many messages per pass, which is why it wins \
                    (batching).",
        source: SOURCE,
        rule: "At a row's largest count over the TCP sink: the std Mutex swap hands the socket \
               at least 16 messages per write call; mpsc unbounded ÷ swap is at least \
               1 + MIN_EFFECT (1.25×), the swap winning; and mpsc with recv_many (a channel that \
               also writes in batches) removes at least 90 % of the time by which mpsc unbounded \
               trails the swap (medians, means on the ladder; bootstrapped 95 % interval). Does not hold if fewer \
               messages per call, if the swap does not win by the minimum effect, or if the \
               share's interval lies wholly below 90 %; inconclusive if an interval straddles \
               its line. Rows without recv_many cannot decide it. Headline from the verdict map \
               as for FAN-1.",
    },
];
// ANCHOR_END: claims

/// The smallest ratio read as a difference between two designs: above the
/// spread of such ratios between runs of this chapter, so no verdict turns
/// on a gap a second run could close.
pub(super) const MIN_EFFECT: f64 = 0.25;
/// Worker counts from which FAN-2 wants the swap ahead.
pub(super) const FAN2_FROM_WORKERS: usize = 8;
/// FAN-2 is decided only at a largest count in the thousands.
pub(super) const FAN2_LARGEST_AT_LEAST: usize = 1000;
/// FAN-2's wide margin.
const FAN2_MIN_GAP: f64 = 10.0;
/// FAN-3's "roughly 25x": within this factor of it.
pub(super) const FAN3_CLAIMED: f64 = 25.0;
const FAN3_TOLERANCE: f64 = 2.0;
const FAN4_MIN_PER_WRITE: f64 = 16.0;
const FAN4_MIN_SHARE: f64 = 0.9;

/// The verdicts exhibit: every claim on every machine, each with its map.
pub(super) fn verdicts(book: &Book<FanInData>) -> Result<Vec<Block>> {
    Ok(vec![Block::Verdicts(
        book.runs
            .iter()
            .flat_map(|run| {
                verdicts_of(run)
                    .into_iter()
                    .map(|v| super::reader::read(book, run, v))
            })
            .collect(),
    )])
}

/// A rule applied to one row: its outcome and the figure that decided it,
/// or `None` when the row cannot decide the claim (it lacks a design or a
/// worker count the rule needs).
type Rule = fn(&View<'_>) -> Option<(Outcome, String)>;

fn rule_of(id: &str) -> Option<Rule> {
    match id {
        "FAN-1" => Some(fan_1),
        "FAN-2" => Some(fan_2),
        "FAN-3" => Some(fan_3),
        "FAN-4" => Some(fan_4),
        _ => None,
    }
}

fn verdicts_of(run: &Run<FanInData>) -> Vec<Verdict> {
    let views = views::all(&run.data);
    CLAIMS
        .iter()
        .map(|claim| {
            let Some(rule) = rule_of(claim.id) else {
                return Verdict::not_measured(claim, format!("no rule for {}", claim.id));
            };
            verdict(claim, run.machine(), &views, rule)
        })
        .collect()
}

/// The claim's verdict map over `views`, its headline derived from the
/// rows; the evidence is the fair row's figure.
pub(super) fn verdict(claim: &Claim, machine: &str, views: &[View<'_>], rule: Rule) -> Verdict {
    let mut evidence = None;
    let rows: Vec<Condition> = views
        .iter()
        .filter_map(|v| {
            let (outcome, figure) = rule(v)?;
            if v.fair {
                evidence = Some(figure.clone());
            }
            let mut row = Condition::new(v.axis, v.setting.clone(), outcome, figure);
            if v.fair {
                row = row.fair();
            }
            if v.as_published {
                row = row.as_published();
            }
            Some(row)
        })
        .collect();
    if rows.is_empty() {
        return Verdict::not_measured(
            claim,
            format!("no measurement on {machine} can decide {}", claim.id),
        );
    }
    let evidence = evidence.unwrap_or_else(|| "the fair experiment cannot decide it".into());
    Verdict::from_map(claim, machine, rows, evidence)
}

/// A ratio that must exceed `line`: the outcome and its figure.
fn at_least(r: &Estimate, line: f64) -> Outcome {
    Outcome::at_least(r, line)
}

fn fan_1(v: &View<'_>) -> Option<(Outcome, String)> {
    let w = v.fewest()?;
    let r = v.ratio(Design::StdMutexSwap, Design::MpscUnbounded, w)?;
    Some((
        at_least(&r, 1.0 + MIN_EFFECT),
        format!(
            "{w} worker{}: swap ÷ mpsc {}",
            if w == 1 { "" } else { "s" },
            r.show(Unit::Ratio)
        ),
    ))
}

fn fan_2(v: &View<'_>) -> Option<(Outcome, String)> {
    let top = v.largest()?;
    if top < FAN2_LARGEST_AT_LEAST {
        return None;
    }
    let gap = v.ratio(Design::MpscUnbounded, Design::StdMutexSwap, top)?;
    let mut parts = vec![at_least(&gap, FAN2_MIN_GAP)];
    let mut closest: Option<(usize, Estimate)> = None;
    for &w in v
        .workers
        .iter()
        .filter(|&&w| w >= FAN2_FROM_WORKERS && w < top)
    {
        if let Some(r) = v.ratio(Design::MpscUnbounded, Design::StdMutexSwap, w) {
            parts.push(at_least(&r, 1.0 + MIN_EFFECT));
            if closest.is_none_or(|(_, c)| r.lower_ns < c.lower_ns) {
                closest = Some((w, r));
            }
        }
    }
    let mut figure = format!("{top} workers: mpsc ÷ swap {}", gap.show(Unit::Ratio));
    if let Some((w, r)) = closest {
        figure.push_str(&format!(
            "; closest call {w} workers, {}",
            r.show(Unit::Ratio)
        ));
    }
    Some((Outcome::all_of(&parts), figure))
}

fn fan_3(v: &View<'_>) -> Option<(Outcome, String)> {
    let pairs: Vec<_> = v
        .workers
        .iter()
        .filter_map(|&w| {
            Some([
                v.get(Design::TokioMutexSwap, w)?.timing,
                v.get(Design::StdMutexSwap, w)?.timing,
            ])
        })
        .collect();
    if pairs.is_empty() {
        return None;
    }
    let flat: Vec<_> = pairs.iter().flatten().copied().collect();
    let geo = stats::bootstrap(&flat, v.stat, |s| {
        let logs: f64 = s.chunks(2).map(|p| (p[0] / p[1]).ln()).sum();
        (logs / (s.len() / 2) as f64).exp()
    })
    .ok()?;
    let (lo, hi) = (FAN3_CLAIMED / FAN3_TOLERANCE, FAN3_CLAIMED * FAN3_TOLERANCE);
    Some((
        Outcome::within(&geo, lo, hi),
        format!(
            "tokio ÷ std swap, geometric mean over {} count{}: {}",
            pairs.len(),
            if pairs.len() == 1 { "" } else { "s" },
            geo.show(Unit::Ratio)
        ),
    ))
}

fn fan_4(v: &View<'_>) -> Option<(Outcome, String)> {
    let top = v.largest()?;
    let swap = v.get(Design::StdMutexSwap, top)?;
    let mpsc = v.get(Design::MpscUnbounded, top)?;
    let many = v.get(Design::MpscRecvMany, top)?;
    let per_write = swap.messages / swap.writes.max(1.0);
    let batched = Outcome::from_bool(per_write >= FAN4_MIN_PER_WRITE);
    let gap = views::ratio_of(mpsc.timing, swap.timing, v.stat);
    let head = format!(
        "{top} workers: {} messages per swap write, mpsc ÷ swap {}",
        Unit::Plain.show(per_write),
        gap.show(Unit::Ratio)
    );
    let wins = at_least(&gap, 1.0 + MIN_EFFECT);
    if wins != Outcome::Holds {
        return Some((Outcome::all_of(&[batched, wins]), head));
    }
    let share = stats::bootstrap(&[mpsc.timing, many.timing, swap.timing], v.stat, |s| {
        (s[0] - s[1]) / (s[0] - s[2])
    })
    .ok()?;
    Some((
        Outcome::all_of(&[batched, at_least(&share, FAN4_MIN_SHARE)]),
        format!(
            "{head}; recv_many removes {} of the gap",
            share.show(Unit::Share)
        ),
    ))
}
