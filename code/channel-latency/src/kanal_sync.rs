//! kanal's bounded channel through its blocking (sync) API.
use crate::payload::Payload;

pub struct KanalSync<P> {
    tx: kanal::Sender<P>,
    rx: kanal::Receiver<P>,
}

impl<P: Payload> KanalSync<P> {
    pub fn new(capacity: usize) -> Self {
        let (tx, rx) = kanal::bounded(capacity);
        KanalSync { tx, rx }
    }

    // ANCHOR: burst
    /// `n` sends, then `n` receives, through kanal's mutex-guarded queue.
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
