//! The compared locks (parking_lot, async-lock, futures) in a results file,
//! and the "What to use" picks between every lock: each follows the numbers.
use harness::fixtures;
use harness_core::Profile;
use harness_page::{render::blocks::Block, Page};
use mutex_cost::run::Data;
use mutex_cost::{Variant, ACTOR_CLAIM_FUTURES};

use super::{smoke_file, MutexCost};

/// The compared locks are in a run everywhere the plan puts them, or (a file
/// measured before they were added) nowhere; one missing is refused.
#[test]
fn a_run_missing_one_compared_lock_is_refused() {
    use mutex_cost::heartbeat::Load;
    let data = &smoke_file().data;
    let plan = mutex_cost::Plan::for_profile(Profile::Smoke);
    for &n in &plan.compared_sizes {
        for &w in &plan.worker_counts {
            for v in Variant::COMPARED {
                let found = data
                    .contended
                    .iter()
                    .filter(|r| (r.variant, r.futures, r.runtime.workers) == (v, n, w))
                    .count();
                assert_eq!(found, 1, "{v:?} at {n} futures on {w} workers");
            }
        }
    }
    let check = |f: &dyn Fn(&mut Data)| {
        let mut d = data.clone();
        f(&mut d);
        MutexCost::check(&d).map_err(|e| format!("{e:#}"))
    };
    check(&|_| {}).unwrap();
    let err = check(&|d| d.contended.retain(|r| r.variant != Variant::AsyncLock)).unwrap_err();
    assert!(err.contains("AsyncLock"), "{err}");
    let err = check(&|d| d.per_op.retain(|p| p.lock != "futures_mutex")).unwrap_err();
    assert!(err.contains("futures_mutex"), "{err}");
    let err = check(&|d| {
        d.heartbeat
            .retain(|h| h.load != Load::ParkingLotSlowSection)
    })
    .unwrap_err();
    assert!(err.contains("ParkingLotSlowSection"), "{err}");
    let err = check(&|d| {
        let r = d
            .contended
            .iter_mut()
            .find(|r| r.variant == Variant::FuturesMutex)
            .unwrap();
        r.rounds_validated = 0;
    })
    .unwrap_err();
    assert!(
        err.contains("futures_mutex") && err.contains("no validated round"),
        "{err}"
    );
    // A file from before the compared locks: none of them anywhere.
    check(&|d| {
        d.contended.retain(|r| Variant::ALL.contains(&r.variant));
        d.per_op
            .retain(|p| !["async_lock_mutex", "futures_mutex"].contains(&p.lock.as_str()));
        d.heartbeat.retain(|h| !h.load.compared());
    })
    .unwrap();
}

/// What the summary list tells a reader to reach for in the situation
/// starting `situation`, if it has a pick for it.
fn picked(data: &Data, situation: &str) -> Option<String> {
    let book = fixtures::book::<MutexCost>(data.clone());
    fixtures::render::<MutexCost>("summary-list", &book)
        .into_iter()
        .flat_map(|b| match b {
            Block::Advice(a) => a,
            _ => Vec::new(),
        })
        .find(|a| a.situation.starts_with(situation))
        .map(|a| a.reach_for)
}

/// The "What to use" picks follow the results: swapping two locks' numbers
/// in the smoke run swaps which lock the summary list names.
#[test]
fn the_lock_picks_follow_the_numbers() {
    let pick = |data: &Data, situation: &str| {
        picked(data, situation).unwrap_or_else(|| panic!("no pick for {situation:?}"))
    };
    let named = |v: Variant| format!("`{}`", v.label());
    let original = smoke_file().data.clone();
    let workers = original.cores.min(2);
    // Contended: the lowest time per lock taken on the most workers.
    let contended = "Guard a short critical section that tasks on";
    let best = pick(&original, contended);
    let winner = Variant::every()
        .find(|&v| named(v) == best)
        .expect("the pick names a lock");
    let other = if winner == Variant::AsyncLock {
        Variant::ParkingLot
    } else {
        Variant::AsyncLock
    };
    let mut swapped = original.clone();
    let at = |d: &Data, v: Variant| {
        d.contended
            .iter()
            .position(|r| {
                r.variant == v && r.futures == ACTOR_CLAIM_FUTURES && r.runtime.workers == workers
            })
            .unwrap()
    };
    let (a, b) = (at(&swapped, winner), at(&swapped, other));
    let t = swapped.contended[a].timing.clone();
    swapped.contended[a].timing = swapped.contended[b].timing.clone();
    swapped.contended[b].timing = t;
    assert_eq!(pick(&swapped, contended), named(other), "after the swap");
    // Uncontended: the lowest lock + unlock.
    let uncontended = "Take a lock that is almost never held";
    let best = pick(&original, uncontended);
    let lock_of = |label: &str| {
        Variant::every()
            .find(|&v| named(v) == label)
            .unwrap()
            .name()
    };
    let winner = lock_of(&best);
    let other = if winner == "futures_mutex" {
        "std_mutex"
    } else {
        "futures_mutex"
    };
    let mut swapped = original.clone();
    let row = |d: &Data, lock: &str| {
        d.per_op
            .iter()
            .position(|p| {
                p.lock == lock
                    && p.runtime
                        .as_ref()
                        .is_none_or(|r| r.flavor == "multi_thread")
            })
            .unwrap()
    };
    let (a, b) = (row(&swapped, winner), row(&swapped, other));
    let t = swapped.per_op[a].timing.clone();
    swapped.per_op[a].timing = swapped.per_op[b].timing.clone();
    swapped.per_op[b].timing = t;
    assert_eq!(
        lock_of(&pick(&swapped, uncontended)),
        other,
        "after the swap"
    );
}

/// The heartbeat pick needs a lowest p99 at least MUT-3's factor below the
/// runner-up's (a percentile of one run has no interval); closer, no pick.
#[test]
fn the_heartbeat_pick_needs_a_clear_margin() {
    use mutex_cost::heartbeat::Load;
    let situation = "Hold a lock through slow synchronous work";
    let with_p99 = |f: &dyn Fn(Load) -> u64| {
        let mut d = smoke_file().data.clone();
        for h in &mut d.heartbeat {
            h.latency.p99_ns = f(h.load);
        }
        d
    };
    let clear = with_p99(&|l| {
        if l == Load::AsyncLockSlowSection {
            100_000
        } else {
            900_000
        }
    });
    assert_eq!(
        picked(&clear, situation).as_deref(),
        Some("`async-lock Mutex`")
    );
    let close = with_p99(&|l| {
        if l == Load::AsyncLockSlowSection {
            500_000
        } else {
            900_000
        }
    });
    assert_eq!(picked(&close, situation), None);
}
