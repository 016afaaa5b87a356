//! Design 3: the unbounded inbox of single bytes, drained with `recv_many`,
//! so the consumer makes one write call per batch instead of per message.
use std::io;

use tokio::sync::mpsc::{self, UnboundedReceiver};

use crate::mpsc_unbounded::produce;
use crate::sink::Sink;
use crate::RECV_MANY_LIMIT;

// ANCHOR: burst
pub async fn burst(workers: usize, per_worker: usize, sink: Sink) -> io::Result<Sink> {
    let (tx, rx) = mpsc::unbounded_channel::<u8>();
    let consumer = tokio::spawn(consume(rx, sink));
    // The same producers as design 1.
    for w in 0..workers {
        tokio::spawn(produce(tx.clone(), w, per_worker));
    }
    drop(tx);
    consumer.await?
}

pub async fn consume(mut rx: UnboundedReceiver<u8>, mut sink: Sink) -> io::Result<Sink> {
    let mut batch = Vec::with_capacity(RECV_MANY_LIMIT);
    // Takes whatever is queued, up to the limit; 0 means the senders are gone.
    while rx.recv_many(&mut batch, RECV_MANY_LIMIT).await > 0 {
        sink.write_all(&batch).await?;
        batch.clear();
    }
    Ok(sink)
}
// ANCHOR_END: burst
