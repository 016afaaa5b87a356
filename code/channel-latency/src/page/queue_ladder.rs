//! Experiment B from the published method to the fair one. [`STEPS`] names
//! each way of reading the ladder's runs once (which run, which clock,
//! which statistic); the table here and the verdict maps of LAT-5 and
//! LAT-6 both read it.
use anyhow::{Context, Result};
use harness_core::Estimate;
use harness_measure::stats::{paired_ratio, Statistic};
use harness_measure::timing::Timing;
use harness_page::{render::blocks::Block, render::blocks::Cell, render::blocks::Table, Book};

use super::{machine_of, Data};
use channel_latency::backpressure::{Latencies, Run};
use channel_latency::backpressure_ladder::LadderRun;
use channel_latency::{BOUNDS, TASKS};

/// Which stamp a latency starts from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Clock {
    /// Before `send().await` (the published stamp).
    BeforeSend,
    /// When `send().await` returned.
    InQueue,
}

/// Which figure of a run's latencies.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Figure {
    Mean,
    P50,
    P99,
}

/// One way of reading experiment B's ladder runs.
#[derive(Clone, Copy, Debug)]
pub(super) struct Step {
    pub axis: &'static str,
    pub setting: &'static str,
    /// `backpressure_ladder::RUNGS` id.
    pub rung: &'static str,
    pub clock: Clock,
    pub figure: Figure,
    pub as_published: bool,
    pub fair: bool,
}

const fn step(
    axis: &'static str,
    setting: &'static str,
    rung: &'static str,
    clock: Clock,
    figure: Figure,
) -> Step {
    Step {
        axis,
        setting,
        rung,
        clock,
        figure,
        as_published: false,
        fair: false,
    }
}

/// The ladder, one flaw fixed per step, then the fair run read differently.
pub(super) const STEPS: [Step; 8] = [
    Step {
        as_published: true,
        ..step(
            "ladder",
            "as published: stamped before send, Mutex<Vec> receiver, mean, a pause instead of a join",
            "published",
            Clock::BeforeSend,
            Figure::Mean,
        )
    },
    step(
        "ladder",
        "stamped when the send completed",
        "published",
        Clock::InQueue,
        Figure::Mean,
    ),
    step(
        "ladder",
        "recorded without a lock",
        "lock-free",
        Clock::InQueue,
        Figure::Mean,
    ),
    step(
        "ladder",
        "the median instead of the mean",
        "lock-free",
        Clock::InQueue,
        Figure::P50,
    ),
    Step {
        fair: true,
        ..step(
            "ladder",
            "the receiver awaited, not a pause (the fair experiment)",
            "fair",
            Clock::InQueue,
            Figure::P50,
        )
    },
    step(
        "clock",
        "stamped before send, in the fair run",
        "fair",
        Clock::BeforeSend,
        Figure::P50,
    ),
    step(
        "statistic",
        "the 99th percentile instead of the median",
        "fair",
        Clock::InQueue,
        Figure::P99,
    ),
    step(
        "statistic",
        "the mean instead of the median, in the fair run",
        "fair",
        Clock::InQueue,
        Figure::Mean,
    ),
];

/// The step that is the fair experiment.
pub(super) fn fair_step() -> Step {
    STEPS
        .into_iter()
        .find(|s| s.fair)
        .expect("one step is fair")
}

/// The figure a step reads from one run, in nanoseconds (at least 1).
pub(super) fn figure_of(run: &Run, clock: Clock, figure: Figure) -> f64 {
    let l: &Latencies = match clock {
        Clock::BeforeSend => &run.before_send,
        Clock::InQueue => &run.enqueue_to_dequeue,
    };
    let ns = match figure {
        Figure::Mean => l.percentiles.mean_ns,
        Figure::P50 => l.percentiles.p50_ns as f64,
        Figure::P99 => l.percentiles.p99_ns as f64,
    };
    ns.max(1.0)
}

/// Experiment B's ladder, read from a run's data.
pub(super) trait LadderReads {
    fn ladder_runs(&self, rung: &str, channel: &str, tasks: usize, bound: usize)
        -> Vec<&LadderRun>;
    fn step_timing(
        &self,
        s: Step,
        channel: &str,
        tasks: usize,
        bound: usize,
    ) -> Result<Option<Timing>>;
    fn step_ratio(&self, s: Step, tasks: usize, bound: usize) -> Result<Option<Estimate>>;
    fn step_growth(
        &self,
        s: Step,
        channel: &str,
        tasks: usize,
        lo: usize,
        hi: usize,
    ) -> Result<Option<Estimate>>;
}

impl LadderReads for Data {
    /// The ladder runs of one rung, channel and setting, in repeat order.
    fn ladder_runs(
        &self,
        rung: &str,
        channel: &str,
        tasks: usize,
        bound: usize,
    ) -> Vec<&LadderRun> {
        let mut runs: Vec<&LadderRun> = self
            .ladder
            .iter()
            .filter(|l| {
                l.rung == rung
                    && l.run.channel == channel
                    && l.run.tasks == tasks
                    && l.run.bound == bound
            })
            .collect();
        runs.sort_by_key(|l| l.repeat);
        runs
    }

    /// A step's figure at one setting, one repeat per window of a pooled
    /// timing (so `paired_ratio` pairs repeats); `Ok(None)` without a ladder.
    fn step_timing(
        &self,
        s: Step,
        channel: &str,
        tasks: usize,
        bound: usize,
    ) -> Result<Option<Timing>> {
        if self.ladder.is_empty() {
            return Ok(None);
        }
        let runs = self.ladder_runs(s.rung, channel, tasks, bound);
        let parts = runs
            .iter()
            .map(|l| Timing::of_samples(vec![figure_of(&l.run, s.clock, s.figure)]))
            .collect::<Result<Vec<_>>>()?;
        Timing::pooled(parts)
            .with_context(|| {
                format!(
                    "the ladder's {} {channel} runs at {tasks} tasks, bound {bound}",
                    s.rung
                )
            })
            .map(Some)
    }

    /// tokio's figure over kanal's at one setting, paired by repeat.
    fn step_ratio(&self, s: Step, tasks: usize, bound: usize) -> Result<Option<Estimate>> {
        let (Some(t), Some(k)) = (
            self.step_timing(s, "tokio", tasks, bound)?,
            self.step_timing(s, "kanal-async", tasks, bound)?,
        ) else {
            return Ok(None);
        };
        paired_ratio(&t, &k, Statistic::Median).map(Some)
    }

    /// One channel's figure at bound `hi` over bound `lo`, paired by repeat.
    fn step_growth(
        &self,
        s: Step,
        channel: &str,
        tasks: usize,
        lo: usize,
        hi: usize,
    ) -> Result<Option<Estimate>> {
        let (Some(a), Some(b)) = (
            self.step_timing(s, channel, tasks, hi)?,
            self.step_timing(s, channel, tasks, lo)?,
        ) else {
            return Ok(None);
        };
        paired_ratio(&a, &b, Statistic::Median).map(Some)
    }
}

/// Every setting of experiment B, as the maps name it.
pub(super) fn settings() -> impl Iterator<Item = (usize, usize)> {
    TASKS
        .into_iter()
        .flat_map(|t| BOUNDS.into_iter().map(move |b| (t, b)))
}

pub(super) fn setting_label(tasks: usize, bound: usize) -> String {
    format!("{tasks} tasks, bound {bound}")
}

/// tokio ÷ kanal at every step and setting.
pub(super) fn table(book: &Book<Data>) -> Result<Vec<Block>> {
    let run = book.primary();
    let d = &run.data;
    let Some(setup) = &d.ladder_setup else {
        return Ok(vec![Block::not_in_run(
            "channel-latency",
            &machine_of(run),
            "Experiment B's ladder",
        )]);
    };
    let mut header = vec!["way of measuring".to_string()];
    header.extend(settings().map(|(t, b)| setting_label(t, b)));
    let header: Vec<&str> = header.iter().map(String::as_str).collect();
    let mut t = Table::new(
        format!(
            "tokio's latency per message over kanal's under back-pressure on {}, paired repeat by repeat: the geometric mean over {} repeats of each repeat's ratio, with its 95 % interval. Each repeat is a run of {} messages split over the producers, on a tokio multi-thread runtime with {} workers. Above 1, kanal's messages wait less. The published program slept a second before reading its Vec; the runs that sleep here pause {} ms, longer than the few messages still in flight take to drain.",
            machine_of(run),
            setup.repeats,
            harness_core::fmt::thousands(setup.messages_per_run as u64),
            setup.worker_threads,
            setup.pause_ms
        ),
        &header,
    )
    .left(&[0]);
    for s in STEPS {
        let mut cells = vec![Cell::Text(s.setting.to_string())];
        for (tasks, bound) in settings() {
            cells.push(match d.step_ratio(s, tasks, bound)? {
                Some(r) => Cell::times(&r),
                None => Cell::from("–"),
            });
        }
        t.push(cells);
    }
    let mut out = vec![Block::Table(t)];
    // What the pause left out, if anything.
    let short: Vec<&LadderRun> = d
        .ladder
        .iter()
        .filter(|l| l.counted_at_end < l.run.received)
        .collect();
    out.push(Block::Text(if short.is_empty() {
        format!(
            "Every run that paused had received and recorded all its messages when the pause of {} ms ended: sleeping instead of joining did not change a figure here, only the risk of reading too early.",
            setup.pause_ms
        )
    } else {
        format!(
            "{} of the runs that paused had not recorded every message when the pause of {} ms ended; their figures cover what had been recorded, as the published program's would.",
            short.len(),
            setup.pause_ms
        )
    }));
    let direct = |channel: &str| -> f64 {
        let runs: Vec<&LadderRun> = d
            .ladder
            .iter()
            .filter(|l| l.rung == "fair" && l.run.channel == channel && l.run.bound == 1)
            .collect();
        runs.iter()
            .map(|l| l.run.dequeued_before_send_returned as f64 / l.run.received as f64)
            .sum::<f64>()
            / runs.len().max(1) as f64
    };
    out.push(Block::Text(format!(
        "At bound 1, kanal's receiver took {} of the messages straight from a parked sender, before that sender's send().await returned (tokio: {}). Those count as 1 ns in the queue, so there the in-queue median of kanal can land on either side of that share.",
        harness_core::Unit::Share.show(direct("kanal-async")),
        harness_core::Unit::Share.show(direct("tokio"))
    )));
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_ladder_starts_as_published_and_ends_fair() {
        assert!(STEPS[0].as_published && !STEPS[0].fair);
        assert_eq!(STEPS.iter().filter(|s| s.fair).count(), 1);
        assert_eq!(fair_step().rung, "fair");
        for s in STEPS {
            assert!(
                channel_latency::backpressure_ladder::rung(s.rung).is_some(),
                "{}",
                s.rung
            );
        }
        // Each ladder step changes one thing from the one before it.
        let ladder: Vec<Step> = STEPS.into_iter().filter(|s| s.axis == "ladder").collect();
        for w in ladder.windows(2) {
            let changed = [
                w[0].rung != w[1].rung,
                w[0].clock != w[1].clock,
                w[0].figure != w[1].figure,
            ];
            assert_eq!(
                changed.iter().filter(|c| **c).count(),
                1,
                "{} -> {}",
                w[0].setting,
                w[1].setting
            );
        }
        assert_eq!(settings().count(), TASKS.len() * BOUNDS.len());
    }
}
