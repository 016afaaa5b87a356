//! async-channel's bounded channel (smol's), driven like tokio's: one task
//! on a current-thread runtime.
use crate::payload::Payload;

pub struct AsyncChannelBounded<P> {
    tx: async_channel::Sender<P>,
    rx: async_channel::Receiver<P>,
}

impl<P: Payload> AsyncChannelBounded<P> {
    pub fn new(capacity: usize) -> Self {
        let (tx, rx) = async_channel::bounded(capacity);
        AsyncChannelBounded { tx, rx }
    }

    // ANCHOR: burst
    /// `n` sends, then `n` receives. The queue is concurrent-queue's
    /// array of slots (crossbeam's design); with room, a send pushes and
    /// notifies the receivers' `event_listener::Event`, which costs an
    /// atomic load when nobody listens.
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

    pub fn is_drained(&mut self) -> bool {
        self.rx.is_empty()
    }
}
