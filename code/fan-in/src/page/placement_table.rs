//! The placement-table exhibit: the free-placement control beside the pinned
//! sweep, the same designs at the same counts, and how far each placement's
//! passes spread.
use anyhow::Result;
use harness_measure::stats;
use harness_measure::timing::{Statistic, Timing};
use harness_page::{render::blocks::Block, render::blocks::Cell, render::blocks::Table, Book};

use super::shared::{on, time_per_burst, STAT};
use fan_in::run::FanInData;

pub(super) fn placement_table(book: &Book<FanInData>) -> Result<Vec<Block>> {
    let mut blocks = Vec::new();
    for run in &book.runs {
        let d = &run.data;
        if d.free_points.is_empty() {
            blocks.push(Block::Text(format!(
                "The run on {} has no free-placement control: its threads ran {}.",
                on(run),
                d.placement.describe()
            )));
            continue;
        }
        let mut t = Table::new(
            format!(
                "Where the threads sit: time per burst into the loopback TCP sink with the \
                 threads pinned (the rest of the chapter) and free, on {} ({}, {} profile, \
                 {} passes each, medians with 95 % intervals; fastest and slowest pass = the \
                 lowest and highest of the passes' own medians).",
                run.machine(),
                d.runtime(),
                run.provenance.profile,
                d.passes
            ),
            &[
                "Workers",
                "Design",
                "Pinned",
                "Pinned: fastest pass",
                "Pinned: slowest pass",
                "Free",
                "Free: fastest pass",
                "Free: slowest pass",
                "Free ÷ pinned",
            ],
        )
        .left(&[1]);
        for free in &d.free_points {
            let pinned = d.tcp(free.design, free.workers)?;
            let mut row = vec![
                Cell::count(free.workers as u64),
                Cell::from(free.design.label()),
            ];
            row.push(Cell::time(time_per_burst(pinned)));
            row.extend(pass_range(&pinned.timing, d.passes));
            row.push(Cell::time(time_per_burst(free)));
            row.extend(pass_range(&free.timing, d.passes));
            row.push(Cell::times(&stats::ratio(
                &free.timing,
                &pinned.timing,
                STAT,
            )));
            t.push(row);
        }
        blocks.push(Block::Table(t));
    }
    Ok(blocks)
}

/// Each pass's median of a pooled timing, in pass order.
fn pass_medians(t: &Timing) -> Vec<f64> {
    let mut at = 0;
    let counts = if t.repeats.is_empty() {
        vec![t.per_sample_ns.len()]
    } else {
        t.repeats.clone()
    };
    counts
        .iter()
        .filter_map(|&n| {
            let mut part = t.per_sample_ns.get(at..at + n)?.to_vec();
            at += n;
            (!part.is_empty()).then(|| Statistic::Median.of(&mut part))
        })
        .collect()
}

/// The lowest and highest median of the `passes` full passes. A point the
/// short passes also measured holds the same number of repeats after each
/// full pass; only each pass's first repeat counts, so a point with more
/// repeats does not look more spread for having them.
fn pass_range(t: &Timing, passes: usize) -> [Cell; 2] {
    let mut medians = pass_medians(t);
    if passes > 0 && medians.len() > passes && medians.len() % passes == 0 {
        let step = medians.len() / passes;
        medians = medians.into_iter().step_by(step).collect();
    }
    if medians.is_empty() {
        return [Cell::from("–"), Cell::from("–")];
    }
    let lo = medians.iter().copied().fold(f64::INFINITY, f64::min);
    let hi = medians.iter().copied().fold(0.0, f64::max);
    [Cell::nanos(lo), Cell::nanos(hi)]
}
