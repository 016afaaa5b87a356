//! Design 8: an unbounded flume inbox of single bytes. The consumer awaits
//! one message (`recv_async`), then takes everything else already queued in
//! one go (`drain`, a single lock of the channel) and writes the batch in one
//! call: the batch flume's API allows, as `recv_many` is tokio's.
use std::io;

use flume::{Receiver, Sender};

use crate::burst::message;
use crate::sink::Sink;

// ANCHOR: burst
pub async fn burst(workers: usize, per_worker: usize, sink: Sink) -> io::Result<Sink> {
    let (tx, rx) = flume::unbounded::<u8>();
    let consumer = tokio::spawn(consume(rx, sink));
    for w in 0..workers {
        tokio::spawn(produce(tx.clone(), w, per_worker));
    }
    drop(tx);
    consumer.await?
}

pub async fn produce(tx: Sender<u8>, worker: usize, per_worker: usize) {
    for i in 0..per_worker {
        // An unbounded flume channel never makes a sender wait.
        tx.send(message(worker, i))
            .expect("the consumer outlives the producers");
    }
}

pub async fn consume(rx: Receiver<u8>, mut sink: Sink) -> io::Result<Sink> {
    let mut batch = Vec::new();
    // `recv_async` fails once the queue is empty and every sender is gone.
    while let Ok(first) = rx.recv_async().await {
        batch.push(first);
        // Everything queued right now, taken under one lock.
        batch.extend(rx.drain());
        sink.write_all(&batch).await?;
        batch.clear();
    }
    Ok(sink)
}
// ANCHOR_END: burst
