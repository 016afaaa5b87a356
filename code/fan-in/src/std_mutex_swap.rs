//! Design 4, the published alternative: producers push into a shared
//! `Vec<u8>` behind a `std::sync::Mutex`; the consumer swaps it for its own
//! empty buffer and writes the whole batch in one call.
use std::io;
use std::sync::{Arc, Mutex};

use crate::burst::{message, LiveProducers};
use crate::sink::Sink;
use crate::PER_WORKER;

// ANCHOR: burst
pub async fn burst(workers: usize, mut sink: Sink) -> io::Result<Sink> {
    let inbox = Arc::new(Mutex::new(Vec::<u8>::new()));
    let live = LiveProducers::new(workers);
    let consumer = {
        let (inbox, live) = (Arc::clone(&inbox), live.clone());
        tokio::spawn(async move {
            let mut batch = Vec::new();
            loop {
                // Read before the swap: if no producer was left, this swap
                // sees everything any of them pushed.
                let finished = live.all_done();
                std::mem::swap(&mut batch, &mut *inbox.lock().unwrap());
                if !batch.is_empty() {
                    sink.write_all(&batch).await?;
                    // The published consumer never cleared its buffer and
                    // resent every byte on every pass.
                    batch.clear();
                } else if finished {
                    return Ok::<_, io::Error>(sink);
                } else {
                    // Nothing to wake the consumer: it polls, but lets the
                    // producers on its worker thread run in between.
                    tokio::task::yield_now().await;
                }
            }
        })
    };
    for w in 0..workers {
        let (inbox, departure) = (Arc::clone(&inbox), live.enlist());
        tokio::spawn(async move {
            let _departure = departure;
            for i in 0..PER_WORKER {
                inbox.lock().unwrap().push(message(w, i));
            }
        });
    }
    consumer.await?
}
// ANCHOR_END: burst
