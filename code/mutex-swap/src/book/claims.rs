//! FAN-4, the claim this chapter decides, and the rule that decides it.
use anyhow::Result;
use harness::stats::{ratio, Statistic};
use harness::{Block, Book, Claim, Condition, Estimate, Outcome, Run, Unit, Verdict};

use crate::run::{Data, Experiment, Measured, FAN4_FROM_PRODUCERS};
use crate::{Design, Wait};

const SOURCE: &str =
    "[buffered-mpsc: mpsc vs mutex-swap fan-in](https://github.com/JuxhinDB/buffered-mpsc)";

/// The smallest mean batch the rule of FAN-4 accepts as "many messages per pass".
const FAN4_MIN_BATCH: f64 = 10.0;
/// The smallest slowdown of one message per lock read as "batching is why
/// the swap wins": above the spread of this ratio between runs (two quick
/// runs of ten rounds differed by 13 %), so no verdict turns on it.
const MIN_EFFECT: f64 = 0.20;

pub const CLAIMS: &[Claim] = &[Claim {
    id: "FAN-4",
    short: "the swap itself drains many messages per pass, and that is why it wins",
    statement:
        "Swapping the buffer drains many messages per pass, which is why the swap wins (batching).",
    source: SOURCE,
    rule: "Minimum effect 20 %. A row of the verdict map holds when, at every producer count of \
           128 or more it measured, the std::sync::Mutex swap moves at least 10 messages per \
           non-empty pass on average, each burst's largest pass left out (95 % interval drawn \
           over the point's rounds at or above 10), and the same std::sync::Mutex taking one \
           message per lock (no batching) takes at least 1.2 times as long per burst \
           (bootstrapped 95 % interval of the ratio at or above 1.2). It does not hold if a \
           batch's interval lies wholly below 8 (10 less the minimum effect) or a ratio's wholly \
           below 1.2; it is inconclusive otherwise, or if a point has a single round. The rows: \
           the Notify consumer (fair), the busy-polling consumer of the published bench, the \
           yield_now consumer, the fair points read by their median, and the fair points with \
           every pass counted. The headline comes from the map.",
}];

/// Which passes a batch is averaged over.
#[derive(Clone, Copy, PartialEq)]
enum BatchOver {
    /// Each burst's largest pass left out (`Measured::steady_batch`).
    Steady,
    /// Every pass (`Measured::batch`).
    Every,
}

/// One way of measuring FAN-4: which points it compares and how it reads them.
struct Setting {
    axis: &'static str,
    setting: &'static str,
    /// Where the swap's point and the one-per-lock point come from.
    experiments: (Experiment, Experiment),
    wait: Wait,
    statistic: Statistic,
    batch: BatchOver,
    fair: bool,
    as_published: bool,
}

const SETTINGS: [Setting; 5] = [
    Setting {
        axis: "consumer wait",
        setting: "Notify consumer",
        experiments: (Experiment::Throughput, Experiment::LockHold),
        wait: Wait::Notify,
        statistic: Statistic::Mean,
        batch: BatchOver::Steady,
        fair: true,
        as_published: false,
    },
    Setting {
        axis: "consumer wait",
        setting: "busy-polling consumer",
        experiments: (Experiment::Wait, Experiment::Wait),
        wait: Wait::BusyPoll,
        statistic: Statistic::Mean,
        batch: BatchOver::Steady,
        fair: false,
        as_published: true,
    },
    Setting {
        axis: "consumer wait",
        setting: "yield_now consumer",
        experiments: (Experiment::Wait, Experiment::Wait),
        wait: Wait::YieldNow,
        statistic: Statistic::Mean,
        batch: BatchOver::Steady,
        fair: false,
        as_published: false,
    },
    Setting {
        axis: "statistic",
        setting: "median burst time instead of the mean",
        experiments: (Experiment::Throughput, Experiment::LockHold),
        wait: Wait::Notify,
        statistic: Statistic::Median,
        batch: BatchOver::Steady,
        fair: false,
        as_published: false,
    },
    Setting {
        axis: "batch",
        setting: "every pass counted",
        experiments: (Experiment::Throughput, Experiment::LockHold),
        wait: Wait::Notify,
        statistic: Statistic::Mean,
        batch: BatchOver::Every,
        fair: false,
        as_published: false,
    },
];

#[cfg(test)]
impl Setting {
    /// Whether `key` is one of the two points this row compares.
    fn reads(&self, key: crate::run::Key) -> bool {
        let (experiment, design, wait, producers, work_rounds) = key;
        let (swap_in, pop_in) = self.experiments;
        producers >= FAN4_FROM_PRODUCERS
            && work_rounds == crate::LIGHT_WORK
            && wait == self.wait
            && ((experiment, design) == (swap_in, Design::StdMutexSwap)
                || (experiment, design) == (pop_in, Design::StdMutexPopOne))
    }
}

/// A setting's points: at every producer count from 128 up where it has
/// both, the std swap with the ratio one message per lock ÷ swap of their
/// burst times (bootstrapped interval).
fn fan4_points<'a>(data: &'a Data, s: &Setting) -> Vec<(&'a Measured, Estimate)> {
    let (swap_in, pop_in) = s.experiments;
    data.producers(swap_in)
        .into_iter()
        .filter(|&p| p >= FAN4_FROM_PRODUCERS)
        .filter_map(|p| {
            let swap = data.point(swap_in, Design::StdMutexSwap, s.wait, p).ok()?;
            let pop_one = data.point(pop_in, Design::StdMutexPopOne, s.wait, p).ok()?;
            Some((swap, ratio(&pop_one.timing, &swap.timing, s.statistic)))
        })
        .collect()
}

/// FAN-4's ratios in the fair row at the largest producer count and, when
/// another count comes nearer to the line, at that closest call too.
pub fn decisive_estimates(data: &Data) -> Vec<(String, Estimate)> {
    let points = fan4_points(data, &SETTINGS[0]);
    let Some((largest, top)) = points.last() else {
        return Vec::new();
    };
    let name = |p: u64, note: &str| {
        format!(
            "FAN-4, {} producers{note}: one message per lock ÷ std swap",
            harness::fmt::thousands(p)
        )
    };
    let mut out = Vec::new();
    if let Some((swap, r)) = points
        .iter()
        .min_by(|a, b| a.1.lower_ns.total_cmp(&b.1.lower_ns))
    {
        if swap.producers != largest.producers {
            out.push((name(swap.producers, " (closest call)"), *r));
        }
    }
    out.push((name(largest.producers, ""), *top));
    out
}

/// The fair row's points (see `fan4_points`), for the page's answer.
pub(super) fn fair_points(data: &Data) -> Vec<(&Measured, Estimate)> {
    fan4_points(data, &SETTINGS[0])
}

/// "Many messages per pass": holds when the batch's interval clears 10,
/// does not hold when it lies wholly below 10 less the minimum effect: the
/// batch moves between runs by more than its interval within one run.
fn batch_outcome(batch: &Estimate) -> Outcome {
    match Outcome::at_least(batch, FAN4_MIN_BATCH) {
        Outcome::Holds => Outcome::Holds,
        _ => match Outcome::at_least(batch, FAN4_MIN_BATCH * (1.0 - MIN_EFFECT)) {
            Outcome::DoesNotHold => Outcome::DoesNotHold,
            _ => Outcome::Inconclusive,
        },
    }
}

/// The rule on one row: every point from 128 producers up must batch clear
/// of 10 (`batch_outcome`) and lose clearly to the swap without batching. `None` when the
/// run has no such point for the row.
fn fan4_row(data: &Data, s: &Setting) -> Option<Condition> {
    let at_scale = fan4_points(data, s);
    if at_scale.is_empty() {
        return None;
    }
    let mut parts = Vec::new();
    let mut figures = Vec::new();
    for (swap, r) in &at_scale {
        let (batch, mean) = match s.batch {
            BatchOver::Steady => (
                swap.steady_batch(),
                swap.passes.messages_per_pass_without_largest(),
            ),
            BatchOver::Every => (swap.batch(), swap.passes.messages_per_pass()),
        };
        parts.push(batch.map_or(Outcome::Inconclusive, |b| batch_outcome(&b)));
        parts.push(Outcome::at_least(r, 1.0 + MIN_EFFECT));
        let batch = batch.map_or_else(
            || format!("{} (one round: no interval)", Unit::Plain.show(mean)),
            |b| b.show(Unit::Plain),
        );
        figures.push(format!(
            "{} producers: {batch} messages per pass{}; one per lock {} the swap's time",
            swap.producers,
            if s.batch == BatchOver::Every {
                " (every pass)"
            } else {
                ""
            },
            r.show(Unit::Ratio)
        ));
    }
    let mut row = Condition::new(
        s.axis,
        s.setting,
        Outcome::all_of(&parts),
        figures.join("; "),
    );
    if s.fair {
        row = row.fair();
    }
    if s.as_published {
        row = row.as_published();
    }
    Some(row)
}

/// One machine's verdict: the map of every setting, the headline derived
/// from it, the fair row's figures as evidence.
fn fan4_verdict(run: &Run<Data>) -> Verdict {
    let claim = &CLAIMS[0];
    let rows: Vec<Condition> = SETTINGS
        .iter()
        .filter_map(|s| fan4_row(&run.data, s))
        .collect();
    let Some(fair) = rows.iter().find(|r| r.fair) else {
        return Verdict::not_measured(
            claim,
            format!(
                "{} has no std Mutex swap and one-per-lock points at {FAN4_FROM_PRODUCERS} \
                 producers or more",
                run.machine()
            ),
        );
    };
    let evidence = fair.figure.clone();
    Verdict::from_map(claim, run.machine(), rows, evidence)
}

pub fn verdicts(book: &Book<Data>) -> Result<Vec<Block>> {
    Ok(vec![Block::Verdicts(
        book.runs
            .iter()
            .map(|run| super::reader::read(&run.data, fan4_verdict(run)))
            .collect(),
    )])
}

#[cfg(test)]
mod tests {
    use super::SETTINGS;
    use crate::run::{is_decisive, plan, schedule};
    use harness::Profile;

    /// The run gives extra rounds to exactly the points FAN-4's fair and
    /// as-published rows read, in every profile: the schedule's deciding
    /// points are those rows' points.
    #[test]
    fn the_decisive_points_are_the_ones_the_fair_and_published_rows_read() {
        for profile in Profile::ALL {
            let deciding = schedule(profile).deciding();
            for key in plan(profile) {
                let read = SETTINGS
                    .iter()
                    .filter(|s| s.fair || s.as_published)
                    .any(|s| s.reads(key));
                assert_eq!(read, deciding.contains(&key), "{profile:?} {key:?}");
                assert_eq!(read, is_decisive(key), "{profile:?} {key:?}");
            }
            assert!(!deciding.is_empty(), "{profile:?}");
        }
    }
}
