//! A swap burst whose consumer runs where the published bench ran it: on the
//! thread that calls `block_on`, through a `LocalSet`, outside the runtime's
//! worker threads. The producers are the designs' own, spawned from a task
//! as in the fair burst; the consumer is the designs' own too, so the only
//! change from the fair experiment is the thread that polls the consumer.
use std::io;
use std::sync::Arc;

use tokio::task::LocalSet;

use crate::burst::LiveProducers;
use crate::sink::Sink;
use crate::swap_loops::{StdSwap, SwapLoops, TokioSwap};
use crate::{std_mutex_swap, tokio_mutex_swap, Design};

// ANCHOR: burst
pub async fn burst(
    design: Design,
    workers: usize,
    per_worker: usize,
    sink: Sink,
) -> io::Result<Sink> {
    let local = LocalSet::new();
    let live = LiveProducers::new(workers);
    let consumer = match design {
        Design::StdMutexSwap => {
            let inbox = std_mutex_swap::Inbox::default();
            let consumer =
                local.spawn_local(StdSwap::consume(Arc::clone(&inbox), live.clone(), sink));
            tokio::spawn(async move {
                for w in 0..workers {
                    tokio::spawn(StdSwap::produce(
                        Arc::clone(&inbox),
                        live.enlist(),
                        w,
                        per_worker,
                    ));
                }
            });
            consumer
        }
        Design::TokioMutexSwap => {
            let inbox = tokio_mutex_swap::Inbox::default();
            let consumer =
                local.spawn_local(TokioSwap::consume(Arc::clone(&inbox), live.clone(), sink));
            tokio::spawn(async move {
                for w in 0..workers {
                    tokio::spawn(TokioSwap::produce(
                        Arc::clone(&inbox),
                        live.enlist(),
                        w,
                        per_worker,
                    ));
                }
            });
            consumer
        }
        other => {
            return Err(io::Error::other(format!(
                "{} has no swap consumer to move off the workers",
                other.label()
            )))
        }
    };
    // Polls the consumer on this thread until it returns; the producers run
    // on the workers meanwhile.
    local.run_until(consumer).await?
}
// ANCHOR_END: burst
