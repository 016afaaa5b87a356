//! Where the designs' CPU time goes: flame graphs of the mpsc baseline
//! (one write per message), the std and tokio swap at the largest count of
//! the method experiments, and of the tokio swap with its consumer on the
//! `block_on` thread.
use anyhow::Result;
use harness_page::render::flame;
use harness_page::{render::blocks::Block, Book};

use super::shared::on;
use fan_in::run::FanInData;

pub(super) fn profiles(book: &Book<FanInData>) -> Result<Vec<Block>> {
    let mut blocks = Vec::new();
    for run in &book.runs {
        let d = &run.data;
        let profiles = &d.method.profiles;
        let Some(first) = profiles.first() else {
            blocks.push(Block::not_in_run("fan-in", run.machine(), "CPU profiles"));
            continue;
        };
        let caption = format!(
            "CPU profiles of the designs at {} workers of {} messages into the loopback TCP \
             sink, on {}, threads pinned: bursts run back to back for a fixed \
             time while every thread of the process is sampled, at up to {} samples per \
             second of CPU time (the kernel delivers at most one per scheduler tick and \
             core). A frame's width is its share of the profile's samples, its colour its \
             frame group; a thread asleep is not sampled, so a wait shows as the CPU spent \
             going to sleep and waking, not as its length.",
            first.workers,
            d.per_worker,
            on(run),
            first.stacks.hz
        );
        let stacks: Vec<_> = profiles.iter().map(|p| &p.stacks).collect();
        blocks.extend(flame::exhibit(&stacks, &caption)?);
    }
    Ok(blocks)
}
