//! What one uncontended lock + unlock costs, and how often a free tokio
//! Mutex still sends its task back to the scheduler.
use anyhow::Result;
use harness_core::fmt;
use harness_measure::stats::{ratio, Statistic};
use harness_page::{
    render::blocks::Axis, render::blocks::Bar, render::blocks::BarChart, render::blocks::Block,
    render::blocks::Cell, render::blocks::Table, Book,
};

use super::points::per_op_of;
use mutex_cost::experiments::PerOpTiming;
use mutex_cost::run::Data;

/// The lock's name and the runtime it ran on, as the page calls them.
fn label(p: &PerOpTiming) -> (String, String) {
    let lock = mutex_cost::Variant::every()
        .find(|v| v.name() == p.lock)
        .map_or(p.lock.as_str(), |v| v.label());
    let runtime = p
        .runtime
        .as_ref()
        .map_or("none (called from a plain thread)".into(), |r| {
            format!("{}, inside a spawned task", r.describe())
        });
    (lock.into(), runtime)
}

pub(super) fn table(book: &Book<Data>) -> Result<Vec<Block>> {
    let run = book.primary();
    let d = &run.data;
    let std = per_op_of(d, "std_mutex", None)?;
    let mut t = Table::new(
        format!(
            "One uncontended lock, increment and unlock, nobody else using the lock; measured on {}; criterion mean \
             and 95 % interval per operation.",
            run.machine()
        ),
        &["Lock", "Runtime", "Per lock + unlock", "÷ std Mutex"],
    )
    .left(&[1]);
    for p in &d.per_op {
        let (lock, runtime) = label(p);
        t.push(vec![
            lock.into(),
            runtime.into(),
            Cell::time(&p.timing.mean),
            if std::ptr::eq(p, std) {
                "baseline".into()
            } else {
                Cell::times(&ratio(&p.timing, &std.timing, Statistic::Mean))
            },
        ]);
    }
    let c = &d.coop;
    let every = c.ops.checked_div(c.pending).map_or("never".into(), |n| {
        format!("once every {} acquisitions", fmt::thousands(n))
    });
    Ok(vec![
        Block::Table(t),
        Block::Text(format!(
            "Co-op budget probe ({}, inside a spawned task): of {} `lock()` calls on a tokio Mutex that nobody else \
             held, {} answered `Pending`, {every}. Each of those is tokio's cooperative budget running out and \
             sending the task back to the scheduler.",
            c.runtime.describe(),
            fmt::thousands(c.ops),
            fmt::thousands(c.pending)
        )),
    ])
}

pub(super) fn chart(book: &Book<Data>) -> Result<Vec<Block>> {
    let run = book.primary();
    let d = &run.data;
    let bars = d
        .per_op
        .iter()
        .map(|p| {
            let (lock, _) = label(p);
            let short = p.runtime.as_ref().map_or(String::new(), |r| {
                format!(" ({})", r.flavor.replace('_', "-"))
            });
            Bar {
                label: format!("{lock}{short}"),
                value: p.timing.mean.point_ns,
                group: lock,
            }
        })
        .collect();
    Ok(vec![Block::Bars(BarChart {
        id: "mutex-cost-per-op".into(),
        title: "Uncontended lock + unlock".into(),
        caption: format!(
            "Criterion mean per lock, increment and unlock with nobody else using the lock; the async locks ran inside a \
             spawned task (tokio's on a current-thread runtime too) on a multi-thread runtime with {} worker threads; \
             measured on {}.",
            d.per_op.iter().filter_map(|p| p.runtime.as_ref()).map(|r| r.workers).max().unwrap_or(0),
            run.machine()
        ),
        value_axis: Axis::linear("nanoseconds per lock + unlock"),
        bars,
    })])
}
