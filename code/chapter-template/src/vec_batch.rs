//! The floor: the batch through a `Vec`, no synchronisation at all.

// ANCHOR: vec_batch
pub fn vec_batch(n: u64) -> u64 {
    let queue: Vec<u64> = (0..n).collect();
    queue.into_iter().sum()
}
// ANCHOR_END: vec_batch
