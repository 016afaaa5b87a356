//! How much does async coordination cost per message, next to a synchronous
//! lock-free channel? Three experiments:
//!
//! - **A, the payload sweep**: one *burst* is [`BURST`] sends into a bounded
//!   channel of capacity [`CAPACITY`], then as many receives, all in one
//!   thread (one task on a current-thread tokio runtime for the async
//!   channels). Payloads are `[u8; N]` (copied through the channel) for
//!   every N in [`PAYLOAD_SIZES`], and `Box<[u8; N]>` (only a pointer
//!   moves) for tokio and crossbeam (`Variant::carries`).
//!   Two floors frame the channels: the same burst through a plain `Vec`
//!   (no synchronisation at all) and one `memcpy` of `BURST * N` bytes. The
//!   tokio/crossbeam ratio the verdicts rest on is timed [`head_to_head`]:
//!   the two channels' by-value bursts alternate in one loop.
//! - **B, back-pressure**: `T` producer tasks x `M` messages through one
//!   bounded channel, tokio vs kanal async (with flume's async end and
//!   async-channel beside them as comparisons), every message's latency
//!   recorded two ways (see [`backpressure`]).
//! - **C, cross-machine**: experiment A's tokio/crossbeam ratio per machine;
//!   the data is per-machine results files, the comparison is on the page
//!   (the binary's `page`).
pub mod async_channel_bounded;
pub mod backpressure;
pub mod backpressure_common;
pub mod backpressure_ladder;
pub mod backpressure_published;
pub mod burst_shapes;
pub mod cache;
pub mod counted;
pub mod crossbeam_bounded;
pub mod delivered;
pub mod drivers;
pub mod flume_async;
pub mod flume_sync;
pub mod head_to_head;
pub mod kanal_async;
pub mod kanal_sync;
pub mod memcpy_floor;
pub mod methods;
pub mod minimal_crossbeam;
pub mod minimal_tokio;
pub mod payload;
pub mod profiles;
pub mod run;
pub mod stack;
pub mod std_sync_channel;
pub mod sweep;
pub mod tokio_mpsc;
pub mod vec_floor;

pub use run::ChannelLatency;

use harness_core::Profile;
use harness_measure::timing::Sampling;

/// Messages per burst, and the channel's capacity: every send finds room,
/// so experiment A times the per-message cost of a channel, never a wait.
pub const BURST: usize = 1000;
pub const CAPACITY: usize = 1000;

/// Payload sizes in bytes (the table is in [`payload`], beside the one
/// match that turns a size into its message type).
pub use payload::PAYLOAD_SIZES;

/// The sizes the compared crates (`Variant::COMPARED`) are measured at:
/// the smallest and the largest, where the page's picks are, and two
/// between, evenly spread on the log scale.
pub const COMPARED_SIZES: [usize; 4] = [8, 256, 4096, 32768];

/// What carries the bursts in experiment A.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Variant {
    TokioMpsc,
    Crossbeam,
    KanalSync,
    KanalAsync,
    StdSyncChannel,
    /// flume's bounded channel, its blocking end (`send`, `recv`).
    FlumeSync,
    /// flume's bounded channel, its async end (`send_async`, `recv_async`).
    FlumeAsync,
    /// async-channel's bounded channel.
    AsyncChannel,
    /// A `Vec` standing in for the channel: the work of a burst with no synchronisation.
    VecFloor,
}

impl Variant {
    pub const ALL: [Variant; 9] = [
        Variant::TokioMpsc,
        Variant::Crossbeam,
        Variant::KanalSync,
        Variant::KanalAsync,
        Variant::StdSyncChannel,
        Variant::FlumeSync,
        Variant::FlumeAsync,
        Variant::AsyncChannel,
        Variant::VecFloor,
    ];

    /// The channels readers choose between, compared in the sweep and in
    /// experiment B beside the published pairs (issue 44): no claim rests
    /// on them, and a results file from before them has none.
    pub const COMPARED: [Variant; 3] = [
        Variant::FlumeSync,
        Variant::FlumeAsync,
        Variant::AsyncChannel,
    ];

    /// The payload carries the sweep measures this variant with. Only
    /// tokio's and crossbeam's boxed bursts are read (the copy against
    /// coordination table, the instruction table and the large-payload
    /// table compare the two); every other variant is measured by value.
    pub fn carries(self) -> &'static [Carry] {
        match self {
            Variant::TokioMpsc | Variant::Crossbeam => &Carry::ALL,
            _ => &[Carry::Array],
        }
    }

    /// The payload sizes the sweep measures this variant at: every size,
    /// except the compared crates, which decide no verdict and are
    /// measured at [`COMPARED_SIZES`] to keep the profiles' time.
    pub fn sizes(self) -> &'static [usize] {
        if Variant::COMPARED.contains(&self) {
            &COMPARED_SIZES
        } else {
            &PAYLOAD_SIZES
        }
    }

    /// Points of one pass of the sweep: every variant with its carries at
    /// its sizes (the memcpy floors not counted).
    pub fn points_per_pass() -> usize {
        Variant::ALL
            .iter()
            .map(|v| v.carries().len() * v.sizes().len())
            .sum()
    }

    /// The id stored in results files.
    pub fn id(self) -> &'static str {
        match self {
            Variant::TokioMpsc => "tokio",
            Variant::Crossbeam => "crossbeam",
            Variant::KanalSync => "kanal-sync",
            Variant::KanalAsync => "kanal-async",
            Variant::StdSyncChannel => "std-sync-channel",
            Variant::FlumeSync => "flume-sync",
            Variant::FlumeAsync => "flume-async",
            Variant::AsyncChannel => "async-channel",
            Variant::VecFloor => "vec-floor",
        }
    }

    /// How the page names it.
    pub fn label(self) -> &'static str {
        match self {
            Variant::TokioMpsc => "tokio mpsc",
            Variant::Crossbeam => "crossbeam-channel",
            Variant::KanalSync => "kanal (sync)",
            Variant::KanalAsync => "kanal (async)",
            Variant::StdSyncChannel => "std sync_channel",
            Variant::FlumeSync => "flume (sync)",
            Variant::FlumeAsync => "flume (async)",
            Variant::AsyncChannel => "async-channel",
            Variant::VecFloor => "Vec (no channel)",
        }
    }

    pub fn is_async(self) -> bool {
        matches!(
            self,
            Variant::TokioMpsc | Variant::KanalAsync | Variant::FlumeAsync | Variant::AsyncChannel
        )
    }

    pub fn from_id(id: &str) -> Option<Variant> {
        Variant::ALL.into_iter().find(|v| v.id() == id)
    }
}

/// How a payload travels: by value (its bytes are copied in and out of the
/// channel's slot) or boxed (the allocation is made before timing and reused).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Carry {
    Array,
    Boxed,
}

impl Carry {
    pub const ALL: [Carry; 2] = [Carry::Array, Carry::Boxed];

    pub fn id(self) -> &'static str {
        match self {
            Carry::Array => "array",
            Carry::Boxed => "boxed",
        }
    }

    pub fn from_id(id: &str) -> Option<Carry> {
        Carry::ALL.into_iter().find(|c| c.id() == id)
    }
}

/// Criterion's sampling for one repeat of one point of experiment A. The
/// published run used 50 samples x 3 s; these are much cheaper, and the page
/// shows the confidence intervals they buy.
pub fn sweep_sampling(profile: Profile) -> Sampling {
    profile.pick(
        Sampling::new(10, 10, 30),
        Sampling::new(10, 25, 100),
        Sampling::new(10, 100, 400),
    )
}

/// How many times each point of experiment A is measured, in passes over
/// every size, every variant once per size in each pass, each time on a new
/// channel: a slow spell of the machine then lands on every variant a ratio
/// compares instead of on one of them, each size draws a spell per pass
/// instead of one for all its repeats, and the repeats-first bootstrap
/// widens the intervals when repeats disagree. The verdicts rest on the
/// head-to-head ratio and the verdict maps, not on these points, so quick
/// spends one pass fewer than full.
pub fn sweep_repeats(profile: Profile) -> usize {
    profile.pick(1, 3, 5)
}

/// Windows of experiment A's head-to-head timing at each size, in passes
/// over every size like the sweep's repeats; each window times
/// `head_to_head::PAIRS` bursts of each channel. Four is the fewest that
/// `harness_measure::stats::paired_ratio` draws an interval from.
pub fn head_to_head_windows(profile: Profile) -> usize {
    profile.pick(4, 12, 24)
}

/// Producer-task counts and channel bounds of experiment B (the published grid).
pub const TASKS: [usize; 2] = [100, 1000];
pub const BOUNDS: [usize; 3] = [1, 100, 1000];

/// Messages sent through the channel per back-pressure point, split evenly
/// over the producers. The published run sent 100,000 per task; what the
/// latency measures depends on tasks and bound, not on the run's length,
/// once the queue has reached its steady state. These long runs are one
/// run per setting: on LAT-5's and LAT-6's maps their row has no interval
/// and decides nothing (the ladder's repeats decide), so they are a
/// quarter (full) and half (quick) of what they were before the compared
/// channels joined them.
pub fn backpressure_messages(profile: Profile) -> usize {
    profile.pick(20_000, 200_000, 1_000_000)
}

/// How long a back-pressure point may run before it counts as hung.
pub const HANG_LIMIT: std::time::Duration = std::time::Duration::from_secs(300);
