//! The tables of the measured sweep: the published comparison (delta), every
//! design over TCP, and the split between channel and socket.
use std::collections::BTreeSet;

use anyhow::{Context, Result};
use harness_core::Unit;
use harness_page::{render::blocks::Block, render::blocks::Cell, render::blocks::Table, Book};

use super::shared::{on_rig, published, time_per_burst, PUBLISHED_PER_WORKER};
use fan_in::run::FanInData;
use fan_in::sink::SinkKind;
use fan_in::Design;

/// std Mutex swap against mpsc unbounded: the published times beside the
/// measured ones, at every worker count either has.
pub(super) fn delta(book: &Book<FanInData>) -> Result<Vec<Block>> {
    let (rows, citation) = published(book)?;
    book.table_per_run(|run| {
        let d = &run.data;
        let mut t = Table::new(
            format!(
                "std Mutex swap against mpsc unbounded (write per message). Published: {citation}, \
                 {PUBLISHED_PER_WORKER} messages per worker. Measured: {} messages per worker into the loopback \
                 TCP sink on {}, median with its 95 % interval. Delta = mpsc ÷ \
                 swap; above 1× the swap is faster. Per message = the swap's time ÷ (workers × \
                 messages per worker). A dash: worker count not in this profile.",
                d.per_worker,
                on_rig(run)
            ),
            &[
                "Workers",
                "Published swap",
                "Published mpsc",
                "Published delta",
                "Published swap per message",
                "Measured swap",
                "Measured mpsc",
                "Measured delta",
            ],
        );
        let mut all: BTreeSet<usize> = rows.iter().map(|r| r.workers).collect();
        all.extend(d.workers.iter().copied());
        for w in all {
            let dash = || Cell::from("—");
            let published = match rows.iter().find(|r| r.workers == w) {
                Some(r) => [
                    Cell::nanos(r.std_mutex_us * 1e3),
                    Cell::nanos(r.tokio_mpsc_us * 1e3),
                    Cell::ratio(r.tokio_mpsc_us / r.std_mutex_us),
                    Cell::nanos(r.std_mutex_us * 1e3 / (r.workers as f64 * PUBLISHED_PER_WORKER)),
                ],
                None => [dash(), dash(), dash(), dash()],
            };
            let measured = match (
                d.get(SinkKind::Tcp, Design::StdMutexSwap, w),
                d.get(SinkKind::Tcp, Design::MpscUnbounded, w),
            ) {
                (Some(s), Some(m)) => [
                    Cell::time(time_per_burst(s)),
                    Cell::time(time_per_burst(m)),
                    Cell::ratio(time_per_burst(m).point_ns / time_per_burst(s).point_ns),
                ],
                _ => [dash(), dash(), dash()],
            };
            let mut row = vec![Cell::count(w as u64)];
            row.extend(published);
            row.extend(measured);
            t.push(row);
        }
        Ok(t)
    })
}

/// Time per burst over TCP, every design at every worker count.
pub(super) fn designs(book: &Book<FanInData>) -> Result<Vec<Block>> {
    book.table_per_run(|run| {
        let d = &run.data;
        let mut header = vec!["Workers"];
        header.extend(Design::ALL.iter().map(|x| x.label()));
        let mut t = Table::new(
            format!(
                "Time per burst into the loopback TCP sink, {} messages per worker, on {}: median with its 95 % interval. \
                 A dash: a count the run did not measure that design at (the other crates' inboxes are compared at fewer counts).",
                d.per_worker,
                on_rig(run)
            ),
            &header,
        );
        for &w in &d.workers {
            let mut row = vec![Cell::count(w as u64)];
            for design in Design::ALL {
                row.push(if d.planned(SinkKind::Tcp, design, w) {
                    Cell::time(time_per_burst(d.tcp(design, w)?))
                } else {
                    Cell::from("—")
                });
            }
            t.push(row);
        }
        Ok(t)
    })
}

/// Channel or socket: the same bursts at the largest worker count into both
/// sinks, and how the consumer wrote to the socket.
pub(super) fn split(book: &Book<FanInData>) -> Result<Vec<Block>> {
    book.table_per_run(|run| {
        let d = &run.data;
        let w = d.largest();
        let mut t = Table::new(
            format!(
                "Channel or socket? The same bursts of {w} workers into the in-memory sink and into \
                 the loopback TCP sink, on {}. Socket share = (TCP − memory) ÷ TCP.",
                on_rig(run)
            ),
            &[
                "Design",
                "In-memory sink",
                "TCP sink",
                "Socket share",
                "Write calls per burst",
                "Messages per write",
            ],
        );
        for design in Design::ALL {
            if !d.planned(SinkKind::Memory, design, w) {
                continue;
            }
            let mem = d
                .get(SinkKind::Memory, design, w)
                .with_context(|| format!("no in-memory result for {} at {w}", design.id()))?;
            let tcp = d.tcp(design, w)?;
            let (m, n) = (time_per_burst(mem).point_ns, time_per_burst(tcp).point_ns);
            t.push(vec![
                Cell::from(design.label()),
                Cell::time(time_per_burst(mem)),
                Cell::time(time_per_burst(tcp)),
                Cell::Number(((n - m) / n).max(0.0), Unit::Share),
                Cell::Number(tcp.writes_per_burst, Unit::Plain),
                Cell::Number(
                    tcp.bytes_per_burst as f64 / tcp.writes_per_burst,
                    Unit::Plain,
                ),
            ]);
        }
        Ok(t)
    })
}
