//! Design 2: the same inbox with a bound, so producers wait for room instead
//! of queueing without limit. Still one write call per message.
use std::io;

use tokio::sync::mpsc;

use crate::burst::message;
use crate::sink::Sink;
use crate::BOUNDED_CAPACITY;

// ANCHOR: burst
pub async fn burst(workers: usize, per_worker: usize, mut sink: Sink) -> io::Result<Sink> {
    let (tx, mut rx) = mpsc::channel::<u8>(BOUNDED_CAPACITY);
    let consumer = tokio::spawn(async move {
        while let Some(byte) = rx.recv().await {
            sink.write_all(&[byte]).await?;
        }
        Ok::<_, io::Error>(sink)
    });
    for w in 0..workers {
        let tx = tx.clone();
        tokio::spawn(async move {
            for i in 0..per_worker {
                // A full inbox parks the producer here: back-pressure.
                tx.send(message(w, i))
                    .await
                    .expect("the consumer outlives the producers");
            }
        });
    }
    drop(tx);
    consumer.await?
}
// ANCHOR_END: burst
