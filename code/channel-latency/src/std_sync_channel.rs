//! The standard library's bounded channel (`std::sync::mpsc::sync_channel`,
//! crossbeam's array flavour inside since Rust 1.67).
use std::sync::mpsc::{sync_channel, Receiver, SyncSender};

use crate::payload::Payload;

pub struct StdSyncChannel<P> {
    tx: SyncSender<P>,
    rx: Receiver<P>,
}

impl<P: Payload> StdSyncChannel<P> {
    pub fn new(capacity: usize) -> Self {
        let (tx, rx) = sync_channel(capacity);
        StdSyncChannel { tx, rx }
    }

    // ANCHOR: burst
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
        self.rx.try_recv().is_err()
    }
}
