//! The copy floor: moving `BURST * N` bytes from one buffer to another with a
//! single `copy_from_slice`, the least a by-value channel must do once.
pub struct MemcpyFloor {
    src: Vec<u8>,
    dst: Vec<u8>,
}

impl MemcpyFloor {
    pub fn new(bytes: usize) -> Self {
        // Distinct fill values, and both buffers touched, so the timed copy
        // moves real, resident bytes.
        MemcpyFloor {
            src: (0..bytes).map(|i| i as u8).collect(),
            dst: vec![0xFF; bytes],
        }
    }

    // ANCHOR: copy
    pub fn copy(&mut self) {
        self.dst.copy_from_slice(std::hint::black_box(&self.src));
        std::hint::black_box(&mut self.dst);
    }
    // ANCHOR_END: copy

    /// Whether the last copy moved every byte.
    pub fn verified(&self) -> bool {
        self.src == self.dst
    }
}
