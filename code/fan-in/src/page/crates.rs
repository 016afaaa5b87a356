//! The other crates' inboxes (flume, async-channel) beside tokio's batched
//! channel and the swaps: a figure and a table of time per message over
//! TCP, and the picks of What to use, all at the counts the run measured
//! them. Comparisons, not claims: no verdict reads them.
use anyhow::Result;
use harness_core::{Estimate, Unit};
use harness_page::render::reader::{pick_lowest, Advice, Candidate};
use harness_page::{
    render::blocks::Axis, render::blocks::Block, render::blocks::Cell, render::blocks::Figure,
    render::blocks::Point, render::blocks::Series, render::blocks::Table, Book, Run,
};

use super::shared::{on_rig, time_per_burst, STAT};
use super::views::ratio_of;
use fan_in::run::FanInData;
use fan_in::sink::SinkKind;
use fan_in::Design;

/// The figure's series: the channels that write per batch, the swaps that
/// do too, and the floor under them all.
const FIGURE: [Design; 6] = [
    Design::MpscRecvMany,
    Design::FlumeInbox,
    Design::AsyncChannelInbox,
    Design::StdMutexSwap,
    Design::WorkerChunks,
    Design::Floor,
];

/// The columns of the table: each channel that writes per batch, against
/// the std swap.
const TABLE: [Design; 3] = [
    Design::FlumeInbox,
    Design::AsyncChannelInbox,
    Design::MpscRecvMany,
];

/// A table column's name for a design.
fn short(design: Design) -> &'static str {
    match design {
        Design::FlumeInbox => "flume",
        Design::AsyncChannelInbox => "async-channel",
        Design::MpscRecvMany => "mpsc recv_many",
        other => other.label(),
    }
}

/// The counts the other crates were measured at (none in runs from before).
fn counts(d: &FanInData) -> Vec<usize> {
    d.workers
        .iter()
        .copied()
        .filter(|&w| {
            Design::OTHER_CRATES
                .iter()
                .all(|&x| d.planned(SinkKind::Tcp, x, w))
        })
        .collect()
}

/// Time per message of `design` at `w` workers over TCP: its burst's
/// median and interval divided by the messages of a burst.
fn per_message(d: &FanInData, design: Design, w: usize) -> Option<Estimate> {
    let m = d.get(SinkKind::Tcp, design, w)?;
    Some(time_per_burst(m).scaled(1.0 / (w * d.per_worker) as f64))
}

pub(super) fn figure(book: &Book<FanInData>) -> Result<Vec<Block>> {
    let mut blocks = Vec::new();
    for run in &book.runs {
        let d = &run.data;
        let counts = counts(d);
        if counts.is_empty() {
            blocks.push(Block::not_in_run(
                "fan-in",
                run.machine(),
                "the flume and async-channel inboxes",
            ));
            continue;
        }
        let series = FIGURE
            .iter()
            .map(|&design| {
                let points = counts
                    .iter()
                    .filter_map(|&w| per_message(d, design, w).map(|e| (w, e)))
                    .map(|(w, e)| Point::with_band(w as f64, e.point_ns, e.lower_ns, e.upper_ns))
                    .collect();
                Series::measured(design.label(), points)
            })
            .collect();
        blocks.push(Block::Figure(Figure {
            id: format!("fan-in-crates-{}", run.machine()),
            title: "flume and async-channel inboxes beside tokio's and the swaps".into(),
            caption: format!(
                "Time per message (a burst's time ÷ its workers × {} messages) into the \
                 loopback TCP sink, at the worker counts the run measured the other crates' \
                 inboxes, on {}. Every consumer here writes one drained batch per call. \
                 Median of criterion's samples, pooled over the run's passes, with its 95 % \
                 interval.",
                d.per_worker,
                on_rig(run)
            ),
            x: Axis::log("producer tasks (workers)"),
            y: Axis::log("time per message (ns)"),
            series,
            line_at: None,
        }));
    }
    Ok(blocks)
}

pub(super) fn table(book: &Book<FanInData>) -> Result<Vec<Block>> {
    let mut blocks = Vec::new();
    for run in &book.runs {
        if counts(&run.data).is_empty() {
            blocks.push(Block::not_in_run(
                "fan-in",
                run.machine(),
                "the flume and async-channel inboxes",
            ));
        } else {
            blocks.push(Block::Table(table_of(run)?));
        }
    }
    Ok(blocks)
}

fn table_of(run: &Run<FanInData>) -> Result<Table> {
    let d = &run.data;
    let mut header = vec!["Workers".to_string()];
    for design in TABLE {
        header.push(format!("{} per message", short(design)));
        header.push(format!("{} ÷ std swap", short(design)));
    }
    let header: Vec<&str> = header.iter().map(String::as_str).collect();
    let mut t = Table::new(
        format!(
            "The other crates' inboxes and tokio's recv_many against the std Mutex swap, \
             into the loopback TCP sink, {} messages per worker, on {}: time per message \
             (median with its 95 % interval) and the burst's time ÷ the std swap's (below \
             1× the channel is faster).",
            d.per_worker,
            on_rig(run)
        ),
        &header,
    );
    for w in counts(d) {
        let mut row = vec![Cell::count(w as u64)];
        for design in TABLE {
            let Some(e) = per_message(d, design, w) else {
                row.extend([Cell::from("—"), Cell::from("—")]);
                continue;
            };
            row.push(Cell::time(&e));
            row.push(Cell::times(&ratio_of(
                &d.tcp(design, w)?.timing,
                &d.tcp(Design::StdMutexSwap, w)?.timing,
                STAT,
            )));
        }
        t.push(row);
    }
    Ok(t)
}

/// The counts the picks are made at: 128 workers when the run measured the
/// other crates there, and the largest count it measured them at.
pub const PICK_AT: usize = 128;

/// One pick per count: of every inbox design (the floor is no inbox), the
/// lowest time per message over TCP.
pub(super) fn picks(d: &FanInData, machine: &str) -> Vec<Advice> {
    let counts = counts(d);
    let mut at: Vec<usize> = counts.iter().copied().filter(|&w| w == PICK_AT).collect();
    at.extend(counts.last().copied().filter(|&w| w != PICK_AT));
    at.into_iter()
        .filter_map(|w| {
            let candidates: Vec<Candidate> = Design::ALL
                .iter()
                .filter(|&&x| x != Design::Floor)
                .filter_map(|&x| {
                    per_message(d, x, w).map(|e| Candidate {
                        name: x.label().to_string(),
                        value: e.point_ns,
                        shown: format!("{} per message", Unit::Nanos.show(e.point_ns)),
                    })
                })
                .collect();
            let workers = harness_core::fmt::thousands(w as u64);
            pick_lowest(
                &format!("{workers} producers feed one consumer that writes to a socket"),
                &format!("time per message at {workers} workers"),
                &candidates,
                machine,
                None,
            )
        })
        .collect()
}
