//! The single-threaded paths of the chapter, for callgrind to count
//! (`harness_measure::counts`): the published round polled by `block_on` on a
//! current-thread runtime, and one uncontended lock + unlock. Instruction
//! counts do not move with the machine's load, its allocator's dealings with
//! the kernel or its cores, so they say what each lock costs in work alone.
use std::sync::Arc;

use harness_measure::counts::{counted, Counted};

use crate::workload::{expected_value, join_all_round};
use crate::{Counter, StdMutexCounter, TokioBudgetFirstCounter, TokioMutexCounter};

fn current_thread() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a current-thread runtime builds")
}

/// The published runtime's flavour with one worker, which stays idle:
/// `block_on` polls the round on the calling thread, the one counted.
fn multi_thread() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .expect("a multi-thread runtime builds")
}

// ANCHOR: counted_join_all
/// One published round of `n` futures, polled by `block_on` on a
/// current-thread runtime; panics unless the counter ends at `2 n`.
fn join_all_of<C: Counter>(rt: tokio::runtime::Runtime, n: u64, unconstrained: bool) {
    let futures = n as usize;
    let value = counted(|| {
        rt.block_on(async {
            let round = join_all_round(Arc::new(C::start()), futures);
            if unconstrained {
                tokio::task::unconstrained(round).await
            } else {
                round.await
            }
        })
    });
    assert_eq!(value, expected_value(futures), "the round lost an update");
}
// ANCHOR_END: counted_join_all

fn join_all_std(n: u64) {
    join_all_of::<StdMutexCounter>(current_thread(), n, false)
}

fn join_all_tokio(n: u64) {
    join_all_of::<TokioMutexCounter>(current_thread(), n, false)
}

fn join_all_tokio_no_budget(n: u64) {
    join_all_of::<TokioMutexCounter>(current_thread(), n, true)
}

fn join_all_std_mt(n: u64) {
    join_all_of::<StdMutexCounter>(multi_thread(), n, false)
}

fn join_all_tokio_mt(n: u64) {
    join_all_of::<TokioMutexCounter>(multi_thread(), n, false)
}

// Only on the multi-thread runtime's block_on thread: anywhere else an
// exhausted budget's wake-up is deferred, every waiting future is polled
// again, and the count per future grows with the number of futures.
fn join_all_tokio_budget_first_mt(n: u64) {
    join_all_of::<TokioBudgetFirstCounter>(multi_thread(), n, false)
}

fn lock_unlock_std(n: u64) {
    let m = std::sync::Mutex::new(0u64);
    counted(|| {
        for _ in 0..n {
            *m.lock().unwrap() += 1;
        }
    });
    assert_eq!(m.into_inner().unwrap(), n, "an increment went missing");
}

fn lock_unlock_tokio(n: u64) {
    let rt = current_thread();
    let m = tokio::sync::Mutex::new(0u64);
    counted(|| {
        rt.block_on(async {
            for _ in 0..n {
                *m.lock().await += 1;
            }
        })
    });
    assert_eq!(m.into_inner(), n, "an increment went missing");
}

/// Operations of the two counts of a case (`harness_measure::counts::per_op`):
/// futures for a round, lock + unlock pairs for the others. A count does
/// not vary with the machine; smoke and quick count a tenth as many.
pub fn sizes(case: &str, profile: harness_core::Profile) -> (u64, u64) {
    let scale = profile.pick(10, 10, 1);
    if case.starts_with("join_all") {
        (10_000 / scale, 30_000 / scale)
    } else {
        (20_000 / scale, 60_000 / scale)
    }
}

/// The cases, and the operation each counts: one future of the published
/// round (two locks, two unlocks, its share of `join_all`), or one lock +
/// unlock.
pub const COUNTED: &[Counted] = &[
    Counted {
        name: "join_all_std",
        about: "one future of the published round, std Mutex, block_on on a current-thread runtime",
        run: join_all_std,
    },
    Counted {
        name: "join_all_tokio",
        about: "one future of the published round, tokio Mutex, block_on on a current-thread runtime",
        run: join_all_tokio,
    },
    Counted {
        name: "join_all_tokio_no_budget",
        about: "one future of the published round, tokio Mutex, the round unconstrained (no co-op budget)",
        run: join_all_tokio_no_budget,
    },
    Counted {
        name: "join_all_std_mt",
        about: "one future of the published round, std Mutex, block_on on a multi-thread runtime (as published)",
        run: join_all_std_mt,
    },
    Counted {
        name: "join_all_tokio_mt",
        about: "one future of the published round, tokio Mutex, block_on on a multi-thread runtime (as published)",
        run: join_all_tokio_mt,
    },
    Counted {
        name: "join_all_tokio_budget_first_mt",
        about: "one future of the published round, tokio Mutex with the budget asked first (tokio before 1.54), \
                block_on on a multi-thread runtime (as published)",
        run: join_all_tokio_budget_first_mt,
    },
    Counted {
        name: "lock_unlock_std",
        about: "one uncontended lock, increment and unlock of a std Mutex",
        run: lock_unlock_std,
    },
    Counted {
        name: "lock_unlock_tokio",
        about: "one uncontended lock, increment and unlock of a tokio Mutex, block_on on a current-thread runtime",
        run: lock_unlock_tokio,
    },
];
