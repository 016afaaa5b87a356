//! What experiment B's two receivers share: the message, the channel they
//! read from, what a receiver records and how a latency distribution is
//! summarised. The book's run (`backpressure`) and the published receiver
//! (`backpressure_published`) both import it, so the run can use the
//! published receiver without the receiver reaching back into the run.
use std::future::Future;

use harness_measure::latency::{self, Percentiles};
use hdrhistogram::Histogram;
use serde::{Deserialize, Serialize};

/// What travels through the channel: who sent it and when.
#[derive(Clone, Copy, Debug)]
pub struct Stamp {
    pub producer: u32,
    pub seq: u32,
    /// Nanoseconds since the run's origin, taken just before `send().await`.
    pub sent_ns: u64,
}

/// The two operations experiment B needs from an async channel.
pub trait AsyncChannel: 'static {
    type Tx: Clone + Send + Sync + 'static;
    type Rx: Send + 'static;
    const ID: &'static str;
    fn open(bound: usize) -> (Self::Tx, Self::Rx);
    /// Resolves to false if the receiver is gone.
    fn send(tx: &Self::Tx, msg: Stamp) -> impl Future<Output = bool> + Send + '_;
    /// Resolves to `None` once every sender is dropped and the channel is empty.
    fn recv(rx: &mut Self::Rx) -> impl Future<Output = Option<Stamp>> + Send + '_;
}

/// A latency distribution as stored in the results: how many latencies,
/// and the HDR histogram's summary (`harness_measure::latency::Percentiles`,
/// flattened: the results' field names are the ones they always had), ns.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Latencies {
    pub count: u64,
    #[serde(flatten)]
    pub percentiles: Percentiles,
}

impl Latencies {
    pub(crate) fn of(h: &Histogram<u64>) -> Latencies {
        Latencies {
            count: h.len(),
            percentiles: Percentiles::of(h),
        }
    }
}

/// A histogram of 1 ns to one hour at three significant digits.
pub(crate) fn histogram() -> Histogram<u64> {
    latency::histogram(3_600_000_000_000)
}

/// What a receiver recorded: the published-method latencies and, per
/// message id (`producer * messages_per_task + seq`), its dequeue time.
pub(crate) struct Received {
    pub(crate) before_send: Histogram<u64>,
    pub(crate) dequeued_ns: Vec<u64>,
    pub(crate) duplicates: u64,
    pub(crate) out_of_range: u64,
}
