//! Design 5: the same swap with `tokio::sync::Mutex`, whose lock is a future
//! (a fair semaphore): every push may park the producer and queue a waker.
use std::io;
use std::sync::Arc;

use tokio::sync::Mutex;

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
                let finished = live.all_done();
                std::mem::swap(&mut batch, &mut *inbox.lock().await);
                if !batch.is_empty() {
                    sink.write_all(&batch).await?;
                    batch.clear();
                } else if finished {
                    return Ok::<_, io::Error>(sink);
                } else {
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
                inbox.lock().await.push(message(w, i));
            }
        });
    }
    consumer.await?
}
// ANCHOR_END: burst
