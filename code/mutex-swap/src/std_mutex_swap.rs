//! The published design: a `Vec` behind `std::sync::Mutex`; the consumer
//! swaps it for its own empty `Vec` and drains outside the lock.
use std::sync::Mutex;

use crate::inbox::{Inbox, Sink};

pub struct StdMutexSwap {
    buffer: Mutex<Vec<u64>>,
}

// ANCHOR: swap
impl Inbox for StdMutexSwap {
    fn with_producers(_: usize) -> Self {
        StdMutexSwap {
            buffer: Mutex::new(Vec::new()),
        }
    }

    async fn push(&self, _: usize, message: u64) -> bool {
        let mut buffer = self.buffer.lock().unwrap();
        let was_empty = buffer.is_empty();
        buffer.push(message);
        was_empty
    }

    async fn drain(&self, spare: &mut Vec<u64>, sink: &mut Sink) -> u64 {
        // The critical section is the swap alone: producers wait for a
        // pointer exchange, never for the consumer's work.
        std::mem::swap(&mut *self.buffer.lock().unwrap(), spare);
        let taken = spare.len() as u64;
        spare.drain(..).for_each(|m| sink.accept(m));
        taken
    }
}
// ANCHOR_END: swap
