//! The batching effect: how many messages a consumer pass moves, on average
//! over the rounds and at most in one pass.
use anyhow::Result;
use harness::{Block, Book, Cell, Unit};

use super::runtime_note;
use super::throughput::per_design;
use super::Data;

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
        |m| match m.batch() {
            Some(b) => Cell::Estimate(b, Unit::Plain),
            None => Cell::Number(m.passes.messages_per_pass(), Unit::Plain),
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
    Ok(vec![Block::Table(mean), Block::Table(largest)])
}
