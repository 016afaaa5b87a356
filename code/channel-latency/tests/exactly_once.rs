//! Every message of every channel and setting arrives exactly once.
use harness::conformance::within;
use std::time::Duration;

use channel_latency::async_channel_bounded::AsyncChannelBounded;
use channel_latency::backpressure::{self, AsyncChannel, KanalAsync, Tokio};
use channel_latency::crossbeam_bounded::CrossbeamBounded;
use channel_latency::flume_async::FlumeAsync;
use channel_latency::flume_sync::FlumeSync;
use channel_latency::kanal_async::KanalAsync as KanalAsyncBurst;
use channel_latency::kanal_sync::KanalSync;
use channel_latency::payload::{burst_checksum, Payload};
use channel_latency::std_sync_channel::StdSyncChannel;
use channel_latency::tokio_mpsc::TokioMpsc;
use channel_latency::vec_floor::VecFloor;
use channel_latency::{BOUNDS, BURST, CAPACITY};

/// A payload that counts, per sequence number, how often it was received.
struct Tracked(u64);

impl Payload for Tracked {
    type Stock = Vec<u32>;
    const BYTES: usize = 8;
    fn stock(burst: usize) -> Vec<u32> {
        vec![0; burst]
    }
    fn take(_: &mut Vec<u32>, seq: u64) -> Self {
        Tracked(seq)
    }
    fn give(stock: &mut Vec<u32>, msg: Self) -> u64 {
        stock[msg.0 as usize] += 1;
        msg.0
    }
}

const ROUNDS: u32 = 3;

fn assert_each_once_per_round(name: &str, counts: &[u32], sums: &[u64]) {
    assert_eq!(counts.len(), BURST);
    for (seq, &n) in counts.iter().enumerate() {
        assert_eq!(
            n, ROUNDS,
            "{name}: message {seq} arrived {n} times in {ROUNDS} bursts"
        );
    }
    for &s in sums {
        assert_eq!(s, burst_checksum(BURST), "{name}: wrong checksum");
    }
}

macro_rules! sync_case {
    ($name:literal, $ty:ident) => {{
        within(Duration::from_secs(20), $name, || {
            let mut chan = $ty::<Tracked>::new(CAPACITY);
            let mut stock = Tracked::stock(BURST);
            let sums: Vec<u64> = (0..ROUNDS).map(|_| chan.burst(&mut stock, BURST)).collect();
            assert!(chan.is_drained(), "{}: messages left behind", $name);
            assert_each_once_per_round($name, &stock, &sums);
        })
    }};
}

macro_rules! async_case {
    ($name:literal, $ty:ident) => {{
        within(Duration::from_secs(20), $name, || {
            let rt = tokio::runtime::Builder::new_current_thread()
                .build()
                .unwrap();
            let mut chan = $ty::<Tracked>::new(CAPACITY);
            let mut stock = Tracked::stock(BURST);
            let mut sums = Vec::new();
            for _ in 0..ROUNDS {
                sums.push(rt.block_on(chan.burst(&mut stock, BURST)));
            }
            assert!(chan.is_drained(), "{}: messages left behind", $name);
            assert_each_once_per_round($name, &stock, &sums);
        })
    }};
}

#[test]
fn every_burst_channel_delivers_each_message_once() {
    sync_case!("crossbeam", CrossbeamBounded);
    sync_case!("kanal sync", KanalSync);
    sync_case!("std sync_channel", StdSyncChannel);
    sync_case!("Vec floor", VecFloor);
    async_case!("tokio mpsc", TokioMpsc);
    async_case!("kanal async", KanalAsyncBurst);
    sync_case!("flume sync", FlumeSync);
    async_case!("flume async", FlumeAsync);
    async_case!("async-channel", AsyncChannelBounded);
}

/// A channel that loses one message of every burst: the checks above
/// must catch it.
struct Lossy<P>(CrossbeamBounded<P>);

impl<P: Payload> Lossy<P> {
    fn new(capacity: usize) -> Self {
        Lossy(CrossbeamBounded::new(capacity))
    }

    fn burst(&mut self, stock: &mut P::Stock, n: usize) -> u64 {
        // One message fewer goes in; the burst still "receives" n - 1.
        self.0.burst(stock, n - 1)
    }

    fn is_drained(&mut self) -> bool {
        self.0.is_drained()
    }
}

#[test]
#[should_panic(expected = "arrived 0 times")]
fn a_channel_that_loses_a_message_fails_the_check() {
    let mut chan = Lossy::<Tracked>::new(CAPACITY);
    let mut stock = Tracked::stock(BURST);
    let sums: Vec<u64> = (0..ROUNDS).map(|_| chan.burst(&mut stock, BURST)).collect();
    assert!(chan.is_drained());
    assert_each_once_per_round("lossy", &stock, &sums);
}

#[test]
fn array_and_boxed_payloads_carry_their_sequence_number() {
    within(Duration::from_secs(20), "payload round trip", || {
        let mut arrays = <[u8; 4096] as Payload>::stock(4);
        let mut boxes = <Box<[u8; 4096]> as Payload>::stock(4);
        for seq in [0, 1, 3, u64::MAX] {
            let a = <[u8; 4096] as Payload>::take(&mut arrays, seq);
            assert_eq!(
                a[4095], 0xA5,
                "the payload beyond the stamp is the template"
            );
            assert_eq!(<[u8; 4096] as Payload>::give(&mut arrays, a), seq);
            let b = <Box<[u8; 4096]> as Payload>::take(&mut boxes, seq);
            assert_eq!(<Box<[u8; 4096]> as Payload>::give(&mut boxes, b), seq);
        }
        assert_eq!(boxes.len(), 4, "boxes are recycled, not dropped");
    });
}

#[test]
#[should_panic(expected = "8-byte sequence number")]
fn payloads_smaller_than_the_stamp_are_refused() {
    let _ = <[u8; 4] as Payload>::stock(1);
}

fn backpressure_grid<C: AsyncChannel>() {
    for tasks in [1, 7, 50] {
        for bound in BOUNDS {
            let per_task = 200;
            let run = within(
                Duration::from_secs(60),
                &format!("{} {tasks} tasks bound {bound}", C::ID),
                move || backpressure::run::<C>(tasks, per_task, bound, Duration::from_secs(30)),
            )
            .unwrap_or_else(|e| panic!("{e:#}"));
            let total = (tasks * per_task) as u64;
            assert_eq!(run.received, total);
            assert_eq!(run.before_send.count, total);
            assert_eq!(run.enqueue_to_dequeue.count, total);
            assert!(run.before_send.percentiles.p50_ns <= run.before_send.percentiles.max_ns);
            assert!(run.wall_ns > 0 && run.throughput() > 0.0);
            assert_eq!(run.channel, C::ID);
        }
    }
}

#[test]
fn tokio_backpressure_delivers_each_message_once() {
    backpressure_grid::<Tokio>();
}

#[test]
fn kanal_backpressure_delivers_each_message_once() {
    backpressure_grid::<KanalAsync>();
}

#[test]
fn flume_backpressure_delivers_each_message_once() {
    backpressure_grid::<backpressure::FlumeAsync>();
}

#[test]
fn async_channel_backpressure_delivers_each_message_once() {
    backpressure_grid::<backpressure::AsyncChannelBounded>();
}

#[test]
fn a_backpressure_run_that_cannot_finish_is_reported() {
    // One million messages cannot pass in a millisecond: the run must fail
    // with a clear error instead of hanging or returning partial data.
    let err = within(Duration::from_secs(60), "time limit", || {
        backpressure::run::<Tokio>(10, 100_000, 1, Duration::from_millis(1))
    })
    .expect_err("a run past its limit is an error");
    assert!(format!("{err:#}").contains("did not finish"), "{err:#}");
}

/// Every rung of experiment B's ladder delivers each message once; a run
/// that sleeps reports what its receiver had recorded when it woke.
fn ladder_rungs<C: AsyncChannel>() {
    use backpressure::{Ending, Recording, Rung};
    let rungs = [
        Rung {
            recording: Recording::SharedVec,
            ending: Ending::Sleep(Duration::from_millis(100)),
        },
        Rung {
            recording: Recording::Owned,
            ending: Ending::Sleep(Duration::from_millis(100)),
        },
        Rung::FAIR,
    ];
    for rung in rungs {
        for (tasks, bound) in [(1, 1), (7, 100), (50, 1000)] {
            let per_task = 150;
            let (run, counted) = within(
                Duration::from_secs(60),
                &format!("{} {rung:?} {tasks} tasks bound {bound}", C::ID),
                move || {
                    backpressure::run_rung::<C>(
                        tasks,
                        per_task,
                        bound,
                        Duration::from_secs(30),
                        rung,
                    )
                },
            )
            .unwrap_or_else(|e| panic!("{e:#}"));
            let total = (tasks * per_task) as u64;
            assert_eq!(run.received, total, "{rung:?}");
            assert_eq!(counted, total, "{rung:?}: the pause outlasted the drain");
            assert_eq!(run.before_send.count, counted);
            assert_eq!(run.enqueue_to_dequeue.count, counted);
            assert!(run.before_send.percentiles.p50_ns <= run.before_send.percentiles.max_ns);
            assert!(run.wall_ns > 0);
        }
    }
}

#[test]
fn tokio_ladder_rungs_deliver_each_message_once() {
    ladder_rungs::<Tokio>();
}

#[test]
fn kanal_ladder_rungs_deliver_each_message_once() {
    ladder_rungs::<KanalAsync>();
}

#[test]
fn every_way_of_driving_experiment_a_delivers_each_message_once() {
    use channel_latency::drivers::Runtimes;
    use channel_latency::methods::{window, METHODS};
    within(
        Duration::from_secs(120),
        "experiment A's other ways",
        || {
            let rts = Runtimes::new().unwrap();
            for m in METHODS {
                for bytes in [8, 4096] {
                    // A window fails unless every burst's sum is right and both
                    // channels are empty at its end.
                    let w = window(m, bytes, 0, 2, &rts).unwrap_or_else(|e| panic!("{e:#}"));
                    assert!(w.bursts_checked > 0, "{}", m.id);
                }
            }
        },
    );
}
