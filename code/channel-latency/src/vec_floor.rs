//! The burst with a `Vec` in place of the channel: the same messages built,
//! stored, read back and checked, with no synchronisation at all.
use crate::payload::Payload;

pub struct VecFloor<P> {
    slots: Vec<P>,
}

impl<P: Payload> VecFloor<P> {
    pub fn new(capacity: usize) -> Self {
        VecFloor {
            slots: Vec::with_capacity(capacity),
        }
    }

    // ANCHOR: burst
    pub fn burst(&mut self, stock: &mut P::Stock, n: usize) -> u64 {
        for seq in 0..n as u64 {
            let msg = P::take(stock, seq);
            self.slots.push(std::hint::black_box(msg));
        }
        let mut sum = 0;
        for msg in self.slots.drain(..) {
            sum += P::give(stock, std::hint::black_box(msg));
        }
        sum
    }
    // ANCHOR_END: burst

    pub fn is_drained(&mut self) -> bool {
        self.slots.is_empty()
    }
}
