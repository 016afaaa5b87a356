//! One lock, one increment, one unlock, with nobody else around: the fast path
//! of each lock. Every function returns the time for `ops` operations and
//! leaves the counter at its old value plus `ops`, which the caller checks.
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

pub fn std_mutex_ops(m: &std::sync::Mutex<u64>, ops: u64) -> Duration {
    let start = Instant::now();
    for _ in 0..ops {
        *m.lock().unwrap() += 1;
    }
    start.elapsed()
}

pub fn parking_lot_ops(m: &parking_lot::Mutex<u64>, ops: u64) -> Duration {
    let start = Instant::now();
    for _ in 0..ops {
        *m.lock() += 1;
    }
    start.elapsed()
}

// ANCHOR: tokio_ops
/// Runs inside a spawned task, so `lock()` sees a worker's co-op budget the
/// way it does in a real program (not the `block_on` thread's).
pub async fn tokio_mutex_ops(m: Arc<tokio::sync::Mutex<u64>>, ops: u64) -> Duration {
    tokio::spawn(async move {
        let start = Instant::now();
        for _ in 0..ops {
            *m.lock().await += 1;
        }
        start.elapsed()
    })
    .await
    .expect("the timing task does not panic")
}
// ANCHOR_END: tokio_ops

// ANCHOR: other_async_ops
/// async-lock's Mutex, on a worker thread like tokio's: it has no co-op
/// budget to meet, so a free lock is always ready at once.
pub async fn async_lock_ops(m: Arc<async_lock::Mutex<u64>>, ops: u64) -> Duration {
    tokio::spawn(async move {
        let start = Instant::now();
        for _ in 0..ops {
            *m.lock().await += 1;
        }
        start.elapsed()
    })
    .await
    .expect("the timing task does not panic")
}

/// futures' Mutex, on a worker thread like tokio's.
pub async fn futures_mutex_ops(m: Arc<futures::lock::Mutex<u64>>, ops: u64) -> Duration {
    tokio::spawn(async move {
        let start = Instant::now();
        for _ in 0..ops {
            *m.lock().await += 1;
        }
        start.elapsed()
    })
    .await
    .expect("the timing task does not panic")
}
// ANCHOR_END: other_async_ops

/// Counts how often a future answered `Pending` before it completed.
struct CountPending<'a, F> {
    inner: Pin<&'a mut F>,
    pending: &'a mut u64,
}

impl<F: Future> Future for CountPending<'_, F> {
    type Output = F::Output;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<F::Output> {
        let this = &mut *self;
        let out = this.inner.as_mut().poll(cx);
        if out.is_pending() {
            *this.pending += 1;
        }
        out
    }
}

// ANCHOR: coop_probe
/// How many times `lock()` on a free tokio Mutex answered `Pending` in `ops`
/// acquisitions on a worker thread. With nobody holding the lock, each one is
/// the cooperative budget running out and forcing the task to yield.
pub async fn tokio_lock_pending_count(ops: u64) -> (u64, u64) {
    tokio::spawn(async move {
        let m = tokio::sync::Mutex::new(0u64);
        let mut pending = 0u64;
        for _ in 0..ops {
            let lock = std::pin::pin!(m.lock());
            let mut guard = CountPending {
                inner: lock,
                pending: &mut pending,
            }
            .await;
            *guard += 1;
        }
        let value = *m.lock().await;
        (pending, value)
    })
    .await
    .expect("the probe task does not panic")
}
// ANCHOR_END: coop_probe
