//! One run of the chapter: every experiment of the profile's plan, in order.
use anyhow::{ensure, Context, Result};
use harness::{fmt, Lab};

use super::Data;
use crate::counted::{self, COUNTED};
use crate::drivers::{Driver, Lock};
use crate::experiments::{self, Placement, RoundTiming, PER_OP_LOCKS};
use crate::heartbeat::Load;
use crate::polls::{poll_count, PollCount};
use crate::profiles::{self, ProfiledShape, PROFILED_VARIANTS};
use crate::{allocator, sensitivity, Plan, Variant, ACTOR_CLAIM_FUTURES};

/// The variants a ladder step times at `futures`: the actor only at the
/// earlier post's size, where MUT-2 compares it.
fn ladder_variants(futures: usize) -> Vec<Variant> {
    if futures == ACTOR_CLAIM_FUTURES {
        Variant::ALL.to_vec()
    } else {
        vec![Variant::StdMutex, Variant::TokioMutex]
    }
}

/// The ladder's timings: the published round in one spawned task at every
/// ladder size, and with a task per future at the earlier post's size.
fn ladder_points(plan: &Plan) -> Vec<(Placement, usize)> {
    let mut points: Vec<_> = plan
        .ladder_sizes
        .iter()
        .map(|&n| (Placement::OneTask, n))
        .collect();
    if plan.ladder_sizes.contains(&ACTOR_CLAIM_FUTURES) {
        points.push((Placement::TaskPerFuture, ACTOR_CLAIM_FUTURES));
    }
    points
}

/// The rounds whose polls are counted: every driver and lock of the
/// sensitivity grid. The budget-first lock re-polls every waiting future
/// whenever the budget runs out off the `block_on` thread of a multi-thread
/// runtime, a cost that grows with the square of the futures, so there it
/// is counted at the earlier post's size.
fn poll_points(plan: &Plan) -> Vec<(Lock, Driver, experiments::RuntimeUsed, usize)> {
    let mut out = Vec::new();
    for setting in &plan.sensitivity.settings {
        // One counted round: looping rounds or not makes no difference.
        if setting.driver == Driver::BlockOnPerRound {
            continue;
        }
        for lock in Lock::ALL {
            let quadratic = lock == Lock::TokioBudgetFirst
                && !(setting.driver == Driver::LoopedInBlockOn
                    && setting.runtime.flavor == "multi_thread");
            let futures = if quadratic {
                plan.poll_futures.min(ACTOR_CLAIM_FUTURES)
            } else {
                plan.poll_futures
            };
            out.push((lock, setting.driver, setting.runtime.clone(), futures));
        }
    }
    // The actor's round at MUT-2's size, where the published shape polls
    // it and where the ladder's first step does: its channels spend budget too.
    let all_cores = experiments::RuntimeUsed::multi_thread(crate::cores());
    for driver in [Driver::LoopedInBlockOn, Driver::SpawnedTask] {
        let futures = plan.poll_futures.min(ACTOR_CLAIM_FUTURES);
        out.push((Lock::Actor, driver, all_cores.clone(), futures));
    }
    out
}

pub(super) fn run(lab: &Lab) -> Result<Data> {
    let plan = Plan::for_profile(lab.profile());
    let progress = lab.progress();
    let variants = Variant::ALL.len();
    let contended_timings: usize = plan
        .contended_sizes
        .iter()
        .map(|&f| plan.contended_variants(f).len() * plan.worker_counts.len())
        .sum();
    let decisive = plan
        .worker_counts
        .iter()
        .flat_map(|&w| plan.contended_sizes.iter().map(move |&f| (f, w)))
        .filter(|&(f, w)| plan.is_decisive(f, w))
        .count();
    ensure!(
        !allocator::mimalloc_serves(),
        "the chapter measures under the system allocator: unset {}",
        allocator::ALLOCATOR_ENV
    );
    let ladder = ladder_points(&plan);
    let ladder_timings: usize = ladder.iter().map(|&(_, n)| ladder_variants(n).len()).sum();
    let polls = poll_points(&plan);
    progress.set_total(
        (plan.join_all_sizes.len() * variants * plan.repeats
            + contended_timings * plan.repeats
            + decisive * variants * plan.decisive_extra
            + ladder_timings * plan.ladder_repeats
            + PER_OP_LOCKS.len()
            + 1
            + Load::ALL.len()
            + plan.sensitivity.samples()
            + polls.len()
            + COUNTED.len()
            + ProfiledShape::ALL.len() * PROFILED_VARIANTS.len()) as u64,
    );
    let repeat_of = |r: usize| format!("repeat {} of {}", r + 1, plan.repeats);
    let mut join_all = Vec::new();
    for &futures in &plan.join_all_sizes {
        join_all.extend(experiments::interleaved(
            plan.repeats,
            &Variant::ALL,
            |r, variant| {
                progress.step(format!(
                    "join_all, {}, {} futures, {}",
                    variant.label(),
                    fmt::thousands(futures as u64),
                    repeat_of(r)
                ));
                experiments::join_all_timing(lab, plan.sampling, variant, futures)
            },
        )?);
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
            let variants = plan.contended_variants(futures);
            let parts = experiments::interleaved_parts(plan.repeats, &variants, |r, variant| {
                spawned(futures, workers, repeat_of(r), variant)
            })?;
            contended_parts.push((futures, workers, parts));
        }
    }
    // The ladder: the published round moved onto worker threads.
    let (mut in_task, mut task_per_future) = (Vec::new(), Vec::new());
    for (placement, futures) in ladder {
        let vs = ladder_variants(futures);
        let mut parts: Vec<Vec<RoundTiming>> = vs.iter().map(|_| Vec::new()).collect();
        for r in 0..plan.ladder_repeats {
            for (part, &variant) in parts.iter_mut().zip(&vs) {
                progress.step(format!(
                    "ladder, {}, {}, {} futures, repeat {} of {}",
                    placement.name(),
                    variant.label(),
                    fmt::thousands(futures as u64),
                    r + 1,
                    plan.ladder_repeats
                ));
                part.push(experiments::placed_timing(
                    lab,
                    plan.sampling,
                    variant,
                    futures,
                    placement,
                )?);
            }
        }
        let pooled = experiments::pool_each(parts)?;
        match placement {
            Placement::OneTask => in_task.extend(pooled),
            Placement::TaskPerFuture => task_per_future.extend(pooled),
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
    let sensitivity = sensitivity::run(&plan.sensitivity, |what| progress.step(what))?;
    let mut poll_counts: Vec<PollCount> = Vec::new();
    for (lock, driver, runtime, futures) in polls {
        progress.step(format!(
            "polls counted, {}, {}, {}",
            lock.label(),
            driver.label(),
            runtime.describe()
        ));
        poll_counts.push(poll_count(lock, driver, &runtime, futures)?);
    }
    let mut instructions = Vec::new();
    for case in COUNTED {
        progress.step(format!("instructions counted (callgrind), {}", case.about));
        let (small, large) = counted::sizes(case.name, lab.profile());
        instructions.push(harness::counts::per_op(lab, case.name, small, large)?);
    }
    // Sampled, outside every timing: the published round at the sweep's
    // largest size, the contended one at MUT-2's.
    let largest = plan.join_all_sizes.iter().copied().max().unwrap_or(1_000);
    let contended_at = plan
        .contended_sizes
        .iter()
        .copied()
        .filter(|&f| f <= ACTOR_CLAIM_FUTURES)
        .max()
        .unwrap_or(largest);
    let profiles = profiles::record_all(lab, largest, contended_at, plan.profile_for)?;
    // MUT-2's points once more, at the end of the run: their repeats then
    // come from two stretches of it, minutes apart.
    for (futures, workers, parts) in &mut contended_parts {
        let (futures, workers) = (*futures, *workers);
        if !plan.is_decisive(futures, workers) {
            continue;
        }
        let late =
            experiments::interleaved_parts(plan.decisive_extra, &Variant::ALL, |r, variant| {
                let repeat = format!("late repeat {} of {}", r + 1, plan.decisive_extra);
                spawned(futures, workers, repeat, variant)
            })?;
        // The compared locks at this point keep their first repeats only.
        for (variant, more) in Variant::ALL.into_iter().zip(late) {
            let all = parts
                .iter_mut()
                .find(|p| p.first().is_some_and(|t| t.variant == variant))
                .context("a late repeat of a variant the point did not time")?;
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
        in_task,
        task_per_future,
        sensitivity,
        polls: poll_counts,
        instructions,
        profiles,
        future_bytes: [Lock::Std, Lock::Tokio, Lock::TokioBudgetFirst]
            .into_iter()
            .filter_map(|lock| Some((lock, crate::drivers::future_bytes(lock)? as u64)))
            .collect(),
    })
}
