use anyhow::Result;

use crate::probe::{Footprint, HeapProbe, Payload};

/// `kanal::bounded`: a queue reserved for the whole capacity at creation.
pub fn footprint<T: Payload>(capacity: usize) -> Result<Footprint> {
    let mut probe = HeapProbe::start();
    let (tx, rx) = kanal::bounded::<T>(capacity);
    probe.created();
    // kanal reports a full channel as Ok(false), not as an error.
    probe.fill(capacity, |m| tx.try_send(m) == Ok(true))?;
    probe.drain(|| rx.try_recv().ok().flatten())?;
    drop((tx, rx));
    probe.dropped()
}

pub fn hold<T: Payload>(count: usize, capacity: usize) -> Vec<impl Sized> {
    (0..count).map(|_| kanal::bounded::<T>(capacity)).collect()
}

/// Creates and drops `n` channels, one after the other.
pub fn create<T: Payload>(n: u64, capacity: usize) {
    for _ in 0..n {
        drop(std::hint::black_box(kanal::bounded::<T>(capacity)));
    }
}
