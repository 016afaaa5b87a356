//! One run of the chapter: experiment A's sweep and its head-to-head
//! timing, then experiment B's back-pressure grid. The sweep, the
//! head-to-head windows, the other ways and B's ladder are timed through
//! schedules (`harness_measure::schedule`: their order is in one place, tested
//! against the loops they replaced, and recorded in the data); B's single
//! pass and the burst shapes stay loops of their own.
use anyhow::{bail, Context, Result};
use harness_core::Profile;
use harness_measure::schedule::{At, Planned, RecordedSchedule, Schedule, Slot};
use harness_measure::Lab;
use tokio::runtime::Runtime;

use super::data::{
    bp_all, BackpressureSetup, BurstProfile, Data, LadderSetup, MethodsSetup, SweepSetup,
    BP_CHANNELS, BP_COMPARED,
};
use crate::backpressure_ladder::{self, LadderRun, RUNGS};
use crate::drivers::{self, Runtimes};
use crate::head_to_head::{self, HeadToHead};
use crate::methods::{self, MethodPoint, METHODS};
use crate::sweep::{self, MemcpyPoint};
use crate::{
    backpressure, backpressure_messages, counted, head_to_head_windows, sweep_repeats,
    sweep_sampling, Carry, Variant, BOUNDS, BURST, CAPACITY, HANG_LIMIT, PAYLOAD_SIZES, TASKS,
};

#[cfg(test)]
mod tests;

/// The schedules a run records, in the order it times them.
pub const SCHEDULES: [&str; 4] = ["sweep", "head to head", "other ways", "B ladder"];

/// A point of the sweep: channel id (or [`MEMCPY`] for the floor), payload
/// carry id (`–` for the floor) and payload bytes.
pub type SweepKey = (&'static str, &'static str, usize);

/// The sweep's memcpy floor, as its key names it.
pub const MEMCPY: &str = "memcpy";

/// An other way's point: payload bytes and method id.
pub type OtherKey = (usize, &'static str);

/// A ladder run: tasks, bound, rung id and channel.
pub type LadderKey = (usize, usize, &'static str, &'static str);

/// Experiment A's sweep: pass after pass (`sweep_repeats`) over every size,
/// every variant with its carries at that size, then the memcpy floor of
/// that size, each timed by criterion on one current-thread runtime.
///
/// A size's repeats are spread over the whole sweep, so they draw several
/// of the machine's spells rather than the one its turn fell in, and the
/// variants a ratio compares still sit side by side in time.
pub fn sweep_schedule(profile: Profile) -> Schedule<SweepKey> {
    let sampling = sweep_sampling(profile);
    let mut points = Vec::new();
    for bytes in PAYLOAD_SIZES {
        for v in Variant::ALL
            .into_iter()
            .filter(|v| v.sizes().contains(&bytes))
        {
            for &c in v.carries() {
                points.push(Planned::every((v.id(), c.id(), bytes), sampling));
            }
        }
        points.push(Planned::every((MEMCPY, "–", bytes), sampling));
    }
    Schedule::across("sweep", sweep_repeats(profile), &points)
        .one_rig()
        .fields(&["channel", "payload", "bytes"])
}

/// The repeat (1-based: it is in the criterion id) and the progress line
/// of one timing of the sweep.
fn sweep_step(key: &SweepKey, at: At) -> (usize, String) {
    let (repeat, repeats) = (at.round + 1, at.of);
    let &(channel, carry, bytes) = key;
    let step = if channel == MEMCPY {
        format!("A: memcpy {BURST} x {bytes} B (repeat {repeat} of {repeats})")
    } else {
        let label = Variant::from_id(channel).map_or(channel, Variant::label);
        format!("A: {label} {carry} {bytes} B (repeat {repeat} of {repeats})")
    };
    (repeat, step)
}

/// The ratio the verdicts rest on, head to head, in passes over every size
/// like the sweep (a size's windows are spread over this stretch), timed by
/// hand on the sweep's runtime.
pub fn head_to_head_schedule(profile: Profile) -> Schedule<usize> {
    let points: Vec<Planned<usize>> = PAYLOAD_SIZES
        .into_iter()
        .map(|bytes| Planned::every(bytes, None))
        .collect();
    Schedule::across("head to head", head_to_head_windows(profile), &points)
        .one_rig()
        .fields(&["bytes"])
}

/// The window index (`head_to_head::window`'s) and progress line.
fn head_to_head_step(bytes: usize, at: At) -> (usize, String) {
    let step = format!(
        "A: tokio against crossbeam, {bytes} B (window {} of {})",
        at.round + 1,
        at.of
    );
    (at.round, step)
}

/// Experiment A the other ways (`methods::METHODS`), window after window in
/// passes over every size and method, like the head-to-head timing, timed
/// by hand on one set of runtimes.
pub fn other_ways_schedule(profile: Profile) -> Schedule<OtherKey> {
    let mut points = Vec::new();
    for bytes in PAYLOAD_SIZES {
        for m in METHODS.iter() {
            points.push(Planned::every((bytes, m.id), None));
        }
    }
    Schedule::across("other ways", methods::windows(profile).0, &points)
        .one_rig()
        .fields(&["bytes", "method"])
}

/// The window index (`methods::window`'s: it drives the alternation and
/// the page-fault window) and progress line.
fn other_way_step(key: &OtherKey, at: At) -> (usize, String) {
    let &(bytes, id) = key;
    let step = format!(
        "A, another way: {id} at {bytes} B (window {} of {})",
        at.round + 1,
        at.of
    );
    (at.round, step)
}

/// Experiment B's ladder: pass after pass (one per repeat) over every
/// setting, every rung and both channels at each, the channel that goes
/// first alternating from pass to pass (so the slots are given, not built).
pub fn ladder_schedule() -> Schedule<LadderKey> {
    let mut slots = Vec::new();
    for repeat in 0..backpressure_ladder::REPEATS {
        for tasks in TASKS {
            for bound in BOUNDS {
                for rung in RUNGS {
                    let mut channels = BP_CHANNELS;
                    if repeat % 2 == 1 {
                        channels.reverse();
                    }
                    for channel in channels {
                        slots.push(Slot {
                            key: (tasks, bound, rung.id, channel),
                            sampling: None,
                            round: repeat,
                            extra: 0,
                            rig: None,
                        });
                    }
                }
            }
        }
    }
    Schedule::from_slots("B ladder", slots)
        .expect("one sampling per key")
        .fields(&["tasks", "bound", "rung", "channel"])
}

/// The repeat (`backpressure_ladder::run`'s) and progress line.
fn ladder_step(key: &LadderKey, at: At) -> (usize, String) {
    let &(tasks, bound, rung, channel) = key;
    let step = format!(
        "B ladder: {rung} {channel}, {tasks} tasks, bound {bound} (repeat {} of {})",
        at.round + 1,
        at.of
    );
    (at.round, step)
}

/// The schedules of a run of `profile`, as its data records them.
pub fn schedules(profile: Profile) -> Vec<RecordedSchedule> {
    vec![
        sweep_schedule(profile).record(),
        head_to_head_schedule(profile).record(),
        other_ways_schedule(profile).record(),
        ladder_schedule().record(),
    ]
}

/// Every progress step of a run of `profile`: the schedules' timings, then
/// B's single pass, the instruction counts, the CPU profiles and the
/// burst shapes (windows and counts).
pub fn progress_total(profile: Profile) -> usize {
    sweep_schedule(profile).steps()
        + head_to_head_schedule(profile).steps()
        + other_ways_schedule(profile).steps()
        + ladder_schedule().steps()
        + TASKS.len() * BOUNDS.len() * (BP_CHANNELS.len() + BP_COMPARED.len())
        + counted::cases_for(profile).len()
        + crate::profiles::PROFILED.len()
        + crate::burst_shapes::steps(profile)
}

pub(super) fn measure(lab: &Lab) -> Result<Data> {
    let profile = lab.profile();
    let sampling = sweep_sampling(profile);
    let repeats = sweep_repeats(profile);
    let per_point = backpressure_messages(profile);
    let rt = sweep::current_thread_runtime()?;
    let windows = head_to_head_windows(profile);
    let cases = counted::cases_for(profile);
    lab.progress().set_total(progress_total(profile) as u64);

    let (points, memcpy) = sweep(lab, &rt)?;
    let head_to_head = head_to_head(lab, &rt)?;
    drop(rt);
    let shapes = crate::burst_shapes::measure(lab)?;
    let methods = other_ways(lab)?;
    let runs = backpressure(lab, per_point)?;
    let ladder = ladder(lab)?;
    let mut instructions = Vec::new();
    for case in cases {
        lab.progress().step(format_args!(
            "instructions counted (callgrind), {}",
            case.name
        ));
        let (small, large) = counted::bursts(case);
        instructions.push(harness_measure::counts::per_op(
            lab, case.name, small, large,
        )?);
    }
    let stretch = std::time::Duration::from_millis(profile.pick(50, 400, 1000));
    let mut profiles = Vec::new();
    for (channel, bytes) in crate::profiles::PROFILED {
        let name =
            format!("{channel} mpsc, {bytes} B bursts").replace("crossbeam mpsc", "crossbeam");
        lab.progress().step(format_args!("CPU profile: {name}"));
        let (bursts, stacks) = harness_measure::stacks::record(lab, &name, || {
            crate::profiles::bursts_for(channel, bytes, stretch)
        })?;
        profiles.push(BurstProfile {
            channel: channel.to_string(),
            bytes,
            bursts,
            stacks,
        });
    }

    Ok(Data {
        sweep: SweepSetup {
            burst: BURST,
            capacity: CAPACITY,
            sizes: PAYLOAD_SIZES.to_vec(),
            runtime: "current_thread (one task)".into(),
            samples: sampling.samples,
            warm_up_ms: sampling.warm_up.as_millis() as u64,
            measurement_ms: sampling.measurement.as_millis() as u64,
            pointer_width_bits: usize::BITS as usize,
            repeats,
            head_to_head_windows: windows,
            head_to_head_pairs: head_to_head::PAIRS,
        },
        points,
        memcpy,
        head_to_head,
        backpressure: BackpressureSetup {
            runtime: "multi_thread".into(),
            worker_threads: backpressure::worker_threads(),
            tasks: TASKS.to_vec(),
            bounds: BOUNDS.to_vec(),
            messages_per_point: per_point,
        },
        runs,
        methods,
        methods_setup: Some(MethodsSetup {
            windows: methods::windows(profile).0,
            pairs: methods::windows(profile).1,
            sample_bursts: PAYLOAD_SIZES.map(methods::sample_bursts).to_vec(),
            cores: drivers::cores(),
            fault_bursts: methods::FAULT_BURSTS,
            cache_bytes: crate::cache::last_level_bytes(),
        }),
        instructions,
        ladder,
        ladder_setup: Some(LadderSetup {
            repeats: backpressure_ladder::REPEATS,
            messages_per_run: backpressure_ladder::messages(profile),
            pause_ms: backpressure_ladder::pause(profile).as_millis() as u64,
            worker_threads: backpressure::worker_threads(),
        }),
        profiles,
        shapes: Some(shapes),
        schedules: schedules(profile),
    })
}

/// What one timing of the sweep gives: a channel's point or a floor.
enum SweepPart {
    Point(sweep::Point),
    Memcpy(MemcpyPoint),
}

/// Experiment A's sweep (`sweep_schedule`), every point's repeats pooled.
fn sweep(lab: &Lab, rt: &Runtime) -> Result<(Vec<sweep::Point>, Vec<MemcpyPoint>)> {
    let progress = lab.progress();
    let parts = sweep_schedule(lab.profile()).run(
        |_| Ok(rt),
        |rt, key, sampling, at| {
            let sampling = sampling.context("the sweep is timed by criterion")?;
            let (repeat, step) = sweep_step(key, at);
            progress.step(step);
            let &(channel, carry, bytes) = key;
            if channel == MEMCPY {
                return Ok(SweepPart::Memcpy(sweep::measure_memcpy(
                    bytes, lab, sampling, repeat,
                )?));
            }
            let variant = Variant::from_id(channel).context("a channel of the sweep")?;
            let carry = Carry::from_id(carry).context("a carry of the sweep")?;
            Ok(SweepPart::Point(sweep::measure_point(
                variant, carry, bytes, rt, lab, sampling, repeat,
            )?))
        },
        |_| Ok(()),
    )?;
    let (mut points, mut memcpy) = (Vec::new(), Vec::new());
    for pooled in parts.pool(|_, repeats| pool_sweep(repeats))? {
        match pooled {
            SweepPart::Point(p) => points.push(p),
            SweepPart::Memcpy(m) => memcpy.push(m),
        }
    }
    Ok((points, memcpy))
}

/// One key's repeats as one point.
fn pool_sweep(repeats: Vec<SweepPart>) -> Result<SweepPart> {
    let mut points = Vec::new();
    let mut floors = Vec::new();
    for r in repeats {
        match r {
            SweepPart::Point(p) => points.push(p),
            SweepPart::Memcpy(m) => floors.push(m),
        }
    }
    match (points.is_empty(), floors.is_empty()) {
        (false, true) => Ok(SweepPart::Point(sweep::Point::pooled(points)?)),
        (true, false) => Ok(SweepPart::Memcpy(MemcpyPoint::pooled(floors)?)),
        _ => bail!("a key of the sweep timed both a channel and a floor"),
    }
}

/// The head-to-head windows (`head_to_head_schedule`), pooled per size.
fn head_to_head(lab: &Lab, rt: &Runtime) -> Result<Vec<HeadToHead>> {
    head_to_head_schedule(lab.profile())
        .run(
            |_| Ok(rt),
            |rt, &bytes, _, at| {
                let (index, step) = head_to_head_step(bytes, at);
                lab.progress().step(step);
                head_to_head::window(bytes, index, rt)
            },
            |_| Ok(()),
        )?
        .pool(HeadToHead::pooled)
}

/// Experiment A the other ways (`other_ways_schedule`), pooled per method
/// and size.
fn other_ways(lab: &Lab) -> Result<Vec<MethodPoint>> {
    let (_, pairs) = methods::windows(lab.profile());
    other_ways_schedule(lab.profile())
        .run(
            |_| Runtimes::new(),
            |rts, key, _, at| {
                let (index, step) = other_way_step(key, at);
                lab.progress().step(step);
                let m = methods::method(key.1).context("a method of the other ways")?;
                methods::window(m, key.0, index, pairs, rts)
            },
            |_| Ok(()),
        )?
        .pool(|_, windows| MethodPoint::pooled(windows))
}

/// Experiment B's ladder (`ladder_schedule`): every run kept, in the order
/// run, its repeat stored with it.
fn ladder(lab: &Lab) -> Result<Vec<LadderRun>> {
    let profile = lab.profile();
    let mut runs = Vec::new();
    ladder_schedule().run(
        |_| Ok(()),
        |(), key, _, at| {
            let (repeat, step) = ladder_step(key, at);
            lab.progress().step(step);
            let &(tasks, bound, rung, channel) = key;
            let rung = backpressure_ladder::rung(rung).context("a rung of the ladder")?;
            runs.push(match channel {
                "tokio" => backpressure_ladder::run::<backpressure::Tokio>(
                    rung, profile, tasks, bound, repeat,
                ),
                _ => backpressure_ladder::run::<backpressure::KanalAsync>(
                    rung, profile, tasks, bound, repeat,
                ),
            }?);
            Ok(())
        },
        |()| Ok(()),
    )?;
    Ok(runs)
}

/// Experiment B: every channel at every tasks x bound setting, `per_point`
/// messages split evenly over the producers (one pass: a loop of its own).
fn backpressure(lab: &Lab, per_point: usize) -> Result<Vec<backpressure::Run>> {
    let mut runs = Vec::new();
    for tasks in TASKS {
        let per_task = (per_point / tasks).max(1);
        for bound in BOUNDS {
            for channel in bp_all() {
                lab.progress().step(format_args!(
                    "B: {channel}, {tasks} tasks x {per_task}, bound {bound}"
                ));
                runs.push(backpressure::run_named(
                    channel, tasks, per_task, bound, HANG_LIMIT,
                )?);
            }
        }
    }
    Ok(runs)
}
