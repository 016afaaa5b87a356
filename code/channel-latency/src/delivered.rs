//! What one burst of a minimal reconstruction's shape received
//! (`burst_shapes`): a leaf both minimal channels (`minimal_tokio`,
//! `minimal_crossbeam`) and the shapes' timing share, so neither channel
//! reaches back into the timing.
use crate::payload::burst_checksum;

/// What one burst of a minimal shape received: messages and the sum of
/// their sequence numbers.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Delivered {
    pub messages: u64,
    pub sum: u64,
}

impl Delivered {
    pub fn add(&mut self, msg: [u8; 8]) {
        self.messages += 1;
        self.sum += u64::from_le_bytes(msg);
    }

    /// Every message of a burst of `n` arrived, once each.
    pub fn is_burst_of(self, n: u64) -> bool {
        self == Delivered {
            messages: n,
            sum: burst_checksum(n as usize),
        }
    }
}
