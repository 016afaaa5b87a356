//! Experiment B: `tasks` producer tasks push their share of the messages
//! through one bounded channel to a single receiving task, on a multi-thread
//! runtime. Every message is timed two ways:
//!
//! - **before send** (the published method): from just before
//!   `send().await` to the moment the receiver dequeues it. This includes the
//!   wait for room in the channel, so it is mostly queueing delay.
//! - **enqueue to dequeue**: from the moment `send().await` returned (the
//!   message is in the channel) to its dequeue: the time spent in the queue.
//!
//! Recording takes no lock: the receiver owns its histogram and its table of
//! dequeue times, each producer owns its table of send-completion times, and
//! the tables are joined after every task has finished.
use std::time::{Duration, Instant};

use anyhow::{bail, ensure, Context, Result};
use serde::{Deserialize, Serialize};

use crate::backpressure_common::{histogram, Received};
pub use crate::backpressure_common::{AsyncChannel, Latencies, Stamp};
use crate::backpressure_published;

pub struct Tokio;

impl AsyncChannel for Tokio {
    type Tx = tokio::sync::mpsc::Sender<Stamp>;
    type Rx = tokio::sync::mpsc::Receiver<Stamp>;
    const ID: &'static str = "tokio";

    fn open(bound: usize) -> (Self::Tx, Self::Rx) {
        tokio::sync::mpsc::channel(bound)
    }

    async fn send(tx: &Self::Tx, msg: Stamp) -> bool {
        tx.send(msg).await.is_ok()
    }

    async fn recv(rx: &mut Self::Rx) -> Option<Stamp> {
        rx.recv().await
    }
}

pub struct KanalAsync;

impl AsyncChannel for KanalAsync {
    type Tx = kanal::AsyncSender<Stamp>;
    type Rx = kanal::AsyncReceiver<Stamp>;
    const ID: &'static str = "kanal-async";

    fn open(bound: usize) -> (Self::Tx, Self::Rx) {
        kanal::bounded_async(bound)
    }

    async fn send(tx: &Self::Tx, msg: Stamp) -> bool {
        tx.send(msg).await.is_ok()
    }

    async fn recv(rx: &mut Self::Rx) -> Option<Stamp> {
        rx.recv().await.ok()
    }
}

/// flume's bounded channel through its async end: a comparison beside the
/// published pair, no claim rests on it.
pub struct FlumeAsync;

impl AsyncChannel for FlumeAsync {
    type Tx = flume::Sender<Stamp>;
    type Rx = flume::Receiver<Stamp>;
    const ID: &'static str = "flume-async";

    fn open(bound: usize) -> (Self::Tx, Self::Rx) {
        flume::bounded(bound)
    }

    async fn send(tx: &Self::Tx, msg: Stamp) -> bool {
        tx.send_async(msg).await.is_ok()
    }

    async fn recv(rx: &mut Self::Rx) -> Option<Stamp> {
        rx.recv_async().await.ok()
    }
}

/// async-channel's bounded channel: a comparison beside the published pair.
pub struct AsyncChannelBounded;

impl AsyncChannel for AsyncChannelBounded {
    type Tx = async_channel::Sender<Stamp>;
    type Rx = async_channel::Receiver<Stamp>;
    const ID: &'static str = "async-channel";

    fn open(bound: usize) -> (Self::Tx, Self::Rx) {
        async_channel::bounded(bound)
    }

    async fn send(tx: &Self::Tx, msg: Stamp) -> bool {
        tx.send(msg).await.is_ok()
    }

    async fn recv(rx: &mut Self::Rx) -> Option<Stamp> {
        rx.recv().await.ok()
    }
}

/// Runs experiment B's fair point on the channel named `channel` (an id of
/// `BP_CHANNELS` or `BP_COMPARED`).
pub fn run_named(
    channel: &str,
    tasks: usize,
    messages_per_task: usize,
    bound: usize,
    limit: Duration,
) -> Result<Run> {
    match channel {
        Tokio::ID => run::<Tokio>(tasks, messages_per_task, bound, limit),
        KanalAsync::ID => run::<KanalAsync>(tasks, messages_per_task, bound, limit),
        FlumeAsync::ID => run::<FlumeAsync>(tasks, messages_per_task, bound, limit),
        AsyncChannelBounded::ID => {
            run::<AsyncChannelBounded>(tasks, messages_per_task, bound, limit)
        }
        other => bail!("experiment B has no channel {other}"),
    }
}

/// One validated back-pressure run.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Run {
    pub channel: String,
    pub tasks: usize,
    pub bound: usize,
    pub messages_per_task: usize,
    /// Messages the receiver got, each checked to arrive exactly once.
    pub received: u64,
    /// From the first producer's spawn to the receiver's last dequeue.
    pub wall_ns: u64,
    pub before_send: Latencies,
    pub enqueue_to_dequeue: Latencies,
    /// Messages dequeued before their producer's `send().await` returned
    /// (recorded as the smallest latency: the true value is not above it).
    pub dequeued_before_send_returned: u64,
}

impl Run {
    /// Messages per second through the channel over the whole run.
    pub fn throughput(&self) -> f64 {
        self.received as f64 / (self.wall_ns as f64 / 1e9)
    }
}

// ANCHOR: producer
async fn produce<C: AsyncChannel>(
    tx: C::Tx,
    producer: u32,
    messages: usize,
    origin: Instant,
) -> Vec<u64> {
    let mut sent_ns = Vec::with_capacity(messages);
    for seq in 0..messages as u32 {
        // The published stamp: before the wait for room in the channel.
        let before = origin.elapsed().as_nanos() as u64;
        let msg = Stamp {
            producer,
            seq,
            sent_ns: before,
        };
        if !C::send(&tx, msg).await {
            break;
        }
        // The message is in the channel now: the second clock starts here.
        sent_ns.push(origin.elapsed().as_nanos() as u64);
    }
    sent_ns
}
// ANCHOR_END: producer

// ANCHOR: receiver
async fn receive<C: AsyncChannel>(
    mut rx: C::Rx,
    messages_per_task: usize,
    total: usize,
    origin: Instant,
) -> Received {
    let mut before_send = histogram();
    let mut dequeued_ns = vec![0u64; total];
    let (mut duplicates, mut out_of_range) = (0, 0);
    while let Some(msg) = C::recv(&mut rx).await {
        let now = (origin.elapsed().as_nanos() as u64).max(1);
        before_send.saturating_record(now.saturating_sub(msg.sent_ns).max(1));
        let id = msg.producer as usize * messages_per_task + msg.seq as usize;
        match dequeued_ns.get_mut(id) {
            Some(slot) if *slot == 0 => *slot = now,
            Some(_) => duplicates += 1,
            None => out_of_range += 1,
        }
    }
    Received {
        before_send,
        dequeued_ns,
        duplicates,
        out_of_range,
    }
}
// ANCHOR_END: receiver

/// Worker threads of the multi-thread runtime: one per core, as `#[tokio::main]` does.
pub fn worker_threads() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// Where the receiver records each message's latency.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Recording {
    /// Into its own histogram and table, shared with nobody until it ends.
    Owned,
    /// Into a `Vec` behind a `tokio::sync::Mutex`, locked per message (the
    /// published method, see `backpressure_published`).
    SharedVec,
}

/// How the run's main task waits for the receiver.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ending {
    /// Awaits the receiver task.
    Join,
    /// Sleeps a fixed pause after the last producer finished, then reads
    /// what the receiver has recorded by then (the published method).
    Sleep(Duration),
}

/// One way of running experiment B: how the receiver records and how the
/// run ends. Every message carries both clocks whatever the rung.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Rung {
    pub recording: Recording,
    pub ending: Ending,
}

impl Rung {
    /// The book's fair experiment.
    pub const FAIR: Rung = Rung {
        recording: Recording::Owned,
        ending: Ending::Join,
    };
}

/// Runs one point and validates it: every message received exactly once.
/// The runtime is built before the clock starts and dropped after it stops.
pub fn run<C: AsyncChannel>(
    tasks: usize,
    messages_per_task: usize,
    bound: usize,
    limit: Duration,
) -> Result<Run> {
    Ok(run_rung::<C>(tasks, messages_per_task, bound, limit, Rung::FAIR)?.0)
}

/// Runs one point the way `rung` says and validates it. Returns the run
/// (its latencies over the messages the method had counted when it read
/// its result) and how many messages that was.
pub fn run_rung<C: AsyncChannel>(
    tasks: usize,
    messages_per_task: usize,
    bound: usize,
    limit: Duration,
    rung: Rung,
) -> Result<(Run, u64)> {
    ensure!(tasks > 0 && messages_per_task > 0 && bound > 0, "empty run");
    ensure!(
        messages_per_task <= u32::MAX as usize && tasks <= u32::MAX as usize,
        "too many messages"
    );
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(worker_threads())
        .enable_all()
        .build()
        .context("building the multi-thread runtime")?;
    let total = tasks * messages_per_task;
    let shared = backpressure_published::SharedVec::default();
    let outcome = rt.block_on(async {
        tokio::time::timeout(limit, async {
            let (tx, rx) = C::open(bound);
            let origin = Instant::now();
            let into = shared.clone();
            let receiver = tokio::spawn(async move {
                match rung.recording {
                    Recording::Owned => {
                        Some(receive::<C>(rx, messages_per_task, total, origin).await)
                    }
                    Recording::SharedVec => {
                        backpressure_published::receive::<C>(rx, into, origin).await;
                        None
                    }
                }
            });
            let producers: Vec<_> = (0..tasks)
                .map(|p| {
                    tokio::spawn(produce::<C>(
                        tx.clone(),
                        p as u32,
                        messages_per_task,
                        origin,
                    ))
                })
                .collect();
            // The receiver's loop ends when the last sender is dropped.
            drop(tx);
            let mut sent = Vec::with_capacity(tasks);
            for p in producers {
                sent.push(p.await.context("a producer task panicked")?);
            }
            let counted = match rung.ending {
                Ending::Join => None,
                Ending::Sleep(pause) => {
                    tokio::time::sleep(pause).await;
                    Some(match rung.recording {
                        Recording::SharedVec => shared.lock().await.len() as u64,
                        Recording::Owned if receiver.is_finished() => total as u64,
                        Recording::Owned => 0,
                    })
                }
            };
            // Awaited after the pause too: the run is validated whatever
            // the method read.
            let received = receiver.await.context("the receiver task panicked")?;
            let wall_ns = origin.elapsed().as_nanos() as u64;
            anyhow::Ok((sent, received, counted, wall_ns))
        })
        .await
    });
    let Ok(outcome) = outcome else {
        bail!(
            "{} back-pressure run ({tasks} tasks, bound {bound}) did not finish within {limit:?}",
            C::ID
        );
    };
    let (sent, received, counted, wall_ns) = outcome?;
    drop(rt);
    let what = format!("{} back-pressure ({tasks} tasks, bound {bound})", C::ID);
    let counted = counted.unwrap_or(total as u64);
    // A run that slept ends at its last dequeue, not after its pause.
    let slept = matches!(rung.ending, Ending::Sleep(_));
    match received {
        Some(received) => {
            let wall_ns = match received.dequeued_ns.iter().max() {
                Some(&last) if slept => last,
                _ => wall_ns,
            };
            ensure!(
                counted == total as u64,
                "{what}: the receiver had not finished when the pause ended"
            );
            let run = summarise::<C>(tasks, messages_per_task, bound, sent, received, wall_ns)?;
            Ok((run, counted))
        }
        None => {
            let entries = std::mem::take(&mut *shared.try_lock().context("the receiver is gone")?);
            let wall_ns = match entries.iter().map(|e| e.dequeued_ns).max() {
                Some(last) if slept => last,
                _ => wall_ns,
            };
            let received = backpressure_published::received(&entries, messages_per_task, total);
            let mut run = summarise::<C>(
                tasks,
                messages_per_task,
                bound,
                sent.clone(),
                received,
                wall_ns,
            )?;
            // What the published program would have averaged: the entries
            // in the Vec when its pause ended.
            let (before, in_queue) =
                backpressure_published::latencies(&entries[..counted as usize], &sent)
                    .with_context(|| {
                        format!("{what}: nothing was recorded when the pause ended")
                    })?;
            run.before_send = before;
            run.enqueue_to_dequeue = in_queue;
            Ok((run, counted))
        }
    }
}

pub(crate) fn summarise<C: AsyncChannel>(
    tasks: usize,
    messages_per_task: usize,
    bound: usize,
    sent: Vec<Vec<u64>>,
    received: Received,
    wall_ns: u64,
) -> Result<Run> {
    let total = (tasks * messages_per_task) as u64;
    let what = format!("{} back-pressure ({tasks} tasks, bound {bound})", C::ID);
    ensure!(
        received.duplicates == 0 && received.out_of_range == 0,
        "{what}: {} messages arrived twice and {} carried an unknown id",
        received.duplicates,
        received.out_of_range
    );
    let sent_count: u64 = sent.iter().map(|s| s.len() as u64).sum();
    ensure!(
        sent_count == total,
        "{what}: producers completed {sent_count} sends of {total}"
    );
    let missing = received.dequeued_ns.iter().filter(|&&t| t == 0).count();
    ensure!(
        missing == 0 && received.before_send.len() == total,
        "{what}: {missing} of {total} messages never arrived"
    );
    let mut in_queue = histogram();
    let mut early = 0;
    for (p, times) in sent.iter().enumerate() {
        for (seq, &done) in times.iter().enumerate() {
            let dequeued = received.dequeued_ns[p * messages_per_task + seq];
            if dequeued < done {
                early += 1;
            }
            in_queue.saturating_record(dequeued.saturating_sub(done).max(1));
        }
    }
    Ok(Run {
        channel: C::ID.to_string(),
        tasks,
        bound,
        messages_per_task,
        received: received.before_send.len(),
        wall_ns,
        before_send: Latencies::of(&received.before_send),
        enqueue_to_dequeue: Latencies::of(&in_queue),
        dequeued_before_send_returned: early,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn received(dequeued_ns: Vec<u64>, duplicates: u64) -> Received {
        let mut before_send = histogram();
        for _ in dequeued_ns.iter().filter(|&&t| t > 0) {
            before_send.saturating_record(10);
        }
        Received {
            before_send,
            dequeued_ns,
            duplicates,
            out_of_range: 0,
        }
    }

    #[test]
    fn a_complete_run_is_summarised() {
        let sent = vec![vec![5, 6], vec![7, 8]];
        let run = summarise::<Tokio>(2, 2, 1, sent, received(vec![9, 9, 9, 7], 0), 100).unwrap();
        assert_eq!(run.received, 4);
        assert_eq!(run.dequeued_before_send_returned, 1);
        assert_eq!(run.enqueue_to_dequeue.count, 4);
    }

    #[test]
    fn every_channel_of_experiment_b_delivers_each_message_once() {
        let limit = Duration::from_secs(60);
        for channel in crate::run::BP_CHANNELS
            .into_iter()
            .chain(crate::run::BP_COMPARED)
        {
            for bound in [1, 100] {
                let r = run_named(channel, 8, 250, bound, limit).unwrap();
                assert_eq!(r.channel, channel);
                assert_eq!(r.received, 2000);
                assert_eq!(r.before_send.count, 2000);
                assert_eq!(r.enqueue_to_dequeue.count, 2000);
            }
        }
        assert!(run_named("nothing", 1, 1, 1, limit).is_err());
    }

    #[test]
    fn duplicates_and_losses_fail_the_run() {
        let sent = || vec![vec![5, 6], vec![7, 8]];
        let dup = summarise::<Tokio>(2, 2, 1, sent(), received(vec![9, 9, 9, 9], 1), 100);
        assert!(format!("{:#}", dup.unwrap_err()).contains("arrived twice"));
        let lost = summarise::<Tokio>(2, 2, 1, sent(), received(vec![9, 0, 9, 9], 0), 100);
        assert!(format!("{:#}", lost.unwrap_err()).contains("never arrived"));
        let short = summarise::<Tokio>(
            2,
            2,
            1,
            vec![vec![5], vec![7, 8]],
            received(vec![9; 4], 0),
            100,
        );
        assert!(format!("{:#}", short.unwrap_err()).contains("completed 3 sends"));
    }
}
