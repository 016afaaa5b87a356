//! flume's bounded channel through its blocking (sync) end.
use crate::payload::Payload;

pub struct FlumeSync<P> {
    tx: flume::Sender<P>,
    rx: flume::Receiver<P>,
}

impl<P: Payload> FlumeSync<P> {
    pub fn new(capacity: usize) -> Self {
        let (tx, rx) = flume::bounded(capacity);
        FlumeSync { tx, rx }
    }

    // ANCHOR: burst
    /// `n` sends, then `n` receives, through flume's queue behind a
    /// `std::sync::Mutex` (its default features): with room in the channel
    /// a send takes the lock, looks for a parked receiver and pushes.
    pub fn burst(&mut self, stock: &mut P::Stock, n: usize) -> u64 {
        for seq in 0..n as u64 {
            let msg = P::take(stock, seq);
            self.tx.send(msg).expect("the receiver is alive");
        }
        let mut sum = 0;
        for _ in 0..n {
            let msg = self.rx.recv().expect("the sender is alive");
            sum += P::give(stock, msg);
        }
        sum
    }
    // ANCHOR_END: burst

    pub fn is_drained(&mut self) -> bool {
        self.rx.is_empty()
    }
}
