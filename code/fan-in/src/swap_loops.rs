//! Designs 4 and 5 as types, for the code that runs either: the counted
//! bursts (`cause.rs`, with a counting hook), the consumer moved onto the
//! driver thread (`consumer_on_driver`) and the published bench's iteration.
use std::future::Future;
use std::io;

use crate::burst::{Departure, LiveProducers};
use crate::lock_hook::{LockHook, NoHook};
use crate::sink::Sink;

/// A swap design's own producer and consumer loops, with a hook or without
/// (`produce`, `consume`: the timed loops, with [`NoHook`]).
pub trait SwapLoops {
    type Inbox: Clone + Default + Send + 'static;

    fn produce_with<H: LockHook>(
        inbox: Self::Inbox,
        departure: Departure,
        worker: usize,
        per_worker: usize,
        hook: H,
    ) -> impl Future<Output = ()> + Send + 'static;

    fn consume_with<H: LockHook>(
        inbox: Self::Inbox,
        live: LiveProducers,
        sink: Sink,
        hook: H,
    ) -> impl Future<Output = io::Result<Sink>> + Send + 'static;

    fn produce(
        inbox: Self::Inbox,
        departure: Departure,
        worker: usize,
        per_worker: usize,
    ) -> impl Future<Output = ()> + Send + 'static {
        Self::produce_with(inbox, departure, worker, per_worker, NoHook)
    }

    fn consume(
        inbox: Self::Inbox,
        live: LiveProducers,
        sink: Sink,
    ) -> impl Future<Output = io::Result<Sink>> + Send + 'static {
        Self::consume_with(inbox, live, sink, NoHook)
    }
}

/// Design 4, `std_mutex_swap`.
pub struct StdSwap;
/// Design 5, `tokio_mutex_swap`.
pub struct TokioSwap;

macro_rules! swap_loops {
    ($($design:ident => $module:ident),*) => {$(
        impl SwapLoops for $design {
            type Inbox = crate::$module::Inbox;

            fn produce_with<H: LockHook>(
                inbox: Self::Inbox,
                departure: Departure,
                worker: usize,
                per_worker: usize,
                hook: H,
            ) -> impl Future<Output = ()> + Send + 'static {
                crate::$module::produce_with(inbox, departure, worker, per_worker, hook)
            }

            fn consume_with<H: LockHook>(
                inbox: Self::Inbox,
                live: LiveProducers,
                sink: Sink,
                hook: H,
            ) -> impl Future<Output = io::Result<Sink>> + Send + 'static {
                crate::$module::consume_with(inbox, live, sink, hook)
            }
        }
    )*};
}

swap_loops!(StdSwap => std_mutex_swap, TokioSwap => tokio_mutex_swap);
