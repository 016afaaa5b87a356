//! Design 6, the book's own: each producer batches its messages in a small
//! buffer of its own and appends whole chunks to a shared buffer behind a
//! `std::sync::Mutex`; the consumer swaps the shared buffer out and writes it
//! in one call, as in design 4, but sleeps instead of polling when it is empty.
//!
//! The price: a message waits in its producer's buffer until the chunk is
//! full or the producer's burst ends (latency), and every live producer
//! holds up to one chunk (memory: workers x chunk).
use std::io;
use std::sync::{Arc, Mutex};

use tokio::sync::Notify;

use crate::burst::{message, LiveProducers};
use crate::sink::Sink;
use crate::CHUNK_BYTES;

// ANCHOR: burst
struct Inbox {
    bytes: Mutex<Vec<u8>>,
    /// Rung when a chunk lands in an empty buffer: the consumer may be asleep.
    filled: Notify,
}

pub async fn burst(workers: usize, per_worker: usize, mut sink: Sink) -> io::Result<Sink> {
    let inbox = Arc::new(Inbox {
        bytes: Mutex::new(Vec::new()),
        filled: Notify::new(),
    });
    let live = LiveProducers::new(workers);
    let consumer = {
        let (inbox, live) = (Arc::clone(&inbox), live.clone());
        tokio::spawn(async move {
            let mut batch = Vec::new();
            loop {
                let finished = live.all_done();
                std::mem::swap(&mut batch, &mut *inbox.bytes.lock().unwrap());
                if !batch.is_empty() {
                    sink.write_all(&batch).await?;
                    batch.clear();
                } else if finished {
                    return Ok::<_, io::Error>(sink);
                } else {
                    // Notify keeps a permit when nobody waits, so a chunk or
                    // a departure between the swap and this await is not lost.
                    tokio::select! {
                        _ = inbox.filled.notified() => {}
                        _ = live.last_left().notified() => {}
                    }
                    // Woken by the first chunk, let the producers that are
                    // already runnable add theirs before swapping: one write
                    // of many chunks instead of one write per chunk.
                    tokio::task::yield_now().await;
                }
            }
        })
    };
    for w in 0..workers {
        let (inbox, departure) = (Arc::clone(&inbox), live.enlist());
        tokio::spawn(async move {
            let _departure = departure;
            let mut chunk = Vec::with_capacity(CHUNK_BYTES);
            for i in 0..per_worker {
                chunk.push(message(w, i));
                // The end of a burst flushes a partial chunk: nothing is left behind.
                if chunk.len() == CHUNK_BYTES || i + 1 == per_worker {
                    let was_empty = {
                        let mut shared = inbox.bytes.lock().unwrap();
                        let was_empty = shared.is_empty();
                        shared.extend_from_slice(&chunk);
                        was_empty
                    };
                    chunk.clear();
                    if was_empty {
                        inbox.filled.notify_one();
                    }
                }
            }
        });
    }
    consumer.await?
}
// ANCHOR_END: burst
