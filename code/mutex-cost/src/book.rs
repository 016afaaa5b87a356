//! The chapter as the book sees it: claims as data, the measurement plan,
//! sanity checks on results files and the exhibits on the page.
use std::collections::BTreeSet;

use anyhow::{bail, ensure, Context, Result};
use harness::claims::{Claim, Outcome, Verdict};
use harness::exhibit::{Bar, BarChart};
use harness::fmt;
use harness::timing::{self, Estimate, Statistic, Timing};
use harness::{
    Axis, Block, Book, Chapter, Exhibit, ExhibitKind, Figure, Point, Profile, Progress, Run,
    Series, Table,
};
use serde::{Deserialize, Serialize};

use crate::experiments::{
    self, CoopProbe, HeartbeatResult, PerOpTiming, RoundTiming, PER_OP_LOCKS,
};
use crate::heartbeat::Load;
use crate::{Plan, Variant, ACTOR_CLAIM_FUTURES, PUBLISHED_FUTURES};

pub struct MutexCost;

/// Everything one run measured.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Data {
    /// Cores available to the run (the "all cores" worker count).
    pub cores: usize,
    /// Late repeats of MUT-2's points (`Plan::decisive_extra`), made at the
    /// end of the run and pooled with the others; 0 in files from before.
    #[serde(default)]
    pub decisive_extra: usize,
    /// Published shape and scale sweep.
    pub join_all: Vec<RoundTiming>,
    /// Same work over spawned tasks, per worker count.
    pub contended: Vec<RoundTiming>,
    pub per_op: Vec<PerOpTiming>,
    pub coop: CoopProbe,
    pub heartbeat: Vec<HeartbeatResult>,
}

const POST: &str = "[std mutex vs tokio mutex](https://github.com/nxy7/rs-actor-mutex-benchmark)";
const EARLIER_POST: &str =
    "[mutex vs actor](https://github.com/nxy7/rs-actor-mutex-benchmark) (earlier post, same author)";

const MUT_1: Claim = Claim {
    id: "MUT-1",
    statement: "With 100,000 futures each locking twice, std::sync::Mutex is about 2x faster than tokio::sync::Mutex.",
    source: POST,
    rule: "Published shape (join_all of 100,000 futures in criterion's to_async, multi-thread runtime with a worker per core): \
           holds if the 95 % interval of tokio Mutex time / std Mutex time (criterion means, interval bootstrapped from both runs' samples) lies \
           wholly inside 1.5..2.5; does not hold if it lies wholly outside; inconclusive otherwise.",
};

const MUT_2: Claim = Claim {
    id: "MUT-2",
    statement: "A mutex is 2-3x faster than an actor owning the value; with std::sync::Mutex, 4-6x.",
    source: EARLIER_POST,
    rule: "Contended shape at 10,000 futures (spawned tasks, multi-thread runtime with a worker per core), same work for all \
           three: holds if actor / tokio Mutex lies in 2..3 and actor / std Mutex in 4..6 (criterion means, 95 % intervals \
           inside the ranges); does not hold if either interval lies wholly outside its range; inconclusive otherwise. \
           The published join_all shape is reported beside it.",
};

const MUT_3: Claim = Claim {
    id: "MUT-3",
    statement: "tokio::sync::Mutex keeps other tasks on the same worker thread responsive while waiting; a blocked std::sync::Mutex does not.",
    source: POST,
    rule: "Heartbeat experiment (worker threads, contending tasks and critical section as in its table): holds if the \
           heartbeat's p99 lateness with tokio Mutex held across an await is at most half of its p99 lateness with std \
           Mutex and a busy critical section, and no more than the idle p99 plus one critical section.",
};

const EXHIBITS: &[Exhibit] = &[
    Exhibit {
        name: "reproduction",
        kind: ExhibitKind::Table,
        about: "the published shape at 100,000 futures, beside the published numbers",
    },
    Exhibit {
        name: "sweep",
        kind: ExhibitKind::Figure,
        about: "time per round against futures, published shape",
    },
    Exhibit {
        name: "sweep-table",
        kind: ExhibitKind::Table,
        about: "the scale sweep with ratios",
    },
    Exhibit {
        name: "contended",
        kind: ExhibitKind::Figure,
        about: "time per round against futures, spawned tasks, per worker count",
    },
    Exhibit {
        name: "contended-table",
        kind: ExhibitKind::Table,
        about: "the contended shape with ratios",
    },
    Exhibit {
        name: "actor",
        kind: ExhibitKind::Table,
        about: "actor against the mutexes at 10,000 futures, both shapes",
    },
    Exhibit {
        name: "actor-chart",
        kind: ExhibitKind::Figure,
        about: "actor time over mutex time, published and per shape",
    },
    Exhibit {
        name: "per-op",
        kind: ExhibitKind::Table,
        about: "nanoseconds per uncontended lock + unlock, and the co-op probe",
    },
    Exhibit {
        name: "per-op-chart",
        kind: ExhibitKind::Figure,
        about: "the uncontended cost as bars",
    },
    Exhibit {
        name: "heartbeat",
        kind: ExhibitKind::Table,
        about: "lateness percentiles of an unrelated task under each load",
    },
    Exhibit {
        name: "heartbeat-chart",
        kind: ExhibitKind::Figure,
        about: "the heartbeat's lateness percentile curves",
    },
    Exhibit {
        name: "parameters",
        kind: ExhibitKind::Table,
        about: "what each profile measures, and the fixed parameters",
    },
    Exhibit {
        name: "verdicts",
        kind: ExhibitKind::Verdicts,
        about: "MUT-1 to MUT-3",
    },
    Exhibit {
        name: "summary",
        kind: ExhibitKind::Text,
        about: "the ratios the decision guide rests on",
    },
];

impl Chapter for MutexCost {
    type Data = Data;
    const NAME: &'static str = "mutex-cost";
    const MEASURED_CRATES: &'static [&'static str] = &[
        "tokio",
        "futures",
        "parking_lot",
        "criterion",
        "hdrhistogram",
    ];
    const EXHIBITS: &'static [Exhibit] = EXHIBITS;
    const CLAIMS: &'static [Claim] = &[MUT_1, MUT_2, MUT_3];

    fn measure(profile: Profile, progress: &Progress) -> Result<Data> {
        let plan = Plan::for_profile(profile);
        let scratch = tempfile::tempdir().context("no scratch folder for criterion")?;
        let scratch = scratch.path();
        let variants = Variant::ALL.len();
        let decisive = plan
            .worker_counts
            .iter()
            .flat_map(|&w| plan.contended_sizes.iter().map(move |&f| (f, w)))
            .filter(|&(f, w)| plan.is_decisive(f, w))
            .count();
        progress.set_total(
            ((plan.join_all_sizes.len() + plan.contended_sizes.len() * plan.worker_counts.len())
                * variants
                * plan.repeats
                + decisive * variants * plan.decisive_extra
                + PER_OP_LOCKS.len()
                + 1
                + Load::ALL.len()) as u64,
        );
        let repeat_of = |r: usize| format!("repeat {} of {}", r + 1, plan.repeats);
        let mut join_all = Vec::new();
        for &futures in &plan.join_all_sizes {
            join_all.extend(experiments::interleaved(plan.repeats, |r, variant| {
                progress.step(format!(
                    "join_all, {}, {} futures, {}",
                    variant.label(),
                    fmt::thousands(futures as u64),
                    repeat_of(r)
                ));
                experiments::join_all_timing(scratch, plan.sampling, variant, futures)
            })?);
        }
        let spawned = |futures: usize, workers: usize, repeat: String, variant: Variant| {
            progress.step(format!(
                "spawned, {}, {} futures, {workers} workers, {repeat}",
                variant.label(),
                fmt::thousands(futures as u64),
            ));
            experiments::spawned_timing(scratch, plan.sampling, variant, futures, workers)
        };
        // Each contended point's repeats, per variant, pooled once MUT-2's
        // points have had their late repeats too.
        let mut contended_parts = Vec::new();
        for &workers in &plan.worker_counts {
            for &futures in &plan.contended_sizes {
                let parts = experiments::interleaved_parts(plan.repeats, |r, variant| {
                    spawned(futures, workers, repeat_of(r), variant)
                })?;
                contended_parts.push((futures, workers, parts));
            }
        }
        let mut per_op = Vec::new();
        for (lock, flavor) in PER_OP_LOCKS {
            progress.step(format!("uncontended {lock} {}", flavor.unwrap_or("")));
            per_op.push(experiments::per_op_timing(
                scratch,
                plan.per_op_sampling,
                lock,
                flavor,
            )?);
        }
        progress.step("co-op budget probe");
        let coop = experiments::coop_probe(crate::COOP_PROBE_OPS)?;
        let mut heartbeat = Vec::new();
        for load in Load::ALL {
            progress.step(format!("heartbeat, {}", load.label()));
            heartbeat.push(experiments::heartbeat_result(load, plan.heartbeat_run)?);
        }
        // MUT-2's points once more, at the end of the run: their repeats then
        // come from two stretches of it, minutes apart.
        for (futures, workers, parts) in &mut contended_parts {
            let (futures, workers) = (*futures, *workers);
            if !plan.is_decisive(futures, workers) {
                continue;
            }
            let late = experiments::interleaved_parts(plan.decisive_extra, |r, variant| {
                let repeat = format!("late repeat {} of {}", r + 1, plan.decisive_extra);
                spawned(futures, workers, repeat, variant)
            })?;
            for (all, more) in parts.iter_mut().zip(late) {
                all.extend(more);
            }
        }
        let mut contended = Vec::new();
        for (_, _, parts) in contended_parts {
            contended.extend(experiments::pool_each(parts)?);
        }
        Ok(Data {
            cores: crate::cores(),
            decisive_extra: plan.decisive_extra,
            join_all,
            contended,
            per_op,
            coop,
            heartbeat,
        })
    }

    fn check(data: &Data) -> Result<()> {
        ensure!(data.cores > 0, "cores is zero");
        check_rounds("join_all", &data.join_all, |r| (r.futures, 0))?;
        check_rounds("contended", &data.contended, |r| {
            (r.futures, r.runtime.workers)
        })?;
        ensure!(
            data.join_all.iter().all(|r| r.tasks == 1),
            "join_all: a round ran in more than one task"
        );
        ensure!(
            data.contended.iter().any(|r| r.runtime.workers == 1),
            "contended: no run with one worker thread"
        );
        for (lock, flavor) in PER_OP_LOCKS {
            let row = data
                .per_op
                .iter()
                .find(|p| p.lock == lock && p.runtime.as_ref().map(|r| r.flavor.as_str()) == flavor)
                .with_context(|| {
                    format!(
                        "per_op: no timing for {lock} ({})",
                        flavor.unwrap_or("blocking")
                    )
                })?;
            check_timing(&format!("per_op {lock}"), &row.timing)?;
            ensure!(
                row.ops_validated > 0,
                "per_op {lock}: no operation validated"
            );
        }
        ensure!(
            data.coop.ops > 0 && data.coop.pending <= data.coop.ops,
            "coop: {} pending polls in {} operations",
            data.coop.pending,
            data.coop.ops
        );
        for load in Load::ALL {
            let h = data
                .heartbeat
                .iter()
                .find(|h| h.load == load)
                .with_context(|| format!("heartbeat: no run for load {}", load.name()))?;
            let what = format!("heartbeat {}", load.name());
            ensure!(h.beats > 0, "{what}: no beats");
            ensure!(
                h.workers > 0 && h.period_ns > 0,
                "{what}: no workers or period"
            );
            ensure!(
                load == Load::Idle || h.lock_acquisitions > 0,
                "{what}: the lock was never taken"
            );
            let p = [h.p50_ns, h.p90_ns, h.p99_ns, h.p999_ns, h.max_ns];
            ensure!(
                p[0] > 0 && p.windows(2).all(|w| w[0] <= w[1]),
                "{what}: percentiles {p:?} are not increasing"
            );
            ensure!(!h.curve.is_empty(), "{what}: empty percentile curve");
        }
        Ok(())
    }

    fn render(exhibit: &str, book: &Book<Data>) -> Result<Vec<Block>> {
        let run = book.primary();
        match exhibit {
            "reproduction" => reproduction(book, run),
            "sweep" => sweep(book, run),
            "sweep-table" => sweep_table(run),
            "contended" => contended(run),
            "contended-table" => contended_table(run),
            "actor" => actor(book, run),
            "actor-chart" => actor_chart(book, run),
            "per-op" => per_op(run),
            "per-op-chart" => per_op_chart(run),
            "heartbeat" => heartbeat(run),
            "heartbeat-chart" => heartbeat_chart(run),
            "verdicts" => Ok(vec![Block::Verdicts(verdicts(book))]),
            "summary" => summary(run),
            "parameters" => parameters(),
            other => bail!("exhibit {other:?} is declared but not rendered"),
        }
    }

    fn headline(data: &Data) -> Vec<(String, Estimate)> {
        decisive_estimates(data)
    }
}

fn check_timing(what: &str, t: &Timing) -> Result<()> {
    for (name, e) in [("mean", &t.mean), ("median", &t.median)] {
        ensure!(
            e.point_ns.is_finite() && e.point_ns > 0.0 && e.lower_ns > 0.0,
            "{what}: {name} {} ns is not a positive time",
            e.point_ns
        );
        ensure!(
            e.lower_ns <= e.point_ns && e.point_ns <= e.upper_ns,
            "{what}: {name} interval {}..{} does not contain {}",
            e.lower_ns,
            e.upper_ns,
            e.point_ns
        );
    }
    ensure!(t.samples > 0 && t.iterations > 0, "{what}: no samples");
    Ok(())
}

/// Every point of the grid has every variant, once, with a sane timing.
fn check_rounds(
    experiment: &str,
    rows: &[RoundTiming],
    key: impl Fn(&RoundTiming) -> (usize, usize),
) -> Result<()> {
    ensure!(!rows.is_empty(), "{experiment}: no timings");
    let points: BTreeSet<_> = rows.iter().map(&key).collect();
    for point in points {
        for variant in Variant::ALL {
            let n = rows
                .iter()
                .filter(|r| key(r) == point && r.variant == variant)
                .count();
            ensure!(
                n == 1,
                "{experiment}: {} timings of {} at {} futures{}",
                n,
                variant.name(),
                point.0,
                if point.1 > 0 {
                    format!(", {} workers", point.1)
                } else {
                    String::new()
                }
            );
        }
    }
    for r in rows {
        let what = format!("{experiment} {} at {} futures", r.variant.name(), r.futures);
        ensure!(
            r.futures > 0 && r.tasks > 0 && r.runtime.workers > 0,
            "{what}: zero futures, tasks or workers"
        );
        ensure!(r.rounds_validated > 0, "{what}: no validated round");
        check_timing(&what, &r.timing)?;
    }
    Ok(())
}

#[derive(Deserialize)]
struct PublishedRow {
    variant: String,
    futures: usize,
    lower_ms: Option<f64>,
    point_ms: f64,
    upper_ms: Option<f64>,
}

const MS: f64 = 1e6;

fn est(e: &Estimate) -> String {
    format!(
        "{} ({} – {})",
        fmt::nanos(e.point_ns),
        fmt::nanos(e.lower_ns),
        fmt::nanos(e.upper_ns)
    )
}

fn ratio(e: &Estimate) -> String {
    format!(
        "{} ({} – {})",
        fmt::ratio(e.point_ns),
        fmt::sig3(e.lower_ns),
        fmt::sig3(e.upper_ns)
    )
}

fn find(
    rows: &[RoundTiming],
    variant: Variant,
    futures: usize,
    workers: Option<usize>,
) -> Option<&RoundTiming> {
    rows.iter().find(|r| {
        r.variant == variant
            && r.futures == futures
            && workers.is_none_or(|w| r.runtime.workers == w)
    })
}

fn sizes(rows: &[RoundTiming]) -> Vec<usize> {
    rows.iter()
        .map(|r| r.futures)
        .collect::<BTreeSet<_>>()
        .into_iter()
        .collect()
}

fn workers_of(rows: &[RoundTiming]) -> Vec<usize> {
    rows.iter()
        .map(|r| r.runtime.workers)
        .collect::<BTreeSet<_>>()
        .into_iter()
        .collect()
}

/// The published size if this run has it, else its largest (smoke runs).
fn reproduction_size(data: &Data) -> usize {
    let s = sizes(&data.join_all);
    if s.contains(&PUBLISHED_FUTURES) {
        PUBLISHED_FUTURES
    } else {
        *s.last().expect("checked: at least one size")
    }
}

fn join_all_runtime(data: &Data) -> String {
    data.join_all
        .first()
        .map_or(String::new(), |r| r.runtime.describe())
}

fn reproduction(book: &Book<Data>, run: &Run<Data>) -> Result<Vec<Block>> {
    let d = &run.data;
    let published = book.published("mutex")?;
    let prows: Vec<PublishedRow> = published.rows()?;
    let n = reproduction_size(d);
    let mut t = Table::new(
        format!(
            "The published shape: join_all of {} futures inside criterion's to_async, {} (the futures themselves are \
             polled on criterion's thread by block_on). Measured on {}; criterion mean with its 95 % interval. \
             Published: {}, criterion point estimate and interval.",
            fmt::thousands(n as u64),
            join_all_runtime(d),
            run.machine(),
            published.citation()
        ),
        &["Variant", "Measured", "÷ std Mutex (measured)", "Published", "÷ std Mutex (published)"],
    );
    let std = find(&d.join_all, Variant::StdMutex, n, None).context("no std Mutex timing")?;
    let pub_std = prows
        .iter()
        .find(|r| r.variant == "std_mutex" && r.futures == n);
    for v in Variant::ALL {
        let m = find(&d.join_all, v, n, None).with_context(|| format!("no {} timing", v.name()))?;
        let p = prows
            .iter()
            .find(|r| r.variant == v.name() && r.futures == n);
        t.push(vec![
            v.label().into(),
            est(&m.timing.mean),
            if v == Variant::StdMutex {
                "baseline".into()
            } else {
                ratio(&timing::ratio(&m.timing, &std.timing, Statistic::Mean))
            },
            p.map_or("not published".into(), |p| match (p.lower_ms, p.upper_ms) {
                (Some(lo), Some(hi)) => {
                    format!(
                        "{} ({} – {})",
                        fmt::nanos(p.point_ms * MS),
                        fmt::nanos(lo * MS),
                        fmt::nanos(hi * MS)
                    )
                }
                _ => fmt::nanos(p.point_ms * MS),
            }),
            match (p, pub_std) {
                (Some(p), Some(s)) => fmt::ratio(p.point_ms / s.point_ms),
                _ => "–".into(),
            },
        ]);
    }
    let mut blocks = vec![Block::Table(t)];
    if n != PUBLISHED_FUTURES {
        blocks.push(Block::Text(format!(
            "This run measured at most {} futures, so the published rows have nothing to stand beside.",
            fmt::thousands(n as u64)
        )));
    }
    Ok(blocks)
}

fn band(t: &Timing, scale: f64) -> Point {
    Point::with_band(
        0.0,
        t.mean.point_ns / scale,
        t.mean.lower_ns / scale,
        t.mean.upper_ns / scale,
    )
}

fn at(x: usize, p: Point) -> Point {
    Point { x: x as f64, ..p }
}

fn sweep(book: &Book<Data>, run: &Run<Data>) -> Result<Vec<Block>> {
    let d = &run.data;
    let mut series: Vec<Series> = Variant::ALL
        .iter()
        .map(|&v| {
            let points = sizes(&d.join_all)
                .into_iter()
                .filter_map(|n| find(&d.join_all, v, n, None).map(|r| at(n, band(&r.timing, MS))))
                .collect();
            Series::measured(format!("{}, measured", v.label()), points)
        })
        .collect();
    let mut cites = Vec::new();
    for (name, label) in [("mutex", "published"), ("actor", "published, earlier post")] {
        let ds = book.published(name)?;
        cites.push(ds.citation());
        for r in ds.rows::<PublishedRow>()? {
            let p = match (r.lower_ms, r.upper_ms) {
                (Some(lo), Some(hi)) => Point::with_band(r.futures as f64, r.point_ms, lo, hi),
                _ => Point::new(r.futures as f64, r.point_ms),
            };
            let who = match r.variant.as_str() {
                "tokio_mutex" | "mutex" => "tokio Mutex",
                "std_mutex" => "std Mutex",
                _ => "actor",
            };
            series.push(Series::published(format!("{who}, {label}"), vec![p]));
        }
    }
    Ok(vec![Block::Figure(Figure {
        id: "mutex-cost-sweep".into(),
        title: "Published shape: one task polls every future (join_all)".into(),
        caption: format!(
            "Time per round against futures per round, {}; measured on {} (bands: criterion's 95 % interval of the \
             mean). Dashed marks: the published numbers, from {}.",
            join_all_runtime(d),
            run.machine(),
            cites.join(" and ")
        ),
        x: Axis::log("futures per round"),
        y: Axis::log("time per round (ms)"),
        series,
    })])
}

fn sweep_table(run: &Run<Data>) -> Result<Vec<Block>> {
    let d = &run.data;
    let mut t = Table::new(
        format!(
            "Published shape (join_all in criterion's to_async), {}; measured on {}; criterion mean and 95 % interval \
             per round; ratios with 95 % intervals bootstrapped from both runs' samples.",
            join_all_runtime(d),
            run.machine()
        ),
        &["Futures", "std Mutex", "tokio Mutex", "actor", "tokio ÷ std", "actor ÷ std"],
    );
    for n in sizes(&d.join_all) {
        let get = |v| {
            find(&d.join_all, v, n, None)
                .map(|r| &r.timing)
                .context("missing variant")
        };
        let (s, k, a) = (
            get(Variant::StdMutex)?,
            get(Variant::TokioMutex)?,
            get(Variant::Actor)?,
        );
        t.push(vec![
            fmt::thousands(n as u64),
            est(&s.mean),
            est(&k.mean),
            est(&a.mean),
            ratio(&timing::ratio(k, s, Statistic::Mean)),
            ratio(&timing::ratio(a, s, Statistic::Mean)),
        ]);
    }
    Ok(vec![Block::Table(t)])
}

fn contended(run: &Run<Data>) -> Result<Vec<Block>> {
    let d = &run.data;
    let mut series = Vec::new();
    for w in workers_of(&d.contended) {
        for v in Variant::ALL {
            let points = sizes(&d.contended)
                .into_iter()
                .filter_map(|n| {
                    find(&d.contended, v, n, Some(w)).map(|r| at(n, band(&r.timing, MS)))
                })
                .collect();
            series.push(Series::measured(
                format!("{}, {w} worker{}", v.label(), if w == 1 { "" } else { "s" }),
                points,
            ));
        }
    }
    let tasks = d.contended.first().map_or(0, |r| r.tasks);
    Ok(vec![Block::Figure(Figure {
        id: "mutex-cost-contended".into(),
        title: "Contended shape: the same work over spawned tasks".into(),
        caption: format!(
            "Time per round against futures per round, split over {tasks} spawned tasks on a multi-thread runtime with \
             {} worker threads ({} cores here); measured on {} (bands: criterion's 95 % interval of the mean). Counter \
             creation and the final read are outside the timed region.",
            workers_of(&d.contended).iter().map(|w| w.to_string()).collect::<Vec<_>>().join(" or "),
            d.cores,
            run.machine()
        ),
        x: Axis::log("futures per round"),
        y: Axis::log("time per round (ms)"),
        series,
    })])
}

fn contended_table(run: &Run<Data>) -> Result<Vec<Block>> {
    let d = &run.data;
    let tasks = d.contended.first().map_or(0, |r| r.tasks);
    let mut t = Table::new(
        format!(
            "Contended shape: {tasks} spawned tasks on a multi-thread runtime with the worker threads shown ({} cores \
             here); measured on {}; criterion mean and 95 % interval per round.",
            d.cores,
            run.machine()
        ),
        &["Workers", "Futures", "std Mutex", "tokio Mutex", "actor", "tokio ÷ std", "actor ÷ tokio", "actor ÷ std"],
    );
    for w in workers_of(&d.contended) {
        for n in sizes(&d.contended) {
            let get = |v| {
                find(&d.contended, v, n, Some(w))
                    .map(|r| &r.timing)
                    .context("missing variant")
            };
            let (s, k, a) = (
                get(Variant::StdMutex)?,
                get(Variant::TokioMutex)?,
                get(Variant::Actor)?,
            );
            t.push(vec![
                w.to_string(),
                fmt::thousands(n as u64),
                est(&s.mean),
                est(&k.mean),
                est(&a.mean),
                ratio(&timing::ratio(k, s, Statistic::Mean)),
                ratio(&timing::ratio(a, k, Statistic::Mean)),
                ratio(&timing::ratio(a, s, Statistic::Mean)),
            ]);
        }
    }
    Ok(vec![Block::Table(t)])
}

fn actor(book: &Book<Data>, run: &Run<Data>) -> Result<Vec<Block>> {
    let d = &run.data;
    let ds = book.published("actor")?;
    let prows: Vec<PublishedRow> = ds.rows()?;
    let n = ACTOR_CLAIM_FUTURES;
    let mut t = Table::new(
        format!(
            "Actor (mpsc requests, oneshot replies) against each mutex on the same work, {} futures; the shape, \
             runtime and worker threads are given per row; measured on {}, criterion means with 95 % intervals. Published: {}, point estimates only.",
            fmt::thousands(n as u64),
            run.machine(),
            ds.citation()
        ),
        &["Source", "Shape and runtime", "Mutex", "Mutex time", "Actor time", "Actor ÷ mutex"],
    )
    .left(&[1, 2]);
    if let (Some(m), Some(a)) = (
        prows
            .iter()
            .find(|r| r.variant == "mutex" && r.futures == n),
        prows
            .iter()
            .find(|r| r.variant == "actor" && r.futures == n),
    ) {
        t.push(vec![
            "published".into(),
            "join_all, actor spawned on the default runtime".into(),
            "tokio Mutex".into(),
            fmt::nanos(m.point_ms * MS),
            fmt::nanos(a.point_ms * MS),
            fmt::ratio(a.point_ms / m.point_ms),
        ]);
    }
    let mut shapes = vec![("join_all".to_string(), &d.join_all, None)];
    for w in workers_of(&d.contended) {
        shapes.push((
            format!("{} spawned tasks", d.contended[0].tasks),
            &d.contended,
            Some(w),
        ));
    }
    for (shape, rows, w) in shapes {
        let Some(actor) = find(rows, Variant::Actor, n, w) else {
            continue;
        };
        for v in [Variant::TokioMutex, Variant::StdMutex] {
            let m = find(rows, v, n, w).context("missing mutex timing")?;
            t.push(vec![
                "measured".into(),
                format!("{shape}, {}", m.runtime.describe()),
                v.label().into(),
                est(&m.timing.mean),
                est(&actor.timing.mean),
                ratio(&timing::ratio(&actor.timing, &m.timing, Statistic::Mean)),
            ]);
        }
    }
    Ok(vec![Block::Table(t)])
}

fn per_op_label(p: &PerOpTiming) -> (String, String) {
    let lock = match p.lock.as_str() {
        "std_mutex" => "std Mutex",
        "parking_lot_mutex" => "parking_lot Mutex",
        _ => "tokio Mutex",
    };
    let runtime = p
        .runtime
        .as_ref()
        .map_or("none (called from a plain thread)".into(), |r| {
            format!("{}, inside a spawned task", r.describe())
        });
    (lock.into(), runtime)
}

fn per_op(run: &Run<Data>) -> Result<Vec<Block>> {
    let d = &run.data;
    let std = d
        .per_op
        .iter()
        .find(|p| p.lock == "std_mutex")
        .context("no std Mutex timing")?;
    let mut t = Table::new(
        format!(
            "One uncontended lock, increment and unlock, nobody else using the lock; measured on {}; criterion mean \
             and 95 % interval per operation.",
            run.machine()
        ),
        &["Lock", "Runtime", "Per lock + unlock", "÷ std Mutex"],
    )
    .left(&[1]);
    for p in &d.per_op {
        let (lock, runtime) = per_op_label(p);
        t.push(vec![
            lock,
            runtime,
            est(&p.timing.mean),
            if std::ptr::eq(p, std) {
                "baseline".into()
            } else {
                ratio(&timing::ratio(&p.timing, &std.timing, Statistic::Mean))
            },
        ]);
    }
    let c = &d.coop;
    let every = c.ops.checked_div(c.pending).map_or("never".into(), |n| {
        format!("once every {} acquisitions", fmt::thousands(n))
    });
    Ok(vec![
        Block::Table(t),
        Block::Text(format!(
            "Co-op budget probe ({}, inside a spawned task): of {} `lock()` calls on a tokio Mutex that nobody else \
             held, {} answered `Pending`, {every}. Each of those is tokio's cooperative budget running out and \
             sending the task back to the scheduler.",
            c.runtime.describe(),
            fmt::thousands(c.ops),
            fmt::thousands(c.pending)
        )),
    ])
}

fn per_op_chart(run: &Run<Data>) -> Result<Vec<Block>> {
    let d = &run.data;
    let bars = d
        .per_op
        .iter()
        .map(|p| {
            let (lock, _) = per_op_label(p);
            let short = p.runtime.as_ref().map_or(String::new(), |r| {
                format!(" ({})", r.flavor.replace('_', "-"))
            });
            Bar {
                label: format!("{lock}{short}"),
                value: p.timing.mean.point_ns,
                group: lock,
            }
        })
        .collect();
    Ok(vec![Block::Bars(BarChart {
        id: "mutex-cost-per-op".into(),
        title: "Uncontended lock + unlock".into(),
        caption: format!(
            "Criterion mean per lock, increment and unlock with nobody else using the lock; the tokio Mutex ran inside a \
             spawned task on a current-thread runtime and on a multi-thread runtime with {} worker threads; measured on {}.",
            d.per_op.iter().filter_map(|p| p.runtime.as_ref()).map(|r| r.workers).max().unwrap_or(0),
            run.machine()
        ),
        value_axis: Axis::linear("nanoseconds per lock + unlock"),
        bars,
    })])
}

fn heartbeat_caption(d: &Data, run: &Run<Data>) -> String {
    let h = &d.heartbeat[0];
    let contenders = d.heartbeat.iter().map(|h| h.contenders).max().unwrap_or(0);
    format!(
        "A heartbeat task on a multi-thread runtime with {} worker threads, sent a timestamp every {} by a thread \
         outside the runtime, for about {} beats per load; {contenders} contending tasks take the lock in a loop, each time \
         for a critical section of {}, and yield between turns. Lateness is the time from a beat being sent to the \
         heartbeat task reading it. Measured on {}.",
        h.workers,
        fmt::nanos(h.period_ns as f64),
        fmt::thousands(h.beats),
        fmt::nanos(h.critical_section_ns as f64),
        run.machine()
    )
}

fn heartbeat(run: &Run<Data>) -> Result<Vec<Block>> {
    let d = &run.data;
    let mut t = Table::new(
        heartbeat_caption(d, run),
        &["Load", "Lock taken", "p50", "p90", "p99", "p99.9", "max"],
    );
    for h in &d.heartbeat {
        t.push(vec![
            h.load.label().into(),
            fmt::thousands(h.lock_acquisitions),
            fmt::nanos(h.p50_ns as f64),
            fmt::nanos(h.p90_ns as f64),
            fmt::nanos(h.p99_ns as f64),
            fmt::nanos(h.p999_ns as f64),
            fmt::nanos(h.max_ns as f64),
        ]);
    }
    Ok(vec![Block::Table(t)])
}

fn heartbeat_chart(run: &Run<Data>) -> Result<Vec<Block>> {
    let d = &run.data;
    let series = d
        .heartbeat
        .iter()
        .map(|h| {
            let points = h
                .curve
                .iter()
                .map(|&(q, ns)| Point::new(1.0 / (1.0 - q), ns as f64 / 1e3))
                .collect();
            Series::measured(h.load.label(), points)
        })
        .collect();
    Ok(vec![Block::Figure(Figure {
        id: "mutex-cost-heartbeat".into(),
        title: "How late an unrelated task runs".into(),
        caption: format!(
            "{} The x axis is 1 / (1 − percentile): 2 is the median, 100 the 99th percentile, 1,000 the 99.9th.",
            heartbeat_caption(d, run)
        ),
        x: Axis::log("1 / (1 − percentile)"),
        y: Axis::log("heartbeat lateness (µs)"),
        series,
    })])
}

/// `holds` when the interval lies inside `lo..=hi`, `does not hold` when it
/// lies wholly outside, `inconclusive` when it straddles a bound.
fn judge_range(r: &Estimate, lo: f64, hi: f64) -> Outcome {
    Outcome::decided(r.within(lo, hi))
}

/// MUT-1's ratio: tokio Mutex ÷ std Mutex, join_all of 100,000 futures.
fn mut_1_ratio(d: &Data) -> Option<(Estimate, Estimate, Estimate)> {
    let s = find(&d.join_all, Variant::StdMutex, PUBLISHED_FUTURES, None)?;
    let k = find(&d.join_all, Variant::TokioMutex, PUBLISHED_FUTURES, None)?;
    Some((
        k.timing.mean,
        s.timing.mean,
        timing::ratio(&k.timing, &s.timing, Statistic::Mean),
    ))
}

/// MUT-2's ratios in the contended shape at 10,000 futures, on the most
/// worker threads up to the core count: (workers, actor ÷ tokio, actor ÷ std).
fn mut_2_ratios(d: &Data) -> Option<(usize, Estimate, Estimate)> {
    let n = ACTOR_CLAIM_FUTURES;
    let w = workers_of(&d.contended)
        .into_iter()
        .filter(|&w| w <= d.cores.max(1))
        .max()?;
    let get = |v| find(&d.contended, v, n, Some(w)).map(|r| &r.timing);
    let (a, k, s) = (
        get(Variant::Actor)?,
        get(Variant::TokioMutex)?,
        get(Variant::StdMutex)?,
    );
    Some((
        w,
        timing::ratio(a, k, Statistic::Mean),
        timing::ratio(a, s, Statistic::Mean),
    ))
}

/// The estimates MUT-1 and MUT-2 are decided by (ratios, no unit). MUT-3
/// rests on percentiles of one run, which carry no interval.
fn decisive_estimates(d: &Data) -> Vec<(String, Estimate)> {
    let mut out = Vec::new();
    if let Some((_, _, r)) = mut_1_ratio(d) {
        out.push((
            format!(
                "MUT-1, join_all of {} futures: tokio Mutex ÷ std Mutex",
                fmt::thousands(PUBLISHED_FUTURES as u64)
            ),
            r,
        ));
    }
    if let Some((w, ak, as_)) = mut_2_ratios(d) {
        let shape = format!(
            "MUT-2, {} futures spawned on {w} worker{}",
            fmt::thousands(ACTOR_CLAIM_FUTURES as u64),
            if w == 1 { "" } else { "s" }
        );
        out.push((format!("{shape}: actor ÷ tokio Mutex"), ak));
        out.push((format!("{shape}: actor ÷ std Mutex"), as_));
    }
    out
}

fn mut_1(run: &Run<Data>) -> Verdict {
    let Some((k, s, r)) = mut_1_ratio(&run.data) else {
        return Verdict::not_measured(
            &MUT_1,
            format!("{} ran no join_all round of 100,000 futures", run.machine()),
        );
    };
    Verdict::new(
        &MUT_1,
        run.machine(),
        judge_range(&r, 1.5, 2.5),
        format!(
            "tokio Mutex {} vs std Mutex {} per round: tokio ÷ std = {}",
            fmt::nanos(k.point_ns),
            fmt::nanos(s.point_ns),
            ratio(&r)
        ),
    )
}

fn mut_2(run: &Run<Data>) -> Verdict {
    let d = &run.data;
    let Some((w, ak, as_)) = mut_2_ratios(d) else {
        return Verdict::not_measured(
            &MUT_2,
            format!("{} ran no contended round of 10,000 futures", run.machine()),
        );
    };
    let outcomes = [judge_range(&ak, 2.0, 3.0), judge_range(&as_, 4.0, 6.0)];
    let outcome = if outcomes.contains(&Outcome::DoesNotHold) {
        Outcome::DoesNotHold
    } else if outcomes.iter().all(|&o| o == Outcome::Holds) {
        Outcome::Holds
    } else {
        Outcome::Inconclusive
    };
    let get = |v| find(&d.join_all, v, ACTOR_CLAIM_FUTURES, None).map(|r| r.timing.mean);
    let published_shape = match (
        get(Variant::Actor),
        get(Variant::TokioMutex),
        get(Variant::StdMutex),
    ) {
        (Some(a), Some(k), Some(s)) => format!(
            "; in the join_all shape: actor ÷ tokio = {}, actor ÷ std = {}",
            fmt::ratio(a.point_ns / k.point_ns),
            fmt::ratio(a.point_ns / s.point_ns)
        ),
        _ => String::new(),
    };
    Verdict::new(
        &MUT_2,
        run.machine(),
        outcome,
        format!(
            "contended, {w} workers: actor ÷ tokio Mutex = {}, actor ÷ std Mutex = {}{published_shape}",
            ratio(&ak),
            ratio(&as_)
        ),
    )
}

fn mut_3(run: &Run<Data>) -> Verdict {
    let d = &run.data;
    let get = |load| d.heartbeat.iter().find(|h| h.load == load);
    let (Some(idle), Some(std), Some(tokio)) = (
        get(Load::Idle),
        get(Load::StdMutexSlowSection),
        get(Load::TokioMutexAcrossAwait),
    ) else {
        return Verdict::not_measured(&MUT_3, "no heartbeat runs");
    };
    let holds =
        2 * tokio.p99_ns <= std.p99_ns && tokio.p99_ns <= idle.p99_ns + tokio.critical_section_ns;
    Verdict::new(
        &MUT_3,
        run.machine(),
        Outcome::from_bool(holds),
        format!(
            "heartbeat p99 lateness, {} workers: {} with std Mutex blocking, {} with tokio Mutex across an await, {} idle",
            std.workers,
            fmt::nanos(std.p99_ns as f64),
            fmt::nanos(tokio.p99_ns as f64),
            fmt::nanos(idle.p99_ns as f64)
        ),
    )
}

fn verdicts(book: &Book<Data>) -> Vec<Verdict> {
    let mut out = Vec::new();
    for decide in [mut_1, mut_2, mut_3] {
        out.extend(book.runs.iter().map(decide));
    }
    out
}

fn summary(run: &Run<Data>) -> Result<Vec<Block>> {
    let d = &run.data;
    let n = reproduction_size(d);
    let ratio_at = |rows: &[RoundTiming], n, w| -> Option<String> {
        let s = find(rows, Variant::StdMutex, n, w)?;
        let k = find(rows, Variant::TokioMutex, n, w)?;
        Some(fmt::ratio(k.timing.mean.point_ns / s.timing.mean.point_ns))
    };
    let mut parts = vec![format!(
        "On {} ({} cores), tokio's Mutex took {} the time of std's in the published shape ({} futures, join_all)",
        run.machine(),
        d.cores,
        ratio_at(&d.join_all, n, None).context("no published-shape timings")?,
        fmt::thousands(n as u64)
    )];
    let big = *sizes(&d.contended).last().context("no contended timings")?;
    for w in workers_of(&d.contended) {
        if let Some(r) = ratio_at(&d.contended, big, Some(w)) {
            parts.push(format!(
                "{r} with the same {} operations spread over spawned tasks on {w} worker thread{}",
                fmt::thousands(big as u64),
                if w == 1 { "" } else { "s" }
            ));
        }
    }
    let per = |lock: &str, flavor: Option<&str>| {
        d.per_op
            .iter()
            .find(|p| p.lock == lock && p.runtime.as_ref().map(|r| r.flavor.as_str()) == flavor)
            .map(|p| fmt::nanos(p.timing.mean.point_ns))
    };
    let mut text = parts.join("; ") + ".";
    if let (Some(s), Some(k)) = (
        per("std_mutex", None),
        per("tokio_mutex", Some("multi_thread")),
    ) {
        text += &format!(" An uncontended lock + unlock cost {s} with std's Mutex and {k} with tokio's on a worker thread.");
    }
    let get = |load| d.heartbeat.iter().find(|h| h.load == load);
    if let (Some(s), Some(a)) = (
        get(Load::StdMutexSlowSection),
        get(Load::TokioMutexAcrossAwait),
    ) {
        text += &format!(
            " With {} worker threads, an unrelated task's p99 lateness was {} while std's Mutex blocked threads and {} \
             while tokio's Mutex was held across an await.",
            s.workers,
            fmt::nanos(s.p99_ns as f64),
            fmt::nanos(a.p99_ns as f64)
        );
    }
    Ok(vec![Block::Text(text)])
}

fn sampling(s: &harness::timing::Sampling) -> String {
    format!(
        "{} samples, {} warm-up, {} measuring",
        s.samples,
        fmt::nanos(s.warm_up.as_nanos() as f64),
        fmt::nanos(s.measurement.as_nanos() as f64)
    )
}

fn parameters() -> Result<Vec<Block>> {
    let list = |v: &[usize]| {
        v.iter()
            .map(|&n| fmt::thousands(n as u64))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let plans: Vec<_> = Profile::ALL
        .iter()
        .map(|&p| (p, Plan::for_profile(p)))
        .collect();
    let mut header = vec!["Parameter".to_string()];
    header.extend(plans.iter().map(|(p, _)| p.to_string()));
    let mut t = Table {
        caption: format!(
            "What each profile measures. Worker counts are 1, 2 and every core of the measuring machine ({} on the \
             machine that rendered this page); smoke exists for tests and is never published.",
            crate::cores()
        ),
        align: vec![harness::exhibit::Align::Left; header.len()],
        header,
        rows: Vec::new(),
    };
    let row = |name: &str, f: &dyn Fn(&Plan) -> String| {
        let mut r = vec![name.to_string()];
        r.extend(plans.iter().map(|(_, plan)| f(plan)));
        r
    };
    t.push(row("Futures per round, join_all shape", &|p| {
        list(&p.join_all_sizes)
    }));
    t.push(row("Futures per round, contended shape", &|p| {
        list(&p.contended_sizes)
    }));
    t.push(row("Worker threads, contended shape", &|p| {
        list(&p.worker_counts)
    }));
    t.push(row("Criterion, per round timing", &|p| {
        format!(
            "{} interleaved runs of {}; MUT-2's points {} more at the end of the run",
            p.repeats,
            sampling(&p.sampling),
            p.decisive_extra
        )
    }));
    t.push(row("Criterion, per lock + unlock", &|p| {
        sampling(&p.per_op_sampling)
    }));
    t.push(row("Heartbeat run per load", &|p| {
        fmt::nanos(p.heartbeat_run.as_nanos() as f64)
    }));
    let fixed = |v: String| row_fixed(plans.len(), v);
    for (name, value) in [
        (
            "Spawned tasks, contended shape",
            crate::CONTENDING_TASKS.to_string(),
        ),
        (
            "Actor queue capacity",
            fmt::thousands(crate::ACTOR_QUEUE as u64),
        ),
        (
            "Heartbeat worker threads",
            crate::HEARTBEAT_WORKERS.to_string(),
        ),
        (
            "Heartbeat contending tasks",
            crate::HEARTBEAT_CONTENDERS.to_string(),
        ),
        (
            "Heartbeat period",
            fmt::nanos(crate::HEARTBEAT_PERIOD.as_nanos() as f64),
        ),
        (
            "Critical section (busy or awaited)",
            fmt::nanos(crate::CRITICAL_SECTION.as_nanos() as f64),
        ),
        (
            "Uncontended locks in the co-op probe",
            fmt::thousands(crate::COOP_PROBE_OPS),
        ),
    ] {
        let mut r = vec![name.to_string()];
        r.extend(fixed(value));
        t.push(r);
    }
    Ok(vec![Block::Table(t)])
}

fn row_fixed(n: usize, v: String) -> Vec<String> {
    vec![v; n]
}

fn actor_chart(book: &Book<Data>, run: &Run<Data>) -> Result<Vec<Block>> {
    let d = &run.data;
    let n = ACTOR_CLAIM_FUTURES;
    let ds = book.published("actor")?;
    let prows: Vec<PublishedRow> = ds.rows()?;
    let mut bars = Vec::new();
    if let (Some(m), Some(a)) = (
        prows
            .iter()
            .find(|r| r.variant == "mutex" && r.futures == n),
        prows
            .iter()
            .find(|r| r.variant == "actor" && r.futures == n),
    ) {
        bars.push(Bar {
            label: "published: actor ÷ tokio Mutex".into(),
            value: a.point_ms / m.point_ms,
            group: "published (earlier post)".into(),
        });
    }
    let mut shapes = vec![("join_all".to_string(), &d.join_all, None)];
    for w in workers_of(&d.contended) {
        shapes.push((
            format!("spawned, {w} worker{}", if w == 1 { "" } else { "s" }),
            &d.contended,
            Some(w),
        ));
    }
    for (shape, rows, w) in shapes {
        let Some(actor) = find(rows, Variant::Actor, n, w) else {
            continue;
        };
        for v in [Variant::TokioMutex, Variant::StdMutex] {
            let m = find(rows, v, n, w).context("missing mutex timing")?;
            bars.push(Bar {
                label: format!("{shape}: actor ÷ {}", v.label()),
                value: actor.timing.mean.point_ns / m.timing.mean.point_ns,
                group: format!("measured, {shape}"),
            });
        }
    }
    Ok(vec![Block::Bars(BarChart {
        id: "mutex-cost-actor".into(),
        title: "How much longer the actor takes than each mutex".into(),
        caption: format!(
            "Actor time ÷ mutex time for the same {} futures (criterion means; intervals in the table above): the \
             join_all shape runs on a multi-thread runtime with {} worker threads, the spawned shape with the worker \
             threads shown; measured on {}. Published: {}.",
            fmt::thousands(n as u64),
            d.cores,
            run.machine(),
            ds.citation()
        ),
        value_axis: Axis::log("actor time ÷ mutex time"),
        bars,
    })])
}
