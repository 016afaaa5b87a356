//! FAN-4, the claim this chapter decides, and the rule that decides it:
//! the judge names the estimates every row of the verdict map reads, gives
//! the claim its verdict on one run and lists the headline (`judge`).
use anyhow::Result;
use harness_core::{Claim, Condition, Estimate, Outcome, Unit, Verdict};
use harness_measure::stats::Statistic;
use harness_page::{Judge, Judged};

use mutex_swap::run::{Data, Experiment, Measured, FAN4_FROM_PRODUCERS};
use mutex_swap::{Design, Wait};

use super::estimates::{batch, steady_batch, BATCH_METHOD};

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
    /// Each burst's largest pass left out (`estimates::steady_batch`).
    Steady,
    /// Every pass (`estimates::batch`).
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
    /// What the name of the row's ratio adds after the producer count
    /// (`ratio_name`): nothing for the fair row's, which the headline
    /// lists, and for the every-pass row, whose ratio is the fair row's.
    ratio_tag: &'static str,
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
        ratio_tag: "",
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
        ratio_tag: ", busy-polling consumer",
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
        ratio_tag: ", yield_now consumer",
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
        ratio_tag: ", median burst time",
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
        ratio_tag: "",
        fair: false,
        as_published: false,
    },
];

#[cfg(test)]
impl Setting {
    /// Whether `key` is one of the two points this row compares.
    fn reads(&self, key: mutex_swap::run::Key) -> bool {
        let (experiment, design, wait, producers, work_rounds) = key;
        let (swap_in, pop_in) = self.experiments;
        producers >= FAN4_FROM_PRODUCERS
            && work_rounds == mutex_swap::LIGHT_WORK
            && wait == self.wait
            && ((experiment, design) == (swap_in, Design::StdMutexSwap)
                || (experiment, design) == (pop_in, Design::StdMutexPopOne))
    }
}

fn producers(p: u64) -> String {
    format!("{} producers", harness_core::fmt::thousands(p))
}

/// The name of one message per lock ÷ std swap at `p` producers, `tag`
/// after the count: `FAN-4, 8,192 producers: one message per lock ÷ std
/// swap` for the fair row (the headline's; precision and `harness compare`
/// read it), `FAN-4, 512 producers (closest call): ...` for the headline's
/// closest call, `FAN-4, 1,024 producers, busy-polling consumer: ...` for
/// another row.
fn ratio_name(p: u64, tag: &str) -> String {
    format!(
        "FAN-4, {}{tag}: one message per lock ÷ std swap",
        producers(p)
    )
}

/// The headline's name of the fair row's ratio at `p` producers, which
/// the answer's number is marked with.
pub fn headline_name(p: u64) -> String {
    ratio_name(p, "")
}

/// The name of the batch a row reads from its swap point `swap`.
fn batch_name(swap: &Measured, over: BatchOver) -> String {
    match over {
        BatchOver::Steady => {
            let consumer = match swap.wait {
                Wait::Notify => "Notify consumer",
                Wait::BusyPoll => "busy-polling consumer",
                Wait::YieldNow => "yield_now consumer",
            };
            format!(
                "FAN-4, {}, {consumer}: messages per pass without the largest",
                producers(swap.producers)
            )
        }
        BatchOver::Every => format!(
            "FAN-4, {}: messages per pass, every pass",
            producers(swap.producers)
        ),
    }
}

/// A setting's pairs of points: at every producer count from 128 up where
/// it has both, the std swap and the same std Mutex taking one message per
/// lock.
fn pairs<'a>(data: &'a Data, s: &Setting) -> Vec<(&'a Measured, &'a Measured)> {
    let (swap_in, pop_in) = s.experiments;
    data.producers(swap_in)
        .into_iter()
        .filter(|&p| p >= FAN4_FROM_PRODUCERS)
        .filter_map(|p| {
            let swap = data.point(swap_in, Design::StdMutexSwap, s.wait, p).ok()?;
            let pop_one = data.point(pop_in, Design::StdMutexPopOne, s.wait, p).ok()?;
            Some((swap, pop_one))
        })
        .collect()
}

/// The std swap's point at the fair row's largest producer count, where
/// the headline's ratio is read (the answer's and the badge's number).
pub fn at_scale(data: &Data) -> Option<&Measured> {
    pairs(data, &SETTINGS[0]).last().map(|&(swap, _)| swap)
}

/// A setting's points with their ratio one message per lock ÷ swap of the
/// burst times (bootstrapped interval), named by the judge.
fn fan4_points<'a>(
    data: &'a Data,
    s: &Setting,
    j: &mut Judge,
) -> Result<Vec<(&'a Measured, Estimate, String)>> {
    pairs(data, s)
        .into_iter()
        .map(|(swap, pop_one)| {
            let name = ratio_name(swap.producers, s.ratio_tag);
            let r = j.ratio(&name, &pop_one.timing, &swap.timing, s.statistic)?;
            Ok((swap, r, name))
        })
        .collect()
}

/// The headline: FAN-4's ratio in the fair row at the largest producer
/// count and, when another count comes nearer to the line, at that closest
/// call first (named for it: the same figure under its headline name).
fn headline(fair: &[(&Measured, Estimate, String)], data: &Data, j: &mut Judge) -> Result<()> {
    let Some((largest, _, top)) = fair.last() else {
        return Ok(());
    };
    if let Some((swap, _, _)) = fair
        .iter()
        .min_by(|a, b| a.1.lower_ns.total_cmp(&b.1.lower_ns))
    {
        if swap.producers != largest.producers {
            let pop_one = data.point(
                SETTINGS[0].experiments.1,
                Design::StdMutexPopOne,
                SETTINGS[0].wait,
                swap.producers,
            )?;
            let name = ratio_name(swap.producers, " (closest call)");
            j.ratio(&name, &pop_one.timing, &swap.timing, SETTINGS[0].statistic)?;
            j.headline(&name);
        }
    }
    j.headline(top);
    Ok(())
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
/// of 10 (`batch_outcome`) and lose clearly to the swap without batching,
/// its ratios and batches named. `None` when the run has no such point for
/// the row.
fn fan4_row(
    points: &[(&Measured, Estimate, String)],
    s: &Setting,
    j: &mut Judge,
) -> Result<Option<Condition>> {
    if points.is_empty() {
        return Ok(None);
    }
    let mut parts = Vec::new();
    let mut figures = Vec::new();
    let mut names = Vec::new();
    for (swap, r, ratio) in points {
        let (batch, mean) = match s.batch {
            BatchOver::Steady => (
                steady_batch(swap),
                swap.passes.messages_per_pass_without_largest(),
            ),
            BatchOver::Every => (batch(swap), swap.passes.messages_per_pass()),
        };
        if let Some(b) = batch {
            let name = batch_name(swap, s.batch);
            j.estimate(&name, b, Unit::Plain, BATCH_METHOD)?;
            names.push(name);
        }
        names.push(ratio.clone());
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
    )
    .reads(names);
    if s.fair {
        row = row.fair();
    }
    if s.as_published {
        row = row.as_published();
    }
    Ok(Some(row))
}

/// FAN-4 judged on one run: the verdict, the estimates its rows read, and
/// the point and ratio its badge reads (the fair row's largest count).
pub struct Fan4<'a> {
    pub verdict: Verdict,
    pub reads: Vec<String>,
    pub at_scale: Option<(&'a Measured, Estimate)>,
}

/// One machine's verdict: the map of every setting, the headline derived
/// from it, the fair row's figures as evidence; every estimate a row reads
/// named, and the headline listed.
pub fn judge<'a>(run: &Judged<'a, Data>, j: &mut Judge) -> Result<Fan4<'a>> {
    let claim = &CLAIMS[0];
    let data = run.data;
    let mut rows = Vec::new();
    let mut at_scale = None;
    for (i, s) in SETTINGS.iter().enumerate() {
        let points = fan4_points(data, s, j)?;
        if i == 0 {
            headline(&points, data, j)?;
            at_scale = points.last().map(|&(swap, r, _)| (swap, r));
        }
        rows.extend(fan4_row(&points, s, j)?);
    }
    let Some(fair) = rows.iter().find(|r| r.fair) else {
        let verdict = Verdict::not_measured(
            claim,
            format!(
                "{} has no std Mutex swap and one-per-lock points at {FAN4_FROM_PRODUCERS} \
                 producers or more",
                run.machine()
            ),
        );
        return Ok(Fan4 {
            verdict,
            reads: Vec::new(),
            at_scale,
        });
    };
    let evidence = fair.figure.clone();
    let mut reads: Vec<String> = Vec::new();
    for name in rows.iter().flat_map(|r| &r.estimates) {
        if !reads.contains(name) {
            reads.push(name.clone());
        }
    }
    Ok(Fan4 {
        verdict: Verdict::from_map(claim, run.machine(), rows, evidence),
        reads,
        at_scale,
    })
}

#[cfg(test)]
mod tests {
    use super::SETTINGS;
    use harness_core::Profile;
    use mutex_swap::run::{is_decisive, plan, schedule};

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
