//! Channel fan-in: many producer tasks, one consumer that forwards every
//! message to a sink. Nine designs of the inbox between them, each in its
//! own module, all driven by the same producers into the same sink and timed
//! to the same stop point: the sink holds all `workers x PER_WORKER` bytes.
pub mod burst;
pub mod cause;
pub mod consumer_on_driver;
mod dispatch;
pub mod experiment;
pub mod lock_hook;
pub mod method;
pub mod placement;
pub mod plan;
pub mod published;
pub mod run;
pub mod sink;
pub mod swap_loops;
pub mod sweep;

pub mod async_channel_inbox;
pub mod floor;
pub mod flume_inbox;
pub mod mpsc_bounded;
pub mod mpsc_recv_many;
pub mod mpsc_unbounded;
pub mod std_mutex_swap;
pub mod tokio_mutex_swap;
pub mod worker_chunks;

use serde::{Deserialize, Serialize};

// ANCHOR: parameters
/// One-byte messages each producer sends per burst. The published bench sent
/// a thousand; fewer keep the one-write-per-message designs affordable at
/// thousands of workers while every design still handles many messages.
pub const PER_WORKER: usize = 64;
/// Capacity of the bounded inbox (design 2).
pub const BOUNDED_CAPACITY: usize = 1024;
/// Most messages one `recv_many` takes (design 3).
pub const RECV_MANY_LIMIT: usize = 1024;
/// Bytes a producer batches before it sends a chunk (design 6).
pub const CHUNK_BYTES: usize = 16;
/// Bytes design 6's consumer lets gather while producers are still adding
/// before it writes them (it writes sooner when they pause or finish).
pub const WRITE_BYTES: usize = 64 * 1024;
// ANCHOR_END: parameters

/// The inbox designs, in the order the page presents them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Design {
    MpscUnbounded,
    MpscBounded,
    MpscRecvMany,
    StdMutexSwap,
    TokioMutexSwap,
    WorkerChunks,
    Floor,
    FlumeInbox,
    AsyncChannelInbox,
}

impl Design {
    pub const ALL: [Design; 9] = [
        Design::MpscUnbounded,
        Design::MpscBounded,
        Design::MpscRecvMany,
        Design::StdMutexSwap,
        Design::TokioMutexSwap,
        Design::WorkerChunks,
        Design::Floor,
        Design::FlumeInbox,
        Design::AsyncChannelInbox,
    ];

    /// The inboxes of other crates than tokio, compared in the sweep at the
    /// plan's `crate_workers` only (see `plan::Plan`).
    pub const OTHER_CRATES: [Design; 2] = [Design::FlumeInbox, Design::AsyncChannelInbox];

    /// Stable id, used in results files and criterion ids.
    pub fn id(self) -> &'static str {
        match self {
            Design::MpscUnbounded => "mpsc-unbounded",
            Design::MpscBounded => "mpsc-bounded",
            Design::MpscRecvMany => "mpsc-recv-many",
            Design::StdMutexSwap => "std-mutex-swap",
            Design::TokioMutexSwap => "tokio-mutex-swap",
            Design::WorkerChunks => "worker-chunks",
            Design::Floor => "floor",
            Design::FlumeInbox => "flume-inbox",
            Design::AsyncChannelInbox => "async-channel-inbox",
        }
    }

    /// How the page names it.
    pub fn label(self) -> &'static str {
        match self {
            Design::MpscUnbounded => "mpsc unbounded, write per message",
            Design::MpscBounded => "mpsc bounded, write per message",
            Design::MpscRecvMany => "mpsc recv_many, write per batch",
            Design::StdMutexSwap => "std Mutex swap",
            Design::TokioMutexSwap => "tokio Mutex swap",
            Design::WorkerChunks => "worker chunks + swap (this book)",
            Design::Floor => "floor (no shared inbox)",
            Design::FlumeInbox => "flume unbounded, write per batch",
            Design::AsyncChannelInbox => "async-channel unbounded, write per batch",
        }
    }
}
