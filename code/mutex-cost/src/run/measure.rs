//! One run of the chapter: every experiment of the profile's plan, in
//! order. The round timings go through four schedules
//! (`harness_measure::schedule`): the published shape, the contended shape, the
//! ladder, and MUT-2's late repeats, which are timed after everything else
//! and pooled with the contended shape's first repeats.
use anyhow::{ensure, Context, Result};
use harness_core::fmt;
use harness_measure::schedule::{At, Parts, Planned, RecordedSchedule, Schedule, Slot};
use harness_measure::timing::Sampling;
use harness_measure::Lab;

use super::data::Data;
use crate::counted::{self, COUNTED};
use crate::drivers::{Driver, Lock};
use crate::experiments::{self, Placement, RoundTiming, PER_OP_LOCKS};
use crate::heartbeat::Load;
use crate::polls::{poll_count, PollCount};
use crate::profiles::{self, ProfiledShape, PROFILED_VARIANTS};
use crate::{allocator, sensitivity, Plan, Variant, ACTOR_CLAIM_FUTURES};

/// A point of the published shape: (futures per round, variant).
type JoinAllKey = (usize, Variant);
/// A point of the contended shape: (worker threads, futures, variant).
type SpawnedKey = (usize, usize, Variant);
/// A point of the ladder: (where the round runs, futures, variant).
type LadderKey = (Placement, usize, Variant);

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

/// The four schedules of a run's round timings, in the order they run.
pub(super) struct Schedules {
    /// The published shape: per size, `Plan::repeats` rounds over the
    /// claims' variants.
    pub join_all: Schedule<JoinAllKey>,
    /// The contended shape: per worker count and size, `Plan::repeats`
    /// rounds over the variants timed there.
    pub contended: Schedule<SpawnedKey>,
    /// The ladder: per step, `Plan::ladder_repeats` rounds.
    pub ladder: Schedule<LadderKey>,
    /// MUT-2's points once more at the end of the run (`Plan::decisive_extra`
    /// rounds over the claims' variants), so their repeats come from two
    /// stretches of it, minutes apart.
    pub late: Schedule<SpawnedKey>,
}

impl Schedules {
    pub(super) fn of(plan: &Plan) -> Result<Schedules> {
        let every = |key| Planned::every(key, plan.sampling);
        let join_all: Vec<Vec<Planned<JoinAllKey>>> = plan
            .join_all_sizes
            .iter()
            .map(|&f| Variant::ALL.iter().map(|&v| every((f, v))).collect())
            .collect();
        let mut contended = Vec::new();
        for &w in &plan.worker_counts {
            for &f in &plan.contended_sizes {
                let points = plan.contended_variants(f).into_iter();
                contended.push(
                    points
                        .map(|v| Planned::every((w, f, v), plan.sampling))
                        .collect(),
                );
            }
        }
        let ladder: Vec<Vec<Planned<LadderKey>>> = ladder_points(plan)
            .into_iter()
            .map(|(placement, f)| {
                ladder_variants(f)
                    .into_iter()
                    .map(|v| Planned::every((placement, f, v), plan.sampling))
                    .collect()
            })
            .collect();
        let mut late = Vec::new();
        for &w in &plan.worker_counts {
            for &f in &plan.contended_sizes {
                if !plan.is_decisive(f, w) {
                    continue;
                }
                for r in 0..plan.decisive_extra {
                    for v in Variant::ALL {
                        late.push(Slot {
                            key: (w, f, v),
                            sampling: Some(plan.sampling),
                            round: plan.repeats + r,
                            extra: r + 1,
                            rig: None,
                        });
                    }
                }
            }
        }
        let spawned = ["workers", "futures", "variant"];
        Ok(Schedules {
            join_all: Schedule::within_groups("join_all", plan.repeats, &join_all)
                .fields(&["futures", "variant"]),
            contended: Schedule::within_groups("contended", plan.repeats, &contended)
                .fields(&spawned),
            ladder: Schedule::within_groups("ladder", plan.ladder_repeats, &ladder).fields(&[
                "placement",
                "futures",
                "variant",
            ]),
            late: Schedule::from_slots("late repeats", late)?.fields(&spawned),
        })
    }

    /// Their progress steps: one per timing.
    fn steps(&self) -> usize {
        self.join_all.steps() + self.contended.steps() + self.ladder.steps() + self.late.steps()
    }

    /// As the results file keeps them.
    pub(super) fn record(&self) -> Vec<RecordedSchedule> {
        vec![
            self.join_all.record(),
            self.contended.record(),
            self.ladder.record(),
            self.late.record(),
        ]
    }
}

/// Every progress step of a run of `plan`: the schedules' timings, then the
/// steps outside them (uncontended locks, the co-op probe, the heartbeat
/// loads, the sensitivity grid's samples, the counted polls and
/// instructions, the CPU profiles).
pub(super) fn progress_total(plan: &Plan) -> Result<usize> {
    Ok(Schedules::of(plan)?.steps()
        + PER_OP_LOCKS.len()
        + 1
        + Load::ALL.len()
        + plan.sensitivity.samples()
        + poll_points(plan).len()
        + COUNTED.len()
        + ProfiledShape::ALL.len() * PROFILED_VARIANTS.len())
}

/// "repeat 2 of 4" for a regular round, "late repeat 1 of 8" for a late one.
fn repeat_of(plan: &Plan, at: At) -> String {
    if at.extra > 0 {
        format!("late repeat {} of {}", at.extra, plan.decisive_extra)
    } else {
        format!("repeat {} of {}", at.round + 1, plan.repeats)
    }
}

/// A published-shape timing's criterion id (no round in it: criterion paces
/// a point's repeats under one id) and its progress line.
fn join_all_step(plan: &Plan, (futures, variant): JoinAllKey, at: At) -> (String, String) {
    let step = format!(
        "join_all, {}, {} futures, {}",
        variant.label(),
        fmt::thousands(futures as u64),
        repeat_of(plan, at)
    );
    (experiments::join_all_id(variant, futures), step)
}

/// A contended timing's criterion id and progress line (late repeats too).
fn spawned_step(plan: &Plan, (workers, futures, variant): SpawnedKey, at: At) -> (String, String) {
    let step = format!(
        "spawned, {}, {} futures, {workers} workers, {}",
        variant.label(),
        fmt::thousands(futures as u64),
        repeat_of(plan, at)
    );
    (experiments::spawned_id(variant, futures, workers), step)
}

/// A ladder timing's criterion id and progress line.
fn ladder_step(plan: &Plan, (placement, futures, variant): LadderKey, at: At) -> (String, String) {
    let step = format!(
        "ladder, {}, {}, {} futures, repeat {} of {}",
        placement.name(),
        variant.label(),
        fmt::thousands(futures as u64),
        at.round + 1,
        plan.ladder_repeats
    );
    (experiments::placed_id(placement, variant, futures), step)
}

/// Every round timing is criterion's.
fn criterion(sampling: Option<Sampling>) -> Result<Sampling> {
    sampling.context("every round timing of mutex-cost is criterion's")
}

/// Runs `schedule` with no rig: each timing builds its own runtime.
fn run_each<K, M>(
    schedule: &Schedule<K>,
    time: impl FnMut(&K, Sampling, At) -> Result<M>,
) -> Result<Parts<K, M>>
where
    K: Clone + PartialEq + serde::Serialize,
{
    let mut time = time;
    schedule.run(
        |_| Ok(()),
        |(), key, sampling, at| time(key, criterion(sampling)?, at),
        |()| Ok(()),
    )
}

pub(super) fn run(lab: &Lab) -> Result<Data> {
    let plan = Plan::for_profile(lab.profile());
    let progress = lab.progress();
    ensure!(
        !allocator::mimalloc_serves(),
        "the chapter measures under the system allocator: unset {}",
        allocator::ALLOCATOR_ENV
    );
    let schedules = Schedules::of(&plan)?;
    let polls = poll_points(&plan);
    progress.set_total(progress_total(&plan)? as u64);
    let join_all = run_each(&schedules.join_all, |&(futures, variant), sampling, at| {
        let (_, step) = join_all_step(&plan, (futures, variant), at);
        progress.step(step);
        experiments::join_all_timing(lab, sampling, variant, futures)
    })?
    .pool(|_, parts| RoundTiming::pooled(parts))?;
    let spawned = |&(workers, futures, variant): &SpawnedKey, sampling, at| {
        let (_, step) = spawned_step(&plan, (workers, futures, variant), at);
        progress.step(step);
        experiments::spawned_timing(lab, sampling, variant, futures, workers)
    };
    // Each contended point's repeats, per variant, pooled once MUT-2's
    // points have had their late repeats too.
    let mut contended_parts = run_each(&schedules.contended, &spawned)?;
    // The ladder: the published round moved onto worker threads.
    let ladder = run_each(
        &schedules.ladder,
        |&(placement, futures, variant), sampling, at| {
            let (_, step) = ladder_step(&plan, (placement, futures, variant), at);
            progress.step(step);
            experiments::placed_timing(lab, sampling, variant, futures, placement)
        },
    )?
    .pool(|(placement, _, _), parts| Ok((placement, RoundTiming::pooled(parts)?)))?;
    let (mut in_task, mut task_per_future) = (Vec::new(), Vec::new());
    for (placement, pooled) in ladder {
        match placement {
            Placement::OneTask => in_task.push(pooled),
            Placement::TaskPerFuture => task_per_future.push(pooled),
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
        instructions.push(harness_measure::counts::per_op(
            lab, case.name, small, large,
        )?);
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
    // come from two stretches of it, minutes apart (the compared locks at
    // those points keep their first repeats only).
    contended_parts.append(run_each(&schedules.late, &spawned)?)?;
    let contended = contended_parts.pool(|_, parts| RoundTiming::pooled(parts))?;
    Ok(Data {
        cores: crate::cores(),
        decisive_extra: plan.decisive_extra,
        schedules: schedules.record(),
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

#[cfg(test)]
mod tests;
