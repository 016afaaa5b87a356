//! The other crates' inboxes (flume, async-channel): the work check catches
//! a broken consumer of either. (That the run measures them where the plan
//! says and that the picks of What to use follow the numbers are the page's
//! tests: `src/page/tests/crates.rs`.)
use std::time::Duration;

use fan_in::burst::Tally;
use fan_in::experiment::{check_delivery, runtime};
use fan_in::sink::{Sink, SinkKind};
use fan_in::{async_channel_inbox, flume_inbox, Design, PER_WORKER, RECV_MANY_LIMIT};

/// A flume consumer that awaits a message only to learn there is work, and
/// writes what `drain` takes: the awaited message is lost from every batch.
async fn flume_losing_first(rx: flume::Receiver<u8>, mut sink: Sink) -> std::io::Result<Sink> {
    while rx.recv_async().await.is_ok() {
        let batch: Vec<u8> = rx.drain().collect();
        sink.write_all(&batch).await?;
    }
    Ok(sink)
}

/// An async-channel consumer that never clears its batch (the published
/// swap's bug): every write resends what the earlier ones sent.
async fn async_channel_never_cleared(
    rx: async_channel::Receiver<u8>,
    mut sink: Sink,
) -> std::io::Result<Sink> {
    let mut batch = Vec::new();
    while let Ok(first) = rx.recv().await {
        batch.push(first);
        let limit = batch.len() + RECV_MANY_LIMIT - 1;
        while batch.len() < limit {
            match rx.try_recv() {
                Ok(byte) => batch.push(byte),
                Err(_) => break,
            }
        }
        sink.write_all(&batch).await?;
    }
    Ok(sink)
}

/// Runs `workers` producers of the design into `consume` on a memory sink
/// and returns what the sink tallied.
fn tally_of<F>(burst: F) -> Tally
where
    F: std::future::Future<Output = std::io::Result<Sink>>,
{
    let rt = runtime().unwrap();
    rt.block_on(async {
        let mut sink = tokio::time::timeout(Duration::from_secs(30), burst)
            .await
            .expect("the burst hangs")
            .unwrap();
        sink.take_memory_tally().unwrap()
    })
}

#[test]
fn the_work_check_passes_both_inboxes_and_fails_their_broken_consumers() {
    // More messages than one batch of the async-channel consumer holds, so
    // it makes several writes and a resend is certain.
    let workers = 64;
    assert!(workers * PER_WORKER > RECV_MANY_LIMIT);
    let expected = Tally::expected(workers, PER_WORKER);
    let check = |what: &str, tally| check_delivery(what, SinkKind::Memory, tally, expected);

    for design in Design::OTHER_CRATES {
        let tally = tally_of(design.burst(workers, PER_WORKER, Sink::memory()));
        check(design.label(), tally).unwrap_or_else(|e| panic!("{e:#}"));
    }

    let broken_flume = tally_of(async {
        let (tx, rx) = flume::unbounded::<u8>();
        let consumer = tokio::spawn(flume_losing_first(rx, Sink::memory()));
        for w in 0..workers {
            tokio::spawn(flume_inbox::produce(tx.clone(), w, PER_WORKER));
        }
        drop(tx);
        consumer.await?
    });
    assert!(broken_flume.bytes < expected.bytes);
    let err = check("flume, first message lost", broken_flume).unwrap_err();
    assert!(format!("{err:#}").contains("delivered"), "{err:#}");

    let broken_async = tally_of(async {
        let (tx, rx) = async_channel::unbounded::<u8>();
        let consumer = tokio::spawn(async_channel_never_cleared(rx, Sink::memory()));
        for w in 0..workers {
            tokio::spawn(async_channel_inbox::produce(tx.clone(), w, PER_WORKER));
        }
        drop(tx);
        consumer.await?
    });
    assert!(broken_async.bytes > expected.bytes);
    assert!(check("async-channel, batch never cleared", broken_async).is_err());
}
