//! The rows of MUT-1's and MUT-2's verdict maps: every way this run
//! measured each claim, with the ratio it gives, each under its name. The
//! judge draws and names them (`Ratios::Judging`); the ladder exhibit, the
//! reader and the verdicts read the same rows by name from the stored
//! analysis (`Ratios::Stored`), so a table and the map under a verdict can
//! never disagree.
use anyhow::Result;
use harness_core::{fmt, Estimate, Unit};
use harness_measure::stats::{ratio, Statistic};
use harness_measure::timing::Timing;
use harness_measure::PerOp;
use harness_page::{Judge, Run};

use super::points::{plural, round, workers_of, Shape};
use mutex_cost::allocator::Allocator;
use mutex_cost::drivers::{Driver, Lock};
use mutex_cost::experiments::RoundTiming;
use mutex_cost::run::Data;
use mutex_cost::sensitivity::SampledRounds;
use mutex_cost::{Variant, ACTOR_CLAIM_FUTURES, CONTENDING_TASKS};

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
    /// The names of `ratios` in the analysis, in the same order.
    pub names: Vec<String>,
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
            names: Vec::new(),
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

    /// Adds the ratio `label` of this row, named `name` in the analysis,
    /// from `src`.
    fn ratio(mut self, src: &mut Ratios, label: &'static str, name: String, of: Of) -> Result<Row> {
        let e = match of {
            Of::Time(a, b, stat) => src.time(&name, a, b, stat)?,
            Of::Exact(e) => src.exact(&name, e)?,
        };
        self.ratios.push((label, e));
        self.names.push(name);
        Ok(self)
    }

    fn times<'a>(mut self, of: &dyn Fn(Variant) -> Option<&'a Timing>, stat: Statistic) -> Row {
        self.times = Variant::ALL
            .iter()
            .filter_map(|&v| of(v).map(|t| (v, *t.estimate(stat))))
            .collect();
        self
    }
}

/// What a ratio is of: two timings' statistic (bootstrapped), or an exact
/// figure (instruction counts).
enum Of<'a> {
    Time(&'a Timing, &'a Timing, Statistic),
    Exact(Estimate),
}

/// Where a row's ratios come from: drawn and named by the judge, or read by
/// name from the run's stored analysis.
pub(super) enum Ratios<'a> {
    Judging(&'a mut Judge),
    Stored(&'a Run<Data>),
}

impl Ratios<'_> {
    /// `a` ÷ `b` of `stat`, bootstrapped (`harness_measure::stats::ratio`).
    fn time(&mut self, name: &str, a: &Timing, b: &Timing, stat: Statistic) -> Result<Estimate> {
        match self {
            Ratios::Judging(j) => j.ratio(name, a, b, stat),
            Ratios::Stored(run) => run.analysis.estimate(name),
        }
    }

    /// An exact ratio (of instruction counts): its interval is its point.
    fn exact(&mut self, name: &str, e: Estimate) -> Result<Estimate> {
        match self {
            Ratios::Judging(j) => {
                j.estimate(name, e, Unit::Ratio, "ratio of instruction counts, exact")
            }
            Ratios::Stored(run) => run.analysis.estimate(name),
        }
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
    super::points::reproduction_size(d)
}

fn tasks_label(workers: usize) -> String {
    format!(
        "{CONTENDING_TASKS} spawned tasks looping, {workers} worker thread{}",
        plural(workers)
    )
}

/// The name of MUT-1's as-published ratio at `futures` per round; at the
/// published size it is the headline's.
pub(super) fn mut_1_published_name(futures: usize) -> String {
    format!(
        "MUT-1, join_all of {} futures: tokio Mutex ÷ std Mutex",
        fmt::thousands(futures as u64)
    )
}

/// The name of MUT-1's ratio in the fair experiment.
pub(super) const MUT_1_FAIR: &str = "MUT-1, fair: tokio Mutex ÷ std Mutex";

/// The name of MUT-1's ratio in any other row.
fn mut_1_name(setting: &str) -> String {
    format!("MUT-1, {setting}: tokio ÷ std")
}

/// The names of MUT-2's two ratios (actor ÷ tokio, actor ÷ std) in the
/// fair experiment, on `workers` worker threads: the headline's.
pub(super) fn mut_2_fair_names(workers: usize) -> [String; 2] {
    let shape = format!(
        "MUT-2, {} futures spawned on {workers} worker{}",
        fmt::thousands(ACTOR_CLAIM_FUTURES as u64),
        plural(workers)
    );
    [
        format!("{shape}: actor ÷ tokio Mutex"),
        format!("{shape}: actor ÷ std Mutex"),
    ]
}

/// The names of MUT-2's two ratios in any other row.
fn mut_2_names(setting: &str) -> [String; 2] {
    [
        format!("MUT-2, {setting}: actor ÷ tokio Mutex"),
        format!("MUT-2, {setting}: actor ÷ std Mutex"),
    ]
}

const TOKIO_STD: &str = "tokio ÷ std";

/// A MUT-1 row of time ratios, tokio's timing `k` over std's `s`.
fn mut_1_row(
    src: &mut Ratios,
    row: Row,
    name: String,
    (s, k): (&Timing, &Timing),
    stat: Statistic,
) -> Result<Row> {
    row.ratio(src, TOKIO_STD, name, Of::Time(k, s, stat))
}

/// MUT-1's rows: tokio ÷ std on the published work, as published, along the
/// ladder to the fair experiment, and along each method choice.
pub(super) fn mut_1(d: &Data, src: &mut Ratios) -> Result<Vec<Row>> {
    let n = mut_1_size(d);
    let mut rows = Vec::new();
    fn both<'a>(s: Option<&'a Timing>, k: Option<&'a Timing>) -> Option<(&'a Timing, &'a Timing)> {
        Some((s?, k?))
    }
    let js = timing(d, Shape::JoinAll, Variant::StdMutex, n);
    let jk = timing(d, Shape::JoinAll, Variant::TokioMutex, n);
    if let Some(pair) = both(js, jk) {
        let row = Row::new(
            "ladder",
            "as published: join_all polled by block_on in criterion's to_async",
            Measure::Time,
        )
        .published();
        rows.push(
            mut_1_row(src, row, mut_1_published_name(n), pair, Statistic::Mean)?
                .times(&|v| timing(d, Shape::JoinAll, v, n), Statistic::Mean),
        );
    }
    if let Some(pair) = both(
        find(&d.in_task, Variant::StdMutex, n),
        find(&d.in_task, Variant::TokioMutex, n),
    ) {
        let row = Row::new("ladder", "the round in one spawned task", Measure::Time);
        let name = mut_1_name(&row.setting);
        rows.push(
            mut_1_row(src, row, name, pair, Statistic::Mean)?
                .times(&|v| find(&d.in_task, v, n), Statistic::Mean),
        );
    }
    let fair = fair_workers(d);
    for w in workers_of(&d.contended) {
        let shape = Shape::Spawned { workers: w };
        if let Some(pair) = both(
            timing(d, shape, Variant::StdMutex, n),
            timing(d, shape, Variant::TokioMutex, n),
        ) {
            let row = Row::new("ladder", tasks_label(w), Measure::Time);
            let (row, name) = if Some(w) == fair {
                (row.fair(), MUT_1_FAIR.to_string())
            } else {
                let name = mut_1_name(&row.setting);
                (row, name)
            };
            rows.push(
                mut_1_row(src, row, name, pair, Statistic::Mean)?
                    .times(&|v| timing(d, shape, v, n), Statistic::Mean),
            );
        }
    }
    if let Some(pair) = both(js, jk) {
        let row = Row::new(
            "statistic",
            "criterion's median instead of its mean",
            Measure::Time,
        );
        let name = mut_1_name(&row.setting);
        rows.push(mut_1_row(src, row, name, pair, Statistic::Median)?);
    }
    let cores = Some(d.cores);
    let sys = Allocator::System;
    // A grid row: `lock` ÷ std Mutex in one cell of the sensitivity grid.
    let mut grid =
        |rows: &mut Vec<Row>,
         axis: &'static str,
         setting: String,
         (allocator, driver, workers, lock): (Allocator, Driver, Option<usize>, Lock)|
         -> Result<()> {
            let cells = (
                grid_cell(d, allocator, driver, workers, Lock::Std),
                grid_cell(d, allocator, driver, workers, lock),
            );
            if let (Some(s), Some(k)) = cells {
                let row = Row::new(axis, setting, Measure::Time);
                let name = mut_1_name(&row.setting);
                rows.push(mut_1_row(
                    src,
                    row,
                    name,
                    (&s.timing, &k.timing),
                    Statistic::Mean,
                )?);
            }
            Ok(())
        };
    grid(
        &mut rows,
        "timing",
        "each round timed alone in a fresh process".into(),
        (sys, Driver::LoopedInBlockOn, cores, Lock::Tokio),
    )?;
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
        grid(
            &mut rows,
            "driver",
            setting,
            (sys, driver, workers, Lock::Tokio),
        )?;
    }
    for (allocator, setting) in [
        (
            Allocator::SystemKept,
            "an allocator that keeps freed memory",
        ),
        (Allocator::Mimalloc, "mimalloc"),
    ] {
        grid(
            &mut rows,
            "allocator",
            setting.into(),
            (allocator, Driver::LoopedInBlockOn, cores, Lock::Tokio),
        )?;
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
        grid(
            &mut rows,
            "co-op budget",
            setting.into(),
            (sys, Driver::LoopedInBlockOn, cores, lock),
        )?;
    }
    // Both of the published run's conditions this build can give at once:
    // tokio's lock order before 1.54, on a heap that keeps what it frees.
    grid(
        &mut rows,
        "co-op budget",
        "the budget asked first and freed memory kept".into(),
        (
            Allocator::SystemKept,
            Driver::LoopedInBlockOn,
            cores,
            Lock::TokioBudgetFirst,
        ),
    )?;
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
            let row = Row::new("instructions", setting, Measure::Instructions);
            let name = mut_1_name(&row.setting);
            rows.push(row.ratio(src, TOKIO_STD, name, Of::Exact(r))?);
        }
    }
    Ok(rows)
}

/// MUT-2's rows: actor ÷ tokio Mutex and actor ÷ std Mutex at the earlier
/// post's size, as published, along the ladder, and by statistic.
pub(super) fn mut_2(d: &Data, src: &mut Ratios) -> Result<Vec<Row>> {
    let n = ACTOR_CLAIM_FUTURES;
    // The row's two ratios from the actor's, tokio's and std's timings
    // (`None` when one is missing), under `names`.
    fn both<'a>(
        src: &mut Ratios,
        row: Row,
        names: [String; 2],
        get: &dyn Fn(Variant) -> Option<&'a Timing>,
        stat: Statistic,
    ) -> Result<Option<Row>> {
        let (Some(a), Some(k), Some(s)) = (
            get(Variant::Actor),
            get(Variant::TokioMutex),
            get(Variant::StdMutex),
        ) else {
            return Ok(None);
        };
        let [ak, as_] = names;
        let row = row
            .ratio(src, "actor ÷ tokio", ak, Of::Time(a, k, stat))?
            .ratio(src, "actor ÷ std", as_, Of::Time(a, s, stat))?;
        Ok(Some(row))
    }
    let row = |axis, setting: String| Row::new(axis, setting, Measure::Time);
    let mut rows = Vec::new();
    let join_all = |v| timing(d, Shape::JoinAll, v, n);
    let fair = fair_workers(d);
    let published = row(
        "ladder",
        "as published: join_all polled by block_on, the actor a spawned task".into(),
    )
    .published();
    let names = mut_2_names(&published.setting);
    if let Some(r) = both(src, published, names, &join_all, Statistic::Mean)? {
        rows.push(r.times(&join_all, Statistic::Mean));
    }
    let in_task = |v| find(&d.in_task, v, n);
    let r = row("ladder", "the round in one spawned task".into());
    let names = mut_2_names(&r.setting);
    if let Some(r) = both(src, r, names, &in_task, Statistic::Mean)? {
        rows.push(r.times(&in_task, Statistic::Mean));
    }
    let per_future = |v| find(&d.task_per_future, v, n);
    let r = row(
        "where requests start",
        "every future a spawned task of its own".into(),
    );
    let names = mut_2_names(&r.setting);
    if let Some(r) = both(src, r, names, &per_future, Statistic::Mean)? {
        rows.push(r.times(&per_future, Statistic::Mean));
    }
    for w in workers_of(&d.contended) {
        let shape = Shape::Spawned { workers: w };
        let get = |v| timing(d, shape, v, n);
        let r = row("ladder", tasks_label(w));
        let (r, names) = if Some(w) == fair {
            (r.fair(), mut_2_fair_names(w))
        } else {
            let names = mut_2_names(&r.setting);
            (r, names)
        };
        if let Some(r) = both(src, r, names, &get, Statistic::Mean)? {
            rows.push(r.times(&get, Statistic::Mean));
        }
    }
    let r = row("statistic", "criterion's median instead of its mean".into());
    let names = mut_2_names(&r.setting);
    if let Some(r) = both(src, r, names, &join_all, Statistic::Median)? {
        rows.push(r);
    }
    if let Some(w) = fair {
        let shape = Shape::Spawned { workers: w };
        let r = row(
            "statistic",
            format!("criterion's median, {}", tasks_label(w)),
        );
        let names = mut_2_names(&r.setting);
        if let Some(r) = both(
            src,
            r,
            names,
            &|v| timing(d, shape, v, n),
            Statistic::Median,
        )? {
            rows.push(r);
        }
    }
    Ok(rows)
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
            Measure::Time => format!("{name} = {}", e.show(harness_core::Unit::Ratio)),
            Measure::Instructions => format!("{name} = {}{unit}", fmt::ratio(e.point_ns)),
        })
        .collect::<Vec<_>>()
        .join("; ")
}
