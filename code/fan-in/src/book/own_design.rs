//! The own-design exhibit: the book's worker chunks against the std swap and
//! the floor, at every worker count.
use anyhow::Result;
use harness::{stats, Block, Book, Cell, Table};

use super::{on_rig, time_per_burst, FanInData, STAT};
use crate::Design;

pub(super) fn own_design(book: &Book<FanInData>) -> Result<Vec<Block>> {
    book.table_per_run(|run| {
        let d = &run.data;
        let mut t = Table::new(
            format!(
                "Worker chunks ({} bytes per chunk) against the std Mutex swap and the floor, \
                 loopback TCP sink, on {}. Speedup = swap ÷ chunks, with a 95 % \
                 interval bootstrapped from both designs' samples.",
                d.chunk_bytes,
                on_rig(run)
            ),
            &[
                "Workers",
                "Worker chunks",
                "std Mutex swap",
                "Speedup over the swap",
                "Floor",
                "Chunks ÷ floor",
            ],
        );
        for &w in &d.workers {
            let chunks = d.tcp(Design::WorkerChunks, w)?;
            let swap = d.tcp(Design::StdMutexSwap, w)?;
            let floor = time_per_burst(d.tcp(Design::Floor, w)?);
            t.push(vec![
                Cell::count(w as u64),
                Cell::time(time_per_burst(chunks)),
                Cell::time(time_per_burst(swap)),
                Cell::times(&stats::ratio(&swap.timing, &chunks.timing, STAT)),
                Cell::time(floor),
                Cell::ratio(time_per_burst(chunks).point_ns / floor.point_ns),
            ]);
        }
        Ok(t)
    })
}
