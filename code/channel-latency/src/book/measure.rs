//! One run of the chapter: experiment A's sweep and its head-to-head
//! timing, then experiment B's back-pressure grid.
use anyhow::Result;
use harness::timing::Sampling;
use harness::Lab;
use tokio::runtime::Runtime;

use super::{BackpressureSetup, Data, SweepSetup, BP_CHANNELS};
use crate::head_to_head::{self, HeadToHead};
use crate::sweep::{self, MemcpyPoint};
use crate::{
    backpressure, backpressure_messages, head_to_head_windows, sweep_repeats, sweep_sampling,
    Carry, Variant, BOUNDS, BURST, CAPACITY, HANG_LIMIT, PAYLOAD_SIZES, TASKS,
};

/// Points of experiment A's sweep at one size: every variant with both
/// carries, and the memcpy floor.
const PER_SIZE: usize = Variant::ALL.len() * Carry::ALL.len() + 1;

pub(super) fn measure(lab: &Lab) -> Result<Data> {
    let profile = lab.profile();
    let sampling = sweep_sampling(profile);
    let repeats = sweep_repeats(profile);
    let per_point = backpressure_messages(profile);
    let rt = sweep::current_thread_runtime()?;
    let windows = head_to_head_windows(profile);
    let sweep_steps = PAYLOAD_SIZES.len() * (repeats * PER_SIZE + windows);
    let bp_steps = TASKS.len() * BOUNDS.len() * BP_CHANNELS.len();
    lab.progress().set_total((sweep_steps + bp_steps) as u64);

    let (points, memcpy) = sweep(lab, &rt, sampling, repeats)?;
    let head_to_head = head_to_head(lab, &rt, windows)?;
    drop(rt);
    let runs = backpressure(lab, per_point)?;

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
    })
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
    let mut parts: Vec<Vec<Vec<sweep::Point>>> =
        vec![vec![Vec::new(); PER_SIZE - 1]; PAYLOAD_SIZES.len()];
    let mut floors: Vec<Vec<MemcpyPoint>> = vec![Vec::new(); PAYLOAD_SIZES.len()];
    for repeat in 1..=repeats {
        for (size, bytes) in PAYLOAD_SIZES.into_iter().enumerate() {
            let mut slot = parts[size].iter_mut();
            for variant in Variant::ALL {
                for carry in Carry::ALL {
                    progress.step(format_args!(
                        "A: {} {} {bytes} B (repeat {repeat} of {repeats})",
                        variant.label(),
                        carry.id()
                    ));
                    let point =
                        sweep::measure_point(variant, carry, bytes, rt, lab, sampling, repeat)?;
                    slot.next()
                        .expect("a slot per variant and carry")
                        .push(point);
                }
            }
            progress.step(format_args!(
                "A: memcpy {BURST} x {bytes} B (repeat {repeat} of {repeats})"
            ));
            floors[size].push(sweep::measure_memcpy(bytes, lab, sampling, repeat)?);
        }
    }
    let mut points = Vec::new();
    let mut memcpy = Vec::new();
    for (size_parts, size_floors) in parts.into_iter().zip(floors) {
        for repeats_of_one in size_parts {
            points.push(sweep::Point::pooled(repeats_of_one)?);
        }
        memcpy.push(MemcpyPoint::pooled(size_floors)?);
    }
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
            for channel in BP_CHANNELS {
                lab.progress().step(format_args!(
                    "B: {channel}, {tasks} tasks x {per_task}, bound {bound}"
                ));
                let run = match channel {
                    "tokio" => {
                        backpressure::run::<backpressure::Tokio>(tasks, per_task, bound, HANG_LIMIT)
                    }
                    _ => backpressure::run::<backpressure::KanalAsync>(
                        tasks, per_task, bound, HANG_LIMIT,
                    ),
                }?;
                runs.push(run);
            }
        }
    }
    Ok(runs)
}
