//! The published claims, and the rules that decide them from a run.
use anyhow::Result;
use harness::claims::{Claim, Outcome, Verdict};
use harness::stats::{ratio, Statistic};
use harness::{fmt, Block, Book, Estimate, Run, Unit};

use super::{heartbeat_of, plural, round, workers_of, Data, Shape};
use crate::heartbeat::Load;
use crate::{Variant, ACTOR_CLAIM_FUTURES, PUBLISHED_FUTURES};

const POST: &str = "[std mutex vs tokio mutex](https://github.com/nxy7/rs-actor-mutex-benchmark)";
const EARLIER_POST: &str =
    "[mutex vs actor](https://github.com/nxy7/rs-actor-mutex-benchmark) (earlier post, same author)";

const MUT_1: Claim = Claim {
    id: "MUT-1",
    statement: "With 100,000 futures each locking twice, std::sync::Mutex is about 2x faster than tokio::sync::Mutex.",
    source: POST,
    rule: "Published shape (join_all of 100,000 futures in criterion's to_async, multi-thread runtime with a worker per core): \
           holds if the 95 % interval of tokio Mutex time / std Mutex time (criterion means, interval bootstrapped from both runs' samples) lies \
           wholly inside 1.5..2.5; does not hold if it lies wholly outside; inconclusive otherwise.",
};

const MUT_2: Claim = Claim {
    id: "MUT-2",
    statement: "A mutex is 2-3x faster than an actor owning the value; with std::sync::Mutex, 4-6x.",
    source: EARLIER_POST,
    rule: "Contended shape at 10,000 futures (spawned tasks, multi-thread runtime with a worker per core), same work for all \
           three: holds if actor / tokio Mutex lies in 2..3 and actor / std Mutex in 4..6 (criterion means, 95 % intervals \
           inside the ranges); does not hold if either interval lies wholly outside its range; inconclusive otherwise. \
           The published join_all shape is reported beside it.",
};

const MUT_3: Claim = Claim {
    id: "MUT-3",
    statement: "tokio::sync::Mutex keeps other tasks on the same worker thread responsive while waiting; a blocked std::sync::Mutex does not.",
    source: POST,
    rule: "Heartbeat experiment (worker threads, contending tasks and critical section as in its table): holds if the \
           heartbeat's p99 lateness with tokio Mutex held across an await is at most half of its p99 lateness with std \
           Mutex and a busy critical section, and no more than the idle p99 plus one critical section.",
};

pub(super) const CLAIMS: &[Claim] = &[MUT_1, MUT_2, MUT_3];

/// MUT-1's figures: tokio Mutex and std Mutex per round, join_all of
/// 100,000 futures, and tokio ÷ std.
fn mut_1_ratio(d: &Data) -> Option<(Estimate, Estimate, Estimate)> {
    let s = round(d, Shape::JoinAll, Variant::StdMutex, PUBLISHED_FUTURES).ok()?;
    let k = round(d, Shape::JoinAll, Variant::TokioMutex, PUBLISHED_FUTURES).ok()?;
    Some((
        k.timing.mean,
        s.timing.mean,
        ratio(&k.timing, &s.timing, Statistic::Mean),
    ))
}

/// MUT-2's ratios in the contended shape at 10,000 futures, on the most
/// worker threads up to the core count: (workers, actor ÷ tokio, actor ÷ std).
fn mut_2_ratios(d: &Data) -> Option<(usize, Estimate, Estimate)> {
    let workers = workers_of(&d.contended)
        .into_iter()
        .filter(|&w| w <= d.cores.max(1))
        .max()?;
    let get = |v| {
        round(d, Shape::Spawned { workers }, v, ACTOR_CLAIM_FUTURES)
            .ok()
            .map(|r| &r.timing)
    };
    let (a, k, s) = (
        get(Variant::Actor)?,
        get(Variant::TokioMutex)?,
        get(Variant::StdMutex)?,
    );
    Some((
        workers,
        ratio(a, k, Statistic::Mean),
        ratio(a, s, Statistic::Mean),
    ))
}

/// The estimates MUT-1 and MUT-2 are decided by (ratios, no unit). MUT-3
/// rests on percentiles of one run, which carry no interval.
pub(super) fn decisive_estimates(d: &Data) -> Vec<(String, Estimate)> {
    let mut out = Vec::new();
    if let Some((_, _, r)) = mut_1_ratio(d) {
        out.push((
            format!(
                "MUT-1, join_all of {} futures: tokio Mutex ÷ std Mutex",
                fmt::thousands(PUBLISHED_FUTURES as u64)
            ),
            r,
        ));
    }
    if let Some((w, ak, as_)) = mut_2_ratios(d) {
        let shape = format!(
            "MUT-2, {} futures spawned on {w} worker{}",
            fmt::thousands(ACTOR_CLAIM_FUTURES as u64),
            plural(w)
        );
        out.push((format!("{shape}: actor ÷ tokio Mutex"), ak));
        out.push((format!("{shape}: actor ÷ std Mutex"), as_));
    }
    out
}

fn mut_1(run: &Run<Data>) -> Verdict {
    let Some((k, s, r)) = mut_1_ratio(&run.data) else {
        return Verdict::not_measured(
            &MUT_1,
            format!("{} ran no join_all round of 100,000 futures", run.machine()),
        );
    };
    Verdict::new(
        &MUT_1,
        run.machine(),
        Outcome::within(&r, 1.5, 2.5),
        format!(
            "tokio Mutex {} vs std Mutex {} per round: tokio ÷ std = {}",
            fmt::nanos(k.point_ns),
            fmt::nanos(s.point_ns),
            r.show(Unit::Ratio)
        ),
    )
}

fn mut_2(run: &Run<Data>) -> Verdict {
    let d = &run.data;
    let Some((w, ak, as_)) = mut_2_ratios(d) else {
        return Verdict::not_measured(
            &MUT_2,
            format!("{} ran no contended round of 10,000 futures", run.machine()),
        );
    };
    let outcome = Outcome::all_of(&[
        Outcome::within(&ak, 2.0, 3.0),
        Outcome::within(&as_, 4.0, 6.0),
    ]);
    let get = |v| {
        round(d, Shape::JoinAll, v, ACTOR_CLAIM_FUTURES)
            .ok()
            .map(|r| r.timing.mean)
    };
    let published_shape = match (
        get(Variant::Actor),
        get(Variant::TokioMutex),
        get(Variant::StdMutex),
    ) {
        (Some(a), Some(k), Some(s)) => format!(
            "; in the join_all shape: actor ÷ tokio = {}, actor ÷ std = {}",
            fmt::ratio(a.point_ns / k.point_ns),
            fmt::ratio(a.point_ns / s.point_ns)
        ),
        _ => String::new(),
    };
    Verdict::new(
        &MUT_2,
        run.machine(),
        outcome,
        format!(
            "contended, {w} workers: actor ÷ tokio Mutex = {}, actor ÷ std Mutex = {}{published_shape}",
            ak.show(Unit::Ratio),
            as_.show(Unit::Ratio)
        ),
    )
}

fn mut_3(run: &Run<Data>) -> Verdict {
    let d = &run.data;
    let (Ok(idle), Ok(std), Ok(tokio)) = (
        heartbeat_of(d, Load::Idle),
        heartbeat_of(d, Load::StdMutexSlowSection),
        heartbeat_of(d, Load::TokioMutexAcrossAwait),
    ) else {
        return Verdict::not_measured(&MUT_3, "no heartbeat runs");
    };
    let holds =
        2 * tokio.p99_ns <= std.p99_ns && tokio.p99_ns <= idle.p99_ns + tokio.critical_section_ns;
    Verdict::new(
        &MUT_3,
        run.machine(),
        Outcome::from_bool(holds),
        format!(
            "heartbeat p99 lateness, {} workers: {} with std Mutex blocking, {} with tokio Mutex across an await, {} idle",
            std.workers,
            fmt::nanos(std.p99_ns as f64),
            fmt::nanos(tokio.p99_ns as f64),
            fmt::nanos(idle.p99_ns as f64)
        ),
    )
}

/// Every claim on every machine, claim by claim.
pub(super) fn verdicts(book: &Book<Data>) -> Result<Vec<Block>> {
    let mut out = Vec::new();
    for decide in [mut_1, mut_2, mut_3] {
        out.extend(book.runs.iter().map(decide));
    }
    Ok(vec![Block::Verdicts(out)])
}
