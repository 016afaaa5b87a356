//! kanal's bounded channel through its async API, driven like tokio's.
use crate::payload::Payload;

pub struct KanalAsync<P> {
    tx: kanal::AsyncSender<P>,
    rx: kanal::AsyncReceiver<P>,
}

impl<P: Payload> KanalAsync<P> {
    pub fn new(capacity: usize) -> Self {
        let (tx, rx) = kanal::bounded_async(capacity);
        KanalAsync { tx, rx }
    }

    // ANCHOR: burst
    /// `n` sends, then `n` receives. kanal's futures complete on their first
    /// poll when there is room or a message, and it keeps no per-task budget.
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
