use anyhow::Result;

use crate::probe::{Footprint, HeapProbe, Payload};

/// `std::sync::mpsc::sync_channel`: since Rust 1.67 a port of crossbeam's
/// array flavour, so it also allocates every slot up front.
pub fn footprint<T: Payload>(capacity: usize) -> Result<Footprint> {
    let mut probe = HeapProbe::start();
    let (tx, rx) = std::sync::mpsc::sync_channel::<T>(capacity);
    probe.created();
    probe.fill(capacity, |m| tx.try_send(m).is_ok())?;
    probe.drain(|| rx.try_recv().ok())?;
    drop((tx, rx));
    probe.dropped()
}

pub fn hold<T: Payload>(count: usize, capacity: usize) -> Vec<impl Sized> {
    (0..count)
        .map(|_| std::sync::mpsc::sync_channel::<T>(capacity))
        .collect()
}

/// Creates and drops `n` channels, one after the other.
pub fn create<T: Payload>(n: u64, capacity: usize) {
    for _ in 0..n {
        drop(std::hint::black_box(std::sync::mpsc::sync_channel::<T>(
            capacity,
        )));
    }
}
