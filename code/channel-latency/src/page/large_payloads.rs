//! Why the ratio at the largest payloads moves from run to run: a burst
//! there streams about as much data as the machine's largest cache holds,
//! so its time depends on how much of that cache and of the memory bus the
//! rest of the machine leaves it. The table puts the working set beside the
//! memcpy floor's speed, the time ratios and the instruction ratio.
use anyhow::Result;
use harness_core::Unit;
use harness_measure::stats::Statistic;
use harness_page::{render::blocks::Block, render::blocks::Cell, render::blocks::Table, Book};

use super::instructions::Instructions;
use super::other_ways::{OtherWays, Source};
use super::{machine_of, size_label, Data, Reads};
use channel_latency::{Carry, BURST, PAYLOAD_SIZES};

pub(super) fn table(book: &Book<Data>) -> Result<Vec<Block>> {
    let run = book.primary();
    let d = &run.data;
    let cache = d.methods_setup.as_ref().and_then(|s| s.cache_bytes);
    let mut t = Table::new(
        format!(
            "What one burst of [u8; N] moves, on {}: the bytes in the channel when the burst turns from sending to receiving (the working set), whether that fits in the machine's largest cache ({}), how fast the memcpy floor copied that many bytes (bytes per nanosecond, i.e. GB/s), the tokio/crossbeam ratios of time (head to head, and boxed with each channel timed alone) and of instructions where callgrind counted them.",
            machine_of(run),
            cache.map_or("size not known on this machine".to_string(), |c| size_label(c as usize))
        ),
        &[
            "payload",
            "working set",
            "fits in the largest cache",
            "memcpy floor, bytes/ns",
            "time tokio/crossbeam [u8; N]",
            "time tokio/crossbeam Box",
            "instructions tokio/crossbeam",
        ],
    )
    .left(&[2]);
    for bytes in PAYLOAD_SIZES {
        let set = (BURST * bytes) as u64;
        let floor = d.memcpy(bytes)?.median.point_ns;
        t.push(vec![
            Cell::size(bytes as u64),
            Cell::size(set),
            Cell::from(match cache {
                Some(c) if set < c => "yes",
                Some(_) => "no",
                None => "–",
            }),
            Cell::Number(set as f64 / floor, Unit::Plain),
            match d.ratio_by(Source::HeadToHead(Statistic::Median), bytes)? {
                Some(r) => Cell::times(&r),
                None => Cell::from("–"),
            },
            Cell::times(&d.alone_ratio(Carry::Boxed, bytes)?),
            d.instruction_ratio("array", bytes)
                .map_or(Cell::from("–"), Cell::ratio),
        ]);
    }
    Ok(vec![Block::Table(t)])
}
