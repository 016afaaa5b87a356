//! Instructions per operation, counted by callgrind, beside the time ratios
//! of the same comparisons.
use anyhow::Result;
use harness_core::{Estimate, Unit};
use harness_measure::stats::{ratio, Statistic};
use harness_page::{render::blocks::Block, render::blocks::Cell, render::blocks::Table, Book};

use super::conditions::{grid_ratio, instruction_ratio};
use super::points::{per_op_of, round, Shape};
use mutex_cost::allocator::Allocator;
use mutex_cost::drivers::{Driver, Lock};
use mutex_cost::run::Data;
use mutex_cost::Variant;

pub(super) fn table(book: &Book<Data>) -> Result<Vec<Block>> {
    let run = book.primary();
    let d = &run.data;
    let mut counts = Table::new(
        "Instructions callgrind counted per operation on the thread that polls the work (Valgrind's callgrind, \
         event Ir): the difference of two counts, one with three times the operations of the other, divided by \
         the difference in operations, so set-up cancels. A count is the same on every run of one binary; it holds \
         no cache misses, no waiting and nothing the kernel does, page faults included.",
        &["Case", "What one operation is", "Instructions per operation"],
    )
    .left(&[0, 1]);
    for p in &d.instructions {
        let about = mutex_cost::counted::COUNTED
            .iter()
            .find(|c| c.name == p.name)
            .map_or("", |c| c.about);
        counts.push(vec![
            format!("`{}`", p.name).into(),
            about.into(),
            Cell::Number(p.per_op, Unit::Plain),
        ]);
    }
    let cores = Some(d.cores);
    let n = super::conditions::mut_1_size(d);
    let as_published = || -> Option<Estimate> {
        let s = round(d, Shape::JoinAll, Variant::StdMutex, n).ok()?;
        let k = round(d, Shape::JoinAll, Variant::TokioMutex, n).ok()?;
        Some(ratio(&k.timing, &s.timing, Statistic::Mean))
    };
    let per_op = || -> Option<Estimate> {
        let s = per_op_of(d, "std_mutex", None).ok()?;
        let k = per_op_of(d, "tokio_mutex", Some("current_thread")).ok()?;
        Some(ratio(&k.timing, &s.timing, Statistic::Mean))
    };
    let sys = Allocator::System;
    let rows: [(&str, &str, &str, Option<Estimate>, &str); 5] = [
        (
            "the published round, block_on on a multi-thread runtime",
            "join_all_tokio_mt",
            "join_all_std_mt",
            as_published(),
            "the published shape, criterion means",
        ),
        (
            "the published round, block_on on a current-thread runtime",
            "join_all_tokio",
            "join_all_std",
            grid_ratio(d, sys, Driver::LoopedInBlockOn, None, Lock::Tokio),
            "the sensitivity grid, system malloc, current-thread runtime",
        ),
        (
            "the published round, budget asked before the permit (tokio before 1.54)",
            "join_all_tokio_budget_first_mt",
            "join_all_std_mt",
            grid_ratio(
                d,
                sys,
                Driver::LoopedInBlockOn,
                cores,
                Lock::TokioBudgetFirst,
            ),
            "the sensitivity grid, system malloc, the published driver",
        ),
        (
            "the published round without the co-op budget",
            "join_all_tokio_no_budget",
            "join_all_std",
            grid_ratio(d, sys, Driver::LoopedInBlockOn, cores, Lock::TokioNoBudget),
            "the sensitivity grid, system malloc, the published driver (multi-thread runtime)",
        ),
        (
            "one uncontended lock + unlock",
            "lock_unlock_tokio",
            "lock_unlock_std",
            per_op(),
            "the per-operation timing, tokio on a current-thread runtime",
        ),
    ];
    let mut pairs = Table::new(
        "tokio Mutex ÷ std Mutex counted in instructions beside the same comparison timed. The count ratio is \
         exact; the time ratio carries its 95 % interval and everything a count leaves out.",
        &["Comparison", "Instructions, tokio ÷ std", "Time, tokio ÷ std", "Time from"],
    )
    .left(&[0, 3]);
    for (what, tokio, std, time, from) in rows {
        let Some(count) = instruction_ratio(d, tokio, std) else {
            continue;
        };
        pairs.push(vec![
            what.into(),
            Cell::ratio(count.point_ns),
            time.map_or_else(|| "–".into(), |e| Cell::times(&e)),
            from.into(),
        ]);
    }
    Ok(vec![Block::Table(counts), Block::Table(pairs)])
}
