//! The published round along the method choices that move its ratio:
//! driver × allocator × co-op budget, what each round cost the process
//! (page faults, context switches), and the polls behind it.
use anyhow::Result;
use harness_core::{fmt, Unit};
use harness_measure::stats::{ratio, Statistic};
use harness_page::{
    render::blocks::Axis, render::blocks::Bar, render::blocks::BarChart, render::blocks::Block,
    render::blocks::Cell, render::blocks::Table, Book,
};

use super::conditions::grid_cell;
use mutex_cost::allocator::Allocator;
use mutex_cost::drivers::{Driver, Lock};
use mutex_cost::experiments::RuntimeUsed;
use mutex_cost::run::Data;
use mutex_cost::sensitivity::SampledRounds;

/// The (driver, runtime) rows of the grid, in the order measured.
fn settings(d: &Data) -> Vec<(Driver, RuntimeUsed)> {
    let mut out: Vec<(Driver, RuntimeUsed)> = Vec::new();
    for c in &d.sensitivity {
        if !out
            .iter()
            .any(|(dr, rt)| *dr == c.driver && *rt == c.runtime)
        {
            out.push((c.driver, c.runtime.clone()));
        }
    }
    out
}

fn allocators(d: &Data) -> Vec<Allocator> {
    Allocator::ALL
        .into_iter()
        .filter(|a| d.sensitivity.iter().any(|c| c.allocator == *a))
        .collect()
}

fn workers(rt: &RuntimeUsed) -> Option<usize> {
    (rt.flavor == "multi_thread").then_some(rt.workers)
}

fn setting_label(driver: Driver, rt: &RuntimeUsed) -> String {
    let published = driver == Driver::LoopedInBlockOn && rt.flavor == "multi_thread";
    format!(
        "{}, {}{}",
        driver.label(),
        rt.describe(),
        if published { " (as published)" } else { "" }
    )
}

fn futures(d: &Data) -> u64 {
    d.sensitivity.first().map_or(0, |c| c.futures as u64)
}

fn caption(d: &Data, machine: &str, what: &str) -> String {
    let c = &d.sensitivity[0];
    format!(
        "{what} The published round ({} futures, counter and futures made inside the timed region), each sample a \
         fresh process of the chapter binary: {} rounds after {} warm-up round{} per process, {} process{} per \
         cell, taking turns through the grid; means with 95 % intervals bootstrapped processes first. Measured on \
         {machine}.",
        fmt::thousands(futures(d)),
        c.timing.samples / c.timing.repeats.len().max(1),
        c.warm_up_rounds,
        super::points::plural(c.warm_up_rounds),
        c.first_round_ns.len(),
        if c.first_round_ns.len() == 1 { "" } else { "es" },
    )
}

pub(super) fn grid(book: &Book<Data>) -> Result<Vec<Block>> {
    let run = book.primary();
    let d = &run.data;
    let allocs = allocators(d);
    let mut header = vec!["Driver and runtime", "Lock"];
    header.extend(allocs.iter().map(|a| a.label()));
    let mut t = Table::new(
        caption(
            d,
            run.machine(),
            "Each lock's time per round ÷ std Mutex's in the same cell of the grid.",
        ),
        &header,
    )
    .left(&[0, 1]);
    for (driver, rt) in settings(d) {
        for lock in Lock::ALL.into_iter().filter(|&l| l != Lock::Std) {
            let cells: Vec<Option<Cell>> = allocs
                .iter()
                .map(|&a| {
                    let k = grid_cell(d, a, driver, workers(&rt), lock)?;
                    let s = grid_cell(d, a, driver, workers(&rt), Lock::Std)?;
                    Some(Cell::times(&ratio(&k.timing, &s.timing, Statistic::Mean)))
                })
                .collect();
            if cells.iter().all(Option::is_none) {
                continue;
            }
            let mut row = vec![setting_label(driver, &rt).into(), lock.label().into()];
            row.extend(cells.into_iter().map(|c| c.unwrap_or_else(|| "–".into())));
            t.push(row);
        }
    }
    Ok(vec![Block::Table(t)])
}

pub(super) fn chart(book: &Book<Data>) -> Result<Vec<Block>> {
    let run = book.primary();
    let d = &run.data;
    let mut bars = Vec::new();
    for a in allocators(d) {
        for (driver, rt) in settings(d) {
            for lock in Lock::ALL.into_iter().filter(|&l| l != Lock::Std) {
                let (Some(k), Some(s)) = (
                    grid_cell(d, a, driver, workers(&rt), lock),
                    grid_cell(d, a, driver, workers(&rt), Lock::Std),
                ) else {
                    continue;
                };
                let short = match lock {
                    Lock::Tokio => String::new(),
                    Lock::TokioBudgetFirst => ", budget first".into(),
                    Lock::TokioNoBudget => ", no budget".into(),
                    Lock::Std | Lock::Actor => unreachable!("not in Lock::ALL or filtered"),
                };
                bars.push(Bar {
                    label: format!("{}, {}{short}", driver.label(), rt.describe()),
                    value: k.timing.mean.point_ns / s.timing.mean.point_ns,
                    group: a.label().into(),
                });
            }
        }
    }
    Ok(vec![Block::Bars(BarChart {
        id: "mutex-cost-sensitivity".into(),
        title: "tokio ÷ std on the published round, by driver, runtime, allocator and co-op budget"
            .into(),
        caption: caption(
            d,
            run.machine(),
            "Means of time per round, tokio's lock ÷ std's (intervals in the table above).",
        ),
        value_axis: Axis::log("tokio Mutex time ÷ std Mutex time"),
        bars,
    })])
}

fn mean(xs: &[f64]) -> f64 {
    xs.iter().sum::<f64>() / xs.len().max(1) as f64
}

pub(super) fn causes(book: &Book<Data>) -> Result<Vec<Block>> {
    let run = book.primary();
    let d = &run.data;
    let mut t = Table::new(
        caption(
            d,
            run.machine(),
            "What each round cost the process, from getrusage around every round: minor page faults (pages the \
             kernel handed the allocator) and context switches (threads of the process that slept and were \
             woken), beside the time per round and each process's first round.",
        ),
        &[
            "Allocator",
            "Driver and runtime",
            "Lock",
            "Per round",
            "First round",
            "Minor faults per round",
            "First round's faults",
            "Context switches per round",
        ],
    )
    .left(&[0, 1, 2]);
    let mut cells: Vec<&SampledRounds> = d.sensitivity.iter().collect();
    cells.sort_by_key(|c| {
        (
            c.allocator,
            c.driver,
            c.runtime.flavor.clone(),
            c.runtime.workers,
            c.lock,
        )
    });
    for c in cells {
        t.push(vec![
            c.allocator.label().into(),
            setting_label(c.driver, &c.runtime).into(),
            c.lock.label().into(),
            Cell::time(&c.timing.mean),
            Cell::nanos(mean(&c.first_round_ns)),
            Cell::Number(c.minor_faults_per_round, Unit::Plain),
            Cell::Number(c.first_round_minor_faults, Unit::Plain),
            Cell::Number(c.context_switches_per_round, Unit::Plain),
        ]);
    }
    let mut blocks = vec![Block::Table(t)];
    let bytes = |lock| {
        d.future_bytes
            .iter()
            .find(|(l, _)| *l == lock)
            .map(|&(_, b)| b)
    };
    if let (Some(s), Some(k)) = (bytes(Lock::Std), bytes(Lock::Tokio)) {
        let n = futures(d);
        blocks.push(Block::Text(format!(
            "One future of the round is {} under std Mutex and {} under tokio Mutex (its lock future carries a wait-list \
             node and a waker), so the Vec of {} futures alone is {} against {}, before join_all wraps each future \
             in a task of its own.",
            fmt::size(s as f64),
            fmt::size(k as f64),
            fmt::thousands(n),
            fmt::size((s * n) as f64),
            fmt::size((k * n) as f64)
        )));
    }
    Ok(blocks)
}

pub(super) fn polls(book: &Book<Data>) -> Result<Vec<Block>> {
    let run = book.primary();
    let d = &run.data;
    let mut t = Table::new(
        "One published round per row, every future and the join_all wrapped in a counter of polls: counts, not \
         timings, the same on every machine and every run. With nobody else using the lock, every Pending is the \
         co-op budget at work, directly or through a future that went to sleep holding the lock.",
        &[
            "Lock",
            "Driver and runtime",
            "Futures",
            "Polls per future",
            "Pending per future",
            "Times the round went back to its driver",
        ],
    )
    .left(&[0, 1]);
    for p in &d.polls {
        let per = |n: u64| Cell::Number(n as f64 / p.futures as f64, Unit::Plain);
        let driver = match p.driver {
            Driver::SpawnedTask => "a spawned task",
            _ => "block_on",
        };
        t.push(vec![
            p.lock.label().into(),
            format!("{driver}, {}", p.runtime.describe()).into(),
            Cell::count(p.futures as u64),
            per(p.polls),
            per(p.pending),
            Cell::count(p.round_polls),
        ]);
    }
    Ok(vec![Block::Table(t)])
}
