//! The parameters exhibit: what the run ran under, and the sweep of every
//! profile. Values are words and lists, so they stay text cells.
use std::collections::BTreeSet;

use anyhow::Result;
use harness::{Block, Book, Profile, Table};

use super::{on, FanInData, PUBLISHED_PER_WORKER};
use crate::plan::{plan, HEAVY_FROM};

pub(super) fn parameters(book: &Book<FanInData>) -> Result<Vec<Block>> {
    let run = book.primary();
    let d = &run.data;
    let mut t = Table::new(
        format!("Parameters of the run on {}, {}.", on(run), d.runtime()),
        &["Parameter", "Value"],
    )
    .left(&[1])
    .settings();
    let list = |ws: &[usize]| {
        ws.iter()
            .map(|w| w.to_string())
            .collect::<Vec<_>>()
            .join(", ")
    };
    let passes = if d.decisive_extra == 0 {
        d.passes.to_string()
    } else {
        format!(
            "{}, each followed by {} short passes over std swap and mpsc unbounded \
             (TCP sink, below {HEAVY_FROM} workers)",
            d.passes, d.decisive_extra,
        )
    };
    let samples = {
        let counts: BTreeSet<usize> = d.points.iter().map(|p| p.timing.samples).collect();
        match (counts.first(), counts.last()) {
            (Some(lo), Some(hi)) if lo != hi => format!("{lo} to {hi}"),
            _ => d.samples_per_point.to_string(),
        }
    };
    let rows = [
        ("Runtime", d.runtime()),
        (
            "Messages per worker (one byte each)",
            d.per_worker.to_string(),
        ),
        (
            "Bounded inbox capacity (design 2)",
            d.bounded_capacity.to_string(),
        ),
        (
            "recv_many limit per call (design 3)",
            d.recv_many_limit.to_string(),
        ),
        (
            "Chunk a worker batches before sending (design 6)",
            format!("{} bytes", d.chunk_bytes),
        ),
        (
            "Bytes design 6 gathers before a write while producers still add",
            format!("{} bytes", d.write_bytes),
        ),
        ("Thread placement", d.placement.describe().to_string()),
        ("Worker counts in this run", list(&d.workers)),
        (
            "Passes over the sweep in this run (pooled per point)",
            passes,
        ),
        (
            "Criterion samples per point in this run, all passes",
            samples,
        ),
        (
            "Messages per worker in the published bench",
            format!("{PUBLISHED_PER_WORKER}"),
        ),
    ];
    for (k, v) in rows {
        t.push(vec![k.to_string(), v]);
    }
    if let Some(ws) = &d.crate_workers {
        t.push(vec![
            "Worker counts of the flume and async-channel inboxes in this run".to_string(),
            list(ws),
        ]);
    }
    if let Some(ws) = &d.memory_workers {
        t.push(vec![
            "Worker counts also measured into the in-memory sink in this run".to_string(),
            list(ws),
        ]);
    }
    t.push(vec![
        "Worker counts of the ladder and the variations in this run".to_string(),
        list(&d.method.workers),
    ]);
    for p in Profile::ALL {
        let plan = plan(p);
        t.push(vec![
            format!("Worker counts, {p} profile"),
            format!(
                "{} ({} passes of {} samples, {} ms measuring per point; {} samples, {} ms in \
                 the first and last passes only for mpsc unbounded and bounded from {} workers; \
                 std swap and mpsc unbounded over TCP below that, {} short passes more after \
                 each pass)",
                list(&plan.workers),
                plan.passes,
                plan.sampling.samples,
                plan.sampling.measurement.as_millis(),
                plan.heavy.samples,
                plan.heavy.measurement.as_millis(),
                HEAVY_FROM,
                plan.decisive_extra
            ),
        ]);
        t.push(vec![
            format!("Other crates' inboxes and the in-memory sink, {p} profile"),
            format!(
                "flume and async-channel at {} workers; the in-memory sink at {} workers",
                list(&plan.crate_workers),
                list(&plan.memory_workers)
            ),
        ]);
        let method = crate::method::plan(p);
        t.push(vec![
            format!("Ladder and variations, {p} profile"),
            format!(
                "{} workers, one pass of {} samples, {} ms measuring per point; the locks \
                 counted in {} bursts of {} workers per setting",
                list(&method.workers),
                method.sampling.samples,
                method.sampling.measurement.as_millis(),
                method.counted_bursts,
                method.counted_workers
            ),
        ]);
    }
    Ok(vec![Block::Table(t)])
}
