//! How the two swaps (designs 4 and 5) take their lock. The timed burst
//! passes [`NoHook`], whose methods are the plain `lock()` and vanish once
//! inlined; the cause instrument (`cause.rs`) passes a hook that counts each
//! lock, so what it counts is the very loop the timings come from.
//!
//! The hook takes the lock rather than hearing about it afterwards: only the
//! one asking can tell that the lock was taken (`try_lock` for `std`, the
//! lock future's first "not yet" for tokio).

use std::future::Future;

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
