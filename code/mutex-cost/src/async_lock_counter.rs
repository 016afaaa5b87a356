//! The counter behind `async_lock::Mutex` (smol's lock, usable on any
//! runtime): `lock()` is a future, so a task that finds the lock taken
//! yields its worker thread. It asks no runtime for a co-op budget.
use async_lock::Mutex;

use crate::Counter;

#[derive(Default)]
pub struct AsyncLockCounter {
    value: Mutex<i64>,
}

// ANCHOR: async_lock_counter
impl Counter for AsyncLockCounter {
    fn start() -> Self {
        Self::default()
    }

    async fn increase_by(&self, n: i64) {
        *self.value.lock().await += n;
    }

    async fn decrease_by(&self, n: i64) {
        *self.value.lock().await -= n;
    }

    async fn value(&self) -> i64 {
        *self.value.lock().await
    }
}
// ANCHOR_END: async_lock_counter
