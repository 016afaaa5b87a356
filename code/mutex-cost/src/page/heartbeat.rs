//! How late an unrelated task runs while each lock is in use.
use anyhow::Result;
use harness_core::fmt;
use harness_page::{
    render::blocks::Axis, render::blocks::Block, render::blocks::Cell, render::blocks::Figure,
    render::blocks::Point, render::blocks::Series, render::blocks::Table, Book, Run,
};

use mutex_cost::run::Data;

fn caption(run: &Run<Data>) -> String {
    let d = &run.data;
    let h = &d.heartbeat[0];
    let contenders = d.heartbeat.iter().map(|h| h.contenders).max().unwrap_or(0);
    format!(
        "A heartbeat task on a multi-thread runtime with {} worker threads, sent a timestamp every {} by a thread \
         outside the runtime, for about {} beats per load; {contenders} contending tasks take the lock in a loop, each time \
         for a critical section of {}, and yield between turns. Lateness is the time from a beat being sent to the \
         heartbeat task reading it. Measured on {}.",
        h.workers,
        fmt::nanos(h.period_ns as f64),
        fmt::thousands(h.beats),
        fmt::nanos(h.critical_section_ns as f64),
        run.machine()
    )
}

pub(super) fn table(book: &Book<Data>) -> Result<Vec<Block>> {
    let run = book.primary();
    let mut t = Table::new(
        caption(run),
        &["Load", "Lock taken", "p50", "p90", "p99", "p99.9", "max"],
    );
    for h in &run.data.heartbeat {
        t.push(vec![
            h.load.label().into(),
            Cell::count(h.lock_acquisitions),
            Cell::nanos(h.latency.p50_ns as f64),
            Cell::nanos(h.latency.p90_ns as f64),
            Cell::nanos(h.latency.p99_ns as f64),
            Cell::nanos(h.latency.p999_ns as f64),
            Cell::nanos(h.latency.max_ns as f64),
        ]);
    }
    Ok(vec![Block::Table(t)])
}

pub(super) fn chart(book: &Book<Data>) -> Result<Vec<Block>> {
    let run = book.primary();
    let series = run
        .data
        .heartbeat
        .iter()
        .map(|h| {
            let points = h
                .curve
                .iter()
                .map(|&(q, ns)| Point::new(1.0 / (1.0 - q), ns as f64 / 1e3))
                .collect();
            Series::measured(h.load.label(), points)
        })
        .collect();
    Ok(vec![Block::Figure(Figure {
        id: "mutex-cost-heartbeat".into(),
        title: "How late an unrelated task runs".into(),
        caption: format!(
            "{} The x axis is 1 / (1 − percentile): 2 is the median, 100 the 99th percentile, 1,000 the 99.9th.",
            caption(run)
        ),
        x: Axis::log("1 / (1 − percentile)"),
        y: Axis::log("heartbeat lateness (µs)"),
        series,
        line_at: None,
    })])
}
