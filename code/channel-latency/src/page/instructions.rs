//! Instructions per message, counted by callgrind, beside the time ratios:
//! how much more work tokio does per message, and how much more time.
use anyhow::Result;
use harness_core::Unit;
use harness_measure::PerOp;
use harness_page::{render::blocks::Block, render::blocks::Cell, render::blocks::Table, Book};

use super::other_ways::{OtherWays, Source};
use super::{machine_of, Data, Reads};
use channel_latency::counted::{case, CASES};
use channel_latency::{Carry, Variant, BURST};

/// Instruction counts, read from a run's data.
pub(super) trait Instructions {
    fn per_message(&self, channel: &str, carry: &str, bytes: usize) -> Option<f64>;
    fn instruction_ratio(&self, carry: &str, bytes: usize) -> Option<f64>;
}

impl Instructions for Data {
    /// Instructions per message of the case with this channel, carry and size.
    fn per_message(&self, channel: &str, carry: &str, bytes: usize) -> Option<f64> {
        self.instructions
            .iter()
            .find(|c: &&PerOp| {
                case(&c.name)
                    .is_some_and(|k| k.channel == channel && k.carry == carry && k.bytes == bytes)
            })
            .map(|c| c.per_op / BURST as f64)
    }

    /// tokio's instructions per message over crossbeam's, when both were counted.
    fn instruction_ratio(&self, carry: &str, bytes: usize) -> Option<f64> {
        Some(
            self.per_message("tokio", carry, bytes)?
                / self.per_message("crossbeam", carry, bytes)?,
        )
    }
}

pub(super) fn table(book: &Book<Data>) -> Result<Vec<Block>> {
    let run = book.primary();
    let d = &run.data;
    if d.instructions.is_empty() {
        return Ok(vec![Block::not_in_run(
            "channel-latency",
            &machine_of(run),
            "Instruction counts",
        )]);
    }
    let mut t = Table::new(
        format!(
            "Instructions per message (one send and one receive) on {}, counted by Valgrind's callgrind over whole bursts of {BURST}: tokio in one task on a current-thread runtime, crossbeam on the calling thread. A count is the same on every run of one binary. Beside it, the time ratios of this run: head to head for [u8; N], each channel timed alone for the boxed payload, and the step of the ladder that times each burst alone on a current-thread runtime.",
            machine_of(run)
        ),
        &[
            "payload",
            "carried",
            "tokio instructions",
            "crossbeam instructions",
            "instructions tokio/crossbeam",
            "time tokio/crossbeam",
            "time, current-thread, each burst alone",
        ],
    )
    .left(&[1]);
    let mut pairs: Vec<(&str, usize)> = Vec::new();
    for c in CASES {
        if !pairs.contains(&(c.carry, c.bytes)) {
            pairs.push((c.carry, c.bytes));
        }
    }
    for (carry, bytes) in pairs {
        let (Some(tokio), Some(crossbeam)) = (
            d.per_message("tokio", carry, bytes),
            d.per_message("crossbeam", carry, bytes),
        ) else {
            continue;
        };
        let time = if carry == "array" {
            d.ratio_by(
                Source::HeadToHead(harness_measure::stats::Statistic::Median),
                bytes,
            )?
        } else {
            Some(d.alone_ratio(Carry::Boxed, bytes)?)
        };
        let per_burst = if carry == "array" {
            d.ratio_by(Source::Method("per-burst-current"), bytes)?
        } else {
            None
        };
        t.push(vec![
            Cell::size(bytes as u64),
            Cell::from(if carry == "array" {
                "[u8; N]"
            } else {
                "Box<[u8; N]>"
            }),
            Cell::Number(tokio, Unit::Plain),
            Cell::Number(crossbeam, Unit::Plain),
            Cell::ratio(tokio / crossbeam),
            time.map_or(Cell::from("–"), |r| Cell::times(&r)),
            per_burst.map_or(Cell::from("–"), |r| Cell::times(&r)),
        ]);
    }
    let mut blocks = vec![Block::Table(t)];
    blocks.extend(compared(run)?);
    Ok(blocks)
}

/// The channels readers choose between, counted at the sizes they were:
/// instructions per message and their ratio to crossbeam's, beside the
/// time ratio of the sweep (each channel timed alone, medians).
fn compared(run: &harness_page::Run<Data>) -> Result<Option<Block>> {
    let d = &run.data;
    let channels = [
        Variant::Crossbeam,
        Variant::TokioMpsc,
        Variant::FlumeSync,
        Variant::FlumeAsync,
        Variant::AsyncChannel,
    ];
    let mut sizes: Vec<usize> = Vec::new();
    for c in CASES.iter().filter(|c| c.carry == "array") {
        let counted = Variant::COMPARED
            .iter()
            .any(|v| v.id() == c.channel && d.per_message(c.channel, "array", c.bytes).is_some());
        if counted && !sizes.contains(&c.bytes) {
            sizes.push(c.bytes);
        }
    }
    if sizes.is_empty() {
        return Ok(None);
    }
    let mut t = Table::new(
        format!(
            "Instructions per message of the channels readers choose between, [u8; N], counted like the table above on {}: sync ends on the calling thread, async ends in one task on a current-thread runtime. Beside each count, its ratio to crossbeam's, and the ratio of the sweep's median times (each channel timed alone).",
            machine_of(run)
        ),
        &[
            "payload",
            "channel",
            "instructions",
            "instructions / crossbeam",
            "time / crossbeam",
        ],
    )
    .left(&[1]);
    for bytes in sizes {
        let Some(base) = d.per_message("crossbeam", "array", bytes) else {
            continue;
        };
        for v in channels {
            let Some(n) = d.per_message(v.id(), "array", bytes) else {
                continue;
            };
            // Crossbeam's row is the base: no ratio of it to itself.
            let time = match (
                d.point(v, Carry::Array, bytes),
                d.point(Variant::Crossbeam, Carry::Array, bytes),
            ) {
                (Ok(p), Ok(c)) if v != Variant::Crossbeam => Some(harness_measure::stats::ratio(
                    &p.timing,
                    &c.timing,
                    harness_measure::stats::Statistic::Median,
                )),
                _ => None,
            };
            t.push(vec![
                Cell::size(bytes as u64),
                Cell::from(v.label()),
                Cell::Number(n, Unit::Plain),
                Cell::ratio(n / base),
                time.map_or(Cell::from("–"), |r| Cell::times(&r)),
            ]);
        }
    }
    Ok(Some(Block::Table(t)))
}
