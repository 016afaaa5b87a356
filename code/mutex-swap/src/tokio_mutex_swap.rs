//! The swap behind `tokio::sync::Mutex`: every lock is an `.await` on a
//! fair semaphore, so a contended producer is queued and rescheduled
//! instead of retrying.
use tokio::sync::Mutex;

use crate::inbox::{Inbox, Sink};

pub struct TokioMutexSwap {
    buffer: Mutex<Vec<u64>>,
}

// ANCHOR: tokio_swap
impl Inbox for TokioMutexSwap {
    fn with_producers(_: usize) -> Self {
        TokioMutexSwap {
            buffer: Mutex::new(Vec::new()),
        }
    }

    async fn push(&self, _: usize, message: u64) -> bool {
        let mut buffer = self.buffer.lock().await;
        let was_empty = buffer.is_empty();
        buffer.push(message);
        was_empty
    }

    async fn drain(&self, spare: &mut Vec<u64>, sink: &mut Sink) -> u64 {
        std::mem::swap(&mut *self.buffer.lock().await, spare);
        let taken = spare.len() as u64;
        spare.drain(..).for_each(|m| sink.accept(m));
        taken
    }
}
// ANCHOR_END: tokio_swap
