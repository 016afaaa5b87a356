//! The published claims FAN-1..FAN-4, the rules that decide them, and the
//! judge: each rule applied to every way of measuring the claim (the fair
//! experiment, the ladder from the published bench, the variations of the
//! method), every estimate a row rests on named and stored
//! (`super::estimates`), each claim's verdict map with its headline derived
//! from the rows, and the run's headline. The page reads what was judged.
use anyhow::Result;
use harness_core::{Claim, Condition, Estimate, Outcome, Unit, Verdict};
use harness_measure::stats::Statistic;
use harness_measure::timing::Timing;
use harness_page::{Judge, Judged};

use super::estimates::{self, FAIR, FAN2_LARGEST_AT_LEAST};
use super::views::{self, View};
use fan_in::run::FanInData;
use fan_in::Design;

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
/// FAN-2's wide margin.
const FAN2_MIN_GAP: f64 = 10.0;
/// FAN-3's "roughly 25x": within this factor of it.
pub(super) const FAN3_CLAIMED: f64 = 25.0;
const FAN3_TOLERANCE: f64 = 2.0;
const FAN4_MIN_PER_WRITE: f64 = 16.0;
const FAN4_MIN_SHARE: f64 = 0.9;

/// What a rule gives for one row: its outcome, the figure that decided it
/// and the names of the estimates that figure shows.
type Decided = (Outcome, String, Vec<String>);

/// A rule applied to one row, naming the estimates it reads in `j`; `None`
/// when the row cannot decide the claim (it lacks a design or a worker
/// count the rule needs).
type Rule = fn(&View<'_>, &mut Judge) -> Result<Option<Decided>>;

fn rule_of(id: &str) -> Option<Rule> {
    match id {
        "FAN-1" => Some(fan_1),
        "FAN-2" => Some(fan_2),
        "FAN-3" => Some(fan_3),
        "FAN-4" => Some(fan_4),
        _ => None,
    }
}

/// Judges one run: every claim's verdict map over every row
/// (`views::all`), in `CLAIMS` order, then the headline.
pub(super) fn judge(run: &Judged<FanInData>, j: &mut Judge) -> Result<()> {
    let views = views::all(run.data);
    for claim in CLAIMS {
        let Some(rule) = rule_of(claim.id) else {
            j.verdict(
                Verdict::not_measured(claim, format!("no rule for {}", claim.id)),
                &[],
            );
            continue;
        };
        let (v, reads) = verdict(claim, run.machine(), &views, rule, j)?;
        let reads: Vec<&str> = reads.iter().map(String::as_str).collect();
        j.verdict(v, &reads);
    }
    headline(&views::fair(run.data, STAT), j)
}

/// The claim's verdict map over `views`, its headline derived from the
/// rows; the evidence is the fair row's figure. With it, every estimate
/// the rows read.
pub(super) fn verdict(
    claim: &Claim,
    machine: &str,
    views: &[View<'_>],
    rule: Rule,
    j: &mut Judge,
) -> Result<(Verdict, Vec<String>)> {
    let mut evidence = None;
    let mut reads = Vec::new();
    let mut rows: Vec<Condition> = Vec::new();
    for v in views {
        let Some((outcome, figure, names)) = rule(v, j)? else {
            continue;
        };
        if v.fair {
            evidence = Some(figure.clone());
        }
        let mut row = Condition::new(v.axis, v.setting.clone(), outcome, figure).reads(&names);
        if v.fair {
            row = row.fair();
        }
        if v.as_published {
            row = row.as_published();
        }
        reads.extend(names);
        rows.push(row);
    }
    if rows.is_empty() {
        let v = Verdict::not_measured(
            claim,
            format!("no measurement on {machine} can decide {}", claim.id),
        );
        return Ok((v, reads));
    }
    let evidence = evidence.unwrap_or_else(|| "the fair experiment cannot decide it".into());
    Ok((Verdict::from_map(claim, machine, rows, evidence), reads))
}

/// The statistic the headline reads: the fair experiment's.
const STAT: Statistic = Statistic::Median;

/// The headline: the fair experiment's estimates FAN-1..FAN-4 rest on, in
/// the order results files have always listed them. Each is the rules'
/// own (one name, one figure), plus FAN-2's closest call and FAN-4's share
/// wherever mpsc trails the swap at all.
fn headline(v: &View<'_>, j: &mut Judge) -> Result<()> {
    let (swap, mpsc) = (Design::StdMutexSwap, Design::MpscUnbounded);
    if let Some(first) = v.fewest() {
        if let (Some(a), Some(b)) = (v.get(swap, first), v.get(mpsc, first)) {
            let name = estimates::fan_1(FAIR, first);
            estimates::ratio(j, &name, a.timing, b.timing, STAT)?;
            j.headline(&name);
        }
    }
    let Some(top) = v.largest() else {
        return Ok(());
    };
    if top >= FAN2_LARGEST_AT_LEAST {
        // The count nearest to deciding against FAN-2: lowest interval.
        let mut closest: Option<(usize, Estimate, [&Timing; 2])> = None;
        for &w in v
            .workers
            .iter()
            .filter(|&&w| w >= FAN2_FROM_WORKERS && w < top)
        {
            let (Some(a), Some(b)) = (v.get(mpsc, w), v.get(swap, w)) else {
                continue;
            };
            let r = views::ratio_of(a.timing, b.timing, STAT);
            if closest
                .as_ref()
                .is_none_or(|(_, c, _)| r.lower_ns < c.lower_ns)
            {
                closest = Some((w, r, [a.timing, b.timing]));
            }
        }
        if let Some((w, _, [a, b])) = closest {
            let name = estimates::fan_2_closest(FAIR, w);
            estimates::ratio(j, &name, a, b, STAT)?;
            j.headline(&name);
        }
    }
    let (Some(m), Some(s)) = (v.get(mpsc, top), v.get(swap, top)) else {
        return Ok(());
    };
    let name = estimates::gap_at_top(FAIR, top);
    let gap = estimates::ratio(j, &name, m.timing, s.timing, STAT)?;
    j.headline(&name);
    if fan_3(v, j)?.is_some() {
        j.headline(&estimates::fan_3(FAIR));
    }
    if gap.at_least(1.0) == Some(true) {
        if let Some(many) = v.get(Design::MpscRecvMany, top) {
            let name = estimates::fan_4_share(FAIR, top);
            if estimates::share(j, &name, [m.timing, many.timing, s.timing], STAT).is_ok() {
                j.headline(&name);
            }
        }
    }
    Ok(())
}

/// A ratio that must exceed `line`: the outcome and its figure.
fn at_least(r: &Estimate, line: f64) -> Outcome {
    Outcome::at_least(r, line)
}

/// `a ÷ b` at `w` workers in row `v`, named `name`, when the row has both.
fn ratio(
    v: &View<'_>,
    j: &mut Judge,
    name: &str,
    (a, b): (Design, Design),
    w: usize,
) -> Result<Option<Estimate>> {
    let (Some(pa), Some(pb)) = (v.get(a, w), v.get(b, w)) else {
        return Ok(None);
    };
    estimates::ratio(j, name, pa.timing, pb.timing, v.stat).map(Some)
}

fn fan_1(v: &View<'_>, j: &mut Judge) -> Result<Option<Decided>> {
    let Some(w) = v.fewest() else {
        return Ok(None);
    };
    let name = estimates::fan_1(v.row(), w);
    let Some(r) = ratio(
        v,
        j,
        &name,
        (Design::StdMutexSwap, Design::MpscUnbounded),
        w,
    )?
    else {
        return Ok(None);
    };
    Ok(Some((
        at_least(&r, 1.0 + MIN_EFFECT),
        format!(
            "{w} worker{}: swap ÷ mpsc {}",
            if w == 1 { "" } else { "s" },
            r.show(Unit::Ratio)
        ),
        vec![name],
    )))
}

fn fan_2(v: &View<'_>, j: &mut Judge) -> Result<Option<Decided>> {
    let Some(top) = v.largest() else {
        return Ok(None);
    };
    if top < FAN2_LARGEST_AT_LEAST {
        return Ok(None);
    }
    let pair = (Design::MpscUnbounded, Design::StdMutexSwap);
    let top_name = estimates::gap_at_top(v.row(), top);
    let Some(gap) = ratio(v, j, &top_name, pair, top)? else {
        return Ok(None);
    };
    let mut names = vec![top_name];
    let mut parts = vec![at_least(&gap, FAN2_MIN_GAP)];
    let mut closest: Option<(usize, Estimate)> = None;
    for &w in v
        .workers
        .iter()
        .filter(|&&w| w >= FAN2_FROM_WORKERS && w < top)
    {
        let name = estimates::fan_2(v.row(), w);
        if let Some(r) = ratio(v, j, &name, pair, w)? {
            names.push(name);
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
    Ok(Some((Outcome::all_of(&parts), figure, names)))
}

fn fan_3(v: &View<'_>, j: &mut Judge) -> Result<Option<Decided>> {
    let pairs: Vec<[&Timing; 2]> = v
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
        return Ok(None);
    }
    let name = estimates::fan_3(v.row());
    let Ok(geo) = estimates::geometric_mean(j, &name, &pairs, v.stat) else {
        return Ok(None);
    };
    let (lo, hi) = (FAN3_CLAIMED / FAN3_TOLERANCE, FAN3_CLAIMED * FAN3_TOLERANCE);
    Ok(Some((
        Outcome::within(&geo, lo, hi),
        format!(
            "tokio ÷ std swap, geometric mean over {} count{}: {}",
            pairs.len(),
            if pairs.len() == 1 { "" } else { "s" },
            geo.show(Unit::Ratio)
        ),
        vec![name],
    )))
}

fn fan_4(v: &View<'_>, j: &mut Judge) -> Result<Option<Decided>> {
    let Some(top) = v.largest() else {
        return Ok(None);
    };
    let (Some(swap), Some(mpsc), Some(many)) = (
        v.get(Design::StdMutexSwap, top),
        v.get(Design::MpscUnbounded, top),
        v.get(Design::MpscRecvMany, top),
    ) else {
        return Ok(None);
    };
    let per_write = swap.messages / swap.writes.max(1.0);
    let batched = Outcome::from_bool(per_write >= FAN4_MIN_PER_WRITE);
    let gap_name = estimates::gap_at_top(v.row(), top);
    let gap = estimates::ratio(j, &gap_name, mpsc.timing, swap.timing, v.stat)?;
    let head = format!(
        "{top} workers: {} messages per swap write, mpsc ÷ swap {}",
        Unit::Plain.show(per_write),
        gap.show(Unit::Ratio)
    );
    let wins = at_least(&gap, 1.0 + MIN_EFFECT);
    if wins != Outcome::Holds {
        return Ok(Some((
            Outcome::all_of(&[batched, wins]),
            head,
            vec![gap_name],
        )));
    }
    let share_name = estimates::fan_4_share(v.row(), top);
    let Ok(share) = estimates::share(
        j,
        &share_name,
        [mpsc.timing, many.timing, swap.timing],
        v.stat,
    ) else {
        return Ok(None);
    };
    Ok(Some((
        Outcome::all_of(&[batched, at_least(&share, FAN4_MIN_SHARE)]),
        format!(
            "{head}; recv_many removes {} of the gap",
            share.show(Unit::Share)
        ),
        vec![gap_name, share_name],
    )))
}
