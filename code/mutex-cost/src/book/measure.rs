//! One run of the chapter: every experiment of the profile's plan, in order.
use anyhow::Result;
use harness::{fmt, Lab};

use super::Data;
use crate::experiments::{self, PER_OP_LOCKS};
use crate::heartbeat::Load;
use crate::{Plan, Variant};

pub(super) fn run(lab: &Lab) -> Result<Data> {
    let plan = Plan::for_profile(lab.profile());
    let progress = lab.progress();
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
            experiments::join_all_timing(lab, plan.sampling, variant, futures)
        })?);
    }
    let spawned = |futures: usize, workers: usize, repeat: String, variant: Variant| {
        progress.step(format!(
            "spawned, {}, {} futures, {workers} workers, {repeat}",
            variant.label(),
            fmt::thousands(futures as u64),
        ));
        experiments::spawned_timing(lab, plan.sampling, variant, futures, workers)
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
            lab,
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
