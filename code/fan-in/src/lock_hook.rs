//! How the two swaps (designs 4 and 5) take their lock. The timed burst
//! passes [`NoHook`], whose methods are the plain `lock()` and vanish once
//! inlined; the cause instrument (`cause.rs`) passes a hook that counts each
//! lock, so what it counts is the very loop the timings come from.
//!
//! The hook takes the lock rather than hearing about it afterwards: only the
//! one asking can tell that the lock was taken (`try_lock` for `std`, the
//! lock future's first "not yet" for tokio).
//!
//! [`SwapLoops`] names the two designs' loops as types, for the code that
//! runs either: the counted bursts and the published bench's iteration.
use std::future::Future;
use std::io;

use crate::burst::{Departure, LiveProducers};
use crate::sink::Sink;

pub trait LockHook: Send + Sync + 'static {
    /// Takes design 4's `std::sync::Mutex`.
    #[inline(always)]
    fn std_lock<'a>(
        &self,
        inbox: &'a std::sync::Mutex<Vec<u8>>,
    ) -> std::sync::MutexGuard<'a, Vec<u8>> {
        inbox.lock().unwrap()
    }

    /// Takes design 5's `tokio::sync::Mutex`.
    #[inline(always)]
    fn tokio_lock<'a>(
        &'a self,
        inbox: &'a tokio::sync::Mutex<Vec<u8>>,
    ) -> impl Future<Output = tokio::sync::MutexGuard<'a, Vec<u8>>> + Send + 'a {
        inbox.lock()
    }
}

/// The timed burst's hook: every lock is the plain `lock()`.
#[derive(Clone, Copy, Debug, Default)]
pub struct NoHook;

impl LockHook for NoHook {}

/// Designs 4 and 5 as types: their own producer and consumer loops, with a
/// hook (the counted bursts) or without (`produce`, `consume`: the timed
/// loops, what the published bench's iteration runs).
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
