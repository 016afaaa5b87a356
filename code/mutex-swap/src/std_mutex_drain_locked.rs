//! The same `std::sync::Mutex<Vec<u64>>`, but the consumer does its work on
//! every message while it still holds the lock: the critical section grows
//! with the batch, and every producer waits for it.
use std::sync::Mutex;

use crate::inbox::{Inbox, Sink};

pub struct StdMutexDrainLocked {
    buffer: Mutex<Vec<u64>>,
}

impl Inbox for StdMutexDrainLocked {
    fn with_producers(_: usize) -> Self {
        StdMutexDrainLocked {
            buffer: Mutex::new(Vec::new()),
        }
    }

    async fn push(&self, _: usize, message: u64) -> bool {
        let mut buffer = self.buffer.lock().unwrap();
        let was_empty = buffer.is_empty();
        buffer.push(message);
        was_empty
    }

    // ANCHOR: drain_locked
    async fn drain(&self, _spare: &mut Vec<u64>, sink: &mut Sink) -> u64 {
        let mut buffer = self.buffer.lock().unwrap();
        let taken = buffer.len() as u64;
        buffer.drain(..).for_each(|m| sink.accept(m));
        taken
    }
    // ANCHOR_END: drain_locked
}
