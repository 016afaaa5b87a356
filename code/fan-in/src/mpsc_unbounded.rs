//! Design 1, the published baseline: an unbounded tokio mpsc inbox of single
//! bytes, and a consumer that makes one write call per message.
use std::io;

use tokio::sync::mpsc::{self, UnboundedReceiver, UnboundedSender};

use crate::burst::message;
use crate::sink::Sink;

// ANCHOR: burst
pub async fn burst(workers: usize, per_worker: usize, sink: Sink) -> io::Result<Sink> {
    let (tx, rx) = mpsc::unbounded_channel::<u8>();
    let consumer = tokio::spawn(consume(rx, sink));
    for w in 0..workers {
        tokio::spawn(produce(tx.clone(), w, per_worker));
    }
    drop(tx);
    consumer.await?
}

pub async fn produce(tx: UnboundedSender<u8>, worker: usize, per_worker: usize) {
    for i in 0..per_worker {
        tx.send(message(worker, i))
            .expect("the consumer outlives the producers");
    }
}

pub async fn consume(mut rx: UnboundedReceiver<u8>, mut sink: Sink) -> io::Result<Sink> {
    // `recv` returns `None` once every sender is gone: the producers are done.
    while let Some(byte) = rx.recv().await {
        sink.write_all(&[byte]).await?;
    }
    Ok(sink)
}
// ANCHOR_END: burst
