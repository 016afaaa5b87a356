//! The chapter in a reader's words: the answer under the question, each
//! claim's badge (plain verdict, one number, which way it points) and the
//! summary list that ends the page, all printed from the results.
use anyhow::Result;
use harness_core::claims::Reading;
use harness_core::{Estimate, Unit, Verdict};
use harness_page::render::reader::{self, Advice};
use harness_page::{render::blocks::Block, Book, Run};

use super::estimates::{self, FAIR};
use super::shared::{published, PublishedRow};
use fan_in::run::FanInData;

fn show(e: &Estimate) -> String {
    Unit::Ratio.show(e.point_ns)
}

/// The published row with the most workers: the post's widest comparison.
fn published_top(book: &Book<FanInData>) -> Option<PublishedRow> {
    let (rows, _) = published(book).ok()?;
    rows.into_iter().max_by_key(|r| r.workers)
}

/// tokio swap ÷ std swap in the post's own numbers, geometric mean over
/// its worker counts (as FAN-3 reads the book's).
fn published_geo(book: &Book<FanInData>) -> Option<f64> {
    let (rows, _) = published(book).ok()?;
    if rows.is_empty() {
        return None;
    }
    let logs: f64 = rows
        .iter()
        .map(|r| (r.tokio_mutex_us / r.std_mutex_us).ln())
        .sum();
    Some((logs / rows.len() as f64).exp())
}

/// The machine the post ran on, as its dataset states it.
fn posts_machine(book: &Book<FanInData>) -> String {
    book.published("burst")
        .map(|d| d.source.machine)
        .unwrap_or_else(|_| "a machine it does not name".into())
}

fn plural(n: usize) -> &'static str {
    if n == 1 {
        ""
    } else {
        "s"
    }
}

/// The answer under the question.
pub(super) fn in_short(book: &Book<FanInData>) -> Result<Vec<Block>> {
    let run = book.primary();
    let d = &run.data;
    let top = d.largest();
    let a = &run.analysis;
    let mut sentences = Vec::new();
    let gap_name = estimates::gap_at_top(FAIR, top);
    if let Ok(gap) = a.estimate(&gap_name) {
        let mut s = format!(
            "With thousands of producers, reach for a `Vec` behind std's `Mutex` that the \
             consumer swaps out: a tokio mpsc inbox took {} its time at {} workers",
            reader::number(&gap_name, &gap, Unit::Ratio),
            harness_core::fmt::thousands(top as u64)
        );
        if let Some(p) = published_top(book) {
            s.push_str(&format!(
                " (the post: {})",
                harness_core::fmt::ratio(p.tokio_mpsc_us / p.std_mutex_us)
            ));
        }
        s.push('.');
        sentences.push(s);
    }
    let share_name = estimates::fan_4_share(FAIR, top);
    if let Ok(share) = a.estimate(&share_name) {
        sentences.push(format!(
            "The socket decides: an mpsc consumer that writes once per batch (`recv_many`) \
             closes {} of that gap, so batch your writes.",
            reader::number(&share_name, &share, Unit::Share)
        ));
    }
    let geo_name = estimates::fan_3(FAIR);
    if let Ok(geo) = a.estimate(&geo_name) {
        let mut s = format!(
            "Keep tokio's `Mutex` out of the swap: {} std's time here",
            reader::number(&geo_name, &geo, Unit::Ratio)
        );
        if let Some(g) = published_geo(book) {
            s.push_str(&format!(
                ", {} in the post's numbers, where it said about {}",
                harness_core::fmt::ratio(g),
                harness_core::fmt::ratio(super::claims::FAN3_CLAIMED)
            ));
        }
        s.push('.');
        sentences.push(s);
    }
    let note = reader::cores_note(&run.provenance.machine, &posts_machine(book));
    Ok(vec![Block::Text(reader::answer(
        book.chapter,
        &sentences,
        &run.provenance.machine,
        Some(&note),
    ))])
}

/// Each claim's badge in plain words, with one number and which way it points.
pub(super) fn read(book: &Book<FanInData>, run: &Run<FanInData>, v: Verdict) -> Verdict {
    let d = &run.data;
    let a = &run.analysis;
    let top = d.largest();
    let first = d.workers.first().copied().unwrap_or(1);
    let said = published_top(book);
    let cores = Some(reader::cores_note(
        &run.provenance.machine,
        &posts_machine(book),
    ));
    let reading = match v.claim.id {
        "FAN-1" => a
            .estimate(&estimates::fan_1(FAIR, first))
            .ok()
            .map(|r| Reading {
                number: Some(show(&r)),
                direction: Some(format!(
                    "at {first} worker{}: {}; the post said the swap is slower",
                    plural(first),
                    reader::faster("the swap", "mpsc", r.point_ns)
                )),
                cores: cores.clone(),
                ..Reading::default()
            }),
        "FAN-2" => a
            .estimate(&estimates::gap_at_top(FAIR, top))
            .ok()
            .map(|r| Reading {
                number: Some(show(&r)),
                direction: Some(format!(
                    "at {} workers: {}{}",
                    harness_core::fmt::thousands(top as u64),
                    reader::faster("mpsc", "the swap", r.point_ns),
                    said.as_ref().map_or(String::new(), |p| format!(
                        "; the post measured {} at {} workers",
                        harness_core::fmt::ratio(p.tokio_mpsc_us / p.std_mutex_us),
                        harness_core::fmt::thousands(p.workers as u64)
                    ))
                )),
                verdict: (v.outcome == harness_core::Outcome::Depends)
                    .then(|| "holds in every way measured but one".to_string()),
                cores: cores.clone(),
                ..Reading::default()
            }),
        "FAN-3" => a.estimate(&estimates::fan_3(FAIR)).ok().map(|geo| Reading {
            number: Some(show(&geo)),
            direction: Some(format!(
                "{} (geometric mean); the post said about {}",
                reader::faster("tokio's swap", "std's", geo.point_ns),
                harness_core::fmt::ratio(super::claims::FAN3_CLAIMED)
            )),
            ..Reading::default()
        }),
        "FAN-4" => a
            .estimate(&estimates::fan_4_share(FAIR, top))
            .ok()
            .map(|share| {
                Reading {
            number: Some(Unit::Share.show(share.point_ns)),
            direction: Some(format!(
                "batching the writes (`recv_many`) removes {} of mpsc's gap to the swap",
                Unit::Share.show(share.point_ns)
            )),
            question: Some(
                "with a socket behind the consumer, is batching the writes why the swap wins?"
                    .into(),
            ),
            differs: Some(
                "The Mutex swap chapter asks the same claim of the lock alone, with no socket: \
                 there a pass is quick and finds fewer messages; here each pass waits on a write \
                 to the socket, messages pile up meanwhile, and writing them in one call is what \
                 wins."
                    .into(),
            ),
            cores: cores.clone(),
            ..Reading::default()
        }
            }),
        _ => None,
    };
    match reading {
        Some(r) => v.reads(r),
        None => v,
    }
}

/// The summary list that ends the page, and the rows of What to use.
pub(super) fn summary_list(book: &Book<FanInData>) -> Result<Vec<Block>> {
    let run = book.primary();
    let d = &run.data;
    let top = d.largest();
    let a = &run.analysis;
    let machine = reader::machine_class(&run.provenance.machine);
    let mut advice = Vec::new();
    if let Ok(share) = a.estimate(&estimates::fan_4_share(FAIR, top)) {
        advice.push(Advice {
            chapter: String::new(),
            situation: "Forward many producers' messages to one socket".into(),
            reach_for: "one write per drained batch (`recv_many`, or a swapped `Vec`)".into(),
            why: "the system call per message is the bill, not the channel".into(),
            evidence: format!(
                "batching the writes removes {} of mpsc's gap to the swap",
                Unit::Share.show(share.point_ns)
            ),
            machine: machine.clone(),
            claim: Some("FAN-4".into()),
        });
    }
    if let Ok(gap) = a.estimate(&estimates::gap_at_top(FAIR, top)) {
        advice.push(Advice {
            chapter: String::new(),
            situation: "Thousands of producers feed one consumer, and a channel is the first idea".into(),
            reach_for: "a `Vec` behind std's `Mutex`, swapped out by the consumer, rather than an mpsc channel".into(),
            why: "producers push without waking the consumer per message".into(),
            evidence: format!(
                "mpsc took {} the swap's time at {} workers",
                show(&gap),
                harness_core::fmt::thousands(top as u64)
            ),
            machine: machine.clone(),
            claim: Some("FAN-2".into()),
        });
    }
    advice.extend(super::crates::picks(d, &machine));
    if let Ok(geo) = a.estimate(&estimates::fan_3(FAIR)) {
        advice.push(Advice {
            chapter: String::new(),
            situation: "Guard a buffer that is only pushed to or swapped".into(),
            reach_for: "std's `Mutex`, not tokio's".into(),
            why: "the guard never crosses an `.await`, so tokio's lock only adds hand-overs".into(),
            evidence: format!("tokio's took {} std's time", show(&geo)),
            machine,
            claim: Some("FAN-3".into()),
        });
    }
    Ok(vec![Block::Advice(advice)])
}
