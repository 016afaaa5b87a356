//! Runs each experiment, validates its work and keeps the raw figures the
//! page needs. Timings come from criterion (via `harness_measure::Lab::time`), lateness
//! from hdrhistogram; nothing here computes statistics by hand.
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use anyhow::{bail, ensure, Context, Result};
use harness_measure::latency::Percentiles;
use harness_measure::timing::{Sampling, Timing};
use harness_measure::Lab;
use serde::{Deserialize, Serialize};
use tokio::runtime::{Builder, Runtime};

use crate::heartbeat::{self, Load, Setup};
use crate::uncontended;
use crate::workload::{
    expected_value, join_all_round, join_all_round_in_task, spawned_round, task_per_future_round,
};
use crate::{Counter, Variant};

/// The runtime criterion's `to_async` drives, as criterion's own tokio
/// support would (its `block_on` is the runtime's). A newtype, so criterion
/// needs no tokio of its own: the harness links criterion, and a tokio
/// release measured with `scripts/fresh --with` then rebuilds only tokio and
/// this chapter.
#[derive(Clone, Copy)]
pub struct Tokio<'a>(pub &'a Runtime);

impl criterion::async_executor::AsyncExecutor for Tokio<'_> {
    fn block_on<T>(&self, future: impl std::future::Future<Output = T>) -> T {
        self.0.block_on(future)
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RuntimeUsed {
    /// `multi_thread` or `current_thread`.
    pub flavor: String,
    pub workers: usize,
}

impl RuntimeUsed {
    pub fn multi_thread(workers: usize) -> Self {
        RuntimeUsed {
            flavor: "multi_thread".into(),
            workers,
        }
    }

    pub fn current_thread() -> Self {
        RuntimeUsed {
            flavor: "current_thread".into(),
            workers: 1,
        }
    }

    pub fn describe(&self) -> String {
        match self.flavor.as_str() {
            "current_thread" => "current-thread runtime".into(),
            _ => format!(
                "multi-thread runtime, {} worker thread{}",
                self.workers,
                if self.workers == 1 { "" } else { "s" }
            ),
        }
    }

    pub(crate) fn build(&self) -> Result<Runtime> {
        let mut builder = if self.flavor == "current_thread" {
            Builder::new_current_thread()
        } else {
            let mut b = Builder::new_multi_thread();
            b.worker_threads(self.workers);
            b
        };
        Ok(builder.enable_all().build()?)
    }
}

/// One timed shape of the counter work. One criterion iteration is one round:
/// `futures` times "increase by 2, decrease by 0", checked to end at `2 * futures`.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct RoundTiming {
    pub variant: Variant,
    pub futures: usize,
    /// Tasks the work runs in: 1 for `join_all` (one task polls everything).
    pub tasks: usize,
    pub runtime: RuntimeUsed,
    /// Nanoseconds per round.
    pub timing: Timing,
    /// Rounds whose final value was checked (warm-up included).
    pub rounds_validated: u64,
}

impl RoundTiming {
    /// One figure from repeats of the same measurement (`Timing::pooled`).
    pub fn pooled(parts: Vec<RoundTiming>) -> Result<RoundTiming> {
        let first = parts.first().context("no repeats to pool")?.clone();
        ensure!(
            parts.iter().all(|p| p.variant == first.variant
                && p.futures == first.futures
                && p.tasks == first.tasks
                && p.runtime == first.runtime),
            "repeats of different measurements cannot be pooled"
        );
        let rounds_validated = parts.iter().map(|p| p.rounds_validated).sum();
        let timing = Timing::pooled(parts.into_iter().map(|p| p.timing).collect())?;
        Ok(RoundTiming {
            timing,
            rounds_validated,
            ..first
        })
    }
}

/// Measures every one of `variants` `repeats` times in turn (std, tokio,
/// actor, std, …), each call building its own runtime, and pools each
/// variant's repeats. A ratio then compares variants that met the same mix
/// of the machine's fast and slow spells, and a spell that caught one repeat
/// widens the interval instead of moving the figure unseen.
pub fn interleaved(
    repeats: usize,
    variants: &[Variant],
    one: impl FnMut(usize, Variant) -> Result<RoundTiming>,
) -> Result<Vec<RoundTiming>> {
    pool_each(interleaved_parts(repeats, variants, one)?)
}

/// `interleaved` without the pooling: each variant's repeats, in the order
/// of `variants`, for a caller that adds more repeats later.
pub fn interleaved_parts(
    repeats: usize,
    variants: &[Variant],
    mut one: impl FnMut(usize, Variant) -> Result<RoundTiming>,
) -> Result<Vec<Vec<RoundTiming>>> {
    let mut by_variant: Vec<Vec<RoundTiming>> = variants.iter().map(|_| Vec::new()).collect();
    for repeat in 0..repeats {
        for (parts, &variant) in by_variant.iter_mut().zip(variants) {
            parts.push(one(repeat, variant)?);
        }
    }
    Ok(by_variant)
}

/// One pooled timing per variant from `interleaved_parts`.
pub fn pool_each(by_variant: Vec<Vec<RoundTiming>>) -> Result<Vec<RoundTiming>> {
    by_variant.into_iter().map(RoundTiming::pooled).collect()
}

/// Uncontended lock + increment + unlock. One criterion iteration is one of them.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct PerOpTiming {
    /// `std_mutex`, `parking_lot_mutex`, `tokio_mutex`, `async_lock_mutex`
    /// or `futures_mutex` (`Variant::name`).
    pub lock: String,
    /// The runtime an async lock ran on; `None` for the blocking locks.
    pub runtime: Option<RuntimeUsed>,
    /// Nanoseconds per lock + unlock.
    pub timing: Timing,
    pub ops_validated: u64,
}

/// How often a free tokio Mutex still made its task yield.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct CoopProbe {
    pub runtime: RuntimeUsed,
    pub ops: u64,
    pub pending: u64,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct HeartbeatResult {
    pub load: Load,
    pub workers: usize,
    pub contenders: usize,
    pub critical_section_ns: u64,
    pub period_ns: u64,
    pub beats: u64,
    pub lock_acquisitions: u64,
    /// The lateness distribution's summary (mean, p50 ... max), its fields
    /// at this level of the results file as before it was shared.
    #[serde(flatten)]
    pub latency: Percentiles,
    /// (quantile, nanoseconds) for the percentile curve.
    pub curve: Vec<(f64, u64)>,
}

/// Quantiles of the percentile curve, up to where the beat count still resolves them.
const CURVE: [f64; 9] = [0.5, 0.75, 0.9, 0.95, 0.99, 0.995, 0.999, 0.9995, 0.9999];

/// Counts validated rounds and remembers the first wrong one. Checks happen
/// inside criterion's closures, which cannot return errors.
#[derive(Default)]
pub struct Tally {
    checked: AtomicU64,
    first_error: Mutex<Option<String>>,
}

impl Tally {
    pub fn record(&self, got: i64, expected: i64) {
        if got == expected {
            self.checked.fetch_add(1, Ordering::Relaxed);
        } else {
            self.fail(format!("ended at {got}, expected {expected}"));
        }
    }

    pub fn fail(&self, why: impl std::fmt::Display) {
        self.first_error
            .lock()
            .unwrap()
            .get_or_insert_with(|| why.to_string());
    }

    /// The number of validated rounds, or the first failure.
    pub fn finish(&self, what: &str) -> Result<u64> {
        if let Some(why) = self.first_error.lock().unwrap().take() {
            bail!("{what}: validation failed: {why}");
        }
        let n = self.checked.load(Ordering::Relaxed);
        ensure!(n > 0, "{what}: no round was validated");
        Ok(n)
    }
}

/// The published shape timed with the counter type `C` (what
/// `join_all_timing` picks for a variant).
pub fn time_join_all<C: Counter>(
    lab: &Lab,
    sampling: Sampling,
    variant: Variant,
    futures: usize,
) -> Result<RoundTiming> {
    // As published: criterion's default multi-thread runtime with a worker per
    // core; the futures themselves are polled by `block_on` on criterion's thread.
    let runtime = RuntimeUsed::multi_thread(crate::cores());
    let rt = runtime.build()?;
    let tally = Arc::new(Tally::default());
    let expected = expected_value(futures);
    let id = join_all_id(variant, futures);
    // ANCHOR: published_timing
    let timing = lab.time(&id, sampling, |b| {
        b.to_async(Tokio(&rt)).iter(|| {
            let tally = tally.clone();
            async move {
                let counter = Arc::new(C::start());
                let value = join_all_round(counter, futures).await;
                tally.record(value, expected);
            }
        })
    })?;
    // ANCHOR_END: published_timing
    Ok(RoundTiming {
        variant,
        futures,
        tasks: 1,
        runtime,
        timing,
        rounds_validated: tally.finish(&id)?,
    })
}

/// Where the published round's futures are polled, other than on the
/// `block_on` thread as published.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Placement {
    /// The whole round in one spawned task, on a worker thread.
    OneTask,
    /// Each future a task of its own, `join_all` over the handles.
    TaskPerFuture,
}

impl Placement {
    pub fn name(self) -> &'static str {
        match self {
            Placement::OneTask => "in_task",
            Placement::TaskPerFuture => "task_per_future",
        }
    }
}

/// The published round placed on worker threads, timed with the counter type `C`.
pub fn time_placed<C: Counter>(
    lab: &Lab,
    sampling: Sampling,
    variant: Variant,
    futures: usize,
    placement: Placement,
) -> Result<RoundTiming> {
    // The published runtime, as in `time_join_all`; only where the futures
    // are polled differs.
    let runtime = RuntimeUsed::multi_thread(crate::cores());
    let rt = runtime.build()?;
    let tally = Arc::new(Tally::default());
    let expected = expected_value(futures);
    let id = placed_id(placement, variant, futures);
    let timing = lab.time(&id, sampling, |b| {
        b.to_async(Tokio(&rt)).iter(|| {
            let tally = tally.clone();
            async move {
                let counter = Arc::new(C::start());
                let value = match placement {
                    Placement::OneTask => join_all_round_in_task(counter, futures).await,
                    Placement::TaskPerFuture => task_per_future_round(counter, futures).await,
                };
                match value {
                    Ok(value) => tally.record(value, expected),
                    Err(e) => tally.fail(e),
                }
            }
        })
    })?;
    Ok(RoundTiming {
        variant,
        futures,
        tasks: match placement {
            Placement::OneTask => 1,
            Placement::TaskPerFuture => futures,
        },
        runtime,
        timing,
        rounds_validated: tally.finish(&id)?,
    })
}

/// The published round placed on worker threads (`placement`), timed as
/// published (criterion's `to_async`, everything inside `iter`).
pub fn placed_timing(
    lab: &Lab,
    sampling: Sampling,
    variant: Variant,
    futures: usize,
    placement: Placement,
) -> Result<RoundTiming> {
    with_counter!(variant, C => time_placed::<C>(lab, sampling, variant, futures, placement))
}

/// The contended shape timed with the counter type `C` (what
/// `spawned_timing` picks for a variant); its rounds' final values are
/// checked, so a counter that loses an update fails the timing.
pub fn time_spawned<C: Counter>(
    lab: &Lab,
    sampling: Sampling,
    variant: Variant,
    futures: usize,
    workers: usize,
) -> Result<RoundTiming> {
    let runtime = RuntimeUsed::multi_thread(workers);
    let rt = runtime.build()?;
    let tally = Arc::new(Tally::default());
    let expected = expected_value(futures);
    let tasks = crate::CONTENDING_TASKS;
    let id = spawned_id(variant, futures, workers);
    // ANCHOR: contended_timing
    let timing = lab.time(&id, sampling, |b| {
        b.to_async(Tokio(&rt)).iter_custom(|rounds| {
            let tally = tally.clone();
            async move {
                let mut timed = Duration::ZERO;
                for _ in 0..rounds {
                    // Creating the counter (for the actor: spawning it) and
                    // reading the result back stay outside the timed region.
                    let counter = Arc::new(C::start());
                    let start = Instant::now();
                    let done = spawned_round(counter.clone(), futures, tasks).await;
                    timed += start.elapsed();
                    match done {
                        Ok(()) => tally.record(counter.value().await, expected),
                        Err(e) => tally.fail(e),
                    }
                }
                timed
            }
        })
    })?;
    // ANCHOR_END: contended_timing
    Ok(RoundTiming {
        variant,
        futures,
        tasks,
        runtime,
        timing,
        rounds_validated: tally.finish(&id)?,
    })
}

/// The criterion id of a timing of the published shape. It names no
/// repeat: every repeat of a point is timed under the same id.
pub fn join_all_id(variant: Variant, futures: usize) -> String {
    format!("join_all-{}-{futures}", variant.name())
}

/// The criterion id of a timing of the contended shape (no repeat in it).
pub fn spawned_id(variant: Variant, futures: usize, workers: usize) -> String {
    format!("spawned-{}-{futures}-w{workers}", variant.name())
}

/// The criterion id of a ladder timing (no repeat in it).
pub fn placed_id(placement: Placement, variant: Variant, futures: usize) -> String {
    format!("{}-{}-{futures}", placement.name(), variant.name())
}

/// The published shape (`join_all` inside criterion's `to_async`) for one variant.
pub fn join_all_timing(
    lab: &Lab,
    sampling: Sampling,
    variant: Variant,
    futures: usize,
) -> Result<RoundTiming> {
    with_counter!(variant, C => time_join_all::<C>(lab, sampling, variant, futures))
}

/// The contended shape (spawned tasks on `workers` worker threads) for one variant.
pub fn spawned_timing(
    lab: &Lab,
    sampling: Sampling,
    variant: Variant,
    futures: usize,
    workers: usize,
) -> Result<RoundTiming> {
    with_counter!(variant, C => time_spawned::<C>(lab, sampling, variant, futures, workers))
}

/// The uncontended locks, in the order the page lists them. The async locks
/// other than tokio's ask no runtime for anything, so one runtime (a worker
/// of the multi-thread one, where tokio's lock meets its co-op budget) shows them.
pub const PER_OP_LOCKS: [(&str, Option<&str>); 6] = [
    ("std_mutex", None),
    ("parking_lot_mutex", None),
    ("tokio_mutex", Some("current_thread")),
    ("tokio_mutex", Some("multi_thread")),
    ("async_lock_mutex", Some("multi_thread")),
    ("futures_mutex", Some("multi_thread")),
];

/// Nanoseconds per uncontended lock + unlock for one lock (and runtime flavor).
pub fn per_op_timing(
    lab: &Lab,
    sampling: Sampling,
    lock: &str,
    flavor: Option<&str>,
) -> Result<PerOpTiming> {
    let done = Arc::new(AtomicU64::new(0));
    let runtime = flavor.map(|f| match f {
        "current_thread" => RuntimeUsed::current_thread(),
        _ => RuntimeUsed::multi_thread(crate::cores()),
    });
    let id = format!("per_op-{lock}-{}", flavor.unwrap_or("blocking"));
    let count = |ops: u64| done.fetch_add(ops, Ordering::Relaxed);
    let (timing, final_value) = match (lock, &runtime) {
        ("std_mutex", None) => {
            let m = std::sync::Mutex::new(0u64);
            let t = lab.time(&id, sampling, |b| {
                b.iter_custom(|ops| {
                    count(ops);
                    uncontended::std_mutex_ops(&m, ops)
                })
            })?;
            (t, m.into_inner().unwrap())
        }
        ("parking_lot_mutex", None) => {
            let m = parking_lot::Mutex::new(0u64);
            let t = lab.time(&id, sampling, |b| {
                b.iter_custom(|ops| {
                    count(ops);
                    uncontended::parking_lot_ops(&m, ops)
                })
            })?;
            (t, m.into_inner())
        }
        ("tokio_mutex", Some(runtime)) => {
            let rt = runtime.build()?;
            let m = Arc::new(tokio::sync::Mutex::new(0u64));
            let t = lab.time(&id, sampling, |b| {
                b.iter_custom(|ops| {
                    count(ops);
                    rt.block_on(uncontended::tokio_mutex_ops(m.clone(), ops))
                })
            })?;
            let value = *rt.block_on(m.lock());
            (t, value)
        }
        ("async_lock_mutex", Some(runtime)) => {
            let rt = runtime.build()?;
            let m = Arc::new(async_lock::Mutex::new(0u64));
            let t = lab.time(&id, sampling, |b| {
                b.iter_custom(|ops| {
                    count(ops);
                    rt.block_on(uncontended::async_lock_ops(m.clone(), ops))
                })
            })?;
            let value = *m.lock_blocking();
            (t, value)
        }
        ("futures_mutex", Some(runtime)) => {
            let rt = runtime.build()?;
            let m = Arc::new(futures::lock::Mutex::new(0u64));
            let t = lab.time(&id, sampling, |b| {
                b.iter_custom(|ops| {
                    count(ops);
                    rt.block_on(uncontended::futures_mutex_ops(m.clone(), ops))
                })
            })?;
            let value = *rt.block_on(m.lock());
            (t, value)
        }
        _ => bail!("no uncontended timing for {lock} with runtime {flavor:?}"),
    };
    let ops = done.load(Ordering::Relaxed);
    ensure!(
        final_value == ops && ops > 0,
        "{id}: the counter reads {final_value} after {ops} lock + unlock pairs"
    );
    Ok(PerOpTiming {
        lock: lock.to_string(),
        runtime,
        timing,
        ops_validated: ops,
    })
}

/// Counts how often an uncontended tokio `lock()` made its task yield.
pub fn coop_probe(ops: u64) -> Result<CoopProbe> {
    let runtime = RuntimeUsed::multi_thread(crate::cores());
    let rt = runtime.build()?;
    let (pending, value) = rt.block_on(uncontended::tokio_lock_pending_count(ops));
    ensure!(
        value == ops,
        "co-op probe: the counter reads {value} after {ops} locks"
    );
    Ok(CoopProbe {
        runtime,
        ops,
        pending,
    })
}

pub fn heartbeat_result(load: Load, run_for: Duration) -> Result<HeartbeatResult> {
    let setup = Setup {
        workers: crate::HEARTBEAT_WORKERS,
        contenders: crate::HEARTBEAT_CONTENDERS,
        critical_section: crate::CRITICAL_SECTION,
        period: crate::HEARTBEAT_PERIOD,
        run_for,
    };
    let report = heartbeat::run(load, setup)?;
    let h = &report.lateness;
    let beats = report.beats_sent;
    Ok(HeartbeatResult {
        load,
        workers: setup.workers,
        contenders: if load == Load::Idle {
            0
        } else {
            setup.contenders
        },
        critical_section_ns: setup.critical_section.as_nanos() as u64,
        period_ns: setup.period.as_nanos() as u64,
        beats,
        lock_acquisitions: report.lock_acquisitions,
        latency: Percentiles::of(h),
        // A quantile needs about 1 / (1 - q) beats before it means anything.
        curve: CURVE
            .iter()
            .filter(|&&q| (beats as f64) * (1.0 - q) >= 1.0)
            .map(|&q| (q, h.value_at_quantile(q)))
            .collect(),
    })
}
