//! Every variant does exactly the work it claims: the counter ends where the
//! arithmetic says, in every shape, on every runtime the chapter uses.
use harness::conformance::within;
use std::sync::Arc;
use std::time::Duration;

use mutex_cost::heartbeat::{self, Load, Setup};
use mutex_cost::workload::{
    expected_value, join_all_round, join_all_round_in_task, spawned_round, task_per_future_round,
};
use mutex_cost::{experiments::Tally, uncontended};
use mutex_cost::{
    ActorCounter, AsyncLockCounter, Counter, FuturesMutexCounter, ParkingLotCounter,
    StdMutexCounter, TokioBudgetFirstCounter, TokioMutexCounter, CONTENDING_TASKS,
};

const LIMIT: Duration = Duration::from_secs(30);

fn runtime(workers: Option<usize>) -> tokio::runtime::Runtime {
    match workers {
        None => tokio::runtime::Builder::new_current_thread(),
        Some(w) => {
            let mut b = tokio::runtime::Builder::new_multi_thread();
            b.worker_threads(w);
            b
        }
    }
    .enable_all()
    .build()
    .unwrap()
}

fn join_all_ends_exact<C: Counter>(name: &str) {
    for workers in [None, Some(1), Some(2)] {
        for futures in [1, 1_000, 10_000] {
            let what = format!("{name} join_all {futures} futures, workers {workers:?}");
            let value = within(LIMIT, &what, move || {
                runtime(workers)
                    .block_on(async { join_all_round(Arc::new(C::start()), futures).await })
            });
            assert_eq!(value, expected_value(futures), "{what}");
        }
    }
}

fn spawned_ends_exact<C: Counter>(name: &str) {
    for workers in [1, 2, 4] {
        let futures = 100 * CONTENDING_TASKS;
        let what = format!("{name} spawned {futures} futures on {workers} workers");
        let value = within(LIMIT, &what, move || {
            runtime(Some(workers)).block_on(async {
                let counter = Arc::new(C::start());
                spawned_round(counter.clone(), futures, CONTENDING_TASKS)
                    .await
                    .unwrap();
                counter.value().await
            })
        });
        assert_eq!(value, expected_value(futures), "{what}");
    }
}

#[test]
fn std_mutex_counter_ends_at_the_exact_value() {
    join_all_ends_exact::<StdMutexCounter>("std Mutex");
    spawned_ends_exact::<StdMutexCounter>("std Mutex");
}

#[test]
fn tokio_mutex_counter_ends_at_the_exact_value() {
    join_all_ends_exact::<TokioMutexCounter>("tokio Mutex");
    spawned_ends_exact::<TokioMutexCounter>("tokio Mutex");
}

#[test]
fn actor_counter_ends_at_the_exact_value() {
    join_all_ends_exact::<ActorCounter>("actor");
    spawned_ends_exact::<ActorCounter>("actor");
}

#[test]
fn parking_lot_counter_ends_at_the_exact_value() {
    join_all_ends_exact::<ParkingLotCounter>("parking_lot Mutex");
    spawned_ends_exact::<ParkingLotCounter>("parking_lot Mutex");
}

#[test]
fn async_lock_counter_ends_at_the_exact_value() {
    join_all_ends_exact::<AsyncLockCounter>("async-lock Mutex");
    spawned_ends_exact::<AsyncLockCounter>("async-lock Mutex");
}

#[test]
fn futures_mutex_counter_ends_at_the_exact_value() {
    join_all_ends_exact::<FuturesMutexCounter>("futures Mutex");
    spawned_ends_exact::<FuturesMutexCounter>("futures Mutex");
}

/// A counter that loses one increase in a thousand: what a broken lock does.
#[derive(Default)]
struct LosesUpdates {
    value: std::sync::Mutex<i64>,
    calls: std::sync::atomic::AtomicU64,
}

impl Counter for LosesUpdates {
    fn start() -> Self {
        Self::default()
    }

    async fn increase_by(&self, n: i64) {
        let call = self
            .calls
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        if call % 1_000 != 999 {
            *self.value.lock().unwrap() += n;
        }
    }

    async fn decrease_by(&self, n: i64) {
        *self.value.lock().unwrap() -= n;
    }

    async fn value(&self) -> i64 {
        *self.value.lock().unwrap()
    }
}

/// The timings the page shows check every round they time: the same
/// measurement that passes with a sound lock fails with one that loses updates.
#[test]
fn a_timed_round_of_a_broken_counter_fails_its_check() {
    use harness_core::Profile;
    use harness_measure::timing::Sampling;
    use harness_measure::{Lab, Progress};
    use mutex_cost::experiments::{time_spawned, RoundTiming};
    use mutex_cost::Variant;
    let lab = Lab::new(Profile::Smoke, Progress::hidden("mutex-cost")).unwrap();
    let sampling = Sampling::new(10, 5, 20);
    let time = |sound: bool| -> anyhow::Result<RoundTiming> {
        let (variant, futures, workers) = (Variant::ParkingLot, 2_000, 2);
        if sound {
            time_spawned::<ParkingLotCounter>(&lab, sampling, variant, futures, workers)
        } else {
            time_spawned::<LosesUpdates>(&lab, sampling, variant, futures, workers)
        }
    };
    let ok = time(true).unwrap();
    assert!(ok.rounds_validated > 0);
    let err = format!("{:#}", time(false).unwrap_err());
    assert!(
        err.contains("validation failed") && err.contains("expected 4000"),
        "{err}"
    );
}

#[test]
fn the_published_shape_reaches_200_000() {
    let value = within(LIMIT, "published shape", || {
        runtime(Some(2))
            .block_on(async { join_all_round(Arc::new(TokioMutexCounter::start()), 100_000).await })
    });
    assert_eq!(value, 200_000);
}

#[test]
fn uneven_splits_are_refused_not_rounded() {
    let err = runtime(Some(1))
        .block_on(spawned_round(Arc::new(StdMutexCounter::start()), 10, 3))
        .unwrap_err();
    assert!(err.to_string().contains("do not split evenly"), "{err}");
}

#[test]
fn a_wrong_final_value_fails_validation() {
    let tally = Tally::default();
    tally.record(2_000, 2_000);
    assert_eq!(tally.finish("ok").unwrap(), 1);
    tally.record(1_998, 2_000);
    let err = tally.finish("lost update").unwrap_err().to_string();
    assert!(err.contains("ended at 1998, expected 2000"), "{err}");
    assert!(
        Tally::default().finish("nothing").is_err(),
        "zero validated rounds must fail"
    );
}

#[test]
fn uncontended_loops_do_every_operation() {
    let m = std::sync::Mutex::new(5);
    uncontended::std_mutex_ops(&m, 1_000);
    assert_eq!(*m.lock().unwrap(), 1_005);
    let p = parking_lot::Mutex::new(0);
    uncontended::parking_lot_ops(&p, 1_000);
    assert_eq!(*p.lock(), 1_000);
    for workers in [None, Some(2)] {
        let t = Arc::new(tokio::sync::Mutex::new(0));
        let rt = runtime(workers);
        rt.block_on(uncontended::tokio_mutex_ops(t.clone(), 1_000));
        assert_eq!(*rt.block_on(t.lock()), 1_000, "workers {workers:?}");
        let a = Arc::new(async_lock::Mutex::new(0));
        rt.block_on(uncontended::async_lock_ops(a.clone(), 1_000));
        assert_eq!(*a.lock_blocking(), 1_000, "async-lock, workers {workers:?}");
        let f = Arc::new(futures::lock::Mutex::new(0));
        rt.block_on(uncontended::futures_mutex_ops(f.clone(), 1_000));
        assert_eq!(
            *rt.block_on(f.lock()),
            1_000,
            "futures, workers {workers:?}"
        );
    }
}

#[test]
fn an_uncontended_tokio_lock_still_yields_to_the_coop_budget() {
    let (pending, value) = within(LIMIT, "co-op probe", || {
        runtime(Some(2)).block_on(uncontended::tokio_lock_pending_count(10_000))
    });
    assert_eq!(value, 10_000);
    assert!(
        pending > 0,
        "lock() never answered Pending: the co-op budget did not show"
    );
    assert!(
        pending < 10_000 / 10,
        "lock() answered Pending {pending} times with nobody holding it"
    );
}

#[test]
fn every_heartbeat_load_sees_every_beat_and_counts_every_acquisition() {
    for load in Load::ALL {
        let setup = Setup {
            workers: 2,
            contenders: 4,
            critical_section: Duration::from_micros(200),
            period: Duration::from_millis(1),
            run_for: Duration::from_millis(100),
        };
        // `run` itself fails when beats go missing or the counter disagrees.
        let report = within(LIMIT, load.name(), move || heartbeat::run(load, setup)).unwrap();
        assert!(
            report.beats_sent >= 50,
            "{}: only {} beats",
            load.name(),
            report.beats_sent
        );
        assert_eq!(report.lateness.len(), report.beats_sent, "{}", load.name());
        assert_eq!(
            report.lock_acquisitions == 0,
            load == Load::Idle,
            "{}",
            load.name()
        );
    }
}

#[test]
fn the_budget_first_tokio_counter_ends_at_the_exact_value() {
    join_all_ends_exact::<TokioBudgetFirstCounter>("tokio Mutex, budget first");
    spawned_ends_exact::<TokioBudgetFirstCounter>("tokio Mutex, budget first");
}

fn placed_rounds_end_exact<C: Counter>(name: &str) {
    for futures in [1, 1_000] {
        let what = format!("{name} placed rounds, {futures} futures");
        let (in_task, per_future) = within(LIMIT, &what, move || {
            runtime(Some(2)).block_on(async {
                (
                    join_all_round_in_task(Arc::new(C::start()), futures)
                        .await
                        .unwrap(),
                    task_per_future_round(Arc::new(C::start()), futures)
                        .await
                        .unwrap(),
                )
            })
        });
        assert_eq!(in_task, expected_value(futures), "{what}: in one task");
        assert_eq!(
            per_future,
            expected_value(futures),
            "{what}: task per future"
        );
    }
}

#[test]
fn the_published_round_ends_exact_wherever_it_is_placed() {
    placed_rounds_end_exact::<StdMutexCounter>("std Mutex");
    placed_rounds_end_exact::<TokioMutexCounter>("tokio Mutex");
    placed_rounds_end_exact::<ActorCounter>("actor");
}

#[test]
fn every_driver_runs_every_lock_and_validates_each_round() {
    use mutex_cost::drivers::{run_rounds, Driver, Lock};
    use mutex_cost::experiments::RuntimeUsed;
    for driver in [
        Driver::LoopedInBlockOn,
        Driver::BlockOnPerRound,
        Driver::SpawnedTask,
    ] {
        for runtime in [RuntimeUsed::multi_thread(2), RuntimeUsed::current_thread()] {
            for lock in Lock::ALL {
                let what = format!("{} {} {}", lock.name(), driver.name(), runtime.describe());
                let rt = runtime.clone();
                // run_rounds fails unless every round ended at 2 × futures.
                let costs = within(LIMIT, &what, move || run_rounds(lock, driver, &rt, 500, 3))
                    .unwrap_or_else(|e| panic!("{what}: {e:#}"));
                assert_eq!(costs.len(), 3, "{what}");
                assert!(costs.iter().all(|c| c.ns > 0), "{what}: {costs:?}");
            }
        }
    }
}

#[test]
fn polls_show_the_budget_at_work_and_nothing_else() {
    use mutex_cost::drivers::{Driver, Lock};
    use mutex_cost::experiments::RuntimeUsed;
    use mutex_cost::polls::poll_count;
    let futures = 2_000;
    let mt = RuntimeUsed::multi_thread(2);
    let ct = RuntimeUsed::current_thread();
    let count = |lock, driver, rt: &RuntimeUsed| {
        let rt = rt.clone();
        within(LIMIT, "poll count", move || {
            poll_count(lock, driver, &rt, futures).unwrap()
        })
    };
    // std's lock never answers Pending: one poll per future, one of the round.
    let std = count(Lock::Std, Driver::LoopedInBlockOn, &mt);
    assert_eq!((std.polls, std.pending, std.round_polls), (2_000, 0, 1));
    // Without a budget, tokio's free lock never does either.
    let free = count(Lock::TokioNoBudget, Driver::LoopedInBlockOn, &ct);
    assert_eq!((free.polls, free.pending, free.round_polls), (2_000, 0, 1));
    // tokio 1.54's order: the future that meets the empty budget sleeps
    // holding the lock, every later one queues, so each future is polled
    // about three times.
    for (driver, rt) in [
        (Driver::LoopedInBlockOn, &mt),
        (Driver::LoopedInBlockOn, &ct),
        (Driver::SpawnedTask, &mt),
    ] {
        let p = count(Lock::Tokio, driver, rt);
        assert_eq!(p.polls, p.pending + 2_000);
        assert!(
            p.pending >= 2 * 2_000 - 2 * 128 && p.pending <= 2 * 2_000 + 2_000 / 32,
            "{p:?}"
        );
        assert!(p.round_polls > 1, "{p:?}");
    }
    // The old order on the block_on thread of a multi-thread runtime: a
    // future that meets the empty budget wakes itself at once, and join_all
    // gives up after two of them: a few Pending per budget's worth.
    let old = count(Lock::TokioBudgetFirst, Driver::LoopedInBlockOn, &mt);
    assert!(old.pending > 0 && old.pending < 2_000 / 16, "{old:?}");
    // Anywhere else the wake-up is deferred, join_all polls every waiting
    // future again, and polls grow with the square of the futures.
    let quadratic = count(Lock::TokioBudgetFirst, Driver::LoopedInBlockOn, &ct);
    assert!(quadratic.pending > 5 * 2_000, "{quadratic:?}");
}

#[test]
fn every_counted_case_validates_its_work_outside_callgrind() {
    // Each case panics unless its counter ends where the arithmetic says.
    for case in mutex_cost::counted::COUNTED {
        let run = case.run;
        within(LIMIT, case.name, move || run(300));
    }
}
