//! The batching effect: how many messages a consumer pass moves, on average
//! over the rounds (with and without each burst's largest pass) and at most
//! in one pass. The intervals are the judge's, read by name.
use anyhow::Result;
use harness_core::Unit;
use harness_page::{render::blocks::Block, render::blocks::Cell, Book};

use mutex_swap::run::{Data, Experiment};
use mutex_swap::{Design, Wait};

use super::common::runtime_note;
use super::estimates::{batch_name, steady_batch_name, stored};
use super::throughput::per_design;

pub fn render(book: &Book<Data>) -> Result<Vec<Block>> {
    let run = book.primary();
    let note = runtime_note(run);
    let mean = per_design(
        &run.data,
        format!(
            "Mean messages the consumer moves per pass that found any, its 95% interval drawn \
             over the point's rounds in brackets; Notify consumer. For the sharded design a pass \
             visits every shard. {note}."
        ),
        |m| match stored(run, &batch_name(m)) {
            Some(b) => Cell::Estimate(b, Unit::Plain),
            None => Cell::Number(m.passes.messages_per_pass(), Unit::Plain),
        },
    );
    let steady = per_design(
        &run.data,
        format!(
            "The same mean with each burst's largest pass left out, the reading FAN-4's fair \
             row decides on; Notify consumer. {note}."
        ),
        |m| match stored(run, &steady_batch_name(m)) {
            Some(b) => Cell::Estimate(b, Unit::Plain),
            None => Cell::Number(m.passes.messages_per_pass_without_largest(), Unit::Plain),
        },
    );
    let largest = per_design(
        &run.data,
        format!(
            "The largest number of messages a single pass moved, over every burst of the point; \
             Notify consumer. {note}."
        ),
        |m| Cell::count(m.passes.max_batch),
    );
    let mut blocks = vec![Block::Table(mean)];
    blocks.extend(largest_pass_share(&run.data));
    blocks.extend([Block::Table(steady), Block::Table(largest)]);
    Ok(blocks)
}

/// One sentence: how much of a burst the std swap's largest pass takes, on
/// average over the bursts, from the fewest producers to the most.
fn largest_pass_share(data: &Data) -> Option<Block> {
    let shares: Vec<(u64, f64)> = data
        .producers(Experiment::Throughput)
        .into_iter()
        .filter_map(|p| {
            let m = data
                .point(
                    Experiment::Throughput,
                    Design::StdMutexSwap,
                    Wait::Notify,
                    p,
                )
                .ok()?;
            let ps = &m.passes;
            (ps.messages > 0).then(|| (p, ps.largest_batches as f64 / ps.messages as f64))
        })
        .collect();
    let lo = shares.iter().min_by(|a, b| a.1.total_cmp(&b.1))?;
    let hi = shares.iter().max_by(|a, b| a.1.total_cmp(&b.1))?;
    Some(Block::Text(format!(
        "With the `Notify` consumer, each burst's largest pass of the `std::sync::Mutex` swap \
         moved {} of the burst's {} messages on average at {} producers, and {} at {} producers \
         (the least and the most over this run's producer counts).",
        Unit::Share.show(lo.1),
        harness_core::fmt::thousands(data.messages_per_burst),
        harness_core::fmt::thousands(lo.0),
        Unit::Share.show(hi.1),
        harness_core::fmt::thousands(hi.0),
    )))
}
