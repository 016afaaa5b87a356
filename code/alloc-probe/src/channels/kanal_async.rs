use anyhow::Result;

use crate::probe::{Footprint, HeapProbe, Payload};

/// `kanal::bounded_async`: the same internals as the sync flavour behind async handles.
pub fn footprint<T: Payload>(capacity: usize) -> Result<Footprint> {
    let mut probe = HeapProbe::start();
    let (tx, rx) = kanal::bounded_async::<T>(capacity);
    probe.created();
    probe.fill(capacity, |m| tx.try_send(m) == Ok(true))?;
    probe.drain(|| rx.try_recv().ok().flatten())?;
    drop((tx, rx));
    probe.dropped()
}

pub fn hold<T: Payload>(count: usize, capacity: usize) -> Vec<impl Sized> {
    (0..count)
        .map(|_| kanal::bounded_async::<T>(capacity))
        .collect()
}

/// Creates and drops `n` channels, one after the other.
pub fn create<T: Payload>(n: u64, capacity: usize) {
    for _ in 0..n {
        drop(std::hint::black_box(kanal::bounded_async::<T>(capacity)));
    }
}
