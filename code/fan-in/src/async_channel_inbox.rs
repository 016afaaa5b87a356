//! Design 9: an unbounded async-channel inbox of single bytes. The crate has
//! no batch receive: the consumer awaits one message (`recv`), then takes
//! what is already queued with `try_recv` up to the same limit as
//! `recv_many` (design 3), and writes the batch in one call.
use std::io;

use async_channel::{Receiver, Sender};

use crate::burst::message;
use crate::sink::Sink;
use crate::RECV_MANY_LIMIT;

// ANCHOR: burst
pub async fn burst(workers: usize, per_worker: usize, sink: Sink) -> io::Result<Sink> {
    let (tx, rx) = async_channel::unbounded::<u8>();
    let consumer = tokio::spawn(consume(rx, sink));
    for w in 0..workers {
        tokio::spawn(produce(tx.clone(), w, per_worker));
    }
    drop(tx);
    consumer.await?
}

pub async fn produce(tx: Sender<u8>, worker: usize, per_worker: usize) {
    for i in 0..per_worker {
        // Unbounded: the send completes on its first poll.
        tx.send(message(worker, i))
            .await
            .expect("the consumer outlives the producers");
    }
}

pub async fn consume(rx: Receiver<u8>, mut sink: Sink) -> io::Result<Sink> {
    let mut batch = Vec::with_capacity(RECV_MANY_LIMIT);
    // `recv` fails once the queue is empty and every sender is gone.
    while let Ok(first) = rx.recv().await {
        batch.push(first);
        // What is queued now, one `try_recv` per message, up to the limit;
        // `Empty` or `Closed` ends the batch (a closed channel is seen by
        // the next `recv`).
        while batch.len() < RECV_MANY_LIMIT {
            match rx.try_recv() {
                Ok(byte) => batch.push(byte),
                Err(_) => break,
            }
        }
        sink.write_all(&batch).await?;
        batch.clear();
    }
    Ok(sink)
}
// ANCHOR_END: burst
