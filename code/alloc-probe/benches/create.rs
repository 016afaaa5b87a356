//! How long creating (and dropping) one channel takes: the time side of the
//! chapter's memory story. `cargo bench -p alloc-probe`.
use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};

fn create(c: &mut Criterion) {
    let mut group = c.benchmark_group("create-and-drop");
    for capacity in [1usize, 16, 1024] {
        group.bench_with_input(
            BenchmarkId::new("tokio-bounded-1KiB", capacity),
            &capacity,
            |b, &cap| b.iter(|| tokio::sync::mpsc::channel::<[u8; 1024]>(cap)),
        );
        group.bench_with_input(
            BenchmarkId::new("crossbeam-bounded-1KiB", capacity),
            &capacity,
            |b, &cap| b.iter(|| crossbeam_channel::bounded::<[u8; 1024]>(cap)),
        );
        group.bench_with_input(
            BenchmarkId::new("kanal-bounded-1KiB", capacity),
            &capacity,
            |b, &cap| b.iter(|| kanal::bounded::<[u8; 1024]>(cap)),
        );
        group.bench_with_input(
            BenchmarkId::new("futures-mpsc-1KiB", capacity),
            &capacity,
            |b, &cap| b.iter(|| futures_channel::mpsc::channel::<[u8; 1024]>(cap)),
        );
    }
    group.finish();
}

criterion_group!(benches, create);
criterion_main!(benches);
