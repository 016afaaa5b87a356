//! Every variant does exactly the work it claims: the counter ends where the
//! arithmetic says, in every shape, on every runtime the chapter uses.
use std::sync::mpsc;
use std::sync::Arc;
use std::time::Duration;

use mutex_cost::heartbeat::{self, Load, Setup};
use mutex_cost::workload::{expected_value, join_all_round, spawned_round};
use mutex_cost::{experiments::Tally, uncontended};
use mutex_cost::{ActorCounter, Counter, StdMutexCounter, TokioMutexCounter, CONTENDING_TASKS};

const LIMIT: Duration = Duration::from_secs(30);

/// Runs `f` on its own thread and fails the test if it takes longer than LIMIT:
/// a lock or actor bug would otherwise hang the suite.
fn within_limit<T: Send + 'static>(what: &str, f: impl FnOnce() -> T + Send + 'static) -> T {
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(f());
    });
    rx.recv_timeout(LIMIT).unwrap_or_else(|_| {
        panic!("{what} did not finish within {LIMIT:?}: a lock or the actor is stuck")
    })
}

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
            let value = within_limit(&what, move || {
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
        let value = within_limit(&what, move || {
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
fn the_published_shape_reaches_200_000() {
    let value = within_limit("published shape", || {
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
    }
}

#[test]
fn an_uncontended_tokio_lock_still_yields_to_the_coop_budget() {
    let (pending, value) = within_limit("co-op probe", || {
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
        let report = within_limit(load.name(), move || heartbeat::run(load, setup)).unwrap();
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
