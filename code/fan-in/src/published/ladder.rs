//! The ladder: the published bench, then one correction at a time until the
//! book's fair experiment. Each step keeps every correction before it.
use serde::{Deserialize, Serialize};

use crate::experiment::ConsumerOn;
use crate::Design;

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Step {
    /// The published bench as closely as it is known (see `super`).
    AsPublished,
    /// The swap consumer clears its buffer after writing it, and yields when
    /// it finds the shared buffer empty (the fair consumer). Without the
    /// yield, a consumer that drained everything spins on empty buffers and
    /// never lets its thread see the stop point: the never-cleared buffer is
    /// what kept the published one writing, and so yielding.
    BufferCleared,
    /// The book's message count per worker instead of the published one.
    BookMessages,
    /// Every design stops when the sink has counted all `workers x
    /// per_worker` bytes, checksum checked; Nagle's algorithm off, or the
    /// last small segment would wait for a delayed ACK.
    SameStopPoint,
    /// One connection, opened before the timing, reused by every iteration.
    ConnectOnce,
    /// The book's rig: threads pinned, one burst per criterion iteration
    /// started by the rig's driver thread, producers spawned from a task.
    /// The swap consumer still runs on the thread that drives `block_on`.
    BookRig,
    /// The swap consumer as a task on a worker: the fair experiment.
    ConsumerOnWorker,
}

/// How a step stops its timed region.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stop {
    /// The published stop points: the swap at the first worker to finish
    /// (then the rest are cancelled), the mpsc inbox once every worker has
    /// queued its messages (then the consumer is aborted).
    Published,
    /// When the sink has counted every byte.
    SinkHasAll,
}

/// What a step runs: the settings that the steps change one at a time.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Recipe {
    pub per_worker: usize,
    /// The swap consumer clears its buffer (the fair consumer) or not (the
    /// published one).
    pub clears: bool,
    pub stop: Stop,
    /// A new connection inside every iteration, or one before the timing.
    pub connect_each_iteration: bool,
    /// Timed with criterion's `to_async` on the measuring thread, as
    /// published, or by the book's rig.
    pub on_rig: bool,
    pub swap_consumer: ConsumerOn,
}

/// The designs the ladder measures: the two swaps and the mpsc baseline.
pub const DESIGNS: [Design; 3] = [
    Design::StdMutexSwap,
    Design::TokioMutexSwap,
    Design::MpscUnbounded,
];

impl Step {
    pub const ALL: [Step; 7] = [
        Step::AsPublished,
        Step::BufferCleared,
        Step::BookMessages,
        Step::SameStopPoint,
        Step::ConnectOnce,
        Step::BookRig,
        Step::ConsumerOnWorker,
    ];

    pub fn index(self) -> usize {
        Step::ALL.iter().position(|&s| s == self).expect("listed")
    }

    pub fn id(self) -> &'static str {
        match self {
            Step::AsPublished => "as-published",
            Step::BufferCleared => "buffer-cleared",
            Step::BookMessages => "book-messages",
            Step::SameStopPoint => "same-stop-point",
            Step::ConnectOnce => "connect-once",
            Step::BookRig => "book-rig",
            Step::ConsumerOnWorker => "consumer-on-worker",
        }
    }

    /// How the page names the step (each keeps the ones above it).
    pub fn label(self) -> &'static str {
        match self {
            Step::AsPublished => "as published",
            Step::BufferCleared => "+ swap buffer cleared",
            Step::BookMessages => "+ the book's messages per worker",
            Step::SameStopPoint => "+ same stop point (sink holds every byte)",
            Step::ConnectOnce => "+ connect once, outside the timing",
            Step::BookRig => "+ the book's rig (pinned, one burst per iteration)",
            Step::ConsumerOnWorker => "+ swap consumer on a worker (the fair experiment)",
        }
    }

    /// How a verdict map names the step: a condition a headline can say
    /// "holds only when" of.
    pub fn setting(self) -> String {
        match self {
            Step::AsPublished => "the published bench (ladder step 0)".into(),
            Step::ConsumerOnWorker => {
                "ladder step 6: the fair experiment at the ladder's counts".into()
            }
            other => format!(
                "ladder step {}: {}",
                other.index(),
                other.label().trim_start_matches("+ ")
            ),
        }
    }

    /// Whether the step changes anything for `design` (the mpsc consumer has
    /// no buffer to clear and already runs as a task).
    pub fn applies_to(self, design: Design) -> bool {
        match self {
            Step::BufferCleared | Step::ConsumerOnWorker => {
                matches!(design, Design::StdMutexSwap | Design::TokioMutexSwap)
            }
            _ => true,
        }
    }

    /// The last step at or before this one that changed `design`: the step
    /// whose measurement stands for this one.
    pub fn for_design(self, design: Design) -> Step {
        *Step::ALL[..=self.index()]
            .iter()
            .rev()
            .find(|s| s.applies_to(design))
            .expect("the first step applies to every design")
    }

    pub fn recipe(self) -> Recipe {
        let at = |s: Step| self >= s;
        Recipe {
            per_worker: if at(Step::BookMessages) {
                crate::PER_WORKER
            } else {
                super::PER_WORKER
            },
            clears: at(Step::BufferCleared),
            stop: if at(Step::SameStopPoint) {
                Stop::SinkHasAll
            } else {
                Stop::Published
            },
            connect_each_iteration: !at(Step::ConnectOnce),
            on_rig: at(Step::BookRig),
            swap_consumer: if at(Step::ConsumerOnWorker) {
                ConsumerOn::Worker
            } else {
                ConsumerOn::BlockOnThread
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_step_changes_one_thing_and_keeps_the_ones_before() {
        let differences = |a: Recipe, b: Recipe| {
            [
                a.per_worker != b.per_worker,
                a.clears != b.clears,
                a.stop != b.stop,
                a.connect_each_iteration != b.connect_each_iteration,
                a.on_rig != b.on_rig,
                a.swap_consumer != b.swap_consumer,
            ]
            .iter()
            .filter(|&&d| d)
            .count()
        };
        for pair in Step::ALL.windows(2) {
            assert_eq!(
                differences(pair[0].recipe(), pair[1].recipe()),
                1,
                "{:?} -> {:?}",
                pair[0],
                pair[1]
            );
        }
        let first = Step::AsPublished.recipe();
        assert_eq!(first.per_worker, super::super::PER_WORKER);
        assert!(!first.clears && first.connect_each_iteration && !first.on_rig);
        assert_eq!(first.stop, Stop::Published);
        assert_eq!(first.swap_consumer, ConsumerOn::BlockOnThread);
        let last = Step::ConsumerOnWorker.recipe();
        assert_eq!(last.per_worker, crate::PER_WORKER);
        assert!(last.clears && !last.connect_each_iteration && last.on_rig);
        assert_eq!(last.stop, Stop::SinkHasAll);
        assert_eq!(last.swap_consumer, ConsumerOn::Worker);
    }

    #[test]
    fn mpsc_skips_the_swap_only_steps() {
        let d = Design::MpscUnbounded;
        assert_eq!(Step::BufferCleared.for_design(d), Step::AsPublished);
        assert_eq!(Step::ConsumerOnWorker.for_design(d), Step::BookRig);
        assert_eq!(Step::SameStopPoint.for_design(d), Step::SameStopPoint);
        for s in Step::ALL {
            assert_eq!(s.for_design(Design::StdMutexSwap), s);
        }
    }
}
