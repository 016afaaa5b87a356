use anyhow::Result;

use crate::probe::{Footprint, HeapProbe, Payload};

// ANCHOR: probe
/// `tokio::sync::mpsc::channel`: a linked list of fixed-size blocks behind an
/// `Arc`; the first block is allocated with the channel, whatever the capacity.
pub fn footprint<T: Payload>(capacity: usize) -> Result<Footprint> {
    let mut probe = HeapProbe::start();
    let (tx, mut rx) = tokio::sync::mpsc::channel::<T>(capacity);
    probe.created();
    probe.fill(capacity, |m| tx.try_send(m).is_ok())?;
    probe.drain(|| rx.try_recv().ok())?;
    drop((tx, rx));
    probe.dropped()
}
// ANCHOR_END: probe

/// Keeps `count` channels alive at once, the way a server holds one per peer.
pub fn hold<T: Payload>(count: usize, capacity: usize) -> Vec<impl Sized> {
    (0..count)
        .map(|_| tokio::sync::mpsc::channel::<T>(capacity))
        .collect()
}

/// Creates and drops `n` channels, one after the other.
pub fn create<T: Payload>(n: u64, capacity: usize) {
    for _ in 0..n {
        drop(std::hint::black_box(tokio::sync::mpsc::channel::<T>(
            capacity,
        )));
    }
}
