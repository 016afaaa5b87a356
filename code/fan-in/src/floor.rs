//! Design 7, the floor: the same producers, spawned the same way, each fill a
//! buffer of their own and hand it back when they finish; the consumer joins
//! them in order and writes everything in one call. No shared inbox at all,
//! so this is what any design pays at minimum: spawning, producing, one write.
use std::io;

use crate::burst::message;
use crate::sink::Sink;

// ANCHOR: burst
pub async fn burst(workers: usize, per_worker: usize, mut sink: Sink) -> io::Result<Sink> {
    let producers: Vec<_> = (0..workers)
        .map(|w| {
            tokio::spawn(async move { (0..per_worker).map(|i| message(w, i)).collect::<Vec<u8>>() })
        })
        .collect();
    let consumer = tokio::spawn(async move {
        let mut all = Vec::with_capacity(workers * per_worker);
        for producer in producers {
            all.extend_from_slice(&producer.await?);
        }
        sink.write_all(&all).await?;
        Ok::<_, io::Error>(sink)
    });
    consumer.await?
}
// ANCHOR_END: burst
