//! The ratios the page's decision guide rests on, in a paragraph.
use anyhow::{Context, Result};
use harness_core::fmt;
use harness_page::{render::blocks::Block, Book};

use super::points::{
    heartbeat_of, per_op_of, plural, reproduction_size, round, sizes, workers_of, Shape,
};
use mutex_cost::heartbeat::Load;
use mutex_cost::run::Data;
use mutex_cost::Variant;

pub(super) fn text(book: &Book<Data>) -> Result<Vec<Block>> {
    let run = book.primary();
    let d = &run.data;
    let n = reproduction_size(d);
    let ratio_at = |shape, n| -> Result<String> {
        let s = round(d, shape, Variant::StdMutex, n)?;
        let k = round(d, shape, Variant::TokioMutex, n)?;
        Ok(fmt::ratio(k.timing.mean.point_ns / s.timing.mean.point_ns))
    };
    let mut parts = vec![format!(
        "On {} ({} cores), tokio's Mutex took {} the time of std's in the published shape ({} futures, join_all)",
        run.machine(),
        d.cores,
        ratio_at(Shape::JoinAll, n)?,
        fmt::thousands(n as u64)
    )];
    let big = *sizes(&d.contended).last().context("no contended timings")?;
    for w in workers_of(&d.contended) {
        if let Ok(r) = ratio_at(Shape::Spawned { workers: w }, big) {
            parts.push(format!(
                "{r} with the same {} operations spread over spawned tasks on {w} worker thread{}",
                fmt::thousands(big as u64),
                plural(w)
            ));
        }
    }
    let per = |lock, flavor| per_op_of(d, lock, flavor).map(|p| fmt::nanos(p.timing.mean.point_ns));
    let mut text = parts.join("; ") + ".";
    if let (Ok(s), Ok(k)) = (
        per("std_mutex", None),
        per("tokio_mutex", Some("multi_thread")),
    ) {
        text += &format!(" An uncontended lock + unlock cost {s} with std's Mutex and {k} with tokio's on a worker thread.");
    }
    if let (Ok(s), Ok(a)) = (
        heartbeat_of(d, Load::StdMutexSlowSection),
        heartbeat_of(d, Load::TokioMutexAcrossAwait),
    ) {
        text += &format!(
            " With {} worker threads, an unrelated task's p99 lateness was {} while std's Mutex blocked threads and {} \
             while tokio's Mutex was held across an await.",
            s.workers,
            fmt::nanos(s.latency.p99_ns as f64),
            fmt::nanos(a.latency.p99_ns as f64)
        );
    }
    Ok(vec![Block::Text(text)])
}
