//! Design 4, the published alternative: producers push into a shared
//! `Vec<u8>` behind a `std::sync::Mutex`; the consumer swaps it for its own
//! empty buffer and writes the whole batch in one call.
use std::io;
use std::sync::{Arc, Mutex};

use crate::burst::{message, Departure, LiveProducers};
use crate::sink::Sink;

pub type Inbox = Arc<Mutex<Vec<u8>>>;

// ANCHOR: burst
pub async fn burst(workers: usize, per_worker: usize, sink: Sink) -> io::Result<Sink> {
    let inbox = Inbox::default();
    let live = LiveProducers::new(workers);
    let consumer = tokio::spawn(consume(Arc::clone(&inbox), live.clone(), sink));
    for w in 0..workers {
        tokio::spawn(produce(Arc::clone(&inbox), live.enlist(), w, per_worker));
    }
    consumer.await?
}

pub async fn produce(inbox: Inbox, departure: Departure, worker: usize, per_worker: usize) {
    let _departure = departure;
    for i in 0..per_worker {
        inbox.lock().unwrap().push(message(worker, i));
    }
}

pub async fn consume(inbox: Inbox, live: LiveProducers, mut sink: Sink) -> io::Result<Sink> {
    let mut batch = Vec::new();
    loop {
        // Read before the swap: if no producer was left, this swap sees
        // everything any of them pushed.
        let finished = live.all_done();
        std::mem::swap(&mut batch, &mut *inbox.lock().unwrap());
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
