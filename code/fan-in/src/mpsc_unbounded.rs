//! Design 1, the published baseline: an unbounded tokio mpsc inbox of single
//! bytes, and a consumer that makes one write call per message.
use std::io;

use tokio::sync::mpsc;

use crate::burst::message;
use crate::sink::Sink;
use crate::PER_WORKER;

// ANCHOR: burst
pub async fn burst(workers: usize, mut sink: Sink) -> io::Result<Sink> {
    let (tx, mut rx) = mpsc::unbounded_channel::<u8>();
    let consumer = tokio::spawn(async move {
        // `recv` returns `None` once every sender is gone: the producers are done.
        while let Some(byte) = rx.recv().await {
            sink.write_all(&[byte]).await?;
        }
        Ok::<_, io::Error>(sink)
    });
    for w in 0..workers {
        let tx = tx.clone();
        tokio::spawn(async move {
            for i in 0..PER_WORKER {
                tx.send(message(w, i))
                    .expect("the consumer outlives the producers");
            }
        });
    }
    drop(tx);
    consumer.await?
}
// ANCHOR_END: burst
