//! The chapter in a reader's words: the answer under the question, each
//! claim's badge (one number, which way it points) and the summary list
//! that ends the page, all printed from the results. Bytes are exact:
//! every number here is a count the probe read, not an estimate.
use anyhow::Result;
use harness_core::claims::Reading;
use harness_core::fmt::{bytes, thousands};
use harness_core::Verdict;
use harness_page::render::reader::{self, Advice};
use harness_page::{render::blocks::Block, Book};

use super::claims::SCENARIO_CLAIMS;
use super::{point, AllocData};
use alloc_probe::{Channel, ScenarioResult, GRID_CAPACITIES, GRID_SIZES};

/// Bytes at creation of a bounded tokio channel of the smallest grid
/// message at the smallest and the largest capacity.
fn creation(d: &AllocData) -> Option<(usize, (usize, u64), (usize, u64))> {
    let size = GRID_SIZES.first()?.0;
    let at = |c: usize| {
        point(d, Channel::TokioBounded, size, c)
            .ok()
            .map(|p| (c, p.footprint.created))
    };
    Some((
        size,
        at(*GRID_CAPACITIES.first()?)?,
        at(*GRID_CAPACITIES.last()?)?,
    ))
}

/// A scenario's tokio result, boxed or not.
fn scenario<'a>(d: &'a AllocData, name: &str, boxed: bool) -> Option<&'a ScenarioResult> {
    d.scenarios
        .iter()
        .find(|r| r.scenario == name && r.channel == Channel::TokioBounded && r.boxed == boxed)
}

fn per_channel(r: &ScenarioResult) -> String {
    bytes(r.per_channel().round() as u64)
}

/// The answer under the question.
pub(super) fn in_short(book: &Book<AllocData>) -> Result<Vec<Block>> {
    let run = book.primary();
    let d = &run.data;
    let mut sentences = Vec::new();
    if let Some((size, (lo_c, lo), (hi_c, hi))) = creation(d) {
        let held = if lo == hi {
            format!(
                "{} at capacity {lo_c} and at {hi_c}",
                reader::exact(&bytes(lo))
            )
        } else {
            format!(
                "{} at capacity {lo_c} and {} at {hi_c}",
                reader::exact(&bytes(lo)),
                reader::exact(&bytes(hi))
            )
        };
        sentences.push(format!(
            "Do not lower a tokio channel's bound to save memory: a bounded channel of {size}-byte \
             messages held {held} before its first send, because it allocates a whole block of \
             slots up front."
        ));
    }
    let mut held_together = std::collections::BTreeSet::new();
    let said: Vec<String> = SCENARIO_CLAIMS
        .iter()
        .filter_map(|&(_, name, target, _)| {
            let r = scenario(d, name, false)?;
            held_together.insert(r.channels);
            Some(format!(
                "{} for a {}-byte message (the post said about {})",
                reader::exact(&per_channel(r)),
                r.msg_size,
                bytes(target as u64)
            ))
        })
        .collect();
    if !said.is_empty() {
        sentences.push(format!(
            "Held {} at a time, one idle channel cost {}.",
            held_together
                .iter()
                .map(|&n| harness_core::fmt::thousands(n as u64))
                .collect::<Vec<_>>()
                .join(" or "),
            said.join(" and ")
        ));
    }
    if let (Some(plain), Some(boxed)) = (
        SCENARIO_CLAIMS
            .last()
            .and_then(|&(_, name, _, _)| scenario(d, name, false)),
        SCENARIO_CLAIMS
            .last()
            .and_then(|&(_, name, _, _)| scenario(d, name, true)),
    ) {
        sentences.push(format!(
            "Box large messages in channels you hold many of: boxing the {}-byte message brought \
             that to {} per channel.",
            plain.msg_size,
            reader::exact(&per_channel(boxed))
        ));
    }
    Ok(vec![Block::Text(reader::answer(
        book.chapter,
        &sentences,
        &run.provenance.machine,
        Some(&format!(
            "Slot counts and padding depend on the pointer width ({}-bit here) and the \
             architecture's cache line; the post measured a {}.",
            d.pointer_width,
            harness_page::render::escape(
                &book
                    .published("tokio-grid")
                    .map(|p| p.source.machine)
                    .unwrap_or_else(|_| "machine it does not name".into())
            )
        )),
    ))])
}

/// Each claim's badge: one number and which way it points.
pub(super) fn read(d: &AllocData, v: Verdict) -> Verdict {
    let reading = match v.claim.id {
        "ALLOC-1" => creation(d).map(|(size, (lo_c, lo), (hi_c, hi))| Reading {
            number: Some(bytes(lo)),
            direction: Some(format!(
                "{size}-byte messages: {} at capacity {lo_c}, {} at {hi_c}",
                bytes(lo),
                bytes(hi)
            )),
            ..Reading::default()
        }),
        id => SCENARIO_CLAIMS
            .iter()
            .find(|s| s.0 == id)
            .and_then(|&(_, name, target, _)| {
                let r = scenario(d, name, false)?;
                Some(Reading {
                    number: Some(per_channel(r)),
                    direction: Some(format!(
                        "{} per channel over {}; the post said about {}",
                        per_channel(r),
                        thousands(r.channels as u64),
                        bytes(target as u64)
                    )),
                    ..Reading::default()
                })
            }),
    };
    match reading {
        Some(r) => v.reads(r),
        None => v,
    }
}

/// The summary list that ends the page, and the rows of What to use.
pub(super) fn summary_list(book: &Book<AllocData>) -> Result<Vec<Block>> {
    let run = book.primary();
    let d = &run.data;
    let machine = reader::machine_class(&run.provenance.machine);
    let mut advice = Vec::new();
    if let Some((size, (lo_c, lo), (hi_c, _))) = creation(d) {
        advice.push(Advice {
            chapter: String::new(),
            situation: "Hold thousands of idle tokio channels".into(),
            reach_for: "a smaller message type, not a smaller bound".into(),
            why: "the bound sizes a semaphore; the first block of slots is allocated anyway".into(),
            evidence: format!(
                "{} at creation for {size}-byte messages, at capacity {lo_c} as at {hi_c}",
                bytes(lo)
            ),
            machine: machine.clone(),
            claim: Some("ALLOC-1".into()),
        });
    }
    if let Some(&(id, name, _, _)) = SCENARIO_CLAIMS.last() {
        if let (Some(plain), Some(boxed)) = (scenario(d, name, false), scenario(d, name, true)) {
            advice.push(Advice {
                chapter: String::new(),
                situation: "Send large messages through channels you hold many of".into(),
                reach_for: "`Box` the message".into(),
                why: "every slot of the first block becomes a pointer".into(),
                evidence: format!(
                    "{} per channel boxed, {} unboxed, for {}-byte messages",
                    per_channel(boxed),
                    per_channel(plain),
                    plain.msg_size
                ),
                machine,
                claim: Some(id.into()),
            });
        }
    }
    Ok(vec![Block::Advice(advice)])
}
