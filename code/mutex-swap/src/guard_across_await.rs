//! The accepted form of "lock, then await": the guard is gone before the
//! `.await`, so the future holds no `MutexGuard` across the suspension
//! point, stays `Send`, and `tokio::spawn` takes it. The rejected form is
//! the `compile_fail` doctest at the top of the crate.
use std::sync::{Arc, Mutex};

// ANCHOR: accepted
pub async fn push_then_yield(buffer: Arc<Mutex<Vec<u64>>>, message: u64) {
    {
        let mut guard = buffer.lock().unwrap();
        guard.push(message);
    } // the guard is dropped here, before the await
    tokio::task::yield_now().await;
}
// ANCHOR_END: accepted
