//! Experiment A: times one burst per variant, payload and size with criterion.
//!
//! The timed region of every point is exactly `BURST` sends followed by
//! `BURST` receives (or one `memcpy` for the copy floor), each burst timed
//! on its own. The channel, the payload stock and, for the async channels,
//! the current-thread runtime are built before timing; the runtime is
//! entered before each burst's clock starts. Consecutive bursts run at
//! different stack offsets (`stack::shifted`).
use std::cell::Cell;
use std::future::Future;
use std::pin::pin;
use std::task::Poll;
use std::time::{Duration, Instant};

use anyhow::{ensure, Context, Result};
use harness_measure::timing::{Sampling, Timing};
use harness_measure::Lab;
use serde::{Deserialize, Serialize};
use tokio::runtime::Runtime;

use crate::async_channel_bounded::AsyncChannelBounded;
use crate::crossbeam_bounded::CrossbeamBounded;
use crate::flume_async::FlumeAsync;
use crate::flume_sync::FlumeSync;
use crate::kanal_async::KanalAsync;
use crate::kanal_sync::KanalSync;
use crate::memcpy_floor::MemcpyFloor;
use crate::payload::{self, burst_checksum, ForSize, Payload};
use crate::stack;
use crate::std_sync_channel::StdSyncChannel;
use crate::tokio_mpsc::TokioMpsc;
use crate::vec_floor::VecFloor;
use crate::{Carry, Variant, BURST, CAPACITY};

/// One point of the sweep.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Point {
    pub variant: String,
    pub carry: String,
    pub bytes: usize,
    /// Nanoseconds per burst.
    pub timing: Timing,
    /// Bursts run under criterion (warm-up included), each checked.
    pub bursts_checked: u64,
    /// Async variants: how often the runtime polled one burst's future.
    /// One poll means no await ever suspended.
    pub polls_per_burst: Option<u64>,
    /// `size_of` the message type moved through the channel.
    pub message_size: usize,
}

impl Point {
    /// Repeats of one point (each its own criterion run on its own channel)
    /// as one point: samples pooled by `Timing::pooled`, bursts added up.
    pub fn pooled(parts: Vec<Point>) -> Result<Point> {
        let first = parts.first().context("no repeats to pool")?.clone();
        ensure!(
            parts.iter().all(|p| p.variant == first.variant
                && p.carry == first.carry
                && p.bytes == first.bytes
                && p.message_size == first.message_size),
            "repeats of different points cannot be pooled"
        );
        let bursts_checked = parts.iter().map(|p| p.bursts_checked).sum();
        // Polls per burst are a property of the code, not of the run; keep
        // the most any repeat saw, so a difference could not hide.
        let polls_per_burst = parts.iter().filter_map(|p| p.polls_per_burst).max();
        let timing = Timing::pooled(parts.into_iter().map(|p| p.timing).collect())?;
        Ok(Point {
            timing,
            bursts_checked,
            polls_per_burst,
            ..first
        })
    }
}

/// The copy floor at one size: one `memcpy` of `BURST * bytes` bytes.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct MemcpyPoint {
    pub bytes: usize,
    pub timing: Timing,
}

impl MemcpyPoint {
    /// Repeats of one copy floor as one point (see `Point::pooled`).
    pub fn pooled(parts: Vec<MemcpyPoint>) -> Result<MemcpyPoint> {
        let bytes = parts.first().context("no repeats to pool")?.bytes;
        ensure!(
            parts.iter().all(|p| p.bytes == bytes),
            "repeats of different copy floors cannot be pooled"
        );
        let timing = Timing::pooled(parts.into_iter().map(|p| p.timing).collect())?;
        Ok(MemcpyPoint { bytes, timing })
    }
}

/// A channel driven synchronously, in one thread.
pub trait SyncBurst<P: Payload> {
    fn burst(&mut self, stock: &mut P::Stock, n: usize) -> u64;
    fn is_drained(&mut self) -> bool;
}

/// A channel driven by one task on a current-thread runtime.
pub trait AsyncBurst<P: Payload> {
    fn burst<'a>(&'a mut self, stock: &'a mut P::Stock, n: usize) -> impl Future<Output = u64>;
    fn is_drained(&mut self) -> bool;
}

macro_rules! sync_burst {
    ($($ty:ident),*) => {$(
        impl<P: Payload> SyncBurst<P> for $ty<P> {
            fn burst(&mut self, stock: &mut P::Stock, n: usize) -> u64 {
                $ty::burst(self, stock, n)
            }
            fn is_drained(&mut self) -> bool {
                $ty::is_drained(self)
            }
        }
    )*};
}
sync_burst!(
    CrossbeamBounded,
    KanalSync,
    StdSyncChannel,
    FlumeSync,
    VecFloor
);

macro_rules! async_burst {
    ($($ty:ident),*) => {$(
        impl<P: Payload> AsyncBurst<P> for $ty<P> {
            fn burst<'a>(&'a mut self, stock: &'a mut P::Stock, n: usize) -> impl Future<Output = u64> {
                $ty::burst(self, stock, n)
            }
            fn is_drained(&mut self) -> bool {
                $ty::is_drained(self)
            }
        }
    )*};
}
async_burst!(TokioMpsc, KanalAsync, FlumeAsync, AsyncChannelBounded);

/// Counts what the timed loop saw, checked once criterion is done with it.
#[derive(Default)]
struct Tally {
    bursts: Cell<u64>,
    wrong: Cell<u64>,
}

impl Tally {
    fn add(&self, bursts: u64, wrong: u64) {
        self.bursts.set(self.bursts.get() + bursts);
        self.wrong.set(self.wrong.get() + wrong);
    }

    fn check(&self, id: &str) -> Result<u64> {
        ensure!(
            self.wrong.get() == 0,
            "{id}: {} of {} bursts returned the wrong checksum",
            self.wrong.get(),
            self.bursts.get()
        );
        ensure!(self.bursts.get() > 0, "{id}: criterion ran no burst");
        Ok(self.bursts.get())
    }
}

/// Times bursts under criterion. Each runs at the next stack offset
/// (`stack::shifted`) and is timed on its own: `burst` runs one and returns
/// its time and checksum.
fn time_bursts(
    lab: &Lab,
    sampling: Sampling,
    id: &str,
    tally: &Tally,
    mut burst: impl FnMut() -> (Duration, u64),
) -> Result<Timing> {
    let expected = burst_checksum(BURST);
    let mut turn = 0;
    lab.time(id, sampling, |b| {
        b.iter_custom(|iters| {
            let mut wrong = 0;
            let mut elapsed = Duration::ZERO;
            for _ in 0..iters {
                let (took, sum) = stack::shifted(turn, &mut burst);
                turn += 1;
                elapsed += took;
                wrong += u64::from(sum != expected);
            }
            tally.add(iters, wrong);
            elapsed
        })
    })
}

fn time_sync<P: Payload, C: SyncBurst<P>>(
    mut chan: C,
    lab: &Lab,
    sampling: Sampling,
    id: &str,
) -> Result<(Timing, u64)> {
    let mut stock = P::stock(BURST);
    let tally = Tally::default();
    let timing = time_bursts(lab, sampling, id, &tally, || {
        let start = Instant::now();
        let sum = chan.burst(&mut stock, BURST);
        (start.elapsed(), sum)
    })?;
    ensure!(chan.is_drained(), "{id}: messages were left in the channel");
    Ok((timing, tally.check(id)?))
}

fn time_async<P: Payload, C: AsyncBurst<P>>(
    mut chan: C,
    rt: &Runtime,
    lab: &Lab,
    sampling: Sampling,
    id: &str,
) -> Result<(Timing, u64, u64)> {
    let mut stock = P::stock(BURST);
    let expected = burst_checksum(BURST);
    let tally = Tally::default();
    // The task's state lives in `block_on`'s frame: entering the runtime
    // per burst is what moves it with the offset.
    let timing = time_bursts(lab, sampling, id, &tally, || {
        rt.block_on(async {
            let start = Instant::now();
            let sum = chan.burst(&mut stock, BURST).await;
            (start.elapsed(), sum)
        })
    })?;
    ensure!(chan.is_drained(), "{id}: messages were left in the channel");
    // Outside timing: how many times the runtime had to poll one burst.
    let polls = rt.block_on(async {
        let mut polls = 0;
        let mut burst = pin!(chan.burst(&mut stock, BURST));
        let sum = std::future::poll_fn(|cx| {
            polls += 1;
            match burst.as_mut().poll(cx) {
                Poll::Ready(sum) => Poll::Ready(sum),
                Poll::Pending => Poll::Pending,
            }
        })
        .await;
        (sum == expected).then_some(polls)
    });
    let polls = polls.with_context(|| format!("{id}: the counted burst was wrong"))?;
    Ok((timing, tally.check(id)?, polls))
}

/// The runtime of the async variants: current-thread, entered by the caller.
pub fn current_thread_runtime() -> Result<Runtime> {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .context("building the current-thread runtime")
}

fn point<P: Payload>(
    variant: Variant,
    carry: Carry,
    rt: &Runtime,
    lab: &Lab,
    sampling: Sampling,
    repeat: usize,
) -> Result<Point> {
    let id = format!("{}-{}-{}-r{repeat}", variant.id(), carry.id(), P::BYTES);
    let (timing, bursts_checked, polls) = match variant {
        Variant::TokioMpsc => {
            let (t, n, p) = time_async(TokioMpsc::<P>::new(CAPACITY), rt, lab, sampling, &id)?;
            (t, n, Some(p))
        }
        Variant::KanalAsync => {
            let (t, n, p) = time_async(KanalAsync::<P>::new(CAPACITY), rt, lab, sampling, &id)?;
            (t, n, Some(p))
        }
        Variant::FlumeAsync => {
            let (t, n, p) = time_async(FlumeAsync::<P>::new(CAPACITY), rt, lab, sampling, &id)?;
            (t, n, Some(p))
        }
        Variant::AsyncChannel => {
            let chan = AsyncChannelBounded::<P>::new(CAPACITY);
            let (t, n, p) = time_async(chan, rt, lab, sampling, &id)?;
            (t, n, Some(p))
        }
        Variant::FlumeSync => {
            let (t, n) = time_sync(FlumeSync::<P>::new(CAPACITY), lab, sampling, &id)?;
            (t, n, None)
        }
        Variant::Crossbeam => {
            let (t, n) = time_sync(CrossbeamBounded::<P>::new(CAPACITY), lab, sampling, &id)?;
            (t, n, None)
        }
        Variant::KanalSync => {
            let (t, n) = time_sync(KanalSync::<P>::new(CAPACITY), lab, sampling, &id)?;
            (t, n, None)
        }
        Variant::StdSyncChannel => {
            let (t, n) = time_sync(StdSyncChannel::<P>::new(CAPACITY), lab, sampling, &id)?;
            (t, n, None)
        }
        Variant::VecFloor => {
            let (t, n) = time_sync(VecFloor::<P>::new(CAPACITY), lab, sampling, &id)?;
            (t, n, None)
        }
    };
    Ok(Point {
        variant: variant.id().into(),
        carry: carry.id().into(),
        bytes: P::BYTES,
        timing,
        bursts_checked,
        polls_per_burst: polls,
        message_size: std::mem::size_of::<P>(),
    })
}

/// Measures one variant at one payload size (one of `PAYLOAD_SIZES`), as
/// repeat number `repeat` of the point (which keeps its timing id unique).
pub fn measure_point(
    variant: Variant,
    carry: Carry,
    bytes: usize,
    rt: &Runtime,
    lab: &Lab,
    sampling: Sampling,
    repeat: usize,
) -> Result<Point> {
    struct At<'a>(Variant, Carry, &'a Runtime, &'a Lab, Sampling, usize);
    impl ForSize for At<'_> {
        type Out = Point;
        fn run<const N: usize>(self) -> Result<Point> {
            let At(variant, carry, rt, lab, sampling, repeat) = self;
            match carry {
                Carry::Array => point::<[u8; N]>(variant, carry, rt, lab, sampling, repeat),
                Carry::Boxed => point::<Box<[u8; N]>>(variant, carry, rt, lab, sampling, repeat),
            }
        }
    }
    payload::for_size(bytes, At(variant, carry, rt, lab, sampling, repeat))
}

/// Times one `memcpy` of `BURST * bytes` bytes and checks it copied them
/// all, as repeat number `repeat` of the floor.
pub fn measure_memcpy(
    bytes: usize,
    lab: &Lab,
    sampling: Sampling,
    repeat: usize,
) -> Result<MemcpyPoint> {
    let mut floor = MemcpyFloor::new(BURST * bytes);
    let id = format!("memcpy-{bytes}-r{repeat}");
    let timing = lab.time(&id, sampling, |b| b.iter(|| floor.copy()))?;
    ensure!(floor.verified(), "{id}: the copy did not move every byte");
    Ok(MemcpyPoint { bytes, timing })
}
