//! One run of the chapter: experiment A's sweep and its head-to-head
//! timing, then experiment B's back-pressure grid.
use anyhow::Result;
use harness::timing::Sampling;
use harness::Lab;
use tokio::runtime::Runtime;

use super::{BackpressureSetup, Data, LadderSetup, MethodsSetup, SweepSetup, BP_CHANNELS};
use crate::backpressure_ladder::{self, LadderRun, RUNGS};
use crate::drivers::{self, Runtimes};
use crate::head_to_head::{self, HeadToHead};
use crate::methods::{self, MethodPoint, METHODS};
use crate::sweep::{self, MemcpyPoint};
use crate::{
    backpressure, backpressure_messages, counted, head_to_head_windows, sweep_repeats,
    sweep_sampling, Variant, BOUNDS, BURST, CAPACITY, HANG_LIMIT, PAYLOAD_SIZES, TASKS,
};

pub(super) fn measure(lab: &Lab) -> Result<Data> {
    let profile = lab.profile();
    let sampling = sweep_sampling(profile);
    let repeats = sweep_repeats(profile);
    let per_point = backpressure_messages(profile);
    let rt = sweep::current_thread_runtime()?;
    let windows = head_to_head_windows(profile);
    let other_windows = methods::windows(profile).0;
    let sweep_steps = repeats * (Variant::points_per_pass() + PAYLOAD_SIZES.len())
        + PAYLOAD_SIZES.len() * (windows + other_windows * METHODS.len());
    let bp_steps = TASKS.len()
        * BOUNDS.len()
        * (BP_CHANNELS.len() * (1 + ladder_steps()) + super::BP_COMPARED.len());
    let cases = counted::cases_for(profile);
    let shape_steps = crate::burst_shapes::steps(profile);
    lab.progress().set_total(
        (sweep_steps + bp_steps + cases.len() + crate::profiles::PROFILED.len() + shape_steps)
            as u64,
    );

    let (points, memcpy) = sweep(lab, &rt, sampling, repeats)?;
    let head_to_head = head_to_head(lab, &rt, windows)?;
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
        instructions.push(harness::counts::per_op(lab, case.name, small, large)?);
    }
    let stretch = std::time::Duration::from_millis(profile.pick(50, 400, 1000));
    let mut profiles = Vec::new();
    for (channel, bytes) in crate::profiles::PROFILED {
        let name =
            format!("{channel} mpsc, {bytes} B bursts").replace("crossbeam mpsc", "crossbeam");
        lab.progress().step(format_args!("CPU profile: {name}"));
        let (bursts, stacks) = harness::stacks::record(lab, &name, || {
            crate::profiles::bursts_for(channel, bytes, stretch)
        })?;
        profiles.push(super::BurstProfile {
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
    })
}

/// Experiment A the other ways (`methods::METHODS`), window after window
/// in passes over every size and method, like the head-to-head timing.
fn other_ways(lab: &Lab) -> Result<Vec<MethodPoint>> {
    let (windows, pairs) = methods::windows(lab.profile());
    let rts = Runtimes::new()?;
    let mut parts: Vec<Vec<MethodPoint>> = vec![Vec::new(); PAYLOAD_SIZES.len() * METHODS.len()];
    for window in 0..windows {
        for (size, bytes) in PAYLOAD_SIZES.into_iter().enumerate() {
            for (i, m) in METHODS.iter().enumerate() {
                lab.progress().step(format_args!(
                    "A, another way: {} at {bytes} B (window {} of {windows})",
                    m.id,
                    window + 1
                ));
                parts[size * METHODS.len() + i]
                    .push(methods::window(m, bytes, window, pairs, &rts)?);
            }
        }
    }
    parts.into_iter().map(MethodPoint::pooled).collect()
}

/// Runs per setting and channel of experiment B's ladder.
fn ladder_steps() -> usize {
    backpressure_ladder::REPEATS * RUNGS.len()
}

/// Experiment B's ladder: pass after pass (one per repeat) over every
/// setting, every rung and both channels at each, the channel that goes
/// first alternating from pass to pass.
fn ladder(lab: &Lab) -> Result<Vec<LadderRun>> {
    let profile = lab.profile();
    let mut runs = Vec::new();
    for repeat in 0..backpressure_ladder::REPEATS {
        for tasks in TASKS {
            for bound in BOUNDS {
                for rung in RUNGS {
                    let mut channels = BP_CHANNELS;
                    if repeat % 2 == 1 {
                        channels.reverse();
                    }
                    for channel in channels {
                        lab.progress().step(format_args!(
                            "B ladder: {} {channel}, {tasks} tasks, bound {bound} (repeat {} of {})",
                            rung.id,
                            repeat + 1,
                            backpressure_ladder::REPEATS
                        ));
                        runs.push(match channel {
                            "tokio" => backpressure_ladder::run::<backpressure::Tokio>(
                                rung, profile, tasks, bound, repeat,
                            ),
                            _ => backpressure_ladder::run::<backpressure::KanalAsync>(
                                rung, profile, tasks, bound, repeat,
                            ),
                        }?);
                    }
                }
            }
        }
    }
    Ok(runs)
}

/// Experiment A's sweep, every point measured `repeats` times and pooled.
///
/// Pass after pass over every size, every variant once per size in each
/// pass: a size's repeats are spread over the whole sweep, so they draw
/// several of the machine's spells rather than the one its turn fell in,
/// and the variants a ratio compares still sit side by side in time.
fn sweep(
    lab: &Lab,
    rt: &Runtime,
    sampling: Sampling,
    repeats: usize,
) -> Result<(Vec<sweep::Point>, Vec<MemcpyPoint>)> {
    let progress = lab.progress();
    // Every point of one pass, in the order a pass measures them.
    let plan: Vec<(Variant, crate::Carry, usize)> = PAYLOAD_SIZES
        .into_iter()
        .flat_map(|bytes| {
            Variant::ALL
                .into_iter()
                .filter(move |v| v.sizes().contains(&bytes))
                .flat_map(move |v| v.carries().iter().map(move |&c| (v, c, bytes)))
        })
        .collect();
    let mut parts: Vec<Vec<sweep::Point>> = vec![Vec::new(); plan.len()];
    let mut floors: Vec<Vec<MemcpyPoint>> = vec![Vec::new(); PAYLOAD_SIZES.len()];
    for repeat in 1..=repeats {
        for (size, bytes) in PAYLOAD_SIZES.into_iter().enumerate() {
            for (slot, &(variant, carry, _)) in
                plan.iter().enumerate().filter(|(_, p)| p.2 == bytes)
            {
                progress.step(format_args!(
                    "A: {} {} {bytes} B (repeat {repeat} of {repeats})",
                    variant.label(),
                    carry.id()
                ));
                parts[slot].push(sweep::measure_point(
                    variant, carry, bytes, rt, lab, sampling, repeat,
                )?);
            }
            progress.step(format_args!(
                "A: memcpy {BURST} x {bytes} B (repeat {repeat} of {repeats})"
            ));
            floors[size].push(sweep::measure_memcpy(bytes, lab, sampling, repeat)?);
        }
    }
    let points = parts
        .into_iter()
        .map(sweep::Point::pooled)
        .collect::<Result<Vec<_>>>()?;
    let memcpy = floors
        .into_iter()
        .map(MemcpyPoint::pooled)
        .collect::<Result<Vec<_>>>()?;
    Ok((points, memcpy))
}

/// The ratio the verdicts rest on, head to head, in passes over every size
/// like the sweep: a size's windows are spread over this stretch.
fn head_to_head(lab: &Lab, rt: &Runtime, windows: usize) -> Result<Vec<HeadToHead>> {
    let mut duels: Vec<Vec<head_to_head::Window>> = vec![Vec::new(); PAYLOAD_SIZES.len()];
    for window in 1..=windows {
        for (size, bytes) in PAYLOAD_SIZES.into_iter().enumerate() {
            lab.progress().step(format_args!(
                "A: tokio against crossbeam, {bytes} B (window {window} of {windows})"
            ));
            duels[size].push(head_to_head::window(bytes, window - 1, rt)?);
        }
    }
    PAYLOAD_SIZES
        .into_iter()
        .zip(duels)
        .map(|(bytes, w)| HeadToHead::pooled(bytes, w))
        .collect()
}

/// Experiment B: every channel at every tasks x bound setting, `per_point`
/// messages split evenly over the producers.
fn backpressure(lab: &Lab, per_point: usize) -> Result<Vec<backpressure::Run>> {
    let mut runs = Vec::new();
    for tasks in TASKS {
        let per_task = (per_point / tasks).max(1);
        for bound in BOUNDS {
            for channel in super::bp_all() {
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
