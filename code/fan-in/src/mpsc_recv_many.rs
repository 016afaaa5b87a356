//! Design 3: the unbounded inbox of single bytes, drained with `recv_many`,
//! so the consumer makes one write call per batch instead of per message.
use std::io;

use tokio::sync::mpsc;

use crate::burst::message;
use crate::sink::Sink;
use crate::{PER_WORKER, RECV_MANY_LIMIT};

// ANCHOR: burst
pub async fn burst(workers: usize, mut sink: Sink) -> io::Result<Sink> {
    let (tx, mut rx) = mpsc::unbounded_channel::<u8>();
    let consumer = tokio::spawn(async move {
        let mut batch = Vec::with_capacity(RECV_MANY_LIMIT);
        // Takes whatever is queued, up to the limit; 0 means the senders are gone.
        while rx.recv_many(&mut batch, RECV_MANY_LIMIT).await > 0 {
            sink.write_all(&batch).await?;
            batch.clear();
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
