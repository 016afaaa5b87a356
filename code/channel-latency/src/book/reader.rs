//! The chapter in a reader's words: the answer under the question, each
//! claim's badge (plain verdict, one number, which way it points) and the
//! summary list that ends the page, all printed from the results.
use anyhow::Result;
use harness::claims::Reading;
use harness::render::reader::{self, Advice};
use harness::{Block, Book, Estimate, Run, Unit, Verdict};
use serde::Deserialize;

use super::queue_ladder::{fair_step, settings};
use super::{size_label, Data};
use crate::PAYLOAD_SIZES;

/// A row of the published payload sweep (microseconds per iteration).
#[derive(Deserialize)]
struct PublishedRow {
    payload_bytes: usize,
    tokio_x86_64_us: f64,
    crossbeam_x86_64_us: f64,
}

/// The post's tokio ÷ crossbeam on x86-64 at `bytes`.
fn published_ratio(book: &Book<Data>, bytes: usize) -> Option<f64> {
    let rows: Vec<PublishedRow> = book.published("payload").ok()?.rows().ok()?;
    let r = rows.iter().find(|r| r.payload_bytes == bytes)?;
    Some(r.tokio_x86_64_us / r.crossbeam_x86_64_us)
}

fn published_machine(book: &Book<Data>, name: &str) -> String {
    book.published(name)
        .map(|d| d.source.machine)
        .unwrap_or_else(|_| "a machine it does not name".into())
}

/// The headline estimate at `bytes` and its name (`super::headline`).
fn sweep_at(d: &Data, bytes: usize) -> Option<(String, Estimate)> {
    let r = d.tokio_over_crossbeam(bytes).ok()?;
    Some((
        format!("tokio mpsc ÷ crossbeam-channel, {}", size_label(bytes)),
        r,
    ))
}

/// tokio ÷ kanal under back-pressure in the fair experiment, at the
/// setting where tokio comes nearest to kanal and the one where it is
/// furthest: (label, ratio) of each.
fn back_pressure(d: &Data) -> Option<((String, Estimate), (String, Estimate))> {
    let fair = fair_step();
    let all: Vec<(String, Estimate)> = settings()
        .filter_map(|(t, b)| {
            let r = d.step_ratio(fair, t, b).ok()??;
            Some((format!("{t} tasks and a bound of {b}"), r))
        })
        .collect();
    let low = all
        .iter()
        .min_by(|a, b| a.1.point_ns.total_cmp(&b.1.point_ns))?
        .clone();
    let high = all
        .iter()
        .max_by(|a, b| a.1.point_ns.total_cmp(&b.1.point_ns))?
        .clone();
    Some((low, high))
}

/// The answer under the question.
pub(super) fn in_short(book: &Book<Data>) -> Result<Vec<Block>> {
    let run = book.primary();
    let d = &run.data;
    let mut sentences = Vec::new();
    let (small, large) = (PAYLOAD_SIZES[0], PAYLOAD_SIZES[PAYLOAD_SIZES.len() - 1]);
    if let (Some((n_small, r_small)), Some((n_large, r_large))) =
        (sweep_at(d, small), sweep_at(d, large))
    {
        let mut s = format!(
            "An async channel's cost is per message, so batch tiny messages: tokio's mpsc took {} \
             crossbeam-channel's time at {} and {} at {}",
            reader::number(&n_small, &r_small, Unit::Ratio),
            size_label(small),
            reader::number(&n_large, &r_large, Unit::Ratio),
            size_label(large)
        );
        if let (Some(p_small), Some(p_large)) =
            (published_ratio(book, small), published_ratio(book, large))
        {
            s.push_str(&format!(
                "; the post measured {} and {} on its x86-64 desktop",
                harness::fmt::ratio(p_small),
                harness::fmt::ratio(p_large)
            ));
        }
        s.push('.');
        sentences.push(s);
    }
    if let Some(((low_at, low), (high_at, high))) = back_pressure(d) {
        sentences.push(format!(
            "Under back-pressure, tokio's latency was {} kanal's with {low_at} and {} with \
             {high_at}.",
            Unit::Ratio.show(low.point_ns),
            Unit::Ratio.show(high.point_ns)
        ));
    }
    let note = format!(
        "Ratios move between machines, and back-pressure depends on the core count; {}; {}.",
        reader::posts_machine("the payload post", &published_machine(book, "payload")),
        reader::posts_machine(
            "the back-pressure post",
            &published_machine(book, "backpressure")
        )
    );
    Ok(vec![Block::Text(reader::answer(
        book.chapter,
        &sentences,
        &run.provenance.machine,
        Some(&note),
    ))])
}

/// Each claim's badge: one number and which way it points.
pub(super) fn read(book: &Book<Data>, run: &Run<Data>, v: Verdict) -> Verdict {
    let d = &run.data;
    let at = |bytes: usize| sweep_at(d, bytes).map(|(_, e)| e);
    let ratio_words = |bytes: usize, e: &Estimate| {
        let mut s = format!(
            "{} at {}",
            reader::faster("tokio", "crossbeam", e.point_ns),
            size_label(bytes)
        );
        if let Some(p) = published_ratio(book, bytes) {
            s.push_str(&format!(
                "; the post measured {} on x86-64",
                harness::fmt::ratio(p)
            ));
        }
        s
    };
    let reading = match v.claim.id {
        "LAT-1" => at(1024).map(|e| (1024, e)),
        "LAT-2" => at(PAYLOAD_SIZES[0]).map(|e| (PAYLOAD_SIZES[0], e)),
        "LAT-3" | "LAT-4" => at(32768).map(|e| (32768, e)),
        _ => None,
    }
    .map(|(bytes, e)| Reading {
        number: Some(Unit::Ratio.show(e.point_ns)),
        direction: Some(ratio_words(bytes, &e)),
        ..Reading::default()
    })
    .or_else(|| match v.claim.id {
        "LAT-5" | "LAT-6" => back_pressure(d).map(|((low_at, low), (high_at, high))| Reading {
            verdict: (v.claim.id == "LAT-5" && v.outcome == harness::Outcome::Depends).then(|| {
                "holds for the typical message in most settings, not for the slowest one in a hundred".to_string()
            }),
            number: (v.claim.id == "LAT-5").then(|| Unit::Ratio.show(low.point_ns)),
            direction: Some(format!(
                "tokio's latency {} kanal's with {low_at}, {} with {high_at}",
                Unit::Ratio.show(low.point_ns),
                Unit::Ratio.show(high.point_ns)
            )),
            cores: Some(reader::cores_note(
                &run.provenance.machine,
                &published_machine(book, "backpressure"),
            )),
            ..Reading::default()
        }),
        _ => None,
    });
    match reading {
        Some(r) => v.reads(r),
        None => v,
    }
}

/// The summary list that ends the page, and the rows of What to use.
pub(super) fn summary_list(book: &Book<Data>) -> Result<Vec<Block>> {
    let run = book.primary();
    let d = &run.data;
    let machine = reader::machine_class(&run.provenance.machine);
    let mut advice = Vec::new();
    let small = PAYLOAD_SIZES[0];
    if let Some((_, r)) = sweep_at(d, small) {
        advice.push(Advice {
            chapter: String::new(),
            situation: "Send many tiny messages through an async channel".into(),
            reach_for: "batches (a `Vec` per message)".into(),
            why: "the channel's cost is per message, not per byte".into(),
            evidence: format!(
                "tokio took {} crossbeam's time per {} message",
                Unit::Ratio.show(r.point_ns),
                size_label(small)
            ),
            machine: machine.clone(),
            claim: Some("LAT-2".into()),
        });
    }
    let large = PAYLOAD_SIZES[PAYLOAD_SIZES.len() - 1];
    if let Some((_, r)) = sweep_at(d, large) {
        advice.push(Advice {
            chapter: String::new(),
            situation: "Pass two threads data with no async code at either end".into(),
            reach_for: "a synchronous channel (crossbeam-channel, std's `sync_channel`)".into(),
            why: "it pays no waker or scheduler costs".into(),
            evidence: format!(
                "tokio took {} crossbeam's time even at {}",
                Unit::Ratio.show(r.point_ns),
                size_label(large)
            ),
            machine: machine.clone(),
            claim: Some("LAT-3".into()),
        });
    }
    if let Some(((low_at, low), _)) = back_pressure(d) {
        advice.push(Advice {
            chapter: String::new(),
            situation: "Producers push hard against a full async channel".into(),
            reach_for: "measure kanal beside tokio on your own core count".into(),
            why: "the ranking under back-pressure depends on the cores".into(),
            evidence: format!(
                "tokio's latency {} kanal's with {low_at}",
                Unit::Ratio.show(low.point_ns)
            ),
            machine,
            claim: Some("LAT-5".into()),
        });
    }
    Ok(vec![Block::Advice(advice)])
}
