//! flume's bounded channel through its async end (`send_async` and
//! `recv_async`), driven like tokio's: one task on a current-thread runtime.
use crate::payload::Payload;

pub struct FlumeAsync<P> {
    tx: flume::Sender<P>,
    rx: flume::Receiver<P>,
}

impl<P: Payload> FlumeAsync<P> {
    pub fn new(capacity: usize) -> Self {
        let (tx, rx) = flume::bounded(capacity);
        FlumeAsync { tx, rx }
    }

    // ANCHOR: burst
    /// `n` sends, then `n` receives. The same channel as flume's sync end:
    /// a future that finds room or a message completes on its first poll,
    /// and flume keeps no per-task budget.
    pub async fn burst(&mut self, stock: &mut P::Stock, n: usize) -> u64 {
        for seq in 0..n as u64 {
            let msg = P::take(stock, seq);
            self.tx
                .send_async(msg)
                .await
                .expect("the receiver is alive");
        }
        let mut sum = 0;
        for _ in 0..n {
            let msg = self.rx.recv_async().await.expect("the sender is alive");
            sum += P::give(stock, msg);
        }
        sum
    }
    // ANCHOR_END: burst

    pub fn is_drained(&mut self) -> bool {
        self.rx.is_empty()
    }
}
