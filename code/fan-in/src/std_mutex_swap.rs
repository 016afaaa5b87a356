//! Design 4, the published alternative: producers push into a shared
//! `Vec<u8>` behind a `std::sync::Mutex`; the consumer swaps it for its own
//! empty buffer and writes the whole batch in one call.
use std::io;
use std::sync::{Arc, Mutex};

use crate::burst::{message, Departure, LiveProducers};
use crate::lock_hook::{LockHook, NoHook};
use crate::sink::Sink;

pub type Inbox = Arc<Mutex<Vec<u8>>>;

// ANCHOR: burst
pub async fn burst(workers: usize, per_worker: usize, sink: Sink) -> io::Result<Sink> {
    let inbox = Inbox::default();
    let live = LiveProducers::new(workers);
    // `NoHook`: each `hook.std_lock(&inbox)` below is the plain
    // `inbox.lock().unwrap()`. The counted bursts (`cause.rs`) run these same
    // loops with a hook that counts every lock.
    let consumer = tokio::spawn(consume_with(Arc::clone(&inbox), live.clone(), sink, NoHook));
    for w in 0..workers {
        tokio::spawn(produce_with(
            Arc::clone(&inbox),
            live.enlist(),
            w,
            per_worker,
            NoHook,
        ));
    }
    consumer.await?
}

pub async fn produce_with(
    inbox: Inbox,
    departure: Departure,
    worker: usize,
    per_worker: usize,
    hook: impl LockHook,
) {
    let _departure = departure;
    for i in 0..per_worker {
        hook.std_lock(&inbox).push(message(worker, i));
    }
}

pub async fn consume_with(
    inbox: Inbox,
    live: LiveProducers,
    mut sink: Sink,
    hook: impl LockHook,
) -> io::Result<Sink> {
    let mut batch = Vec::new();
    loop {
        // Read before the swap: if no producer was left, this swap sees
        // everything any of them pushed.
        let finished = live.all_done();
        std::mem::swap(&mut batch, &mut *hook.std_lock(&inbox));
        if !batch.is_empty() {
            sink.write_all(&batch).await?;
            // The published consumer never cleared its buffer and resent
            // every byte on every pass.
            batch.clear();
        } else if finished {
            return Ok(sink);
        } else {
            // Nothing to wake the consumer: it polls, but lets the producers
            // on its worker thread run in between.
            tokio::task::yield_now().await;
        }
    }
}
// ANCHOR_END: burst
