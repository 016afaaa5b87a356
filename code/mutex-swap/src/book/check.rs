//! What a run's work must have done, checked on every results file: every
//! message counted, the rounds adding up, every point of the plan's shape
//! there once.
use std::collections::BTreeSet;

use anyhow::{ensure, Context, Result};

use super::measure::{profile_name, PROFILED_WAITS};
use super::{Data, Experiment};
use crate::experiment::Passes;
use crate::{Design, Wait, HEAVY_WORK, LIGHT_WORK};

pub fn check(data: &Data) -> Result<()> {
    ensure!(data.worker_threads > 0, "worker_threads is zero");
    ensure!(data.messages_per_burst > 0, "messages_per_burst is zero");
    ensure!(data.shard_align_bytes > 0, "shard_align_bytes is zero");
    ensure!(!data.points.is_empty(), "no measured points");
    ensure!(data.repeats > 0, "repeats is zero");
    for rounds in [LIGHT_WORK, HEAVY_WORK] {
        let w = data
            .work_cost(rounds)
            .with_context(|| format!("no cost measured for {rounds} rounds of work"))?;
        ensure!(
            w.messages > 0,
            "the cost of {rounds} rounds of work hashed no messages"
        );
    }
    for m in &data.points {
        let what = format!(
            "{:?} point {} / {} / {} producers",
            m.experiment,
            m.design.name(),
            m.wait.name(),
            m.producers
        );
        ensure!(m.producers > 0, "{what}: zero producers");
        ensure!(
            [LIGHT_WORK, HEAVY_WORK].contains(&m.work_rounds),
            "{what}: unknown work level of {} rounds",
            m.work_rounds
        );
        ensure!(
            data.messages_per_burst % m.producers == 0,
            "{what}: {} messages do not split over the producers",
            data.messages_per_burst
        );
        let ps = &m.passes;
        ensure!(ps.bursts > 0, "{what}: no bursts counted");
        ensure!(
            ps.messages == ps.bursts * data.messages_per_burst,
            "{what}: {} messages over {} bursts, expected {} per burst",
            ps.messages,
            ps.bursts,
            data.messages_per_burst
        );
        ensure!(
            ps.passes_with_messages > 0 && ps.passes_with_messages <= ps.messages,
            "{what}: {} passes with messages for {} messages",
            ps.passes_with_messages,
            ps.messages
        );
        ensure!(
            ps.max_batch > 0 && ps.max_batch <= data.messages_per_burst,
            "{what}: largest batch {} is impossible",
            ps.max_batch
        );
        ensure!(
            ps.consumer_cpu_ns > 0 && ps.wall_ns > 0,
            "{what}: zero consumer CPU or wall time"
        );
        ensure!(
            m.rounds.len() == m.timing.repeats.len(),
            "{what}: counts for {} rounds, timings for {}",
            m.rounds.len(),
            m.timing.repeats.len()
        );
        let merged = m
            .rounds
            .iter()
            .fold(Passes::default(), |all, round| all.merge(round));
        ensure!(
            merged == *ps,
            "{what}: the rounds' counts do not add up to the point's"
        );
    }
    check_profiles(data)?;
    check_shape(data)
}

/// The CPU profiles, when the run has them: one per profiled wait strategy,
/// in order, each with validated bursts and well-formed stacks.
fn check_profiles(data: &Data) -> Result<()> {
    if data.profiles.is_empty() {
        return Ok(());
    }
    let waits: Vec<Wait> = data.profiles.iter().map(|p| p.wait).collect();
    ensure!(
        waits == PROFILED_WAITS,
        "profiles of {waits:?}, expected {PROFILED_WAITS:?}"
    );
    for p in &data.profiles {
        let what = format!("the profile of {}", p.stacks.design);
        ensure!(
            p.stacks.design == profile_name(p.design, p.wait, p.producers),
            "{what} is named for another design, wait or producer count"
        );
        let ps = &p.passes;
        ensure!(ps.bursts > 0, "{what}: no bursts");
        ensure!(
            ps.messages == ps.bursts * data.messages_per_burst,
            "{what}: {} messages over {} bursts, expected {} per burst",
            ps.messages,
            ps.bursts,
            data.messages_per_burst
        );
        p.stacks.check()?;
    }
    Ok(())
}

/// Every point once, and every design at every producer count of its experiment.
fn check_shape(data: &Data) -> Result<()> {
    let mut seen = BTreeSet::new();
    for m in &data.points {
        ensure!(
            seen.insert(format!("{:?}", m.key())),
            "point measured twice: {m:?}"
        );
    }
    let grid = data.producers(Experiment::Throughput);
    ensure!(!grid.is_empty(), "no throughput points");
    for &n in &grid {
        for design in Design::SWAPS {
            data.point(Experiment::Throughput, design, Wait::Notify, n)
                .with_context(|| {
                    format!(
                        "throughput experiment lacks {} at {n} producers",
                        design.name()
                    )
                })?;
        }
        for design in Design::CRITICAL_SECTIONS {
            data.point(Experiment::LockHold, design, Wait::Notify, n)
                .with_context(|| {
                    format!(
                        "lock-hold experiment lacks {} at {n} producers",
                        design.name()
                    )
                })?;
        }
        for design in [Design::StdMutexSwap, Design::StdMutexDrainLocked] {
            data.point_with(Experiment::LockHold, design, Wait::Notify, n, HEAVY_WORK)
                .with_context(|| {
                    format!(
                        "lock-hold experiment lacks {} with heavy work at {n} producers",
                        design.name()
                    )
                })?;
        }
    }
    let wait_grid = data.producers(Experiment::Wait);
    ensure!(!wait_grid.is_empty(), "no wait-strategy points");
    for &n in &wait_grid {
        for design in Design::SWAPS {
            for wait in Wait::ALL {
                data.point(Experiment::Wait, design, wait, n)
                    .with_context(|| {
                        format!(
                            "wait experiment lacks {} with {} at {n} producers",
                            design.name(),
                            wait.name()
                        )
                    })?;
            }
        }
    }
    Ok(())
}
