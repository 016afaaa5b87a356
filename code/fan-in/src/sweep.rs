//! The sweep: one timed point as the results file stores it, and the run's
//! passes over every point, each on a fresh `Rig`, as one schedule
//! (`harness_measure::schedule`).
use std::time::Duration;

use anyhow::{bail, ensure, Context, Result};
use harness_measure::schedule::{At, Planned, Schedule, Slot};
use harness_measure::timing::{Sampling, Timing};
use harness_measure::Lab;
use serde::{Deserialize, Serialize};

use crate::experiment::{Job, Rig};
use crate::placement::{Pins, Placement};
use crate::plan::{plan, Plan, FREE_DESIGNS};
use crate::sink::SinkKind;
use crate::Design;

/// One timed point of the sweep, as stored in the results file.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Measured {
    pub sink: SinkKind,
    pub design: Design,
    pub workers: usize,
    /// Criterion's estimates of one burst, in nanoseconds.
    pub timing: Timing,
    /// Bursts run for this point (warm-up included), each one validated.
    pub bursts: u64,
    /// Bytes the sink received per burst (`workers x PER_WORKER`, checked).
    pub bytes_per_burst: u64,
    /// Mean write calls the consumer made per burst.
    pub writes_per_burst: f64,
}

impl Measured {
    /// One point's passes as one point: samples pooled by `Timing::pooled`
    /// (so the interval draws passes first), bursts added up, write calls
    /// averaged over every burst.
    pub fn pooled(parts: Vec<Measured>) -> Result<Measured> {
        let first = parts.first().context("no passes to pool")?.clone();
        if let Some(odd) = parts.iter().find(|m| {
            (m.sink, m.design, m.workers, m.bytes_per_burst)
                != (
                    first.sink,
                    first.design,
                    first.workers,
                    first.bytes_per_burst,
                )
        }) {
            bail!(
                "passes of different points cannot be pooled: {} / {} / {} workers and {} / {} / {} workers",
                first.sink.label(),
                first.design.id(),
                first.workers,
                odd.sink.label(),
                odd.design.id(),
                odd.workers
            );
        }
        let bursts: u64 = parts.iter().map(|m| m.bursts).sum();
        let writes: f64 = parts
            .iter()
            .map(|m| m.writes_per_burst * m.bursts as f64)
            .sum();
        let timing = Timing::pooled(parts.into_iter().map(|m| m.timing).collect())?;
        Ok(Measured {
            timing,
            bursts,
            writes_per_burst: writes / bursts.max(1) as f64,
            ..first
        })
    }
}

/// One point of the schedule: where its threads run (the run's placement,
/// or `Placement::Free` for the free-placement control), the sink, the
/// design and the worker count.
pub type Key = (Placement, SinkKind, Design, usize);

/// The timetable of a run under `plan` whose sweep runs with `placement`:
/// `plan.passes` passes over every point, sink after sink, worker count
/// after worker count, the designs alternating at each (a heavy point in
/// the first and the last pass only); after each pass its short passes over
/// the points FAN-1 and FAN-2 rest on (`Plan::decisive_points`, in that
/// order); then, in the same pass, the free-placement control
/// (`plan.free_workers` x `FREE_DESIGNS`, TCP sink). A fresh rig for each
/// pass, each short pass and each control segment.
pub fn schedule(plan: &Plan, placement: Placement) -> Result<Schedule<Key>> {
    let mut points = Vec::new();
    for kind in SinkKind::ALL {
        for &workers in &plan.workers {
            // Designs alternate at each worker count, so a burst of
            // background load smears over all of them rather than one.
            for design in Design::ALL {
                if !plan.measures(design, kind, workers) {
                    continue;
                }
                let key = (placement, kind, design, workers);
                let sampling = plan.sampling_for(design, workers);
                points.push(if Plan::is_heavy(design, workers) {
                    Planned::first_and_last(key, sampling)
                } else {
                    Planned::every(key, sampling)
                });
            }
        }
    }
    let deciding: Vec<Key> = plan
        .decisive_points()
        .into_iter()
        .map(|(design, kind, workers)| (placement, kind, design, workers))
        .collect();
    let sweep = Schedule::across("passes", plan.passes, &points)
        .extra_after_each_round(plan.decisive_extra, &deciding)
        .into_slots();
    // The control closes each pass, after its short passes.
    let mut slots = Vec::new();
    let mut rest = sweep.into_iter().peekable();
    while let Some(slot) = rest.next() {
        let pass = slot.round;
        slots.push(slot);
        if rest.peek().is_some_and(|next| next.round == pass) {
            continue;
        }
        for &workers in &plan.free_workers {
            for design in FREE_DESIGNS {
                if plan.measures_in(pass, design, workers) {
                    slots.push(Slot {
                        key: (Placement::Free, SinkKind::Tcp, design, workers),
                        sampling: Some(plan.sampling_for(design, workers)),
                        round: pass,
                        extra: 0,
                        rig: None,
                    });
                }
            }
        }
    }
    // A rig per stretch: a pass, a short pass, a control segment.
    let mut rig = 0;
    let mut last = None;
    for slot in &mut slots {
        let stretch = (slot.round, slot.extra, slot.key.0 != placement);
        if last.is_some_and(|l| l != stretch) {
            rig += 1;
        }
        last = Some(stretch);
        slot.rig = Some(rig);
    }
    Ok(Schedule::from_slots("passes", slots)?.fields(&["placement", "sink", "design", "workers"]))
}

/// The timetable of a run of `profile` whose sweep runs with `placement`
/// (the control cleared under free placement, as `run` does).
pub fn plan_schedule(
    profile: harness_core::Profile,
    placement: Placement,
) -> Result<Schedule<Key>> {
    let mut plan = plan(profile);
    if placement == Placement::Free {
        plan.free_workers.clear();
    }
    schedule(&plan, placement)
}

/// The placement the sweep of a run of `plan` on this machine runs with,
/// and the plan as it runs there: with free placement only (an OS that
/// cannot pin threads) there is no control to contrast it with.
pub fn placement_here(plan: &mut Plan) -> Placement {
    if Pins::for_this_thread().is_some() {
        Placement::Pinned
    } else {
        plan.free_workers.clear();
        Placement::Free
    }
}

/// The criterion id of one timing: a criterion id of its own for every
/// timing of the run (`n` counts the passes and short passes), so criterion
/// does not spend a bootstrap comparing it with the last pass.
pub fn criterion_id(plan: &Plan, (placement, kind, design, workers): Key, at: At) -> String {
    let n = at.round * (plan.decisive_extra + 1) + at.extra;
    format!(
        "{}-{}-{}-w{workers}-pass{n}",
        placement.label(),
        match kind {
            SinkKind::Tcp => "tcp",
            SinkKind::Memory => "memory",
        },
        design.id()
    )
}

/// The progress line of one timing in a run whose sweep runs with
/// `placement`.
pub fn progress_line(
    plan: &Plan,
    placement: Placement,
    (at_placement, kind, design, workers): Key,
    at: At,
) -> String {
    format!(
        "pass {}/{}{}, {}{}, {workers} workers, {}",
        at.round + 1,
        plan.passes,
        if at.extra == 0 {
            String::new()
        } else {
            format!(", short pass {}/{}", at.extra, plan.decisive_extra)
        },
        match at_placement {
            Placement::Free if placement == Placement::Pinned => "free placement, ",
            _ => "",
        },
        kind.label(),
        design.label()
    )
}

/// Times one job with criterion under the criterion id `id` (unique in the
/// lab): every iteration is one full burst, validated on the driver thread.
pub fn time_job(
    rig: &mut Rig,
    lab: &Lab,
    sampling: Sampling,
    job: Job,
    id: &str,
) -> Result<Measured> {
    let (design, kind, workers) = (job.design, job.kind, job.workers);
    let mut failure: Option<anyhow::Error> = None;
    let (mut bursts, mut writes, mut bytes) = (0u64, 0u64, 0u64);
    let timing = lab.time(id, sampling, |b| {
        b.iter_custom(|iters| {
            let mut total = Duration::ZERO;
            for _ in 0..iters {
                if failure.is_some() {
                    // Criterion cannot be stopped from here: report slow
                    // iterations so it winds down at once; the error wins below.
                    return Duration::from_secs(iters);
                }
                match rig.run_job(job.clone()) {
                    Ok(burst) => {
                        total += burst.elapsed;
                        bursts += 1;
                        writes += burst.writes;
                        bytes = burst.tally.bytes;
                    }
                    Err(e) => failure = Some(e),
                }
            }
            total
        })
    })?;
    if let Some(e) = failure {
        return Err(e);
    }
    if bursts == 0 {
        bail!("{id}: criterion ran no burst");
    }
    Ok(Measured {
        sink: kind,
        design,
        workers,
        timing,
        bursts,
        bytes_per_burst: bytes,
        writes_per_burst: writes as f64 / bursts as f64,
    })
}

/// Every point of `schedule` (`schedule(plan, placement)`), in passes:
/// each pass sweeps both sinks on a fresh rig, then its short passes time
/// the points FAN-1 and FAN-2 rest on, then the free-placement control runs
/// on a rig of its own. Each point's timings are pooled; the sweep's points
/// and the control's come back apart, each in the order of their first
/// timings (the sweep's: sink, then workers, then design).
pub fn run(
    lab: &Lab,
    plan: &Plan,
    placement: Placement,
    schedule: &Schedule<Key>,
) -> Result<(Vec<Measured>, Vec<Measured>)> {
    let progress = lab.progress();
    let parts = schedule.run(
        |slot| {
            // A fresh runtime, socket and sink thread each stretch.
            let want = slot.key.0;
            let rig = Rig::new(want)?;
            ensure!(
                rig.placement() == want,
                "pass {}{}: the rig's threads could not be pinned",
                slot.round + 1,
                if slot.extra == 0 {
                    String::new()
                } else {
                    format!(", short pass {}", slot.extra)
                }
            );
            Ok(rig)
        },
        |rig, &key, sampling, at| {
            let sampling = sampling.context("every point of fan-in is timed by criterion")?;
            progress.step(progress_line(plan, placement, key, at));
            let (_, kind, design, workers) = key;
            let id = criterion_id(plan, key, at);
            time_job(rig, lab, sampling, Job::fair(design, kind, workers), &id)
        },
        |rig| rig.finish(),
    )?;
    let mut points = Vec::new();
    let mut free_points = Vec::new();
    for (key, parts) in parts.0 {
        let m = Measured::pooled(parts)?;
        if key.0 == placement {
            points.push(m);
        } else {
            free_points.push(m);
        }
    }
    Ok((points, free_points))
}

#[cfg(test)]
mod tests;
