//! tokio's 8 B burst as a reader checking the book would write it outside
//! the book: a bare `mpsc::channel::<[u8; 8]>`, the sequence number as the
//! whole message, every receive counted. Compare `tokio_mpsc`, the book's
//! burst, which builds each message from a stock through `Payload`.
use tokio::sync::mpsc;

use crate::delivered::Delivered;

pub struct MinimalTokio {
    tx: mpsc::Sender<[u8; 8]>,
    rx: mpsc::Receiver<[u8; 8]>,
}

impl MinimalTokio {
    pub fn new(capacity: usize) -> Self {
        let (tx, rx) = mpsc::channel(capacity);
        MinimalTokio { tx, rx }
    }

    // ANCHOR: burst
    /// `n` sends, then `n` receives, in the task that awaits it.
    pub async fn burst(&mut self, n: u64) -> Delivered {
        for seq in 0..n {
            self.tx
                .send(seq.to_le_bytes())
                .await
                .expect("the receiver is alive");
        }
        let mut got = Delivered::default();
        for _ in 0..n {
            got.add(self.rx.recv().await.expect("the sender is alive"));
        }
        got
    }
    // ANCHOR_END: burst

    /// Whether nothing is left in the channel (checked after timing).
    pub fn is_drained(&mut self) -> bool {
        self.rx.try_recv().is_err() && self.tx.capacity() == self.tx.max_capacity()
    }
}
