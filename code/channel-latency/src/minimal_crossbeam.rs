//! crossbeam-channel's 8 B burst as the minimal reconstruction writes it:
//! the control beside `minimal_tokio`, a bare `bounded::<[u8; 8]>` driven
//! on the calling thread.
use crossbeam_channel::{bounded, Receiver, Sender};

use crate::delivered::Delivered;

pub struct MinimalCrossbeam {
    tx: Sender<[u8; 8]>,
    rx: Receiver<[u8; 8]>,
}

impl MinimalCrossbeam {
    pub fn new(capacity: usize) -> Self {
        let (tx, rx) = bounded(capacity);
        MinimalCrossbeam { tx, rx }
    }

    // ANCHOR: burst
    /// `n` sends, then `n` receives.
    pub fn burst(&mut self, n: u64) -> Delivered {
        for seq in 0..n {
            self.tx
                .send(seq.to_le_bytes())
                .expect("the receiver is alive");
        }
        let mut got = Delivered::default();
        for _ in 0..n {
            got.add(self.rx.recv().expect("the sender is alive"));
        }
        got
    }
    // ANCHOR_END: burst

    pub fn is_drained(&mut self) -> bool {
        self.rx.is_empty()
    }
}
