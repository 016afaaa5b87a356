//! Design 6, the book's own: each producer batches its messages in a chunk
//! on its own stack and appends whole chunks to a shared buffer behind a
//! `std::sync::Mutex`; the consumer swaps the shared buffer out and writes it
//! in one call, as in design 4, but sleeps instead of polling when it is
//! empty, and lets the buffer grow while producers are still adding to it.
//!
//! The price: a message waits in its producer's chunk until the chunk is
//! full or the producer's burst ends, then in the shared buffer until
//! `WRITE_BYTES` have gathered or the producers pause (latency); every live
//! producer holds up to one chunk (memory: workers x chunk).
use std::io;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use tokio::sync::Notify;

use crate::burst::message;
use crate::sink::Sink;
use crate::{CHUNK_BYTES, WRITE_BYTES};

// ANCHOR: burst
/// The buffer, the bell the consumer sleeps on and the count of live
/// producers, in one allocation: a producer clones one `Arc`, not two.
struct Inbox {
    bytes: Mutex<Vec<u8>>,
    /// Rung when a chunk lands in an empty buffer, and when the last
    /// producer leaves: the consumer may be asleep.
    filled: Notify,
    live: AtomicUsize,
}

/// A producer's handle on the inbox. Dropping it, at the end of the burst
/// or in a panic, counts the producer out, so the consumer cannot hang.
struct Producer(Arc<Inbox>);

impl Producer {
    fn push(&self, chunk: &[u8]) {
        let was_empty = {
            let mut shared = self.0.bytes.lock().unwrap();
            let was_empty = shared.is_empty();
            shared.extend_from_slice(chunk);
            was_empty
        };
        if was_empty {
            self.0.filled.notify_one();
        }
    }
}

impl Drop for Producer {
    fn drop(&mut self) {
        // Release pairs with the consumer's Acquire: once it reads zero,
        // its next lock sees every chunk pushed before a producer left.
        if self.0.live.fetch_sub(1, Ordering::Release) == 1 {
            self.0.filled.notify_one();
        }
    }
}

pub async fn burst(workers: usize, per_worker: usize, sink: Sink) -> io::Result<Sink> {
    let inbox = Arc::new(Inbox {
        bytes: Mutex::new(Vec::new()),
        filled: Notify::new(),
        live: AtomicUsize::new(workers),
    });
    let consumer = tokio::spawn(consume(Arc::clone(&inbox), sink));
    for w in 0..workers {
        let producer = Producer(Arc::clone(&inbox));
        tokio::spawn(async move {
            // On the task's stack: no allocation per producer.
            let mut chunk = [0u8; CHUNK_BYTES];
            let mut len = 0;
            for i in 0..per_worker {
                chunk[len] = message(w, i);
                len += 1;
                if len == CHUNK_BYTES {
                    producer.push(&chunk);
                    len = 0;
                }
            }
            // The end of a burst flushes a partial chunk: nothing is left behind.
            if len > 0 {
                producer.push(&chunk[..len]);
            }
        });
    }
    consumer.await?
}

async fn consume(inbox: Arc<Inbox>, mut sink: Sink) -> io::Result<Sink> {
    let mut batch = Vec::new();
    // The buffer's length at the last look, zero after a write or a sleep.
    let mut seen = 0;
    loop {
        // Read before the lock: if no producer was left, the lock sees
        // everything any of them pushed.
        let finished = inbox.live.load(Ordering::Acquire) == 0;
        let len = inbox.bytes.lock().unwrap().len();
        if len == 0 {
            if finished {
                return Ok(sink);
            }
            // Notify keeps a permit when nobody waits, so a chunk or the
            // last departure between the look and this await is not lost.
            inbox.filled.notified().await;
            seen = 0;
        } else if finished || len >= WRITE_BYTES || len == seen {
            // Write when the producers are gone, when the batch is big
            // enough, or when a whole scheduler round added nothing (the
            // producers paused: waiting longer would only add latency).
            std::mem::swap(&mut batch, &mut *inbox.bytes.lock().unwrap());
            sink.write_all(&batch).await?;
            batch.clear();
            seen = 0;
        } else {
            // Still growing: let the runnable producers add their chunks
            // first, one write of many chunks instead of one per wake-up.
            seen = len;
            tokio::task::yield_now().await;
        }
    }
}
// ANCHOR_END: burst
