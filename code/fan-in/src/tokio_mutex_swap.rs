//! Design 5: the same swap with `tokio::sync::Mutex`, whose lock is a future
//! (a fair semaphore): every push may park the producer and queue a waker.
use std::io;
use std::sync::Arc;

use tokio::sync::Mutex;

use crate::burst::{message, Departure, LiveProducers};
use crate::lock_hook::{LockHook, NoHook};
use crate::sink::Sink;

pub type Inbox = Arc<Mutex<Vec<u8>>>;

// ANCHOR: burst
pub async fn burst(workers: usize, per_worker: usize, sink: Sink) -> io::Result<Sink> {
    let inbox = Inbox::default();
    let live = LiveProducers::new(workers);
    // `NoHook`: each `hook.tokio_lock(&inbox)` below is the plain
    // `inbox.lock().await`. The counted bursts (`cause.rs`) run these same
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
        hook.tokio_lock(&inbox).await.push(message(worker, i));
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
        let finished = live.all_done();
        std::mem::swap(&mut batch, &mut *hook.tokio_lock(&inbox).await);
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
