//! The counter behind `tokio::sync::Mutex`: `lock()` is a future, so a task
//! that finds the lock taken yields its worker thread instead of blocking it.
use tokio::sync::Mutex;

use crate::Counter;

#[derive(Default)]
pub struct TokioMutexCounter {
    value: Mutex<i64>,
}

// ANCHOR: tokio_mutex_counter
impl Counter for TokioMutexCounter {
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
// ANCHOR_END: tokio_mutex_counter
