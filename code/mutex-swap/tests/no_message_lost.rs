//! Every design delivers every message exactly once, with every wait
//! strategy, and a consumer that would hang fails the test instead.
use harness::conformance::within;
use std::time::Duration;

use mutex_swap::experiment::run_bursts;
use mutex_swap::{Design, Wait};

const ALL_DESIGNS: [Design; 6] = [
    Design::StdMutexSwap,
    Design::TokioMutexSwap,
    Design::ParkingLotSwap,
    Design::LockFreeStack,
    Design::ShardedSwap,
    Design::StdMutexDrainLocked,
];

#[test]
fn every_design_and_wait_delivers_each_message_once() {
    for design in ALL_DESIGNS {
        for wait in Wait::ALL {
            for producers in [1, 8, 64] {
                let messages = 4096;
                let what = format!(
                    "{} / {} / {producers} producers",
                    design.name(),
                    wait.name()
                );
                let passes = within(Duration::from_secs(30), &what, move || {
                    run_bursts(design, wait, producers, messages, 3)
                })
                .unwrap_or_else(|e| panic!("{what}: {e:#}"));
                // run_bursts already checked count, sum and an empty inbox per
                // burst; these check what it reports about the passes.
                assert_eq!(passes.bursts, 3, "{what}");
                assert_eq!(passes.messages, 3 * messages, "{what}");
                assert!(passes.passes_with_messages >= 3, "{what}: {passes:?}");
                assert!(
                    passes.max_batch >= 1 && passes.max_batch <= messages,
                    "{what}: {passes:?}"
                );
                assert!(passes.consumer_cpu_ns > 0, "{what}: no consumer CPU time");
            }
        }
    }
}

#[test]
fn uneven_split_is_refused_rather_than_silently_short() {
    let err = run_bursts(Design::StdMutexSwap, Wait::Notify, 3, 4096, 1).unwrap_err();
    assert!(err.to_string().contains("split evenly"), "{err:#}");
}

#[test]
fn a_notify_consumer_passes_again_only_after_a_wake_up() {
    let notify = run_bursts(Design::StdMutexSwap, Wait::Notify, 4, 1 << 14, 3).unwrap();
    // Only a pass that swaps the inbox empty lets a later push find it empty,
    // so there is at most one wake-up per non-empty pass. An empty pass
    // follows either a non-empty pass, a wake-up or the start of a burst.
    // More empty passes than that would mean the consumer spins.
    assert!(
        notify.empty_passes <= 2 * notify.passes_with_messages + notify.bursts,
        "notify: {notify:?}"
    );
}

#[test]
fn a_busy_consumer_burns_more_cpu_per_burst_than_a_sleeping_one() {
    let busy = run_bursts(Design::StdMutexSwap, Wait::BusyPoll, 4, 1 << 14, 3).unwrap();
    let notify = run_bursts(Design::StdMutexSwap, Wait::Notify, 4, 1 << 14, 3).unwrap();
    // The busy consumer is running from the moment it is handed the burst;
    // the sleeping one only when there is something to take.
    assert!(
        busy.consumer_core_share() > notify.consumer_core_share(),
        "busy {busy:?} vs notify {notify:?}"
    );
}

/// An inbox that delivers one message twice: the validation must catch it.
struct DuplicatingInbox(std::sync::Mutex<Vec<u64>>);

impl mutex_swap::inbox::Inbox for DuplicatingInbox {
    fn with_producers(_: usize) -> Self {
        DuplicatingInbox(std::sync::Mutex::new(Vec::new()))
    }

    async fn push(&self, _: usize, message: u64) -> bool {
        let mut buffer = self.0.lock().unwrap();
        let was_empty = buffer.is_empty();
        buffer.push(message);
        if message == 5 {
            buffer.push(message);
        }
        was_empty
    }

    async fn drain(&self, spare: &mut Vec<u64>, sink: &mut mutex_swap::inbox::Sink) -> u64 {
        std::mem::swap(&mut *self.0.lock().unwrap(), spare);
        let taken = spare.len() as u64;
        spare.drain(..).for_each(|m| sink.accept(m));
        taken
    }
}

#[test]
fn a_duplicated_message_fails_the_burst() {
    let result = within(Duration::from_secs(30), "the duplicating burst", || {
        let mut burster = mutex_swap::experiment::Burster::<DuplicatingInbox>::new(
            4,
            4096,
            Wait::Notify,
            mutex_swap::LIGHT_WORK,
        )
        .unwrap();
        burster.burst().map(|_| ()).map_err(|e| format!("{e:#}"))
    });
    let err = result.expect_err("a burst with a duplicate must not validate");
    assert!(
        err.contains("expected 4096") || err.contains("still in the inbox"),
        "{err}"
    );
}
