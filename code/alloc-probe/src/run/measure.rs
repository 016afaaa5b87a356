//! One run of the chapter: the published grid, the size sweep and the
//! scenarios, under one dhat profiler; then each channel's creation counted
//! in instructions by callgrind, in processes of their own.
use anyhow::Result;

use harness_core::fmt::thousands;
use harness_measure::Lab;

use super::AllocData;
use crate::Channel;

pub(super) fn measure(lab: &Lab) -> Result<AllocData> {
    let progress = lab.progress();
    // Heap bytes are exact and repeatable; profiles differ only in how
    // many idle channels the scenarios hold (the per-channel cost is the same).
    let channels = lab.profile().pick(1_000, 10_000, 10_000);
    progress.set_total((Channel::ALL.len() * 2 + 1 + crate::SCENARIOS.len()) as u64);
    let profiler = dhat::Profiler::builder().testing().build();
    let grid = crate::grid(|c| progress.step(format!("grid: {c}")))?;
    let sweep = crate::sweep(|c| progress.step(format!("size sweep: {c}")))?;
    progress.step(format!(
        "scenarios: {} idle channels each",
        thousands(channels as u64)
    ));
    let scenarios = crate::scenarios(channels);
    drop(profiler);
    // Exact like the bytes: the same counts in every profile.
    let creation_counts = super::counts::measure(lab)?;
    Ok(AllocData {
        pointer_width: usize::BITS,
        grid,
        sweep,
        scenarios,
        creation_counts,
    })
}
