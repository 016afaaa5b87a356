//! The counter behind `futures::lock::Mutex`: `lock()` is a future that
//! registers the task's waker in a slab when the lock is taken, and the
//! holder wakes one waiter on unlock. Like async-lock's, it knows no runtime.
use futures::lock::Mutex;

use crate::Counter;

#[derive(Default)]
pub struct FuturesMutexCounter {
    value: Mutex<i64>,
}

// ANCHOR: futures_mutex_counter
impl Counter for FuturesMutexCounter {
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
// ANCHOR_END: futures_mutex_counter
