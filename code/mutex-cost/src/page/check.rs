//! What a run's work must have done, checked on every results file: every
//! point of every grid timed once per variant, rounds and operations
//! validated, the heartbeat heard. The compared locks (`Variant::COMPARED`)
//! are all there or all absent (a file measured before they were added);
//! where they are, every one of them is complete. (Numbers out of bounds and intervals that
//! miss their point are refused by the harness before this runs.)
use std::collections::BTreeSet;

use anyhow::{ensure, Context, Result};
use harness_core::grid;

use super::points::{heartbeat_of, per_op_of};
use mutex_cost::experiments::{RoundTiming, PER_OP_LOCKS};
use mutex_cost::heartbeat::Load;
use mutex_cost::run::Data;
use mutex_cost::Variant;

pub fn data(data: &Data) -> Result<()> {
    ensure!(data.cores > 0, "cores is zero");
    rounds("join_all", &data.join_all, |_| None)?;
    rounds("contended", &data.contended, |r| Some(r.runtime.workers))?;
    ensure!(
        data.join_all.iter().all(|r| r.tasks == 1),
        "join_all: a round ran in more than one task"
    );
    ensure!(
        data.contended.iter().any(|r| r.runtime.workers == 1),
        "contended: no run with one worker thread"
    );
    let compared = compared_in(data);
    ensure!(
        !data
            .join_all
            .iter()
            .any(|r| !Variant::ALL.contains(&r.variant)),
        "join_all: a compared lock in the published shape, which times the claims' variants only"
    );
    if compared {
        compared_rounds(&data.contended)?;
    }
    for (lock, flavor) in PER_OP_LOCKS {
        if compared_per_op(lock) && !compared {
            continue;
        }
        let row = per_op_of(data, lock, flavor)?;
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
    for p in &data.profiles {
        let what = mutex_cost::profiles::profile_name(p.shape, p.variant, p.futures);
        ensure!(p.rounds_validated > 0, "profile {what}: no round validated");
        p.stacks
            .check()
            .map_err(|e| e.context(format!("profile {what}")))?;
    }
    for load in Load::ALL {
        if load.compared() && !compared {
            continue;
        }
        let h = heartbeat_of(data, load)?;
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
        let p = [
            h.latency.p50_ns,
            h.latency.p90_ns,
            h.latency.p99_ns,
            h.latency.p999_ns,
            h.latency.max_ns,
        ];
        ensure!(
            p[0] > 0 && p.windows(2).all(|w| w[0] <= w[1]),
            "{what}: percentiles {p:?} are not increasing"
        );
        ensure!(!h.curve.is_empty(), "{what}: empty percentile curve");
    }
    if !data.schedules.is_empty() {
        repeats_as_recorded(data)?;
    }
    Ok(())
}

/// Every contended point pooled as many repeats as the run's recorded
/// schedules gave it: its rounds in `contended`, plus its late repeats
/// (MUT-2's points, the claims' variants only). A file older than the
/// record has only the shape checks above.
fn repeats_as_recorded(data: &Data) -> Result<()> {
    for s in &data.schedules {
        s.check()?;
    }
    let find = |name: &str| data.schedules.iter().find(|s| s.name == name);
    let contended = find("contended").context("the recorded schedules have no \"contended\"")?;
    let late = find("late repeats");
    for r in &data.contended {
        let key = (r.runtime.workers, r.futures, r.variant);
        let what = format!(
            "contended {} at {} futures on {} workers",
            r.variant.name(),
            r.futures,
            r.runtime.workers
        );
        let first = contended
            .point(&key)
            .with_context(|| format!("{what}: not in the recorded schedule"))?
            .all_timings();
        let later = late
            .and_then(|s| s.point(&key))
            .map_or(0, |p| p.all_timings());
        ensure!(
            r.timing.repeats.len() == first + later,
            "{what}: {} repeats pooled, where the recorded schedules give {first} + {later} late",
            r.timing.repeats.len()
        );
    }
    Ok(())
}

/// Whether the run measured the compared locks: any of them anywhere. A
/// run that did must have them everywhere the plan puts them.
fn compared_in(data: &Data) -> bool {
    data.contended
        .iter()
        .any(|r| Variant::COMPARED.contains(&r.variant))
        || data.per_op.iter().any(|p| compared_per_op(&p.lock))
        || data.heartbeat.iter().any(|h| h.load.compared())
}

/// An uncontended lock that came with the compared ones (parking_lot's was
/// in the uncontended experiment before them).
pub(super) fn compared_per_op(lock: &str) -> bool {
    [Variant::AsyncLock, Variant::FuturesMutex]
        .iter()
        .any(|v| v.name() == lock)
}

/// The compared locks in the contended shape: at one size at least, on
/// every worker count, and at a point that has one has all of them.
fn compared_rounds(rows: &[RoundTiming]) -> Result<()> {
    let points: BTreeSet<_> = rows
        .iter()
        .filter(|r| Variant::COMPARED.contains(&r.variant))
        .map(|r| r.futures)
        .collect();
    ensure!(
        !points.is_empty(),
        "contended: the compared locks were measured elsewhere but not here"
    );
    let workers: BTreeSet<_> = rows.iter().map(|r| r.runtime.workers).collect();
    for futures in points {
        for &w in &workers {
            let what = format!("contended at {futures} futures on {w} workers");
            for variant in Variant::COMPARED {
                grid::find(rows, &what, (variant, futures, w), |r| {
                    (r.variant, r.futures, r.runtime.workers)
                })?;
            }
        }
    }
    Ok(())
}

/// Every point of the grid (futures per round, and worker threads where
/// `workers` tells them apart) has every variant the claims compare once,
/// each with its work validated.
fn rounds(
    experiment: &str,
    rows: &[RoundTiming],
    workers: impl Fn(&RoundTiming) -> Option<usize>,
) -> Result<()> {
    ensure!(!rows.is_empty(), "{experiment}: no timings");
    let points: BTreeSet<_> = rows.iter().map(|r| (r.futures, workers(r))).collect();
    for (futures, w) in points {
        let at: Vec<&RoundTiming> = rows
            .iter()
            .filter(|r| (r.futures, workers(r)) == (futures, w))
            .collect();
        let what = match w {
            Some(w) => format!("{experiment} at {futures} futures on {w} workers"),
            None => format!("{experiment} at {futures} futures"),
        };
        for variant in Variant::ALL {
            grid::find(&at, &what, variant, |r| r.variant)?;
        }
    }
    for r in rows {
        let what = format!("{experiment} {} at {} futures", r.variant.name(), r.futures);
        ensure!(
            r.futures > 0 && r.tasks > 0 && r.runtime.workers > 0,
            "{what}: zero futures, tasks or workers"
        );
        ensure!(r.rounds_validated > 0, "{what}: no validated round");
    }
    Ok(())
}
