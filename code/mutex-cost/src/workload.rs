//! The two shapes of the same work: `futures` times "increase by 2, then
//! decrease by 0" on one shared counter, which must end at `2 * futures`.
use std::sync::Arc;

use anyhow::{Context, Result};
use futures::future::join_all;

use crate::Counter;

/// The value every round must end with.
pub fn expected_value(futures: usize) -> i64 {
    2 * futures as i64
}

// ANCHOR: join_all_round
/// The published shape: all futures are polled by one task via `join_all`,
/// so they take turns on one thread and never find the lock held.
pub async fn join_all_round<C: Counter>(counter: Arc<C>, futures: usize) -> i64 {
    let work: Vec<_> = (0..futures).map(|_| one_future(counter.clone())).collect();
    join_all(work).await;
    counter.value().await
}

/// One future of the published round: increase by 2, then decrease by 0.
pub async fn one_future<C: Counter>(counter: Arc<C>) {
    counter.increase_by(2).await;
    counter.decrease_by(0).await;
}
// ANCHOR_END: join_all_round

// ANCHOR: placed_rounds
/// The published round as one spawned task: the same futures and the same
/// `join_all`, polled by a worker thread instead of the `block_on` thread.
pub async fn join_all_round_in_task<C: Counter>(counter: Arc<C>, futures: usize) -> Result<i64> {
    tokio::spawn(join_all_round(counter, futures))
        .await
        .context("the task running the round panicked")
}

/// Every future of the published round spawned as a task of its own, and
/// `join_all` over their handles: the runtime's worker threads run them.
pub async fn task_per_future_round<C: Counter>(counter: Arc<C>, futures: usize) -> Result<i64> {
    let handles: Vec<_> = (0..futures)
        .map(|_| {
            let counter = counter.clone();
            tokio::spawn(async move {
                counter.increase_by(2).await;
                counter.decrease_by(0).await;
            })
        })
        .collect();
    for done in join_all(handles).await {
        done.context("a task of the round panicked")?;
    }
    Ok(counter.value().await)
}
// ANCHOR_END: placed_rounds

// ANCHOR: spawned_round
/// The contended shape: the same operations split over `tasks` spawned tasks,
/// which the runtime's worker threads run in parallel, so they do meet at the lock.
pub async fn spawned_round<C: Counter>(
    counter: Arc<C>,
    futures: usize,
    tasks: usize,
) -> Result<()> {
    anyhow::ensure!(
        tasks > 0 && futures % tasks == 0,
        "{futures} futures do not split evenly over {tasks} tasks"
    );
    let per_task = futures / tasks;
    let handles: Vec<_> = (0..tasks)
        .map(|_| {
            let counter = counter.clone();
            tokio::spawn(async move {
                for _ in 0..per_task {
                    counter.increase_by(2).await;
                    counter.decrease_by(0).await;
                }
            })
        })
        .collect();
    for handle in handles {
        handle.await.context("a contending task panicked")?;
    }
    Ok(())
}
// ANCHOR_END: spawned_round
