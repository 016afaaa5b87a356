//! Where a round's CPU time goes: flame graphs of the std and the tokio
//! counter in the published round and in the contended one, and the shares
//! of samples the page reads off them.
use anyhow::{Context, Result};
use harness_core::Unit;
use harness_measure::stacks::Stacks;
use harness_page::render::flame;
use harness_page::{render::blocks::Block, Book};

use mutex_cost::profiles::{ProfiledShape, RoundProfile};
use mutex_cost::run::Data;
use mutex_cost::Variant;

fn group_share(s: &Stacks, group: &str) -> f64 {
    flame::groups(s)
        .into_iter()
        .find(|(g, _)| *g == group)
        .map_or(0.0, |(_, share)| share)
}

fn find(d: &Data, shape: ProfiledShape, variant: Variant) -> Result<&RoundProfile> {
    d.profiles
        .iter()
        .find(|p| p.shape == shape && p.variant == variant)
        .with_context(|| format!("no profile of the {} {}", variant.label(), shape.label()))
}

pub fn render(book: &Book<Data>) -> Result<Vec<Block>> {
    let run = book.primary();
    let mut blocks = Vec::new();
    for shape in ProfiledShape::ALL {
        let std = find(&run.data, shape, Variant::StdMutex)?;
        let tokio = find(&run.data, shape, Variant::TokioMutex)?;
        let placement = match shape {
            ProfiledShape::JoinAll => {
                "every future polled by join_all on the block_on thread, as published".to_string()
            }
            ProfiledShape::Spawned => format!(
                "the futures split over {} spawned tasks on the runtime's worker threads",
                mutex_cost::CONTENDING_TASKS
            ),
        };
        let caption = format!(
            "CPU profiles of the {shape} ({futures} futures; {placement}): the std counter \
             (top) and the tokio counter (bottom), rounds run back to back for a fixed time on \
             a {runtime}, every thread sampled at up to {hz} samples per second of CPU time. A \
             frame's width is its share of the profile's samples, its colour its frame group; \
             hover a frame for its full name. Machine {machine}.",
            shape = shape.label(),
            futures = harness_core::fmt::thousands(std.futures as u64),
            runtime = std.runtime.describe(),
            hz = std.stacks.hz,
            machine = run.machine(),
        );
        blocks.extend(flame::exhibit(&[&std.stacks, &tokio.stacks], &caption)?);
        let share = |p: &RoundProfile, group: &str| Unit::Share.show(group_share(&p.stacks, group));
        blocks.push(Block::Text(format!(
            "In the {shape} on {machine}, tokio's semaphore and wakers took **{tokio_sem}** of \
             the tokio counter's samples (the std counter's: {std_sem}); the scheduler \
             {tokio_sched} against {std_sched}; futex calls {tokio_futex} against \
             {std_futex}; the allocator {tokio_alloc} against {std_alloc}. While sampled, the \
             std counter ran {std_rounds} rounds and the tokio counter {tokio_rounds}, each \
             checked.",
            shape = shape.label(),
            machine = run.machine(),
            tokio_sem = share(tokio, "semaphore/waker"),
            std_sem = share(std, "semaphore/waker"),
            tokio_sched = share(tokio, "scheduler"),
            std_sched = share(std, "scheduler"),
            tokio_futex = share(tokio, "futex"),
            std_futex = share(std, "futex"),
            tokio_alloc = share(tokio, "allocator"),
            std_alloc = share(std, "allocator"),
            std_rounds = harness_core::fmt::thousands(std.rounds_validated),
            tokio_rounds = harness_core::fmt::thousands(tokio.rounds_validated),
        )));
    }
    Ok(blocks)
}
