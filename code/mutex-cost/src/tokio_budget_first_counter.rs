//! The counter behind `tokio::sync::Mutex`, with tokio's co-op budget checked
//! before the lock is taken: the order tokio's `lock()` used before 1.54.0
//! (the published benchmark ran 1.36). Since 1.54.0 (tokio-rs/tokio#8371)
//! `lock()` takes the permit first and then asks the budget, so a task whose
//! budget has run out yields while holding the lock, and every future polled
//! after it queues behind it. This variant puts the two steps back in the old
//! order with tokio's public co-op API, so one build measures both.
//!
//! Before tokio 1.47.0 there is no public `poll_proceed` (`build.rs` reads
//! the release resolved), and none is needed: every such release asks the
//! budget first in `lock()` itself, so this variant is then the plain lock.
#[cfg(tokio_poll_proceed)]
use std::future::poll_fn;

use tokio::sync::Mutex;

use crate::Counter;

#[derive(Default)]
pub struct TokioBudgetFirstCounter {
    value: Mutex<i64>,
}

// ANCHOR: budget_first
/// Ready once the task's co-op budget has room, without spending any of it:
/// the `RestoreOnPending` that `poll_proceed` hands back is dropped without
/// `made_progress`, which gives the unit back. An exhausted budget answers
/// `Pending` and schedules the wake-up exactly as tokio's own resources do.
#[cfg(tokio_poll_proceed)]
async fn budget_has_room() {
    poll_fn(|cx| tokio::task::coop::poll_proceed(cx).map(drop)).await
}

/// Before tokio 1.47.0: `lock()` asks the budget first by itself.
#[cfg(not(tokio_poll_proceed))]
async fn budget_has_room() {}

impl Counter for TokioBudgetFirstCounter {
    fn start() -> Self {
        Self::default()
    }

    async fn increase_by(&self, n: i64) {
        budget_has_room().await;
        *self.value.lock().await += n;
    }

    async fn decrease_by(&self, n: i64) {
        budget_has_room().await;
        *self.value.lock().await -= n;
    }

    async fn value(&self) -> i64 {
        *self.value.lock().await
    }
}
// ANCHOR_END: budget_first

/// The first tokio release with a public `coop::poll_proceed`; set by
/// `build.rs`. Before it this variant is the plain lock (see above).
pub const POLL_PROCEED_SINCE: &str = env!("TOKIO_POLL_PROCEED_SINCE");
