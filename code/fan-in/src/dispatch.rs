//! `Design::burst`: the one match from a design to the module that runs
//! it. Apart from `lib.rs`, which defines the designs and the constants
//! their modules read, so the modules do not import back what imports them.
use std::io;

use crate::sink::Sink;
use crate::{
    async_channel_inbox, floor, flume_inbox, mpsc_bounded, mpsc_recv_many, mpsc_unbounded,
    std_mutex_swap, tokio_mutex_swap, worker_chunks, Design,
};

impl Design {
    /// Spawns the consumer and `workers` producers of `per_worker` messages
    /// each on the current runtime and returns the sink once the consumer
    /// has forwarded every byte.
    pub async fn burst(self, workers: usize, per_worker: usize, sink: Sink) -> io::Result<Sink> {
        match self {
            Design::MpscUnbounded => mpsc_unbounded::burst(workers, per_worker, sink).await,
            Design::MpscBounded => mpsc_bounded::burst(workers, per_worker, sink).await,
            Design::MpscRecvMany => mpsc_recv_many::burst(workers, per_worker, sink).await,
            Design::StdMutexSwap => std_mutex_swap::burst(workers, per_worker, sink).await,
            Design::TokioMutexSwap => tokio_mutex_swap::burst(workers, per_worker, sink).await,
            Design::WorkerChunks => worker_chunks::burst(workers, per_worker, sink).await,
            Design::Floor => floor::burst(workers, per_worker, sink).await,
            Design::FlumeInbox => flume_inbox::burst(workers, per_worker, sink).await,
            Design::AsyncChannelInbox => {
                async_channel_inbox::burst(workers, per_worker, sink).await
            }
        }
    }
}
