//! The chapter in a reader's words: the answer under the question, each
//! claim's badge (plain verdict, one number, which way it points) and the
//! summary list that ends the page, all printed from the results.
use anyhow::{Context, Result};
use harness_core::claims::Reading;
use harness_core::{fmt, Estimate, Unit, Verdict};
use harness_page::render::reader::{self, pick_lowest, Advice, Candidate};
use harness_page::{render::blocks::Block, Book, Run};

use super::claims::MUT_3_FACTOR;
use super::conditions::{self, Ratios, Row};
use super::locks::{self, LOCKS};
use super::points::{heartbeat_of, per_op_of, published_at, round, PublishedRow, Shape};
use mutex_cost::heartbeat::Load;
use mutex_cost::run::Data;
use mutex_cost::{Variant, PUBLISHED_FUTURES};

/// The row of a map marked as published, and the fair one.
fn ends(rows: &[Row]) -> (Option<&Row>, Option<&Row>) {
    (
        rows.iter().find(|r| r.as_published),
        rows.iter().find(|r| r.fair),
    )
}

/// The ratio labelled `label` of a row.
fn ratio_of(row: Option<&Row>, label: &str) -> Option<Estimate> {
    named(row, label).map(|(_, e)| e)
}

/// The ratio labelled `label` of a row, with its name in the analysis.
fn named<'a>(row: Option<&'a Row>, label: &str) -> Option<(&'a str, Estimate)> {
    let row = row?;
    let i = row.ratios.iter().position(|(n, _)| *n == label)?;
    Some((row.names[i].as_str(), row.ratios[i].1))
}

/// MUT-1's rows of `run`, their ratios read from its analysis.
fn mut_1(run: &Run<Data>) -> Result<Vec<Row>> {
    conditions::mut_1(&run.data, &mut Ratios::Stored(run))
}

/// MUT-2's rows of `run`, their ratios read from its analysis.
fn mut_2(run: &Run<Data>) -> Result<Vec<Row>> {
    conditions::mut_2(&run.data, &mut Ratios::Stored(run))
}

/// The worker threads of the fair row ("2 worker threads"), from its timings' shape.
fn fair_workers(d: &Data) -> Option<usize> {
    conditions::fair_workers(d)
}

/// What the post measured, tokio's round over std's (its own numbers).
fn published_ratio(book: &Book<Data>) -> Option<f64> {
    let rows: Vec<PublishedRow> = book.published("mutex").ok()?.rows().ok()?;
    let k = published_at(&rows, Variant::TokioMutex.name(), PUBLISHED_FUTURES)?;
    let s = published_at(&rows, Variant::StdMutex.name(), PUBLISHED_FUTURES)?;
    Some(k.point_ms / s.point_ms)
}

/// The machine the post ran on, as its dataset states it.
fn posts_machine(book: &Book<Data>) -> String {
    book.published("mutex")
        .map(|d| d.source.machine)
        .unwrap_or_else(|_| "a machine it does not name".into())
}

/// The answer under the question.
pub(super) fn in_short(book: &Book<Data>) -> Result<Vec<Block>> {
    let run = book.primary();
    let d = &run.data;
    let rows = mut_1(run)?;
    let (published, fair) = ends(&rows);
    let tokio_std = "tokio ÷ std";
    let (name, as_published) = named(published, tokio_std).context("no as-published round")?;
    let mut first = format!(
        "Reach for std's `Mutex` when the critical section is short and never crosses an `.await`: \
         it took {} less time than tokio's in the post's own benchmark",
        reader::number(name, &as_published, Unit::Ratio)
    );
    if let (Some((name, f)), Some(w)) = (named(fair, tokio_std), fair_workers(d)) {
        first.push_str(&format!(
            " and {} with the tasks spread over {w} worker threads",
            reader::number(name, &f, Unit::Ratio)
        ));
    }
    if let Some(p) = published_ratio(book) {
        first.push_str(&format!("; the post measured {}", fmt::ratio(p)));
    }
    first.push('.');
    let mut sentences = vec![first];
    if let (Ok(std), Ok(across)) = (
        heartbeat_of(d, Load::StdMutexSlowSection),
        heartbeat_of(d, Load::TokioMutexAcrossAwait),
    ) {
        sentences.push(format!(
            "Reach for tokio's `Mutex` only when the guard must cross an `.await`: a task waiting \
             on std's lock blocks its worker, and an unrelated task ran {} late (p99) behind it, \
             against {} behind tokio's.",
            fmt::nanos(std.latency.p99_ns as f64),
            fmt::nanos(across.latency.p99_ns as f64)
        ));
    }
    let mut_2 = mut_2(run)?;
    if let (Some((name, a)), Some(w)) = (named(ends(&mut_2).1, "actor ÷ std"), fair_workers(d)) {
        sentences.push(format!(
            "An actor owning the value took {} std's time on {w} worker threads: share state \
             through a lock, not a task.",
            reader::number(name, &a, Unit::Ratio)
        ));
    }
    let note = reader::cores_note(&run.provenance.machine, &posts_machine(book));
    Ok(vec![Block::Text(reader::answer(
        book.chapter,
        &sentences,
        &run.provenance.machine,
        Some(&note),
    ))])
}

/// Each claim's badge in plain words, with one number and which way it
/// points: the run's stored estimates beside the post's published numbers.
pub(super) fn read(book: &Book<Data>, run: &Run<Data>, v: Verdict) -> Result<Verdict> {
    let d = &run.data;
    let posts = posts_machine(book);
    let cores = Some(reader::cores_note(&run.provenance.machine, &posts));
    let reading = match v.claim.id {
        "MUT-1" => {
            let rows = mut_1(run)?;
            let (p, f) = ends(&rows);
            let (p, f) = (ratio_of(p, "tokio ÷ std"), ratio_of(f, "tokio ÷ std"));
            let said = published_ratio(book).map(fmt::ratio);
            Reading {
                verdict: (v.outcome == harness_core::Outcome::Depends).then(|| {
                    "holds only with tokio's order of checks before 1.54, not with current tokio"
                        .to_string()
                }),
                number: f.or(p).map(|e| Unit::Ratio.show(e.point_ns)),
                direction: Some(format!(
                    "{} with the tasks spread over the workers, {} in the post's own benchmark; \
                     the post measured {}",
                    f.map_or("–".into(), |e| reader::faster("tokio", "std", e.point_ns)),
                    p.map_or("–".into(), |e| Unit::Ratio.show(e.point_ns)),
                    said.unwrap_or_else(|| v.claim.short.to_string())
                )),
                cores,
                ..Reading::default()
            }
        }
        "MUT-2" => {
            let rows = mut_2(run)?;
            let f = ends(&rows).1;
            let (ak, as_) = (ratio_of(f, "actor ÷ tokio"), ratio_of(f, "actor ÷ std"));
            Reading {
                number: as_.map(|e| Unit::Ratio.show(e.point_ns)),
                direction: Some(format!(
                    "the actor slower: {} std's Mutex, {} tokio's; the post said {}",
                    as_.map_or("–".into(), |e| Unit::Ratio.show(e.point_ns)),
                    ak.map_or("–".into(), |e| Unit::Ratio.show(e.point_ns)),
                    v.claim.short
                )),
                cores,
                ..Reading::default()
            }
        }
        "MUT-3" => match (
            heartbeat_of(d, Load::StdMutexSlowSection),
            heartbeat_of(d, Load::TokioMutexAcrossAwait),
        ) {
            (Ok(s), Ok(k)) => Reading {
                number: Some(fmt::ratio(
                    s.latency.p99_ns as f64 / k.latency.p99_ns.max(1) as f64,
                )),
                direction: Some(format!(
                    "an unrelated task ran {} late (p99) behind std's blocked lock, {} behind \
                     tokio's",
                    fmt::nanos(s.latency.p99_ns as f64),
                    fmt::nanos(k.latency.p99_ns as f64)
                )),
                ..Reading::default()
            },
            _ => Reading::default(),
        },
        _ => Reading::default(),
    };
    Ok(v.reads(reading))
}

/// The summary list that ends the page, and the rows of What to use.
pub(super) fn summary_list(book: &Book<Data>) -> Result<Vec<Block>> {
    let run = book.primary();
    let d = &run.data;
    let machine = reader::machine_class(&run.provenance.machine);
    let rows = mut_1(run)?;
    let (p, f) = ends(&rows);
    let (p, f) = (ratio_of(p, "tokio ÷ std"), ratio_of(f, "tokio ÷ std"));
    let show = |e: Option<Estimate>| e.map_or("–".into(), |e| Unit::Ratio.show(e.point_ns));
    let mut advice = vec![Advice {
        chapter: String::new(),
        situation: "Guard a short critical section that never crosses an `.await`".into(),
        reach_for: "std's `Mutex` (or `parking_lot`'s)".into(),
        why: "the cheaper lock, and cheaper still where threads meet at it".into(),
        evidence: format!(
            "tokio's took {} std's time with tasks spread over the workers",
            show(f)
        ),
        machine: machine.clone(),
        claim: Some("MUT-1".into()),
    }];
    if let (Ok(s), Ok(k)) = (
        heartbeat_of(d, Load::StdMutexSlowSection),
        heartbeat_of(d, Load::TokioMutexAcrossAwait),
    ) {
        advice.push(Advice {
            chapter: String::new(),
            situation: "Hold a guard across an `.await`".into(),
            reach_for: "tokio's `Mutex`".into(),
            why: "a waiting task hands its worker thread to other tasks".into(),
            evidence: format!(
                "an unrelated task's p99 lateness {} behind tokio's lock, {} behind a blocked std lock",
                fmt::nanos(k.latency.p99_ns as f64),
                fmt::nanos(s.latency.p99_ns as f64)
            ),
            machine: machine.clone(),
            claim: Some("MUT-3".into()),
        });
    }
    let mut_2 = mut_2(run)?;
    if let Some(a) = ratio_of(ends(&mut_2).1, "actor ÷ std") {
        advice.push(Advice {
            chapter: String::new(),
            situation: "Share one value between many tasks".into(),
            reach_for: "a lock, not an actor task reached over a channel".into(),
            why: "an actor pays two hand-overs between tasks per operation".into(),
            evidence: format!("the actor took {} std's time", Unit::Ratio.show(a.point_ns)),
            machine: machine.clone(),
            claim: Some("MUT-2".into()),
        });
    }
    advice.extend(picks(d, &machine));
    advice.push(Advice {
        chapter: String::new(),
        situation: "Benchmark a lock".into(),
        reach_for: "spawned tasks on several worker threads, not one `join_all`".into(),
        why: "futures joined on one thread never meet at the lock".into(),
        evidence: format!(
            "tokio ÷ std {} in one `join_all`, {} spread over the workers",
            show(p),
            show(f)
        ),
        machine,
        claim: Some("MUT-1".into()),
    });
    Ok(vec![Block::Advice(advice)])
}

/// A lock as the summary list names it: its label in a code span.
fn lock_name(v: Variant) -> String {
    format!("`{}`", v.label())
}

/// The picks between every lock measured, each computed from this run's
/// numbers: the lowest time per lock taken in the contended shape, the
/// lowest uncontended lock + unlock, and the least lateness beside waiters
/// of a lock held through a busy section.
fn picks(d: &Data, machine: &str) -> Vec<Advice> {
    let mut out = Vec::new();
    let fair = fair_workers(d);
    if let (Some(&n), Some(w)) = (locks::compared_sizes(d).first(), fair) {
        let shape = Shape::Spawned { workers: w };
        let candidates: Vec<Candidate> = LOCKS
            .iter()
            .filter_map(|&v| {
                let per = locks::per_lock(round(d, shape, v, n).ok()?).ok()?;
                Some(Candidate {
                    name: lock_name(v),
                    value: per.point_ns,
                    shown: format!("{} per lock taken", fmt::nanos(per.point_ns)),
                })
            })
            .collect();
        out.extend(pick_lowest(
            &format!(
                "Guard a short critical section that tasks on {w} worker thread{} contend for",
                super::points::plural(w)
            ),
            "time per contended lock taken",
            &candidates,
            machine,
            None,
        ));
    }
    let uncontended: Vec<Candidate> = [
        (Variant::StdMutex, None),
        (Variant::ParkingLot, None),
        (Variant::TokioMutex, Some("multi_thread")),
        (Variant::AsyncLock, Some("multi_thread")),
        (Variant::FuturesMutex, Some("multi_thread")),
    ]
    .into_iter()
    .filter_map(|(v, flavor)| {
        let p = per_op_of(d, v.name(), flavor).ok()?;
        Some(Candidate {
            name: lock_name(v),
            value: p.timing.mean.point_ns,
            shown: format!("{} per lock + unlock", fmt::nanos(p.timing.mean.point_ns)),
        })
    })
    .collect();
    out.extend(pick_lowest(
        "Take a lock that is almost never held by another task",
        "time per uncontended lock + unlock",
        &uncontended,
        machine,
        None,
    ));
    // A percentile of one run has no interval: the pick stands only when the
    // runner-up's p99 is at least MUT-3's factor above the lowest, the
    // minimum effect this chapter asks of a heartbeat comparison.
    let mut beside: Vec<(Candidate, u64)> = Load::SLOW_SECTIONS
        .into_iter()
        .filter_map(|load| {
            let h = heartbeat_of(d, load).ok()?;
            let candidate = Candidate {
                name: format!("`{}`", load.lock()?),
                value: h.latency.p99_ns as f64,
                shown: format!("p99 lateness {}", fmt::nanos(h.latency.p99_ns as f64)),
            };
            Some((candidate, h.latency.p99_ns))
        })
        .collect();
    beside.sort_by_key(|&(_, p99)| p99);
    let apart = match beside.as_slice() {
        [(_, best), (_, next), ..] => *next as f64 >= MUT_3_FACTOR * (*best).max(1) as f64,
        _ => false,
    };
    if apart {
        let candidates: Vec<Candidate> = beside.into_iter().map(|(c, _)| c).collect();
        out.extend(pick_lowest(
            "Hold a lock through slow synchronous work while other tasks share the workers",
            "harm to an unrelated task beside the waiters (its p99 lateness)",
            &candidates,
            machine,
            None,
        ));
    }
    out
}
