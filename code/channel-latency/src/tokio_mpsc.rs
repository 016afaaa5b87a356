//! tokio's bounded mpsc channel, driven by one task on a current-thread runtime.
use tokio::sync::mpsc;

use crate::payload::Payload;

pub struct TokioMpsc<P> {
    tx: mpsc::Sender<P>,
    rx: mpsc::Receiver<P>,
}

impl<P: Payload> TokioMpsc<P> {
    pub fn new(capacity: usize) -> Self {
        let (tx, rx) = mpsc::channel(capacity);
        TokioMpsc { tx, rx }
    }

    // ANCHOR: burst
    /// `n` sends, then `n` receives; returns the sum of the sequence numbers
    /// received. Every send finds room, yet each one still goes through the
    /// semaphore and the task's cooperative budget, and so does each receive.
    pub async fn burst(&mut self, stock: &mut P::Stock, n: usize) -> u64 {
        for seq in 0..n as u64 {
            let msg = P::take(stock, seq);
            self.tx.send(msg).await.expect("the receiver is alive");
        }
        let mut sum = 0;
        for _ in 0..n {
            let msg = self.rx.recv().await.expect("the sender is alive");
            sum += P::give(stock, msg);
        }
        sum
    }
    // ANCHOR_END: burst

    /// Whether nothing is left in the channel (checked after timing).
    pub fn is_drained(&mut self) -> bool {
        self.rx.try_recv().is_err() && self.tx.capacity() == self.tx.max_capacity()
    }
}
