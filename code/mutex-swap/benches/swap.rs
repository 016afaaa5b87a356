//! `cargo bench -p mutex-swap`: the chapter's bursts as ordinary criterion
//! benches, one group per question, timed exactly as the chapter times them
//! (see `experiment.rs` for what the timed region holds).
use std::time::Duration;

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use mutex_swap::experiment::{with_design, Burster, WithDesign};
use mutex_swap::inbox::Inbox;
use mutex_swap::{Design, Wait};

const MESSAGES: u64 = 1 << 16;

/// Benches one design, wait strategy and producer count in `group`.
struct BenchPoint<'a, 'b> {
    group: &'a mut criterion::BenchmarkGroup<'b, criterion::measurement::WallTime>,
    name: String,
    wait: Wait,
    producers: u64,
}

impl WithDesign for BenchPoint<'_, '_> {
    type Output = ();
    fn run<D: Inbox>(self) {
        let mut burster =
            Burster::<D>::new(self.producers, MESSAGES, self.wait, mutex_swap::LIGHT_WORK)
                .expect("set-up");
        self.group.bench_with_input(
            BenchmarkId::new(self.name, self.producers),
            &self.producers,
            |b, _| {
                b.iter_custom(|iters| {
                    (0..iters)
                        .map(|_| burster.burst().expect("a burst that validates"))
                        .sum::<Duration>()
                })
            },
        );
    }
}

fn throughput(c: &mut Criterion) {
    let mut group = c.benchmark_group("throughput-notify");
    group.throughput(Throughput::Elements(MESSAGES));
    group.sample_size(10);
    for producers in [1, 16, 256, 4096] {
        for design in Design::SWAPS {
            with_design(
                design,
                BenchPoint {
                    group: &mut group,
                    name: design.name().into(),
                    wait: Wait::Notify,
                    producers,
                },
            );
        }
    }
    group.finish();
}

fn wait_strategies(c: &mut Criterion) {
    let mut group = c.benchmark_group("wait-64-producers");
    group.throughput(Throughput::Elements(MESSAGES));
    group.sample_size(10);
    for design in Design::SWAPS {
        for wait in Wait::ALL {
            with_design(
                design,
                BenchPoint {
                    group: &mut group,
                    name: format!("{}/{}", design.name(), wait.name()),
                    wait,
                    producers: 64,
                },
            );
        }
    }
    group.finish();
}

fn lock_hold(c: &mut Criterion) {
    let mut group = c.benchmark_group("lock-hold-notify");
    group.throughput(Throughput::Elements(MESSAGES));
    group.sample_size(10);
    for producers in [1, 64, 4096] {
        for design in [Design::StdMutexSwap, Design::StdMutexDrainLocked] {
            with_design(
                design,
                BenchPoint {
                    group: &mut group,
                    name: design.name().into(),
                    wait: Wait::Notify,
                    producers,
                },
            );
        }
    }
    group.finish();
}

criterion_group!(benches, throughput, wait_strategies, lock_hold);
criterion_main!(benches);
