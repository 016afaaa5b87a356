//! The counter behind `std::sync::Mutex`: the lock is taken and released
//! inside one poll, so the guard never lives across an `.await`.
use std::sync::Mutex;

use crate::Counter;

#[derive(Default)]
pub struct StdMutexCounter {
    value: Mutex<i64>,
}

// ANCHOR: std_mutex_counter
impl Counter for StdMutexCounter {
    fn start() -> Self {
        Self::default()
    }

    // The guard is dropped before the function returns: holding it across an
    // `.await` would make the future !Send, and could block a worker thread.
    async fn increase_by(&self, n: i64) {
        *self.value.lock().unwrap() += n;
    }

    async fn decrease_by(&self, n: i64) {
        *self.value.lock().unwrap() -= n;
    }

    async fn value(&self) -> i64 {
        *self.value.lock().unwrap()
    }
}
// ANCHOR_END: std_mutex_counter
