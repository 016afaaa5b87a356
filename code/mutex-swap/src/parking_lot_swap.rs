//! The swap behind `parking_lot::Mutex`: spins briefly before parking and
//! has no poisoning, otherwise the same critical section as the std swap.
use parking_lot::Mutex;

use crate::inbox::{Inbox, Sink};

pub struct ParkingLotSwap {
    buffer: Mutex<Vec<u64>>,
}

impl Inbox for ParkingLotSwap {
    fn with_producers(_: usize) -> Self {
        ParkingLotSwap {
            buffer: Mutex::new(Vec::new()),
        }
    }

    async fn push(&self, _: usize, message: u64) -> bool {
        let mut buffer = self.buffer.lock();
        let was_empty = buffer.is_empty();
        buffer.push(message);
        was_empty
    }

    async fn drain(&self, spare: &mut Vec<u64>, sink: &mut Sink) -> u64 {
        std::mem::swap(&mut *self.buffer.lock(), spare);
        let taken = spare.len() as u64;
        spare.drain(..).for_each(|m| sink.accept(m));
        taken
    }
}
