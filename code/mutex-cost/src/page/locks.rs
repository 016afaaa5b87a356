//! Every lock in the contended shape: the claims' two mutexes beside the
//! others readers reach for (parking_lot, async-lock, futures), at the size
//! the run compared them at, on every worker count.
use anyhow::Result;
use harness_core::{fmt, Estimate};
use harness_measure::stats::{ratio, Statistic};
use harness_page::{
    render::blocks::Axis, render::blocks::Bar, render::blocks::BarChart, render::blocks::Block,
    render::blocks::Cell, render::blocks::Table, Book,
};

use super::points::{plural, round, workers_of, Shape};
use mutex_cost::experiments::RoundTiming;
use mutex_cost::run::Data;
use mutex_cost::Variant;

/// The locks in the order the page lists them: blocking ones, then async ones.
pub(super) const LOCKS: [Variant; 5] = [
    Variant::StdMutex,
    Variant::ParkingLot,
    Variant::TokioMutex,
    Variant::AsyncLock,
    Variant::FuturesMutex,
];

/// What a waiter does with its worker thread.
pub(super) fn kind(v: Variant) -> &'static str {
    match v {
        Variant::StdMutex | Variant::ParkingLot => "blocks its thread",
        _ => "yields its thread",
    }
}

/// The contended sizes the compared locks were timed at.
pub(super) fn compared_sizes(d: &Data) -> Vec<usize> {
    let mut sizes: Vec<usize> = d
        .contended
        .iter()
        .filter(|r| Variant::COMPARED.contains(&r.variant))
        .map(|r| r.futures)
        .collect();
    sizes.sort_unstable();
    sizes.dedup();
    sizes
}

/// Time per lock taken: a round of `futures` takes the lock twice per future.
pub(super) fn per_lock(r: &RoundTiming) -> Result<Estimate> {
    let locks = 2.0 * r.futures as f64;
    let e = &r.timing.mean;
    Estimate::new(e.point_ns / locks, e.lower_ns / locks, e.upper_ns / locks)
}

fn none_measured() -> Vec<Block> {
    vec![Block::Text(
        "This run did not time the other locks in the contended shape (it was measured before they were added)."
            .into(),
    )]
}

pub(super) fn table(book: &Book<Data>) -> Result<Vec<Block>> {
    let run = book.primary();
    let d = &run.data;
    let sizes = compared_sizes(d);
    if sizes.is_empty() {
        return Ok(none_measured());
    }
    let tasks = d.contended.first().map_or(0, |r| r.tasks);
    let mut t = Table::new(
        format!(
            "Every lock in the contended shape: {} futures per round over {tasks} spawned tasks, each future taking \
             the lock twice, on a multi-thread runtime with the worker threads shown ({} cores here); measured on {}; \
             criterion mean and 95 % interval, interleaved with the claims' variants at the same point.",
            sizes.iter().map(|&n| fmt::thousands(n as u64)).collect::<Vec<_>>().join(" or "),
            d.cores,
            run.machine()
        ),
        &["Lock", "A waiter", "Workers", "Per round", "Per lock taken", "÷ std Mutex"],
    )
    .left(&[1]);
    for &n in &sizes {
        for w in workers_of(&d.contended) {
            let shape = Shape::Spawned { workers: w };
            let std = round(d, shape, Variant::StdMutex, n)?;
            for v in LOCKS {
                let r = round(d, shape, v, n)?;
                t.push(vec![
                    v.label().into(),
                    kind(v).into(),
                    Cell::count(w as u64),
                    Cell::time(&r.timing.mean),
                    Cell::time(&per_lock(r)?),
                    if v == Variant::StdMutex {
                        "baseline".into()
                    } else {
                        Cell::times(&ratio(&r.timing, &std.timing, Statistic::Mean))
                    },
                ]);
            }
        }
    }
    Ok(vec![Block::Table(t)])
}

pub(super) fn chart(book: &Book<Data>) -> Result<Vec<Block>> {
    let run = book.primary();
    let d = &run.data;
    let Some(&n) = compared_sizes(d).first() else {
        return Ok(none_measured());
    };
    let mut bars = Vec::new();
    let workers = workers_of(&d.contended);
    for &w in &workers {
        for v in LOCKS {
            let r = round(d, Shape::Spawned { workers: w }, v, n)?;
            bars.push(Bar {
                label: format!("{}, {w} worker{}", v.label(), plural(w)),
                value: per_lock(r)?.point_ns,
                group: kind(v).into(),
            });
        }
    }
    Ok(vec![Block::Bars(BarChart {
        id: "mutex-cost-locks".into(),
        title: "Every lock in the contended shape".into(),
        caption: format!(
            "Criterion mean per lock taken ({} futures per round, each taking the lock twice, over {} spawned tasks) \
             on {} worker threads; measured on {}.",
            fmt::thousands(n as u64),
            d.contended.first().map_or(0, |r| r.tasks),
            workers.iter().map(|w| w.to_string()).collect::<Vec<_>>().join(" or "),
            run.machine()
        ),
        value_axis: Axis::linear("nanoseconds per lock taken"),
        bars,
    })])
}
