//! The published claims, and the rules that decide them from a run: the
//! judge stage draws and names the estimates the rows of MUT-1's and MUT-2's
//! maps read (`conditions`), gives each claim its verdict on the run and
//! lists the headline. The page only reads what was judged.
use anyhow::Result;
use harness_core::claims::{Claim, Condition, Outcome, Verdict};
use harness_core::fmt;
use harness_page::{Judge, Judged};

use super::conditions::{self, figure, Ratios, Row};
use super::points::heartbeat_of;
use mutex_cost::heartbeat::Load;
use mutex_cost::run::Data;
use mutex_cost::PUBLISHED_FUTURES;

const POST: &str = "[std mutex vs tokio mutex](https://github.com/nxy7/rs-actor-mutex-benchmark)";
const EARLIER_POST: &str =
    "[mutex vs actor](https://github.com/nxy7/rs-actor-mutex-benchmark) (earlier post, same author)";

/// The smallest departure from a claimed ratio a verdict may turn on, as a
/// share of the claim: at or above how far one repeat's ratio strays from
/// another's in this chapter's runs (about a fifth on the book's machine).
/// MUT-1's and MUT-2's rules name it.
pub const MIN_EFFECT: f64 = 0.25;

/// How many times later the heartbeat must run under std's Mutex than under
/// tokio's for MUT-3 to hold: a minimum effect of 100 %, because a
/// percentile of one run carries no interval.
pub const MUT_3_FACTOR: f64 = 2.0;

/// A claimed range `lo..hi`, widened by the minimum effect on both sides.
pub fn widened(lo: f64, hi: f64) -> (f64, f64) {
    (lo / (1.0 + MIN_EFFECT), hi * (1.0 + MIN_EFFECT))
}

const MUT_1: Claim = Claim {
    id: "MUT-1",
    short: "std's Mutex about 2x faster than tokio's",
    statement: "With 100,000 futures each locking twice, std::sync::Mutex is about 2x faster than tokio::sync::Mutex.",
    source: POST,
    rule: "Each row of the map measures tokio Mutex ÷ std Mutex on the published work (100,000 futures, each locking \
           twice) one way: criterion means per round with 95 % intervals bootstrapped from the repeats, or instruction \
           counts, which are exact. A row holds when the whole interval lies within 2× widened by the minimum effect \
           MIN_EFFECT = 25 % on each side (1.6 to 2.5), does not hold when it lies wholly outside, and is inconclusive \
           when it straddles a bound. The headline is derived from the map: holds, or does not hold, only when every \
           decided row agrees; when rows split it reads \"holds only when\" and names the rows that hold, or \
           \"holds except when\" and names the rows that fail, whichever list is shorter.",
};

const MUT_2: Claim = Claim {
    id: "MUT-2",
    short: "a mutex 2-3x faster than an actor; std's 4-6x",
    statement: "A mutex is 2-3x faster than an actor owning the value; with std::sync::Mutex, 4-6x.",
    source: EARLIER_POST,
    rule: "Each row of the map measures the same 10,000-future work under the actor and under each mutex one way \
           (criterion means per round, 95 % intervals bootstrapped from the repeats). A row holds when actor ÷ tokio \
           Mutex lies wholly within 2 to 3 and actor ÷ std Mutex wholly within 4 to 6, each range widened by the minimum \
           effect MIN_EFFECT = 25 % on each side (1.6 to 3.75 and 3.2 to 7.5); it does not hold when either interval \
           lies wholly outside its widened range, and is inconclusive otherwise. The headline is derived from the map \
           as for MUT-1.",
};

const MUT_3: Claim = Claim {
    id: "MUT-3",
    short: "waiting on tokio's Mutex keeps a worker's other tasks running; std's does not",
    statement: "tokio::sync::Mutex keeps other tasks on the same worker thread responsive while waiting; a blocked std::sync::Mutex does not.",
    source: POST,
    rule: "The post argues this without measuring it, so there is no published experiment to rebuild; the rows are the \
           book's heartbeat runs (worker threads, contending tasks and critical section as in their table). A row \
           holds when the heartbeat's p99 lateness under std Mutex is at least MUT_3_FACTOR = 2 times its p99 under \
           tokio Mutex (a minimum effect of 100 %, since a percentile of one run has no interval); the row with \
           tokio's lock held across an await also needs tokio's p99 within one critical section of the idle p99. \
           The headline is derived from the map as for MUT-1.",
};

pub const CLAIMS: &[Claim] = &[MUT_1, MUT_2, MUT_3];

/// The map of one claim from its rows, each decided by `rule`.
fn map_of(rows: &[Row], rule: impl Fn(&Row) -> Outcome) -> Vec<Condition> {
    rows.iter()
        .map(|r| {
            let c = Condition::new(r.axis, r.setting.clone(), rule(r), figure(r));
            match (r.as_published, r.fair) {
                (true, _) => c.as_published(),
                (_, true) => c.fair(),
                _ => c,
            }
        })
        .collect()
}

/// "fair: …; as published: …", the figures a reader checks first.
fn evidence(rows: &[Row]) -> String {
    let pick = |f: fn(&Row) -> bool, name: &str| {
        rows.iter()
            .find(|r| f(r))
            .map(|r| format!("{name} ({}): {}", r.setting, figure(r)))
    };
    [
        pick(|r| r.fair, "fair experiment"),
        pick(|r| r.as_published, "as published"),
    ]
    .into_iter()
    .flatten()
    .collect::<Vec<_>>()
    .join("; ")
}

fn mut_1(machine: &str, rows: &[Row]) -> Verdict {
    if rows.is_empty() {
        return Verdict::not_measured(
            &MUT_1,
            format!("{machine} ran no round of the published work"),
        );
    }
    let (lo, hi) = widened(2.0, 2.0);
    let map = map_of(rows, |r| {
        Outcome::all_of(
            &r.ratios
                .iter()
                .map(|(_, e)| Outcome::within(e, lo, hi))
                .collect::<Vec<_>>(),
        )
    });
    Verdict::from_map(&MUT_1, machine, map, evidence(rows))
}

fn mut_2(machine: &str, rows: &[Row]) -> Verdict {
    if rows.is_empty() {
        return Verdict::not_measured(&MUT_2, format!("{machine} ran no round of 10,000 futures"));
    }
    let ranges = [widened(2.0, 3.0), widened(4.0, 6.0)];
    let map = map_of(rows, |r| {
        Outcome::all_of(
            &r.ratios
                .iter()
                .zip(ranges)
                .map(|((_, e), (lo, hi))| Outcome::within(e, lo, hi))
                .collect::<Vec<_>>(),
        )
    });
    Verdict::from_map(&MUT_2, machine, map, evidence(rows))
}

fn mut_3(d: &Data, machine: &str) -> Verdict {
    let get = |load| heartbeat_of(d, load).ok();
    let (Some(idle), Some(std_busy)) = (get(Load::Idle), get(Load::StdMutexSlowSection)) else {
        return Verdict::not_measured(&MUT_3, "no heartbeat runs");
    };
    let p99 = |ns: u64| fmt::nanos(ns as f64);
    let mut map = Vec::new();
    if let Some(across) = get(Load::TokioMutexAcrossAwait) {
        let holds = std_busy.latency.p99_ns as f64 >= MUT_3_FACTOR * across.latency.p99_ns as f64
            && across.latency.p99_ns <= idle.latency.p99_ns + across.critical_section_ns;
        map.push(
            Condition::new(
                "what the holder does",
                "tokio's lock held across an await, std's held through a busy section",
                Outcome::from_bool(holds),
                format!(
                    "p99 lateness: {} under std Mutex, {} under tokio Mutex, {} idle",
                    p99(std_busy.latency.p99_ns),
                    p99(across.latency.p99_ns),
                    p99(idle.latency.p99_ns)
                ),
            )
            .fair(),
        );
    }
    if let Some(busy) = get(Load::TokioMutexSlowSection) {
        let holds = std_busy.latency.p99_ns as f64 >= MUT_3_FACTOR * busy.latency.p99_ns as f64;
        map.push(Condition::new(
            "what the holder does",
            "both locks held through the same busy section",
            Outcome::from_bool(holds),
            format!(
                "p99 lateness: {} under std Mutex, {} under tokio Mutex, {} idle",
                p99(std_busy.latency.p99_ns),
                p99(busy.latency.p99_ns),
                p99(idle.latency.p99_ns)
            ),
        ));
    }
    let evidence = format!(
        "heartbeat on {} worker threads, {} contending tasks",
        std_busy.workers, std_busy.contenders
    );
    Verdict::from_map(&MUT_3, machine, map, evidence)
}

/// The names of every ratio `rows` read.
fn names(rows: &[Row]) -> Vec<&str> {
    rows.iter()
        .flat_map(|r| r.names.iter().map(String::as_str))
        .collect()
}

/// Judges one run: the ratios of MUT-1's and MUT-2's rows, named; every
/// claim's verdict; the headline, the estimates MUT-1 and MUT-2 are decided
/// by (MUT-3 rests on percentiles of one run, which carry no interval):
/// tokio ÷ std as published at 100,000 futures, and the fair experiment's
/// actor ÷ tokio and actor ÷ std at 10,000.
pub fn judge(run: &Judged<Data>, j: &mut Judge) -> Result<()> {
    let (d, machine) = (run.data, run.machine());
    let one = conditions::mut_1(d, &mut Ratios::Judging(j))?;
    let two = conditions::mut_2(d, &mut Ratios::Judging(j))?;
    let published = conditions::mut_1_published_name(PUBLISHED_FUTURES);
    if let Some(r) = one.iter().find(|r| r.as_published) {
        if r.names.contains(&published) {
            j.headline(&published);
        }
    }
    if let Some(r) = two.iter().find(|r| r.fair) {
        for name in &r.names {
            j.headline(name);
        }
    }
    j.verdict(mut_1(machine, &one), &names(&one));
    j.verdict(mut_2(machine, &two), &names(&two));
    j.verdict(mut_3(d, machine), &[]);
    Ok(())
}
