//! FAN-4, the claim this chapter decides, and the rule that decides it.
use anyhow::Result;
use harness::stats::{ratio, Statistic};
use harness::{Block, Book, Claim, Estimate, Outcome, Run, Unit, Verdict};

use super::{Data, Experiment, Measured};
use crate::{Design, Wait};

const SOURCE: &str =
    "[buffered-mpsc: mpsc vs mutex-swap fan-in](https://github.com/JuxhinDB/buffered-mpsc)";

/// The smallest mean batch the rule of FAN-4 accepts as "many messages per pass".
const FAN4_MIN_BATCH: f64 = 10.0;
/// FAN-4 looks at producer counts from here up: "at scale".
pub const FAN4_FROM_PRODUCERS: u64 = 128;

pub const CLAIMS: &[Claim] = &[Claim {
    id: "FAN-4",
    statement:
        "Swapping the buffer drains many messages per pass, which is why the swap wins (batching).",
    source: SOURCE,
    rule: "At every producer count of 128 or more that was measured: the std::sync::Mutex \
           swap with the Notify consumer moves at least 10 messages per non-empty pass on \
           average, the 95% interval drawn over the point's rounds lying entirely at or above \
           10, and the same std::sync::Mutex taking one message per lock (no batching) has a \
           longer burst time, the bootstrapped 95% interval of the ratio lying entirely above \
           1. Does not hold if a batch's interval lies entirely below 10 or a ratio's entirely \
           below 1; inconclusive if an interval straddles its threshold or a point has no \
           per-round counts.",
}];

/// FAN-4's points: at every producer count from 128 up with both, the std
/// swap (throughput experiment) and one message per lock, with the ratio of
/// their mean burst times (one per lock ÷ swap, bootstrapped interval).
fn fan4_points(data: &Data) -> Vec<(&Measured, &Measured, Estimate)> {
    data.producers(Experiment::Throughput)
        .into_iter()
        .filter(|&p| p >= FAN4_FROM_PRODUCERS)
        .filter_map(|p| {
            let swap = data
                .point(
                    Experiment::Throughput,
                    Design::StdMutexSwap,
                    Wait::Notify,
                    p,
                )
                .ok()?;
            let pop_one = data
                .point(
                    Experiment::LockHold,
                    Design::StdMutexPopOne,
                    Wait::Notify,
                    p,
                )
                .ok()?;
            Some((
                swap,
                pop_one,
                ratio(&pop_one.timing, &swap.timing, Statistic::Mean),
            ))
        })
        .collect()
}

/// FAN-4's ratios at the largest producer count and, when another count
/// comes nearer to 1, at that closest call too.
pub fn decisive_estimates(data: &Data) -> Vec<(String, Estimate)> {
    let points = fan4_points(data);
    let Some((largest, _, top)) = points.last() else {
        return Vec::new();
    };
    let name = |p: u64, note: &str| {
        format!(
            "FAN-4, {} producers{note}: one message per lock ÷ std swap",
            harness::fmt::thousands(p)
        )
    };
    let mut out = Vec::new();
    if let Some((swap, _, r)) = points
        .iter()
        .min_by(|a, b| a.2.lower_ns.total_cmp(&b.2.lower_ns))
    {
        if swap.producers != largest.producers {
            out.push((name(swap.producers, " (closest call)"), *r));
        }
    }
    out.push((name(largest.producers, ""), *top));
    out
}

/// One machine's verdict: every point from 128 producers up must batch
/// clear of 10 and lose clearly to the swap without batching.
fn fan4_verdict(run: &Run<Data>) -> Verdict {
    let claim = &CLAIMS[0];
    let at_scale = fan4_points(&run.data);
    if at_scale.is_empty() {
        return Verdict::not_measured(
            claim,
            format!(
                "{} has no std Mutex swap and one-per-lock points at {FAN4_FROM_PRODUCERS} \
                 producers or more",
                run.machine()
            ),
        );
    }
    // "Entirely above 1": an interval touching 1 does not clear it.
    let one = Estimate::around(1.0, 0.0);
    let mut parts = Vec::new();
    let mut evidence = Vec::new();
    for (swap, _, r) in &at_scale {
        let batch = swap.batch();
        parts.push(batch.map_or(Outcome::Inconclusive, |b| {
            Outcome::at_least(&b, FAN4_MIN_BATCH)
        }));
        parts.push(Outcome::decided(r.compare(&one)));
        let batch = batch.map_or_else(
            || {
                format!(
                    "{} (one round: no interval)",
                    Unit::Plain.show(swap.passes.messages_per_pass())
                )
            },
            |b| b.show(Unit::Plain),
        );
        evidence.push(format!(
            "{} producers: {batch} messages per pass; one per lock {} the swap's time",
            swap.producers,
            r.show(Unit::Ratio)
        ));
    }
    Verdict::new(
        claim,
        run.machine(),
        Outcome::all_of(&parts),
        evidence.join("; "),
    )
}

pub fn verdicts(book: &Book<Data>) -> Result<Vec<Block>> {
    Ok(vec![Block::Verdicts(
        book.runs.iter().map(fan4_verdict).collect(),
    )])
}
