//! As published, then corrected: the published experiments and the steps
//! that move them, one change at a time, to the book's fair experiment.
use anyhow::Result;
use harness_core::fmt;
use harness_page::{render::blocks::Block, render::blocks::Cell, render::blocks::Table, Book};

use super::conditions::{self, Ratios, Row};
use mutex_cost::run::Data;
use mutex_cost::{Variant, ACTOR_CLAIM_FUTURES};

fn step(row: &Row) -> Cell {
    if row.fair {
        format!("{} (the fair experiment)", row.setting).into()
    } else {
        row.setting.clone().into()
    }
}

fn time_of(row: &Row, v: Variant) -> Cell {
    row.times
        .iter()
        .find(|(x, _)| *x == v)
        .map_or_else(|| "–".into(), |(_, e)| Cell::time(e))
}

fn ratio_of(row: &Row, name: &str) -> Cell {
    row.ratios
        .iter()
        .find(|(x, _)| *x == name)
        .map_or_else(|| "–".into(), |(_, e)| Cell::times(e))
}

fn is_step(row: &Row) -> bool {
    row.axis == "ladder" || row.axis == "where requests start"
}

pub(super) fn tables(book: &Book<Data>) -> Result<Vec<Block>> {
    let run = book.primary();
    let d = &run.data;
    let mut blocks = Vec::new();
    let one: Vec<Row> = conditions::mut_1(d, &mut Ratios::Stored(run))?
        .into_iter()
        .filter(is_step)
        .collect();
    let mut t = Table::new(
        format!(
            "MUT-1, {} futures per round, each step one change from the row above: criterion mean per round with \
             its 95 % interval, tokio ÷ std bootstrapped from the repeats; every runtime multi-thread; measured on {}.",
            fmt::thousands(conditions::mut_1_size(d) as u64),
            run.machine()
        ),
        &["Step", "std Mutex", "tokio Mutex", "tokio ÷ std"],
    );
    for row in &one {
        t.push(vec![
            step(row),
            time_of(row, Variant::StdMutex),
            time_of(row, Variant::TokioMutex),
            ratio_of(row, "tokio ÷ std"),
        ]);
    }
    blocks.push(Block::Table(t));
    let two: Vec<Row> = conditions::mut_2(d, &mut Ratios::Stored(run))?
        .into_iter()
        .filter(is_step)
        .collect();
    let mut t = Table::new(
        format!(
            "MUT-2, {} futures per round, the same work under each lock and the actor (mpsc requests, oneshot \
             replies), each step one change from the published shape: criterion mean per round with its 95 % \
             interval; every runtime multi-thread; measured on {}.",
            fmt::thousands(ACTOR_CLAIM_FUTURES as u64),
            run.machine()
        ),
        &["Step", "std Mutex", "tokio Mutex", "actor", "actor ÷ tokio", "actor ÷ std"],
    );
    for row in &two {
        t.push(vec![
            step(row),
            time_of(row, Variant::StdMutex),
            time_of(row, Variant::TokioMutex),
            time_of(row, Variant::Actor),
            ratio_of(row, "actor ÷ tokio"),
            ratio_of(row, "actor ÷ std"),
        ]);
    }
    blocks.push(Block::Table(t));
    Ok(blocks)
}
