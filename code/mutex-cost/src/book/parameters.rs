//! What each profile measures, and the parameters every profile shares.
use anyhow::Result;
use harness::timing::Sampling;
use harness::{fmt, Block, Book, Profile, Table};

use super::Data;
use crate::Plan;

fn sampling(s: &Sampling) -> String {
    format!(
        "{} samples, {} warm-up, {} measuring",
        s.samples,
        fmt::nanos(s.warm_up.as_nanos() as f64),
        fmt::nanos(s.measurement.as_nanos() as f64)
    )
}

fn nanos(d: std::time::Duration) -> String {
    fmt::nanos(d.as_nanos() as f64)
}

fn list(v: &[usize]) -> String {
    v.iter()
        .map(|&n| fmt::thousands(n as u64))
        .collect::<Vec<_>>()
        .join(", ")
}

/// Settings, not measurements: every cell is words, so the CSV keeps each
/// profile's column whole (a column with one number in it would drop its words).
pub(super) fn table(_: &Book<Data>) -> Result<Vec<Block>> {
    let plans: Vec<_> = Profile::ALL
        .iter()
        .map(|&p| (p, Plan::for_profile(p)))
        .collect();
    let names: Vec<String> = plans.iter().map(|(p, _)| p.to_string()).collect();
    let mut header = vec!["Parameter"];
    header.extend(names.iter().map(String::as_str));
    let mut t = Table::new(
        format!(
            "What each profile measures. Worker counts are 1, 2 and every core of the measuring machine ({} on the \
             machine that rendered this page); smoke exists for tests and is never published.",
            crate::cores()
        ),
        &header,
    )
    .left(&(0..header.len()).collect::<Vec<_>>())
    .settings();
    let row = |name: &str, f: &dyn Fn(&Plan) -> String| {
        let mut r = vec![name.to_string()];
        r.extend(plans.iter().map(|(_, plan)| f(plan)));
        r
    };
    t.push(row("Futures per round, join_all shape", &|p| {
        list(&p.join_all_sizes)
    }));
    t.push(row("Futures per round, contended shape", &|p| {
        list(&p.contended_sizes)
    }));
    t.push(row(
        "Futures per round, every lock compared (parking_lot, async-lock, futures)",
        &|p| list(&p.compared_sizes),
    ));
    t.push(row("Worker threads, contended shape", &|p| {
        list(&p.worker_counts)
    }));
    t.push(row("Criterion, per round timing", &|p| {
        format!(
            "{} interleaved runs of {}; MUT-2's points {} more at the end of the run",
            p.repeats,
            sampling(&p.sampling),
            p.decisive_extra
        )
    }));
    t.push(row("Criterion, per lock + unlock", &|p| {
        sampling(&p.per_op_sampling)
    }));
    t.push(row("Heartbeat run per load", &|p| nanos(p.heartbeat_run)));
    t.push(row("Ladder: the round in one task, and a task per future", &|p| {
        format!(
            "{} futures (a task per future: {} only), {} interleaved run{} of the per round sampling",
            list(&p.ladder_sizes),
            fmt::thousands(crate::ACTOR_CLAIM_FUTURES as u64),
            p.ladder_repeats,
            if p.ladder_repeats == 1 { "" } else { "s" }
        )
    }));
    t.push(row("Sensitivity grid", &|p| {
        let g = &p.sensitivity;
        format!(
            "{} futures; {} allocators × {} drivers; {} fresh process{} per cell, each {} warm-up + {} timed rounds",
            fmt::thousands(g.futures as u64),
            g.allocators.len(),
            g.settings.len(),
            g.processes,
            if g.processes == 1 { "" } else { "es" },
            g.warm_up_rounds,
            g.rounds
        )
    }));
    t.push(row("Polls counted per round", &|p| {
        format!(
            "{} futures ({} where the count grows with the square of the futures)",
            fmt::thousands(p.poll_futures as u64),
            fmt::thousands(p.poll_futures.min(crate::ACTOR_CLAIM_FUTURES) as u64)
        )
    }));
    for (name, value) in [
        (
            "Spawned tasks, contended shape",
            crate::CONTENDING_TASKS.to_string(),
        ),
        (
            "Actor queue capacity",
            fmt::thousands(crate::ACTOR_QUEUE as u64),
        ),
        (
            "Heartbeat worker threads",
            crate::HEARTBEAT_WORKERS.to_string(),
        ),
        (
            "Heartbeat contending tasks",
            crate::HEARTBEAT_CONTENDERS.to_string(),
        ),
        ("Heartbeat period", nanos(crate::HEARTBEAT_PERIOD)),
        (
            "Critical section (busy or awaited)",
            nanos(crate::CRITICAL_SECTION),
        ),
        (
            "Uncontended locks in the co-op probe",
            fmt::thousands(crate::COOP_PROBE_OPS),
        ),
    ] {
        t.push(row(name, &|_| value.clone()));
    }
    Ok(vec![Block::Table(t)])
}
