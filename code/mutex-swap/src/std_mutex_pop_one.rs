//! The control for batching: the same `std::sync::Mutex`, but the consumer
//! takes one message per lock acquisition, as a consumer of a locked queue
//! would. Producers meet the consumer's lock once per message instead of
//! once per batch.
use std::collections::VecDeque;
use std::sync::Mutex;

use crate::inbox::{Inbox, Sink};

pub struct StdMutexPopOne {
    queue: Mutex<VecDeque<u64>>,
}

impl Inbox for StdMutexPopOne {
    fn with_producers(_: usize) -> Self {
        StdMutexPopOne {
            queue: Mutex::new(VecDeque::new()),
        }
    }

    async fn push(&self, _: usize, message: u64) -> bool {
        let mut queue = self.queue.lock().unwrap();
        let was_empty = queue.is_empty();
        queue.push_back(message);
        was_empty
    }

    // ANCHOR: pop_one
    async fn drain(&self, _spare: &mut Vec<u64>, sink: &mut Sink) -> u64 {
        let mut taken = 0;
        // The guard is a temporary of the `while let` condition: the lock is
        // released before each message is handled.
        while let Some(message) = self.queue.lock().unwrap().pop_front() {
            sink.accept(message);
            taken += 1;
        }
        taken
    }
    // ANCHOR_END: pop_one
}
