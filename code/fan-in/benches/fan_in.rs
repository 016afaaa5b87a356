//! `cargo bench -p fan-in`: every design at a few worker counts, into both
//! sinks. Each iteration is one validated burst, timed exactly as the book
//! times it (`Rig::burst`); filter with e.g. `cargo bench -p fan-in -- tcp/floor`.
use std::time::Duration;

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};
use fan_in::experiment::Rig;
use fan_in::placement::Placement;
use fan_in::sink::SinkKind;
use fan_in::Design;

const WORKERS: [usize; 4] = [1, 64, 1024, 8192];

fn fan_in(c: &mut Criterion) {
    let mut rig = Rig::new(Placement::Pinned).expect("runtime and loopback sink");
    for kind in SinkKind::ALL {
        let name = match kind {
            SinkKind::Tcp => "tcp",
            SinkKind::Memory => "memory",
        };
        let mut group = c.benchmark_group(name);
        // Short, so the whole bench takes minutes; a group's settings win over
        // criterion's command-line options, so lengthen them here if needed.
        group
            .sample_size(10)
            .warm_up_time(Duration::from_secs(1))
            .measurement_time(Duration::from_secs(2));
        for design in Design::ALL {
            for workers in WORKERS {
                group.bench_with_input(
                    BenchmarkId::new(design.id(), workers),
                    &workers,
                    |b, &workers| {
                        b.iter_custom(|iters| {
                            (0..iters)
                                .map(|_| {
                                    // A failed validation is a broken design,
                                    // not a slow one: stop the bench loudly.
                                    rig.burst(design, kind, workers)
                                        .unwrap_or_else(|e| panic!("{e:#}"))
                                        .elapsed
                                })
                                .sum::<Duration>()
                        })
                    },
                );
            }
        }
        group.finish();
    }
    rig.finish().expect("no stray bytes at the TCP sink");
}

criterion_group!(benches, fan_in);
criterion_main!(benches);
