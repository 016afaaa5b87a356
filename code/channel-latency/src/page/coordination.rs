//! Copying or coordinating: the same bursts by value and boxed, and how often
//! the runtime had to poll one burst.
use std::collections::BTreeSet;

use anyhow::Result;
use harness_core::fmt::thousands;
use harness_core::Unit;
use harness_page::{render::blocks::Block, render::blocks::Cell, render::blocks::Table, Book, Run};

use super::{machine_of, runtime_a, Data, Reads};
use channel_latency::{Carry, Variant, BURST, PAYLOAD_SIZES};

pub(super) fn copy_vs_coordination(book: &Book<Data>) -> Result<Vec<Block>> {
    let run = book.primary();
    let d = &run.data;
    let mut t = Table::new(
        format!(
            "The same bursts with the payload by value ([u8; N]) and boxed (Box<[u8; N]>, only a pointer moves), median per burst with each channel timed alone by the sweep, and the ratios of those medians, on {}. {}. The last column is the share of tokio's by-value time that a plain Vec burst also spends (building, storing and reading the messages).",
            machine_of(run),
            runtime_a(d)
        ),
        &[
            "payload",
            "tokio [u8; N]",
            "tokio Box",
            "crossbeam [u8; N]",
            "crossbeam Box",
            "tokio/crossbeam [u8; N]",
            "tokio/crossbeam Box",
            "Vec floor [u8; N]",
            "floor / tokio",
        ],
    );
    for bytes in PAYLOAD_SIZES {
        let median = |v: Variant, c: Carry| d.median(v, c, bytes).map(|e| e.point_ns);
        let tokio_array = median(Variant::TokioMpsc, Carry::Array)?;
        let floor = median(Variant::VecFloor, Carry::Array)?;
        t.push(vec![
            Cell::size(bytes as u64),
            Cell::nanos(tokio_array),
            Cell::nanos(median(Variant::TokioMpsc, Carry::Boxed)?),
            Cell::nanos(median(Variant::Crossbeam, Carry::Array)?),
            Cell::nanos(median(Variant::Crossbeam, Carry::Boxed)?),
            Cell::times(&d.alone_ratio(Carry::Array, bytes)?),
            Cell::times(&d.alone_ratio(Carry::Boxed, bytes)?),
            Cell::nanos(floor),
            Cell::Number(floor / tokio_array, Unit::Share),
        ]);
    }
    Ok(vec![Block::Table(t)])
}

/// The distinct counts of polls per burst `variant` recorded in `run`.
fn poll_counts(run: &Run<Data>, variant: Variant) -> BTreeSet<u64> {
    run.data
        .points
        .iter()
        .filter(|p| p.variant == variant.id())
        .filter_map(|p| p.polls_per_burst)
        .collect()
}

fn times(counts: &BTreeSet<u64>) -> String {
    if counts.len() == 1 && counts.contains(&1) {
        return "once".to_string();
    }
    let counts = counts.iter().map(|n| thousands(*n)).collect::<Vec<_>>();
    format!("{} times", counts.join(" or "))
}

pub(super) fn polls(book: &Book<Data>) -> Result<Vec<Block>> {
    let mut out = Vec::new();
    for run in &book.runs {
        let tokio = poll_counts(run, Variant::TokioMpsc);
        let kanal = poll_counts(run, Variant::KanalAsync);
        let others: Vec<String> = [Variant::FlumeAsync, Variant::AsyncChannel]
            .into_iter()
            .map(|v| (v, poll_counts(run, v)))
            .filter(|(_, counts)| !counts.is_empty())
            .map(|(v, counts)| format!("{} with {}", times(&counts), v.label()))
            .collect();
        let others = if others.is_empty() {
            String::new()
        } else {
            format!(", {}", others.join(", "))
        };
        let ops = 2 * BURST as u64;
        let per_yield = tokio
            .iter()
            .next()
            .filter(|&&n| n > 1)
            .map(|&n| format!("about one forced yield every {} operations", ops / (n - 1)))
            .unwrap_or_else(|| "no forced yield".into());
        out.push(Block::Text(format!(
            "On {}, one burst ({} sends and {} receives, every one able to complete at once) was polled {} by the current-thread runtime with tokio mpsc ({per_yield}), {} with kanal's async channel{others}, over all payload sizes (and, for tokio, both payload kinds). Pointer width: {} bits.",
            machine_of(run),
            thousands(BURST as u64),
            thousands(BURST as u64),
            times(&tokio),
            times(&kanal),
            run.data.sweep.pointer_width_bits
        )));
    }
    Ok(out)
}
