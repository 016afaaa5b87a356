//! The batch through an unbounded crossbeam channel, sent and received on
//! one thread.

// ANCHOR: crossbeam_batch
pub fn crossbeam_batch(n: u64) -> u64 {
    let (tx, rx) = crossbeam_channel::unbounded();
    for i in 0..n {
        tx.send(i).expect("the receiver is alive");
    }
    drop(tx);
    rx.iter().sum()
}
// ANCHOR_END: crossbeam_batch
