//! crossbeam-channel's bounded (array-backed, lock-free) channel.
use crossbeam_channel::{bounded, Receiver, Sender};

use crate::payload::Payload;

pub struct CrossbeamBounded<P> {
    tx: Sender<P>,
    rx: Receiver<P>,
}

impl<P: Payload> CrossbeamBounded<P> {
    pub fn new(capacity: usize) -> Self {
        let (tx, rx) = bounded(capacity);
        CrossbeamBounded { tx, rx }
    }

    // ANCHOR: burst
    /// `n` sends, then `n` receives; returns the sum of the sequence numbers
    /// received. With room in the channel, a send is a compare-and-swap on
    /// the tail plus a copy into the slot: no waker, no scheduler.
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
