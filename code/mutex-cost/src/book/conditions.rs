//! The rows of MUT-1's and MUT-2's verdict maps: every way this run
//! measured each claim, with the ratio it gives. The ladder and sensitivity
//! exhibits and the verdicts read the same rows, so a table and the map
//! under a verdict can never disagree.
use harness::stats::{ratio, Statistic};
use harness::timing::Timing;
use harness::{fmt, Estimate, PerOp};

use super::{plural, round, workers_of, Data, Shape};
use crate::allocator::Allocator;
use crate::drivers::{Driver, Lock};
use crate::experiments::RoundTiming;
use crate::sensitivity::SampledRounds;
use crate::{Variant, ACTOR_CLAIM_FUTURES, CONTENDING_TASKS};

/// What a row's ratio is a ratio of.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Measure {
    /// Criterion means (or medians) of time per round.
    Time,
    /// Instructions callgrind counted: exact, no interval.
    Instructions,
}

/// One way of measuring a claim, and what it gave.
#[derive(Clone, Debug)]
pub(super) struct Row {
    pub axis: &'static str,
    pub setting: String,
    pub as_published: bool,
    pub fair: bool,
    pub measure: Measure,
    /// The claim's ratios under this row: ("tokio ÷ std", estimate), ...
    pub ratios: Vec<(&'static str, Estimate)>,
    /// Time per round of each side, where the row is a timing of its own
    /// (std Mutex, tokio Mutex, actor).
    pub times: Vec<(Variant, Estimate)>,
}

impl Row {
    fn new(axis: &'static str, setting: impl Into<String>, measure: Measure) -> Row {
        Row {
            axis,
            setting: setting.into(),
            as_published: false,
            fair: false,
            measure,
            ratios: Vec::new(),
            times: Vec::new(),
        }
    }

    fn published(mut self) -> Row {
        self.as_published = true;
        self
    }

    fn fair(mut self) -> Row {
        self.fair = true;
        self
    }

    fn ratio(mut self, name: &'static str, e: Estimate) -> Row {
        self.ratios.push((name, e));
        self
    }

    fn times<'a>(mut self, of: &dyn Fn(Variant) -> Option<&'a Timing>, stat: Statistic) -> Row {
        self.times = Variant::ALL
            .iter()
            .filter_map(|&v| of(v).map(|t| (v, *t.estimate(stat))))
            .collect();
        self
    }
}

/// The most worker threads up to the core count among the contended runs:
/// the book's fair experiment.
pub(super) fn fair_workers(d: &Data) -> Option<usize> {
    workers_of(&d.contended)
        .into_iter()
        .filter(|&w| w <= d.cores.max(1))
        .max()
}

fn find(rows: &[RoundTiming], v: Variant, futures: usize) -> Option<&Timing> {
    rows.iter()
        .find(|r| r.variant == v && r.futures == futures)
        .map(|r| &r.timing)
}

fn timing(d: &Data, shape: Shape, v: Variant, futures: usize) -> Option<&Timing> {
    round(d, shape, v, futures).ok().map(|r| &r.timing)
}

/// The grid cell of `lock` under `allocator`, `driver` and a runtime
/// (`None` workers: current-thread).
pub(super) fn grid_cell(
    d: &Data,
    allocator: Allocator,
    driver: Driver,
    workers: Option<usize>,
    lock: Lock,
) -> Option<&SampledRounds> {
    d.sensitivity.iter().find(|c| {
        c.allocator == allocator
            && c.driver == driver
            && c.lock == lock
            && match workers {
                None => c.runtime.flavor == "current_thread",
                Some(w) => c.runtime.flavor == "multi_thread" && c.runtime.workers == w,
            }
    })
}

/// `lock` ÷ std Mutex in one grid cell.
pub(super) fn grid_ratio(
    d: &Data,
    allocator: Allocator,
    driver: Driver,
    workers: Option<usize>,
    lock: Lock,
) -> Option<Estimate> {
    let k = grid_cell(d, allocator, driver, workers, lock)?;
    let s = grid_cell(d, allocator, driver, workers, Lock::Std)?;
    Some(ratio(&k.timing, &s.timing, Statistic::Mean))
}

fn instructions<'a>(d: &'a Data, case: &str) -> Option<&'a PerOp> {
    d.instructions.iter().find(|p| p.name == case)
}

/// `a` ÷ `b` of two counted cases, exact.
pub(super) fn instruction_ratio(d: &Data, a: &str, b: &str) -> Option<Estimate> {
    let (a, b) = (instructions(d, a)?, instructions(d, b)?);
    let r = a.per_op / b.per_op;
    (r.is_finite() && r > 0.0).then_some(Estimate {
        point_ns: r,
        lower_ns: r,
        upper_ns: r,
    })
}

/// The size MUT-1 is judged at: the published one when this run has it.
pub(super) fn mut_1_size(d: &Data) -> usize {
    super::reproduction_size(d)
}

fn tasks_label(workers: usize) -> String {
    format!(
        "{CONTENDING_TASKS} spawned tasks looping, {workers} worker thread{}",
        plural(workers)
    )
}

/// MUT-1's rows: tokio ÷ std on the published work, as published, along the
/// ladder to the fair experiment, and along each method choice.
pub(super) fn mut_1(d: &Data) -> Vec<Row> {
    let n = mut_1_size(d);
    let mut rows = Vec::new();
    let pair = |s: Option<&Timing>, k: Option<&Timing>, stat| match (s, k) {
        (Some(s), Some(k)) => Some(ratio(k, s, stat)),
        _ => None,
    };
    let tokio_std = "tokio ÷ std";
    let js = timing(d, Shape::JoinAll, Variant::StdMutex, n);
    let jk = timing(d, Shape::JoinAll, Variant::TokioMutex, n);
    if let Some(r) = pair(js, jk, Statistic::Mean) {
        rows.push(
            Row::new(
                "ladder",
                "as published: join_all polled by block_on in criterion's to_async",
                Measure::Time,
            )
            .published()
            .ratio(tokio_std, r)
            .times(&|v| timing(d, Shape::JoinAll, v, n), Statistic::Mean),
        );
    }
    if let Some(r) = pair(
        find(&d.in_task, Variant::StdMutex, n),
        find(&d.in_task, Variant::TokioMutex, n),
        Statistic::Mean,
    ) {
        rows.push(
            Row::new("ladder", "the round in one spawned task", Measure::Time)
                .ratio(tokio_std, r)
                .times(&|v| find(&d.in_task, v, n), Statistic::Mean),
        );
    }
    let fair = fair_workers(d);
    for w in workers_of(&d.contended) {
        let shape = Shape::Spawned { workers: w };
        if let Some(r) = pair(
            timing(d, shape, Variant::StdMutex, n),
            timing(d, shape, Variant::TokioMutex, n),
            Statistic::Mean,
        ) {
            let row = Row::new("ladder", tasks_label(w), Measure::Time)
                .ratio(tokio_std, r)
                .times(&|v| timing(d, shape, v, n), Statistic::Mean);
            rows.push(if Some(w) == fair { row.fair() } else { row });
        }
    }
    if let Some(r) = pair(js, jk, Statistic::Median) {
        rows.push(
            Row::new(
                "statistic",
                "criterion's median instead of its mean",
                Measure::Time,
            )
            .ratio(tokio_std, r),
        );
    }
    let cores = Some(d.cores);
    let sys = Allocator::System;
    if let Some(r) = grid_ratio(d, sys, Driver::LoopedInBlockOn, cores, Lock::Tokio) {
        rows.push(
            Row::new(
                "timing",
                "each round timed alone in a fresh process",
                Measure::Time,
            )
            .ratio(tokio_std, r),
        );
    }
    for (driver, workers, setting) in [
        (
            Driver::BlockOnPerRound,
            cores,
            "one block_on per round".to_string(),
        ),
        (
            Driver::SpawnedTask,
            cores,
            format!("rounds in a spawned task on {} worker threads", d.cores),
        ),
        (
            Driver::SpawnedTask,
            Some(1),
            "rounds in a spawned task on 1 worker thread".to_string(),
        ),
        (
            Driver::LoopedInBlockOn,
            None,
            "a current-thread runtime".to_string(),
        ),
    ] {
        if let Some(r) = grid_ratio(d, sys, driver, workers, Lock::Tokio) {
            rows.push(Row::new("driver", setting, Measure::Time).ratio(tokio_std, r));
        }
    }
    for (allocator, setting) in [
        (
            Allocator::SystemKept,
            "an allocator that keeps freed memory",
        ),
        (Allocator::Mimalloc, "mimalloc"),
    ] {
        if let Some(r) = grid_ratio(d, allocator, Driver::LoopedInBlockOn, cores, Lock::Tokio) {
            rows.push(Row::new("allocator", setting, Measure::Time).ratio(tokio_std, r));
        }
    }
    for (lock, setting) in [
        (
            Lock::TokioBudgetFirst,
            "the co-op budget asked before the permit (tokio before 1.54)",
        ),
        (
            Lock::TokioNoBudget,
            "no co-op budget (the round unconstrained)",
        ),
    ] {
        if let Some(r) = grid_ratio(d, sys, Driver::LoopedInBlockOn, cores, lock) {
            rows.push(Row::new("co-op budget", setting, Measure::Time).ratio(tokio_std, r));
        }
    }
    // Both of the published run's conditions this build can give at once:
    // tokio's lock order before 1.54, on a heap that keeps what it frees.
    let kept = Allocator::SystemKept;
    if let Some(r) = grid_ratio(
        d,
        kept,
        Driver::LoopedInBlockOn,
        cores,
        Lock::TokioBudgetFirst,
    ) {
        rows.push(
            Row::new(
                "co-op budget",
                "the budget asked first and freed memory kept",
                Measure::Time,
            )
            .ratio(tokio_std, r),
        );
    }
    for (tokio, std, setting) in [
        (
            "join_all_tokio_mt",
            "join_all_std_mt",
            "counting instructions, block_on on a multi-thread runtime",
        ),
        (
            "join_all_tokio",
            "join_all_std",
            "counting instructions, block_on on a current-thread runtime",
        ),
        (
            "join_all_tokio_budget_first_mt",
            "join_all_std_mt",
            "counting instructions with the budget asked first",
        ),
    ] {
        if let Some(r) = instruction_ratio(d, tokio, std) {
            rows.push(Row::new("instructions", setting, Measure::Instructions).ratio(tokio_std, r));
        }
    }
    rows
}

/// MUT-2's rows: actor ÷ tokio Mutex and actor ÷ std Mutex at the earlier
/// post's size, as published, along the ladder, and by statistic.
pub(super) fn mut_2(d: &Data) -> Vec<Row> {
    let n = ACTOR_CLAIM_FUTURES;
    fn both<'a>(
        get: &dyn Fn(Variant) -> Option<&'a Timing>,
        stat: Statistic,
    ) -> Option<[Estimate; 2]> {
        let (a, k, s) = (
            get(Variant::Actor)?,
            get(Variant::TokioMutex)?,
            get(Variant::StdMutex)?,
        );
        Some([ratio(a, k, stat), ratio(a, s, stat)])
    }
    let row = |axis, setting: String, [ak, as_]: [Estimate; 2]| {
        Row::new(axis, setting, Measure::Time)
            .ratio("actor ÷ tokio", ak)
            .ratio("actor ÷ std", as_)
    };
    let mut rows = Vec::new();
    let join_all = |v| timing(d, Shape::JoinAll, v, n);
    let fair = fair_workers(d);
    if let Some(r) = both(&join_all, Statistic::Mean) {
        rows.push(Row::times(
            row(
                "ladder",
                "as published: join_all polled by block_on, the actor a spawned task".into(),
                r,
            )
            .published(),
            &join_all,
            Statistic::Mean,
        ));
    }
    let in_task = |v| find(&d.in_task, v, n);
    if let Some(r) = both(&in_task, Statistic::Mean) {
        rows.push(Row::times(
            row("ladder", "the round in one spawned task".into(), r),
            &in_task,
            Statistic::Mean,
        ));
    }
    let per_future = |v| find(&d.task_per_future, v, n);
    if let Some(r) = both(&per_future, Statistic::Mean) {
        rows.push(Row::times(
            row(
                "where requests start",
                "every future a spawned task of its own".into(),
                r,
            ),
            &per_future,
            Statistic::Mean,
        ));
    }
    for w in workers_of(&d.contended) {
        let shape = Shape::Spawned { workers: w };
        let get = |v| timing(d, shape, v, n);
        if let Some(r) = both(&get, Statistic::Mean) {
            let r = row("ladder", tasks_label(w), r).times(&get, Statistic::Mean);
            rows.push(if Some(w) == fair { r.fair() } else { r });
        }
    }
    if let Some(r) = both(&join_all, Statistic::Median) {
        rows.push(row(
            "statistic",
            "criterion's median instead of its mean".into(),
            r,
        ));
    }
    if let Some(w) = fair {
        let shape = Shape::Spawned { workers: w };
        if let Some(r) = both(&|v| timing(d, shape, v, n), Statistic::Median) {
            rows.push(row(
                "statistic",
                format!("criterion's median, {}", tasks_label(w)),
                r,
            ));
        }
    }
    rows
}

/// A row's ratios as the map's figure column reads them.
pub(super) fn figure(row: &Row) -> String {
    let unit = match row.measure {
        Measure::Time => "",
        Measure::Instructions => " (instructions, exact)",
    };
    row.ratios
        .iter()
        .map(|(name, e)| match row.measure {
            Measure::Time => format!("{name} = {}", e.show(harness::Unit::Ratio)),
            Measure::Instructions => format!("{name} = {}{unit}", fmt::ratio(e.point_ns)),
        })
        .collect::<Vec<_>>()
        .join("; ")
}
