//! What a run's work must have done, checked on every results file: every
//! point of every grid timed once per variant, rounds and operations
//! validated, the heartbeat heard. (Numbers out of bounds and intervals that
//! miss their point are refused by the harness before this runs.)
use std::collections::BTreeSet;

use anyhow::{ensure, Result};
use harness::grid;

use super::{heartbeat_of, per_op_of, Data};
use crate::experiments::{RoundTiming, PER_OP_LOCKS};
use crate::heartbeat::Load;
use crate::Variant;

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
    for (lock, flavor) in PER_OP_LOCKS {
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
        let what = crate::profiles::profile_name(p.shape, p.variant, p.futures);
        ensure!(p.rounds_validated > 0, "profile {what}: no round validated");
        p.stacks
            .check()
            .map_err(|e| e.context(format!("profile {what}")))?;
    }
    for load in Load::ALL {
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
        let p = [h.p50_ns, h.p90_ns, h.p99_ns, h.p999_ns, h.max_ns];
        ensure!(
            p[0] > 0 && p.windows(2).all(|w| w[0] <= w[1]),
            "{what}: percentiles {p:?} are not increasing"
        );
        ensure!(!h.curve.is_empty(), "{what}: empty percentile curve");
    }
    Ok(())
}

/// Every point of the grid (futures per round, and worker threads where
/// `workers` tells them apart) has every variant once, each with its work
/// validated.
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
