use anyhow::Result;

use crate::probe::{Footprint, HeapProbe, Payload};

// ANCHOR: probe
/// `futures_channel::mpsc::channel(buffer)` holds `buffer` messages plus one
/// per sender, so `capacity - 1` gives room for exactly `capacity` here.
/// Each queued message gets its own node on the heap.
pub fn footprint<T: Payload>(capacity: usize) -> Result<Footprint> {
    let mut probe = HeapProbe::start();
    let (mut tx, mut rx) = futures_channel::mpsc::channel::<T>(capacity - 1);
    probe.created();
    probe.fill(capacity, |m| tx.try_send(m).is_ok())?;
    probe.drain(|| rx.try_recv().ok())?;
    drop((tx, rx));
    probe.dropped()
}
// ANCHOR_END: probe

pub fn hold<T: Payload>(count: usize, capacity: usize) -> Vec<impl Sized> {
    (0..count)
        .map(|_| futures_channel::mpsc::channel::<T>(capacity - 1))
        .collect()
}

/// Creates and drops `n` channels, one after the other.
pub fn create<T: Payload>(n: u64, capacity: usize) {
    for _ in 0..n {
        drop(std::hint::black_box(futures_channel::mpsc::channel::<T>(
            capacity - 1,
        )));
    }
}
