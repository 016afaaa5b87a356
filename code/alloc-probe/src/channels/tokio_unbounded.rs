use anyhow::Result;

use crate::probe::{Footprint, HeapProbe, Payload};

/// `tokio::sync::mpsc::unbounded_channel`: the same block list without a
/// semaphore; `capacity` is only how many messages the probe queues.
pub fn footprint<T: Payload>(capacity: usize) -> Result<Footprint> {
    let mut probe = HeapProbe::start();
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel::<T>();
    probe.created();
    probe.fill(capacity, |m| tx.send(m).is_ok())?;
    probe.drain(|| rx.try_recv().ok())?;
    drop((tx, rx));
    probe.dropped()
}

pub fn hold<T: Payload>(count: usize, _capacity: usize) -> Vec<impl Sized> {
    (0..count)
        .map(|_| tokio::sync::mpsc::unbounded_channel::<T>())
        .collect()
}

/// Creates and drops `n` channels, one after the other.
pub fn create<T: Payload>(n: u64, _capacity: usize) {
    for _ in 0..n {
        drop(std::hint::black_box(
            tokio::sync::mpsc::unbounded_channel::<T>(),
        ));
    }
}
