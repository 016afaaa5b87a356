//! `cargo bench -p mutex-cost`: the chapter's timings as ordinary criterion
//! benches. The heartbeat experiment measures lateness, not time per
//! iteration, so it runs only in `cargo run -p mutex-cost -- measure`.
use std::sync::Arc;
use std::time::{Duration, Instant};

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};
use mutex_cost::experiments::Tokio;
use mutex_cost::workload::{expected_value, join_all_round, spawned_round};
use mutex_cost::{
    uncontended, worker_counts, ActorCounter, AsyncLockCounter, Counter, FuturesMutexCounter,
    ParkingLotCounter, StdMutexCounter, TokioMutexCounter, CONTENDING_TASKS, PUBLISHED_FUTURES,
};

fn runtime(workers: usize) -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(workers)
        .enable_all()
        .build()
        .unwrap()
}

fn published_shape<C: Counter>(c: &mut Criterion, name: &str) {
    let rt = runtime(mutex_cost::cores());
    let mut group = c.benchmark_group("published_shape_join_all");
    for futures in [1_000, 10_000, PUBLISHED_FUTURES] {
        group.bench_with_input(BenchmarkId::new(name, futures), &futures, |b, &futures| {
            b.to_async(Tokio(&rt)).iter(|| async move {
                let value = join_all_round(Arc::new(C::start()), futures).await;
                assert_eq!(value, expected_value(futures));
            })
        });
    }
}

fn contended<C: Counter>(c: &mut Criterion, name: &str) {
    let futures = 10_000;
    let mut group = c.benchmark_group("contended_spawned_10000");
    for workers in worker_counts(mutex_cost::cores()) {
        let rt = runtime(workers);
        group.bench_function(BenchmarkId::new(name, format!("{workers}_workers")), |b| {
            b.to_async(Tokio(&rt)).iter_custom(|rounds| async move {
                let mut timed = Duration::ZERO;
                for _ in 0..rounds {
                    let counter = Arc::new(C::start());
                    let start = Instant::now();
                    spawned_round(counter.clone(), futures, CONTENDING_TASKS)
                        .await
                        .unwrap();
                    timed += start.elapsed();
                    assert_eq!(counter.value().await, expected_value(futures));
                }
                timed
            })
        });
    }
}

fn shapes(c: &mut Criterion) {
    published_shape::<StdMutexCounter>(c, "std_mutex");
    published_shape::<TokioMutexCounter>(c, "tokio_mutex");
    published_shape::<ActorCounter>(c, "actor");
    contended::<StdMutexCounter>(c, "std_mutex");
    contended::<TokioMutexCounter>(c, "tokio_mutex");
    contended::<ActorCounter>(c, "actor");
    contended::<ParkingLotCounter>(c, "parking_lot_mutex");
    contended::<AsyncLockCounter>(c, "async_lock_mutex");
    contended::<FuturesMutexCounter>(c, "futures_mutex");
}

fn per_op(c: &mut Criterion) {
    let mut group = c.benchmark_group("uncontended_lock_unlock");
    let m = std::sync::Mutex::new(0u64);
    group.bench_function("std_mutex", |b| {
        b.iter_custom(|ops| uncontended::std_mutex_ops(&m, ops))
    });
    let p = parking_lot::Mutex::new(0u64);
    group.bench_function("parking_lot_mutex", |b| {
        b.iter_custom(|ops| uncontended::parking_lot_ops(&p, ops))
    });
    let current = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let multi = runtime(mutex_cost::cores());
    for (name, rt) in [
        ("tokio_mutex_current_thread", &current),
        ("tokio_mutex_multi_thread", &multi),
    ] {
        let t = Arc::new(tokio::sync::Mutex::new(0u64));
        group.bench_function(name, |b| {
            b.iter_custom(|ops| rt.block_on(uncontended::tokio_mutex_ops(t.clone(), ops)))
        });
    }
    let a = Arc::new(async_lock::Mutex::new(0u64));
    group.bench_function("async_lock_mutex_multi_thread", |b| {
        b.iter_custom(|ops| multi.block_on(uncontended::async_lock_ops(a.clone(), ops)))
    });
    let f = Arc::new(futures::lock::Mutex::new(0u64));
    group.bench_function("futures_mutex_multi_thread", |b| {
        b.iter_custom(|ops| multi.block_on(uncontended::futures_mutex_ops(f.clone(), ops)))
    });
}

criterion_group!(benches, shapes, per_op);
criterion_main!(benches);
