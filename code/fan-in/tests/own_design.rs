//! The book's design (worker chunks into a swap) where the sweep's bursts do
//! not reach: partial chunks, batches over `WRITE_BYTES`, no producer or no
//! message at all; and its consumer writing batches, not chunks.
use std::time::Duration;

mod common;

use fan_in::burst::Tally;
use fan_in::experiment::{runtime, Rig};
use fan_in::placement::Placement;
use fan_in::sink::{Sink, SinkKind};
use fan_in::{worker_chunks, Design, CHUNK_BYTES, PER_WORKER, WRITE_BYTES};

/// One burst of the design into the in-memory sink: what arrived, and in
/// how many write calls.
fn burst(workers: usize, per_worker: usize) -> (Tally, u64) {
    let rt = runtime().unwrap();
    rt.block_on(async {
        let mut sink = tokio::time::timeout(
            Duration::from_secs(30),
            tokio::spawn(worker_chunks::burst(workers, per_worker, Sink::memory())),
        )
        .await
        .unwrap_or_else(|_| panic!("{workers} workers of {per_worker}: the burst hangs"))
        .unwrap()
        .unwrap();
        (sink.take_memory_tally().unwrap(), sink.take_writes())
    })
}

#[test]
fn every_byte_arrives_once_whatever_the_chunk_and_batch_boundaries() {
    // A per-worker count that is not a multiple of the chunk leaves a
    // partial chunk to flush; enough workers to cross WRITE_BYTES several
    // times make the consumer write while producers still run.
    let big = 3 * WRITE_BYTES / PER_WORKER + 5;
    for (workers, per_worker) in [
        (0, PER_WORKER),
        (5, 0),
        (1, 1),
        (7, CHUNK_BYTES - 1),
        (33, CHUNK_BYTES + 1),
        (big, PER_WORKER),
        (big / 2, 2 * PER_WORKER + 3),
    ] {
        let (tally, writes) = burst(workers, per_worker);
        assert_eq!(
            tally,
            Tally::expected(workers, per_worker),
            "{workers} workers of {per_worker}"
        );
        let bytes = (workers * per_worker) as u64;
        assert_eq!(writes == 0, bytes == 0, "{writes} writes for {bytes} bytes");
    }
}

#[test]
fn a_burst_is_written_in_batches_not_chunks() {
    // The consumer writes when WRITE_BYTES have gathered, when a scheduler
    // round added nothing, or at the end. Waking on every chunk (or every
    // scheduler tick, as the first version of the design did: 36 writes
    // here) fails this.
    let workers = 2 * WRITE_BYTES / PER_WORKER;
    let most = 4 * (workers * PER_WORKER / WRITE_BYTES) as u64 + 4;
    let mut rig = Rig::new(Placement::Pinned).unwrap();
    for kind in SinkKind::ALL {
        let burst = rig
            .burst(Design::WorkerChunks, kind, workers)
            .unwrap_or_else(|e| panic!("{e:#}"));
        assert_eq!(burst.tally, Tally::expected(workers, PER_WORKER));
        assert!(
            burst.writes <= most,
            "{} writes for {} bytes into the {}",
            burst.writes,
            burst.tally.bytes,
            kind.label()
        );
    }
    rig.finish().unwrap();
}

/// Every point at 1, 64 and 256 workers, timed by `time(design, workers)`
/// with a narrow interval (±1 %), the design's own chunk size.
fn synthetic(time: impl Fn(Design, usize) -> f64) -> fan_in::run::FanInData {
    fan_in::run::FanInData {
        chunk_bytes: CHUNK_BYTES,
        write_bytes: WRITE_BYTES,
        ..common::synthetic(&[1, 64, 256], PER_WORKER, |d, w| {
            harness::Estimate::around(time(d, w), 0.01)
        })
    }
}

/// The outcome column of the own-design targets table, target by target.
fn target_outcomes(data: fan_in::run::FanInData) -> Vec<String> {
    use harness::{fixtures, Block, Cell};
    let book = fixtures::book::<fan_in::run::FanIn>(data);
    let blocks = fixtures::render::<fan_in::run::FanIn>("own-design", &book);
    let [Block::Table(_), Block::Table(targets)] = blocks.as_slice() else {
        panic!("own-design is not two tables: {blocks:?}")
    };
    let outcome = targets.header.iter().position(|h| h == "Outcome").unwrap();
    targets
        .rows
        .iter()
        .map(|r| match &r[outcome] {
            Cell::Text(t) => t.clone(),
            other => panic!("outcome {other:?}"),
        })
        .collect()
}

#[test]
fn the_targets_table_follows_the_numbers() {
    // Floor 100, chunks `over` times it, the swap `speedup` times the chunks
    // (the other designs anywhere).
    let run = |over_at_256: f64, speedup_at_256: f64| {
        target_outcomes(synthetic(|design, w| {
            let (over, speedup) = if w == 256 {
                (over_at_256, speedup_at_256)
            } else {
                (1.1, 2.5)
            };
            match design {
                Design::Floor => 100.0,
                Design::WorkerChunks => 100.0 * over,
                Design::StdMutexSwap => 100.0 * over * speedup,
                _ => 1000.0,
            }
        }))
    };
    assert_eq!(run(1.1, 2.5), ["met", "met"]);
    // Twice the swap's speed from 256 up; at most 1.2x the floor from 64 up.
    assert_eq!(run(1.1, 1.8), ["not met", "met"]);
    assert_eq!(run(1.5, 2.5), ["met", "not met"]);
    // An interval across the line decides nothing.
    assert!(run(1.2, 2.0)[0].starts_with("undecided"));
    assert!(run(1.2, 2.0)[1].starts_with("undecided"));
}
