use anyhow::Result;

use crate::probe::{Footprint, HeapProbe, Payload};

/// `flume::bounded`: a `VecDeque` that grows as messages are queued.
pub fn footprint<T: Payload>(capacity: usize) -> Result<Footprint> {
    let mut probe = HeapProbe::start();
    let (tx, rx) = flume::bounded::<T>(capacity);
    probe.created();
    probe.fill(capacity, |m| tx.try_send(m).is_ok())?;
    probe.drain(|| rx.try_recv().ok())?;
    drop((tx, rx));
    probe.dropped()
}

pub fn hold<T: Payload>(count: usize, capacity: usize) -> Vec<impl Sized> {
    (0..count).map(|_| flume::bounded::<T>(capacity)).collect()
}

/// Creates and drops `n` channels, one after the other.
pub fn create<T: Payload>(n: u64, capacity: usize) {
    for _ in 0..n {
        drop(std::hint::black_box(flume::bounded::<T>(capacity)));
    }
}
