//! The chapter in a reader's words: the answer under the question, each
//! claim's badge (plain verdict, one number, which way it points) and the
//! summary list that ends the page, all printed from the results.
use anyhow::Result;
use harness_core::claims::Reading;
use harness_core::{Estimate, Unit, Verdict};
use harness_page::render::escape;
use harness_page::render::reader::{self, pick_lowest, Advice, Candidate};
use harness_page::{render::blocks::Block, Book, Run};
use serde::Deserialize;

use super::claims::step_ratio_name;
use super::queue_ladder::{fair_step, settings};
use super::{headline_name, size_label, Data, Reads};
use channel_latency::{Carry, Variant, BURST, PAYLOAD_SIZES, TASKS};

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

/// The headline estimate at `bytes` and its name, as the run was judged.
fn sweep_at(run: &Run<Data>, bytes: usize) -> Option<(String, Estimate)> {
    let name = headline_name(bytes);
    let r = run.analysis.estimate(&name).ok()?;
    Some((name, r))
}

/// tokio ÷ kanal under back-pressure in the fair experiment, at the
/// setting where tokio comes nearest to kanal and the one where it is
/// furthest: (label, ratio) of each.
fn back_pressure(run: &Run<Data>) -> Option<((String, Estimate), (String, Estimate))> {
    let fair = fair_step();
    let all: Vec<(String, Estimate)> = settings()
        .filter_map(|(t, b)| {
            let r = run.analysis.estimate(&step_ratio_name(fair, t, b)).ok()?;
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
    let mut sentences = Vec::new();
    let (small, large) = (PAYLOAD_SIZES[0], PAYLOAD_SIZES[PAYLOAD_SIZES.len() - 1]);
    if let (Some((n_small, r_small)), Some((n_large, r_large))) =
        (sweep_at(run, small), sweep_at(run, large))
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
                harness_core::fmt::ratio(p_small),
                harness_core::fmt::ratio(p_large)
            ));
        }
        s.push('.');
        sentences.push(s);
    }
    if let Some(((low_at, low), (high_at, high))) = back_pressure(run) {
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
    let at = |bytes: usize| sweep_at(run, bytes).map(|(_, e)| e);
    let ratio_words = |bytes: usize, e: &Estimate| {
        let mut s = format!(
            "{} at {}",
            reader::faster("tokio", "crossbeam", e.point_ns),
            size_label(bytes)
        );
        if let Some(p) = published_ratio(book, bytes) {
            s.push_str(&format!(
                "; the post measured {} on x86-64",
                harness_core::fmt::ratio(p)
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
        "LAT-5" | "LAT-6" => back_pressure(run).map(|((low_at, low), (high_at, high))| Reading {
            verdict: (v.claim.id == "LAT-5" && v.outcome == harness_core::Outcome::Depends).then(|| {
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
    if let Some((_, r)) = sweep_at(run, small) {
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
    if let Some((_, r)) = sweep_at(run, large) {
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
    advice.extend(picks(d, &machine));
    if let Some(((low_at, low), _)) = back_pressure(run) {
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

/// The channels a pick chooses between: the sync ends, or the async ones.
const SYNC_ENDS: [Variant; 4] = [
    Variant::Crossbeam,
    Variant::KanalSync,
    Variant::StdSyncChannel,
    Variant::FlumeSync,
];
const ASYNC_ENDS: [Variant; 4] = [
    Variant::TokioMpsc,
    Variant::KanalAsync,
    Variant::FlumeAsync,
    Variant::AsyncChannel,
];

/// Each channel of `among` measured at `bytes` by value: its median time
/// per message (a burst's over its messages) from the sweep.
fn per_message(d: &Data, among: &[Variant], bytes: usize) -> Vec<Candidate> {
    among
        .iter()
        .filter_map(|&v| {
            let ns = d.median(v, Carry::Array, bytes).ok()?.point_ns / BURST as f64;
            Some(Candidate {
                name: escape(v.label()),
                value: ns,
                shown: format!("{} per message", harness_core::fmt::nanos(ns)),
            })
        })
        .collect()
}

/// Each experiment B channel's time per message through the channel (the
/// run's wall time over its messages), geometric mean over every tasks x
/// bound setting, when it ran at all of them; and whether one channel was
/// the fastest at every setting (else the data supports no pick).
fn under_back_pressure(d: &Data) -> Option<Vec<Candidate>> {
    let channels = d.bp_channels();
    let mut per_setting: Vec<Vec<f64>> = Vec::new();
    for tasks in TASKS {
        for bound in channel_latency::BOUNDS {
            let row = channels
                .iter()
                .map(|c| {
                    let r = d.bp(c, tasks, bound).ok()?;
                    Some(r.wall_ns as f64 / r.received as f64)
                })
                .collect::<Option<Vec<f64>>>()?;
            per_setting.push(row);
        }
    }
    let fastest = |row: &Vec<f64>| (0..row.len()).min_by(|&a, &b| row[a].total_cmp(&row[b]));
    let first = fastest(per_setting.first()?)?;
    if per_setting.iter().any(|row| fastest(row) != Some(first)) {
        return None;
    }
    Some(
        channels
            .iter()
            .enumerate()
            .map(|(i, c)| {
                let logs: f64 = per_setting.iter().map(|row| row[i].ln()).sum();
                let ns = (logs / per_setting.len() as f64).exp();
                Candidate {
                    name: escape(Variant::from_id(c).map_or(c, |v| v.label())),
                    value: ns,
                    shown: format!("{} per message", harness_core::fmt::nanos(ns)),
                }
            })
            .collect(),
    )
}

/// What to use, picked from this run's numbers: the lowest time per
/// message at the smallest and the largest payload, among the sync ends and
/// among the async ones, and under back-pressure when one channel was the
/// fastest at every setting. Comparisons, not published claims: no claim.
pub(super) fn picks(d: &Data, machine: &str) -> Vec<Advice> {
    let (small, large) = (PAYLOAD_SIZES[0], PAYLOAD_SIZES[PAYLOAD_SIZES.len() - 1]);
    let mut out = Vec::new();
    for (bytes, what) in [(small, "tiny"), (large, "large")] {
        let size = size_label(bytes);
        for (among, ends) in [
            (&ASYNC_ENDS, "with an async end (`.await` on either side)"),
            (&SYNC_ENDS, "between threads with no async code"),
        ] {
            let situation = format!("A channel {ends}, {what} messages ({size} by value)");
            let measure = format!("time per message at {size}");
            out.extend(pick_lowest(
                &situation,
                &measure,
                &per_message(d, among, bytes),
                machine,
                None,
            ));
        }
    }
    if let Some(candidates) = under_back_pressure(d) {
        out.extend(pick_lowest(
            "Many producer tasks push against a full async channel",
            "time per message under back-pressure (geometric mean over the settings; the fastest at every one)",
            &candidates,
            machine,
            None,
        ));
    }
    out
}
