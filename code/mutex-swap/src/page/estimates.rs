//! The figures the exhibits show with an interval: each one named here,
//! drawn once per run by the judge (`judge`) and read back by its name when
//! a page is rendered, so no exhibit bootstraps. Also the batch formulas
//! FAN-4's rule shares with the batching table.
use anyhow::Result;

use harness_core::{Estimate, Unit};
use harness_measure::stats::{ratio_of_sums, Statistic};
use harness_page::{Judge, Run};

use mutex_swap::run::{Data, Experiment, Measured};
use mutex_swap::{Design, Wait, HEAVY_WORK, LIGHT_WORK};

use super::common::work_kind;

/// How a batch's interval is drawn (the analysis's `method`).
pub const BATCH_METHOD: &str = "messages ÷ passes summed over rounds, rounds bootstrapped";

/// Messages per pass with a 95% interval drawn over the rounds: the batch
/// swings with when the consumer thread gets a core, and a round is one
/// stretch of the run. `None` with a single round, which has no spread to
/// draw from.
pub fn batch(m: &Measured) -> Option<Estimate> {
    let rounds: Vec<(f64, f64)> = m
        .rounds
        .iter()
        .map(|r| (r.messages as f64, r.passes_with_messages as f64))
        .collect();
    ratio_of_sums(&rounds).ok()
}

/// The same with each burst's largest pass left out (its interval drawn
/// the same way): the pass after the consumer's longest wait for a core,
/// which can hold half of a short burst and would make the mean depend on
/// the burst's length. `None` with a single round.
pub fn steady_batch(m: &Measured) -> Option<Estimate> {
    let rounds: Vec<(f64, f64)> = m
        .rounds
        .iter()
        .map(|r| {
            let messages = r.messages.saturating_sub(r.largest_batches);
            let passes = r.passes_with_messages.saturating_sub(r.bursts);
            (messages as f64, passes as f64)
        })
        .collect();
    ratio_of_sums(&rounds).ok()
}

fn producers(p: u64) -> String {
    format!("{} producers", harness_core::fmt::thousands(p))
}

/// The batching table's mean batch of a throughput point.
pub fn batch_name(m: &Measured) -> String {
    format!(
        "{}, {}: messages per pass",
        m.design.label(),
        producers(m.producers)
    )
}

/// The same with each burst's largest pass left out.
pub fn steady_batch_name(m: &Measured) -> String {
    format!("{} without the largest", batch_name(m))
}

/// A design's burst time with `wait`'s consumer over its time with the
/// Notify consumer (means), at `p` producers: the wait tables, the
/// busy-cost text and the answer.
pub fn vs_notify_name(design: Design, wait: Wait, p: u64) -> String {
    format!(
        "{} ÷ Notify consumer, {}, {}",
        wait.label(),
        design.label(),
        producers(p)
    )
}

/// A lock-hold variant's burst time over the std swap's at the same work
/// level and producer count (means): the lock-hold table.
pub fn vs_swap_name(m: &Measured) -> String {
    format!(
        "{} ÷ {}, {} work, {}",
        m.design.label(),
        Design::StdMutexSwap.label(),
        work_kind(m.work_rounds),
        producers(m.producers)
    )
}

/// The estimate `name` of `run`'s analysis, if the judge drew one (a batch
/// of a single round has none).
pub fn stored(run: &Run<Data>, name: &str) -> Option<Estimate> {
    run.analysis
        .estimates
        .get(name)
        .and_then(|n| n.estimate().ok())
}

/// Names every figure the exhibits show with an interval, drawn from the
/// run's data: the batching table's batches, the wait tables' and
/// busy-cost's ratios to Notify, the lock-hold table's ratios to the swap.
pub fn judge(data: &Data, j: &mut Judge) -> Result<()> {
    for p in data.producers(Experiment::Throughput) {
        for design in Design::SWAPS {
            let Ok(m) = data.point(Experiment::Throughput, design, Wait::Notify, p) else {
                continue;
            };
            if let Some(b) = batch(m) {
                j.estimate(&batch_name(m), b, Unit::Plain, BATCH_METHOD)?;
            }
            if let Some(b) = steady_batch(m) {
                j.estimate(&steady_batch_name(m), b, Unit::Plain, BATCH_METHOD)?;
            }
        }
    }
    for p in data.producers(Experiment::Wait) {
        for design in Design::WAITED {
            let Ok(notify) = data.point(Experiment::Wait, design, Wait::Notify, p) else {
                continue;
            };
            for wait in [Wait::BusyPoll, Wait::YieldNow] {
                if let Ok(m) = data.point(Experiment::Wait, design, wait, p) {
                    let name = vs_notify_name(design, wait, p);
                    j.ratio(&name, &m.timing, &notify.timing, Statistic::Mean)?;
                }
            }
        }
    }
    for rounds in [LIGHT_WORK, HEAVY_WORK] {
        for p in data.producers(Experiment::LockHold) {
            let Ok(swap) = lock_hold_swap(data, p, rounds) else {
                continue;
            };
            for design in Design::CRITICAL_SECTIONS {
                let wait = Wait::Notify;
                if let Ok(m) = data.point_with(Experiment::LockHold, design, wait, p, rounds) {
                    j.ratio(&vs_swap_name(m), &m.timing, &swap.timing, Statistic::Mean)?;
                }
            }
        }
    }
    Ok(())
}

/// The std swap the lock-hold table compares with at `p` producers and
/// `work_rounds`: with light work, the throughput experiment's point.
pub fn lock_hold_swap(data: &Data, p: u64, work_rounds: u32) -> Result<&Measured> {
    if work_rounds == LIGHT_WORK {
        data.point(
            Experiment::Throughput,
            Design::StdMutexSwap,
            Wait::Notify,
            p,
        )
    } else {
        data.point_with(
            Experiment::LockHold,
            Design::StdMutexSwap,
            Wait::Notify,
            p,
            work_rounds,
        )
    }
}
