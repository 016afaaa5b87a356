//! The run: the plan of points a profile measures, and the loop that times
//! them round after round.
use anyhow::{Context, Result};
use harness_core::Profile;
use harness_measure::schedule::{At, Planned, Schedule};
use harness_measure::timing::{Sampling, Timing};
use harness_measure::Lab;

use super::data::{Data, Experiment, Key, Measured, WaitProfile, WorkCost};
use crate::cpu::cache_line_bytes;
use crate::experiment::{run_bursts_for, time_bursts, worker_threads, Passes, PointSpec};
use crate::inbox::Sink;
use crate::sharded_swap::SHARD_ALIGN;
use crate::{params, Design, Wait, HEAVY_WORK, LIGHT_WORK};

/// Messages one iteration of the work-cost timing hashes.
const WORK_COST_MESSAGES: u64 = 1024;

/// Every point a profile measures, in order, by its key.
pub fn plan(profile: Profile) -> Vec<Key> {
    let p = params(profile);
    plan_for(&p.producers, &p.wait_producers)
}

/// The points measured at these producer counts: the throughput and
/// lock-hold experiments at `producers`, the wait experiment at
/// `wait_producers`. The check reads a run's shape against it.
pub fn plan_for(producers: &[u64], wait_producers: &[u64]) -> Vec<Key> {
    let mut plan = Vec::new();
    for &n in producers {
        let notify = |experiment, design, work| (experiment, design, Wait::Notify, n, work);
        plan.extend(Design::SWAPS.map(|design| notify(Experiment::Throughput, design, LIGHT_WORK)));
        plan.extend(
            Design::CRITICAL_SECTIONS
                .map(|design| notify(Experiment::LockHold, design, LIGHT_WORK)),
        );
        plan.extend(
            [Design::StdMutexSwap, Design::StdMutexDrainLocked]
                .map(|design| notify(Experiment::LockHold, design, HEAVY_WORK)),
        );
    }
    for &n in wait_producers {
        for design in Design::WAITED {
            for wait in Wait::ALL {
                plan.push((Experiment::Wait, design, wait, n, LIGHT_WORK));
            }
        }
    }
    plan
}

/// FAN-4 looks at producer counts from here up: "at scale".
pub const FAN4_FROM_PRODUCERS: u64 = 128;

/// Whether FAN-4 is decided on this point, so that it gets
/// `Params::decisive_repeats` rounds: the std swap and one message per lock
/// from `FAN4_FROM_PRODUCERS` up, light work, with the `Notify` consumer
/// (throughput and lock-hold experiments: the fair row) and with the
/// busy-polling one (wait experiment: the as-published row). The verdict
/// map's test checks that these are the points those two rows read.
pub fn is_decisive((experiment, design, wait, producers, work_rounds): Key) -> bool {
    producers >= FAN4_FROM_PRODUCERS
        && work_rounds == LIGHT_WORK
        && matches!(
            (experiment, design, wait),
            (Experiment::Throughput, Design::StdMutexSwap, Wait::Notify)
                | (Experiment::LockHold, Design::StdMutexPopOne, Wait::Notify)
                | (
                    Experiment::Wait,
                    Design::StdMutexSwap | Design::StdMutexPopOne,
                    Wait::BusyPoll
                )
        )
}

fn work_cost(lab: &Lab, sampling: Sampling, work_rounds: u32) -> Result<WorkCost> {
    let timing = lab.time(&format!("work-{work_rounds}"), sampling, |b| {
        b.iter(|| {
            let mut sink = Sink::with_work(work_rounds);
            for m in 0..WORK_COST_MESSAGES {
                sink.accept(std::hint::black_box(m));
            }
            std::hint::black_box(sink)
        })
    })?;
    Ok(WorkCost {
        work_rounds,
        messages: WORK_COST_MESSAGES,
        timing,
    })
}

/// Progress steps outside the schedule: the consumer's work timed alone,
/// once per work level, before the rounds.
const WORK_STEPS: usize = 2;

/// The timetable of a profile's timings: `Params::repeats` rounds over the
/// whole plan in plan order, so each point's timings are spread over the
/// run, then the rounds only FAN-4's points get (up to
/// `Params::decisive_repeats`), over those points in plan order, the round
/// count going on. Each timing builds its own runtimes (no rig).
pub fn schedule(profile: Profile) -> Schedule<Key> {
    let p = params(profile);
    let keys = plan(profile);
    let points: Vec<Planned<Key>> = keys
        .iter()
        .map(|&key| Planned::every(key, p.sampling))
        .collect();
    let deciding: Vec<Key> = keys.into_iter().filter(|&key| is_decisive(key)).collect();
    Schedule::across("rounds over the plan", p.repeats, &points)
        .extra_at_end(p.decisive_repeats.max(p.repeats) - p.repeats, &deciding)
        .fields(&["experiment", "design", "wait", "producers", "work rounds"])
}

/// The criterion id of one round of one point (unique within a run: the
/// round goes on counting through the extra rounds).
pub fn criterion_id(
    (experiment, design, wait, producers, work_rounds): Key,
    round: usize,
) -> String {
    format!(
        "{experiment:?}-{}-{}-{producers}-work{work_rounds}-round{round}",
        design.name(),
        wait.name()
    )
}

/// One timing's criterion id and its progress line.
fn round_step(key: Key, at: At) -> (String, String) {
    let id = criterion_id(key, at.round);
    let step = format!("round {}/{}: {id}", at.round + 1, at.of);
    (id, step)
}

/// Every progress step of a run of `profile`: the work timed alone, the
/// schedule's timings, the CPU profiles.
pub fn progress_total(profile: Profile) -> usize {
    WORK_STEPS + schedule(profile).steps() + PROFILED_WAITS.len()
}

pub fn measure(lab: &Lab) -> Result<Data> {
    let profile = lab.profile();
    let progress = lab.progress();
    let p = params(profile);
    let schedule = schedule(profile);
    progress.set_total(progress_total(profile) as u64);
    let mut work = Vec::new();
    for rounds in [LIGHT_WORK, HEAVY_WORK] {
        progress.step(format!("consumer work alone, {rounds} rounds"));
        work.push(work_cost(lab, p.sampling, rounds)?);
    }
    // Round after round over the whole plan, so each point's timings are
    // spread over the run; pooled per point afterwards.
    let parts = schedule.run(
        |_| Ok(()),
        |(), &key, sampling, at| {
            let sampling = sampling.context("every point of mutex-swap is timed by criterion")?;
            let (_, design, wait, producers, work_rounds) = key;
            let (id, step) = round_step(key, at);
            progress.step(step);
            let spec = PointSpec {
                design,
                wait,
                producers,
                messages: p.messages_per_burst,
                work_rounds,
            };
            time_bursts(lab, sampling, &id, spec)
        },
        |()| Ok(()),
    )?;
    let points = parts.pool(
        |(experiment, design, wait, producers, work_rounds), parts| {
            let (timings, rounds): (Vec<Timing>, Vec<Passes>) = parts.into_iter().unzip();
            let passes = rounds
                .iter()
                .fold(Passes::default(), |all, round| all.merge(round));
            Ok(Measured {
                experiment,
                design,
                wait,
                producers,
                work_rounds,
                timing: Timing::pooled(timings)?,
                passes,
                rounds,
            })
        },
    )?;
    let profiles = profile_waits(lab, &p)?;
    Ok(Data {
        worker_threads: worker_threads() as u64,
        messages_per_burst: p.messages_per_burst,
        cache_line_bytes: cache_line_bytes(),
        shard_align_bytes: SHARD_ALIGN as u64,
        work_cost: work,
        repeats: p.repeats,
        decisive_repeats: p.decisive_repeats.max(p.repeats),
        schedules: vec![schedule.record()],
        points,
        profiles,
    })
}

/// The consumers the profiles set side by side, in the order they are drawn.
pub const PROFILED_WAITS: [Wait; 2] = [Wait::BusyPoll, Wait::Notify];
/// The design profiled: the published one, which the busy-cost text leads with.
pub const PROFILED_DESIGN: Design = Design::StdMutexSwap;

/// The heading a profile goes under on the page (and its name in the data).
pub fn profile_name(design: Design, wait: Wait, producers: u64) -> String {
    format!(
        "{}, {} consumer, {producers} producers",
        design.label(),
        wait.label()
    )
}

/// CPU profiles of the std swap with each wait strategy of
/// `PROFILED_WAITS`, at the smallest producer count of the wait experiment
/// (where the consumer most often finds the buffer empty): bursts run for
/// `Params::profile_for` each while every thread is sampled.
fn profile_waits(lab: &Lab, p: &crate::Params) -> Result<Vec<WaitProfile>> {
    let producers = *p
        .wait_producers
        .iter()
        .min()
        .expect("the wait experiment has producer counts");
    let mut out = Vec::new();
    for wait in PROFILED_WAITS {
        let name = profile_name(PROFILED_DESIGN, wait, producers);
        lab.progress().step(format!("CPU profile: {name}"));
        let (passes, stacks) = harness_measure::stacks::record(lab, &name, || {
            run_bursts_for(
                PROFILED_DESIGN,
                wait,
                producers,
                p.messages_per_burst,
                p.profile_for,
            )
        })?;
        out.push(WaitProfile {
            design: PROFILED_DESIGN,
            wait,
            producers,
            passes,
            stacks,
        });
    }
    Ok(out)
}

#[cfg(test)]
mod tests;
