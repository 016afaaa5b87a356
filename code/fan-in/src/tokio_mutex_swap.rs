//! Design 5: the same swap with `tokio::sync::Mutex`, whose lock is a future
//! (a fair semaphore): every push may park the producer and queue a waker.
use std::io;
use std::sync::Arc;

use tokio::sync::Mutex;

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
        inbox.lock().await.push(message(worker, i));
    }
}

pub async fn consume(inbox: Inbox, live: LiveProducers, mut sink: Sink) -> io::Result<Sink> {
    let mut batch = Vec::new();
    loop {
        let finished = live.all_done();
        std::mem::swap(&mut batch, &mut *inbox.lock().await);
        if !batch.is_empty() {
            sink.write_all(&batch).await?;
            batch.clear();
        } else if finished {
            return Ok(sink);
        } else {
            tokio::task::yield_now().await;
        }
    }
}
// ANCHOR_END: burst
