//! The counter behind `parking_lot::Mutex`: a blocking lock like std's, taken
//! and released inside one poll, with no poisoning and a one-byte state that
//! spins briefly before it parks a waiting thread.
use parking_lot::Mutex;

use crate::Counter;

#[derive(Default)]
pub struct ParkingLotCounter {
    value: Mutex<i64>,
}

// ANCHOR: parking_lot_counter
impl Counter for ParkingLotCounter {
    fn start() -> Self {
        Self::default()
    }

    // As with std's lock, the guard never lives across an `.await`: a waiter
    // blocks its worker thread until the holder lets go.
    async fn increase_by(&self, n: i64) {
        *self.value.lock() += n;
    }

    async fn decrease_by(&self, n: i64) {
        *self.value.lock() -= n;
    }

    async fn value(&self) -> i64 {
        *self.value.lock()
    }
}
// ANCHOR_END: parking_lot_counter
