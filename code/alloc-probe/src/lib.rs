//! How much heap does a channel hold before anyone sends on it, and how does
//! it grow? Every channel is driven through the same [`probe::HeapProbe`]
//! stages and measured with dhat, which counts exact live bytes.
//!
//! The variants, one module each, and the experiment parameters:
use anyhow::Result;
use serde::{Deserialize, Serialize};

pub mod probe;
pub mod run;

pub mod channels {
    pub mod crossbeam_bounded;
    pub mod flume_bounded;
    pub mod futures_mpsc;
    pub mod kanal_async;
    pub mod kanal_sync;
    pub mod std_sync_channel;
    pub mod tokio_bounded;
    pub mod tokio_unbounded;
}

use channels::*;
use probe::{live_bytes, Footprint, Payload};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Channel {
    TokioBounded,
    TokioUnbounded,
    FuturesMpsc,
    CrossbeamBounded,
    KanalSync,
    KanalAsync,
    StdSyncChannel,
    FlumeBounded,
}

impl Channel {
    pub const ALL: [Channel; 8] = [
        Channel::TokioBounded,
        Channel::TokioUnbounded,
        Channel::FuturesMpsc,
        Channel::CrossbeamBounded,
        Channel::KanalSync,
        Channel::KanalAsync,
        Channel::StdSyncChannel,
        Channel::FlumeBounded,
    ];

    /// The channel's name in files and on the command line.
    pub fn slug(self) -> &'static str {
        match self {
            Channel::TokioBounded => "tokio-bounded",
            Channel::TokioUnbounded => "tokio-unbounded",
            Channel::FuturesMpsc => "futures-mpsc",
            Channel::CrossbeamBounded => "crossbeam-bounded",
            Channel::KanalSync => "kanal-sync",
            Channel::KanalAsync => "kanal-async",
            Channel::StdSyncChannel => "std-sync-channel",
            Channel::FlumeBounded => "flume-bounded",
        }
    }

    pub fn label(self) -> &'static str {
        match self {
            Channel::TokioBounded => "tokio mpsc, bounded",
            Channel::TokioUnbounded => "tokio mpsc, unbounded",
            Channel::FuturesMpsc => "futures-channel mpsc",
            Channel::CrossbeamBounded => "crossbeam-channel bounded",
            Channel::KanalSync => "kanal bounded (sync)",
            Channel::KanalAsync => "kanal bounded (async)",
            Channel::StdSyncChannel => "std sync_channel",
            Channel::FlumeBounded => "flume bounded",
        }
    }

    /// Creates, fills to `capacity`, drains and drops one channel of `T`.
    pub fn footprint<T: Payload>(self, capacity: usize) -> Result<Footprint> {
        match self {
            Channel::TokioBounded => tokio_bounded::footprint::<T>(capacity),
            Channel::TokioUnbounded => tokio_unbounded::footprint::<T>(capacity),
            Channel::FuturesMpsc => futures_mpsc::footprint::<T>(capacity),
            Channel::CrossbeamBounded => crossbeam_bounded::footprint::<T>(capacity),
            Channel::KanalSync => kanal_sync::footprint::<T>(capacity),
            Channel::KanalAsync => kanal_async::footprint::<T>(capacity),
            Channel::StdSyncChannel => std_sync_channel::footprint::<T>(capacity),
            Channel::FlumeBounded => flume_bounded::footprint::<T>(capacity),
        }
    }

    /// Creates and drops `n` channels of `T`, one after the other (the work
    /// callgrind counts: see `run::counts`).
    pub fn create<T: Payload>(self, n: u64, capacity: usize) {
        match self {
            Channel::TokioBounded => tokio_bounded::create::<T>(n, capacity),
            Channel::TokioUnbounded => tokio_unbounded::create::<T>(n, capacity),
            Channel::FuturesMpsc => futures_mpsc::create::<T>(n, capacity),
            Channel::CrossbeamBounded => crossbeam_bounded::create::<T>(n, capacity),
            Channel::KanalSync => kanal_sync::create::<T>(n, capacity),
            Channel::KanalAsync => kanal_async::create::<T>(n, capacity),
            Channel::StdSyncChannel => std_sync_channel::create::<T>(n, capacity),
            Channel::FlumeBounded => flume_bounded::create::<T>(n, capacity),
        }
    }

    /// Live heap bytes of `count` idle channels held at once (the handles'
    /// own `Vec` is not counted: only what the channels allocate).
    pub fn held_bytes<T: Payload>(self, count: usize, capacity: usize) -> u64 {
        fn measure<V>(make: impl FnOnce() -> Vec<V>) -> u64 {
            let base = live_bytes();
            let held = make();
            let bytes = live_bytes() - base - std::mem::size_of_val(held.as_slice()) as u64;
            drop(held);
            bytes
        }
        match self {
            Channel::TokioBounded => measure(|| tokio_bounded::hold::<T>(count, capacity)),
            Channel::TokioUnbounded => measure(|| tokio_unbounded::hold::<T>(count, capacity)),
            Channel::FuturesMpsc => measure(|| futures_mpsc::hold::<T>(count, capacity)),
            Channel::CrossbeamBounded => measure(|| crossbeam_bounded::hold::<T>(count, capacity)),
            Channel::KanalSync => measure(|| kanal_sync::hold::<T>(count, capacity)),
            Channel::KanalAsync => measure(|| kanal_async::hold::<T>(count, capacity)),
            Channel::StdSyncChannel => measure(|| std_sync_channel::hold::<T>(count, capacity)),
            Channel::FlumeBounded => measure(|| flume_bounded::hold::<T>(count, capacity)),
        }
    }
}

/// A probe of one message size, chosen at compile time (`[u8; N]`).
pub type SizedProbe = fn(Channel, usize) -> Result<Footprint>;

fn probe_array<const N: usize>(channel: Channel, capacity: usize) -> Result<Footprint> {
    channel.footprint::<[u8; N]>(capacity)
}

macro_rules! sizes {
    ($($n:literal),*) => { &[$(($n, probe_array::<$n> as SizedProbe)),*] };
}

// ANCHOR: parameters
/// The published grid: message sizes and capacities.
pub const GRID_SIZES: &[(usize, SizedProbe)] = sizes!(8, 128, 1024);
pub const GRID_CAPACITIES: [usize; 3] = [1, 16, 1024];

/// Message sizes for fitting `created = a * size_of::<T>() + b`, at one capacity.
pub const SWEEP_SIZES: &[(usize, SizedProbe)] =
    sizes!(8, 16, 24, 32, 48, 64, 128, 250, 256, 512, 1024, 2048, 4096);
pub const SWEEP_CAPACITY: usize = 16;

/// Many idle channels held at once, as a server holds one per peer.
pub const SCENARIOS: [Scenario; 2] = [
    Scenario {
        name: "health",
        about: "one idle health-check channel per service, 24-byte status, capacity 1",
        msg_size: 24,
        capacity: 1,
        channels: 10_000,
    },
    Scenario {
        name: "requests",
        about: "one request channel per connection, 250-byte request, capacity 16",
        msg_size: 250,
        capacity: 16,
        channels: 10_000,
    },
];

/// Creating and dropping one channel of each scenario's message and
/// capacity, counted in instructions: created this many times in one counted
/// run and this many in another.
pub const CREATE_COUNTS: (u64, u64) = (100, 300);
// ANCHOR_END: parameters

#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq, Eq)]
pub struct Scenario {
    pub name: &'static str,
    pub about: &'static str,
    pub msg_size: usize,
    pub capacity: usize,
    pub channels: usize,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct GridPoint {
    pub channel: Channel,
    pub msg_size: usize,
    pub capacity: usize,
    pub footprint: Footprint,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ScenarioResult {
    pub scenario: String,
    pub channel: Channel,
    /// The message is sent boxed (`Box<[u8; N]>`), the mitigation.
    pub boxed: bool,
    pub msg_size: usize,
    pub capacity: usize,
    pub channels: usize,
    pub total_bytes: u64,
}

impl ScenarioResult {
    pub fn per_channel(&self) -> f64 {
        self.total_bytes as f64 / self.channels as f64
    }
}

/// Runs the published grid for every channel.
pub fn grid(mut each: impl FnMut(&str)) -> Result<Vec<GridPoint>> {
    let mut points = Vec::new();
    for channel in Channel::ALL {
        each(channel.label());
        for &(msg_size, probe) in GRID_SIZES {
            for capacity in GRID_CAPACITIES {
                let footprint = probe(channel, capacity)?;
                points.push(GridPoint {
                    channel,
                    msg_size,
                    capacity,
                    footprint,
                });
            }
        }
    }
    Ok(points)
}

/// Creation cost against message size, for fitting.
pub fn sweep(mut each: impl FnMut(&str)) -> Result<Vec<GridPoint>> {
    let mut points = Vec::new();
    for channel in Channel::ALL {
        each(channel.label());
        for &(msg_size, probe) in SWEEP_SIZES {
            points.push(GridPoint {
                channel,
                msg_size,
                capacity: SWEEP_CAPACITY,
                footprint: probe(channel, SWEEP_CAPACITY)?,
            });
        }
    }
    Ok(points)
}

fn held<const N: usize>(s: &Scenario, channel: Channel, boxed: bool) -> ScenarioResult {
    let total_bytes = if boxed {
        channel.held_bytes::<Box<[u8; N]>>(s.channels, s.capacity)
    } else {
        channel.held_bytes::<[u8; N]>(s.channels, s.capacity)
    };
    ScenarioResult {
        scenario: s.name.to_string(),
        channel,
        boxed,
        msg_size: N,
        capacity: s.capacity,
        channels: s.channels,
        total_bytes,
    }
}

/// Every channel in both scenarios, plus tokio with the message boxed.
pub fn scenarios(channels: usize) -> Vec<ScenarioResult> {
    let mut out = Vec::new();
    for s in SCENARIOS {
        let s = Scenario { channels, ..s };
        for channel in Channel::ALL {
            out.push(match s.msg_size {
                24 => held::<24>(&s, channel, false),
                _ => held::<250>(&s, channel, false),
            });
        }
        out.push(match s.msg_size {
            24 => held::<24>(&s, Channel::TokioBounded, true),
            _ => held::<250>(&s, Channel::TokioBounded, true),
        });
    }
    out
}

/// Least-squares line through `(x, y)` points, with the largest miss.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Fit {
    pub slope: f64,
    pub intercept: f64,
    pub max_residual: f64,
}

pub fn fit(points: &[(f64, f64)]) -> Fit {
    let n = points.len() as f64;
    let mx = points.iter().map(|p| p.0).sum::<f64>() / n;
    let my = points.iter().map(|p| p.1).sum::<f64>() / n;
    let sxy: f64 = points.iter().map(|p| (p.0 - mx) * (p.1 - my)).sum();
    let sxx: f64 = points.iter().map(|p| (p.0 - mx).powi(2)).sum();
    let slope = if sxx == 0.0 { 0.0 } else { sxy / sxx };
    let intercept = my - slope * mx;
    let max_residual = points
        .iter()
        .map(|p| (p.1 - (slope * p.0 + intercept)).abs())
        .fold(0.0, f64::max);
    Fit {
        slope,
        intercept,
        max_residual,
    }
}

/// The fit of creation bytes against message size for one channel.
pub fn creation_fit(sweep: &[GridPoint], channel: Channel) -> Fit {
    let points: Vec<(f64, f64)> = sweep
        .iter()
        .filter(|p| p.channel == channel)
        .map(|p| (p.msg_size as f64, p.footprint.created as f64))
        .collect();
    fit(&points)
}
