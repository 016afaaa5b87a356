//! Experiment B's receiver as the published program wrote it
//! (`channel_code/async_mpsc_latency` in thebracket/RustUtahChannels): every
//! latency is pushed into one `Vec` behind a `tokio::sync::Mutex`, an async
//! lock taken once per message by the task every message must pass, in a
//! `Vec` that grows by reallocation to hold the whole run. The program then
//! slept a fixed pause instead of awaiting the receiver, and averaged what
//! the `Vec` held (`backpressure::Ending::Sleep`).
//!
//! Two things are added so the run can be checked and the second clock
//! computed afterwards: each entry also keeps the dequeue time and the
//! message's id (32 bytes an entry instead of the published 16).
use std::sync::Arc;
use std::time::Instant;

use tokio::sync::Mutex;

use crate::backpressure_common::{histogram, AsyncChannel, Latencies, Received};

/// One message as the published receiver records it.
#[derive(Clone, Copy, Debug)]
pub struct Entry {
    /// From the stamp taken before `send().await` to the dequeue (the
    /// published figure, kept as the published `u128` of nanoseconds).
    pub latency_ns: u128,
    pub dequeued_ns: u64,
    pub producer: u32,
    pub seq: u32,
}

/// The published program's `static LATENCIES: Lazy<Mutex<Vec<u128>>>`, one
/// per run.
pub type SharedVec = Arc<Mutex<Vec<Entry>>>;

// ANCHOR: published_receiver
/// The published receiver: one lock of the shared `Vec` per message.
pub async fn receive<C: AsyncChannel>(mut rx: C::Rx, latencies: SharedVec, origin: Instant) {
    while let Some(msg) = C::recv(&mut rx).await {
        let now = origin.elapsed().as_nanos() as u64;
        latencies.lock().await.push(Entry {
            latency_ns: u128::from(now.saturating_sub(msg.sent_ns)),
            dequeued_ns: now,
            producer: msg.producer,
            seq: msg.seq,
        });
    }
}
// ANCHOR_END: published_receiver

/// The entries as the book's receiver would have recorded them, for the
/// run's checks: every id once, each with its dequeue time.
pub(crate) fn received(entries: &[Entry], messages_per_task: usize, total: usize) -> Received {
    let mut before_send = histogram();
    let mut dequeued_ns = vec![0u64; total];
    let (mut duplicates, mut out_of_range) = (0, 0);
    for e in entries {
        before_send.saturating_record(clamp(e.latency_ns));
        if e.seq as usize >= messages_per_task {
            out_of_range += 1;
            continue;
        }
        let id = e.producer as usize * messages_per_task + e.seq as usize;
        match dequeued_ns.get_mut(id) {
            Some(slot) if *slot == 0 => *slot = e.dequeued_ns.max(1),
            Some(_) => duplicates += 1,
            None => out_of_range += 1,
        }
    }
    Received {
        before_send,
        dequeued_ns,
        duplicates,
        out_of_range,
    }
}

/// Both clocks' latencies over `entries` (a run's entries, checked, or the
/// part of them the published program would have read): before send, and
/// from the completed send (`sent[producer][seq]`) to the dequeue. `None`
/// when there are no entries.
pub(crate) fn latencies(entries: &[Entry], sent: &[Vec<u64>]) -> Option<(Latencies, Latencies)> {
    if entries.is_empty() {
        return None;
    }
    let (mut before, mut in_queue) = (histogram(), histogram());
    for e in entries {
        before.saturating_record(clamp(e.latency_ns));
        let done = sent
            .get(e.producer as usize)
            .and_then(|s| s.get(e.seq as usize))
            .copied()
            .unwrap_or(e.dequeued_ns);
        in_queue.saturating_record(e.dequeued_ns.saturating_sub(done).max(1));
    }
    Some((Latencies::of(&before), Latencies::of(&in_queue)))
}

fn clamp(ns: u128) -> u64 {
    u64::try_from(ns).unwrap_or(u64::MAX).max(1)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(producer: u32, seq: u32, dequeued_ns: u64) -> Entry {
        Entry {
            latency_ns: 50,
            dequeued_ns,
            producer,
            seq,
        }
    }

    #[test]
    fn entries_become_a_checked_record_and_both_clocks() {
        let entries = [entry(0, 0, 100), entry(1, 0, 110), entry(0, 1, 120)];
        let r = received(&entries, 2, 4);
        assert_eq!(
            r.dequeued_ns,
            vec![100, 120, 110, 0],
            "one id never arrived"
        );
        assert_eq!(
            (r.duplicates, r.out_of_range, r.before_send.len()),
            (0, 0, 3)
        );
        let twice = received(&[entry(0, 0, 1), entry(0, 0, 2), entry(0, 5, 3)], 2, 4);
        assert_eq!((twice.duplicates, twice.out_of_range), (1, 1));

        let sent = vec![vec![90, 115], vec![60]];
        let (before, in_queue) = latencies(&entries, &sent).unwrap();
        assert_eq!((before.count, before.percentiles.max_ns), (3, 50));
        // In queue: 100 - 90, 110 - 60, 120 - 115.
        assert_eq!((in_queue.count, in_queue.percentiles.max_ns), (3, 50));
        assert_eq!(in_queue.percentiles.p50_ns, 10);
        assert!(latencies(&[], &sent).is_none());
    }
}
