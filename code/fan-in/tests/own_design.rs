//! The book's design (worker chunks into a swap) where the sweep's bursts do
//! not reach: partial chunks, batches over `WRITE_BYTES`, no producer or no
//! message at all; and its consumer writing batches, not chunks.
use std::time::Duration;

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
