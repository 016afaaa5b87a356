//! Experiment A as ordinary criterion benches: `cargo bench -p channel-latency`.
//! One iteration is one burst (`BURST` sends, then `BURST` receives); the
//! channel and the async runtime are built outside the timed loop, as in the
//! chapter's own measurements.
use std::hint::black_box;
use std::time::Instant;

use channel_latency::crossbeam_bounded::CrossbeamBounded;
use channel_latency::kanal_async::KanalAsync;
use channel_latency::kanal_sync::KanalSync;
use channel_latency::payload::Payload;
use channel_latency::std_sync_channel::StdSyncChannel;
use channel_latency::tokio_mpsc::TokioMpsc;
use channel_latency::vec_floor::VecFloor;
use channel_latency::{BURST, CAPACITY};
use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};

macro_rules! sync_bench {
    ($group:expr, $name:literal, $ty:ident, $p:ty, $bytes:expr) => {{
        let mut chan = $ty::<$p>::new(CAPACITY);
        let mut stock = <$p as Payload>::stock(BURST);
        $group.bench_function(BenchmarkId::new($name, $bytes), |b| {
            b.iter(|| black_box(chan.burst(&mut stock, BURST)))
        });
    }};
}

macro_rules! async_bench {
    ($group:expr, $name:literal, $ty:ident, $p:ty, $bytes:expr) => {{
        let rt = tokio::runtime::Builder::new_current_thread()
            .build()
            .unwrap();
        let mut chan = $ty::<$p>::new(CAPACITY);
        let mut stock = <$p as Payload>::stock(BURST);
        $group.bench_function(BenchmarkId::new($name, $bytes), |b| {
            // The runtime is entered once per sample, not once per burst.
            b.iter_custom(|iters| {
                rt.block_on(async {
                    let start = Instant::now();
                    for _ in 0..iters {
                        black_box(chan.burst(&mut stock, BURST).await);
                    }
                    start.elapsed()
                })
            })
        });
    }};
}

macro_rules! sizes {
    ($c:expr, $carry:literal, $wrap:ident, $($n:literal),*) => {$({
        let mut group = $c.benchmark_group(concat!("burst-", $carry));
        group.throughput(Throughput::Elements(2 * BURST as u64));
        sync_bench!(group, "crossbeam", CrossbeamBounded, $wrap!($n), $n);
        sync_bench!(group, "kanal-sync", KanalSync, $wrap!($n), $n);
        sync_bench!(group, "std-sync-channel", StdSyncChannel, $wrap!($n), $n);
        sync_bench!(group, "vec-floor", VecFloor, $wrap!($n), $n);
        async_bench!(group, "tokio", TokioMpsc, $wrap!($n), $n);
        async_bench!(group, "kanal-async", KanalAsync, $wrap!($n), $n);
        group.finish();
    })*};
}

macro_rules! array {
    ($n:literal) => {
        [u8; $n]
    };
}
macro_rules! boxed {
    ($n:literal) => { Box<[u8; $n]> };
}

fn by_value(c: &mut Criterion) {
    sizes!(c, "array", array, 8, 64, 256, 512, 1024, 4096, 16384, 32768);
}

fn boxed(c: &mut Criterion) {
    sizes!(c, "boxed", boxed, 8, 1024, 32768);
}

criterion_group!(benches, by_value, boxed);
criterion_main!(benches);
