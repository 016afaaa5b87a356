//! Exact heap bytes, checked against the formula this machine's own
//! measurements give, never against typed-in constants. dhat counts every
//! allocation in the process, so everything here runs in one test, in order,
//! on the main thread, without libtest (`harness = false` in Cargo.toml):
//! libtest's own threads once added 900 bytes to a probe's count.
use alloc_probe::probe::{HeapProbe, Payload};
use alloc_probe::run::AllocProbe;
use alloc_probe::{creation_fit, Channel, GRID_CAPACITIES};
use harness::cli::render_exhibit;
use harness::measure::measure_in_memory;
use harness::results::Store;
use harness::{Chapter, Profile, Progress};

#[global_allocator]
static ALLOC: dhat::Alloc = dhat::Alloc;

fn created<const N: usize>(channel: Channel, capacity: usize) -> u64 {
    channel.footprint::<[u8; N]>(capacity).unwrap().created
}

fn tokio_bytes_follow_the_fitted_formula() {
    let sweep = alloc_probe::sweep(|_| {}).unwrap();
    let fit = creation_fit(&sweep, Channel::TokioBounded);
    assert_eq!(
        fit.max_residual, 0.0,
        "creation bytes are not linear in the message size"
    );
    let (a, b) = (fit.slope.round() as u64, fit.intercept.round() as u64);
    assert!(
        a.is_power_of_two(),
        "slots per block {a} is not a power of two"
    );
    // Sizes the fit never saw, at every capacity of the grid.
    for cap in GRID_CAPACITIES {
        assert_eq!(created::<100>(Channel::TokioBounded, cap), a * 100 + b);
        assert_eq!(created::<3000>(Channel::TokioBounded, cap), a * 3000 + b);
        assert_eq!(created::<100>(Channel::TokioUnbounded, cap), a * 100 + b);
    }
    // Growth comes one block at a time, right after the first block is full.
    let per_block =
        |f: alloc_probe::probe::Footprint, size: u64| f.after_33.unwrap() - f.created - a * size;
    let f100 = Channel::TokioBounded.footprint::<[u8; 100]>(1024).unwrap();
    let f3000 = Channel::TokioBounded.footprint::<[u8; 3000]>(1024).unwrap();
    assert_eq!(
        f100.after_32,
        Some(f100.created),
        "grew before the block was full"
    );
    let header = per_block(f100, 100);
    assert_eq!(
        per_block(f3000, 3000),
        header,
        "block overhead depends on the message size"
    );
    // Filling 1024 messages needs 1024 / a blocks, all but the first allocated on the way.
    let blocks = 1024 / a;
    assert_eq!(f100.full, f100.created + (blocks - 1) * (a * 100 + header));
    // Draining keeps whole blocks for reuse (a few of them) and frees the rest.
    let block = a * 100 + header;
    assert!(f100.drained > f100.created && f100.drained < f100.full);
    assert_eq!(
        (f100.drained - f100.created) % block,
        0,
        "a partial block was freed"
    );
    assert_eq!(
        (f100.drained - f100.created) / block,
        (f3000.drained - f3000.created) / (a * 3000 + header),
        "how many blocks are kept depends on the message size"
    );
}

fn the_probe_rejects_bad_work() {
    let mut p = HeapProbe::start();
    let (tx, rx) = tokio::sync::mpsc::channel::<[u8; 8]>(4);
    p.created();
    let err = p.fill(5, |m| tx.try_send(m).is_ok()).unwrap_err();
    assert!(err.to_string().contains("refused message 5 of 5"), "{err}");

    drop((tx, rx));
    let (tx, mut rx) = tokio::sync::mpsc::channel::<[u8; 8]>(4);
    let mut p = HeapProbe::start();
    p.fill(3, |m| tx.try_send(m).is_ok()).unwrap();
    let _lost = rx.try_recv().unwrap();
    let err = p.drain(|| rx.try_recv().ok()).unwrap_err();
    assert!(
        err.to_string()
            .contains("received message 1 where 0 was due"),
        "{err}"
    );

    let p = HeapProbe::start();
    let leak = Box::new([0u8; 64]);
    let err = p.dropped().unwrap_err();
    assert!(err.to_string().contains("still live"), "{err}");
    drop(leak);
    assert_eq!(<[u8; 8]>::with_seq(7).seq(), 7);
}

fn a_smoke_run_checks_and_renders_every_exhibit() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::new(dir.path());
    // The suite's shared smoke run when there is one.
    let file = harness::fixtures::smoke_run::<AllocProbe>(|| {
        Ok(measure_in_memory::<AllocProbe>(Profile::Smoke, Progress::hidden("alloc-probe"))?.0)
    });
    AllocProbe::check(&file.data).unwrap();
    store.write(&file).unwrap();
    // Every exhibit renders a block of its kind and every claim has its
    // verdict: the conformance suite (tests/conformance.rs). The history
    // draws its figure from two releases on: a run alone gets its table and
    // a line on how to add a release.
    let history = render_exhibit::<AllocProbe>("history", &store).unwrap();
    assert!(
        history.contains("at 1 release of tokio") && history.contains("|---"),
        "{history}"
    );
    #[cfg(target_arch = "x86_64")]
    {
        let grid = render_exhibit::<AllocProbe>("grid", &store).unwrap();
        assert!(
            grid.contains("9 of 9 rows match"),
            "the x86-64 grid differs from the published one:\n{grid}"
        );
    }
    // `size_of::<T>()` reaches the page as written, not as an HTML tag.
    let fit = render_exhibit::<AllocProbe>("fit", &store).unwrap();
    assert!(fit.contains("`size_of::<T>()`"), "{fit}");
    let verdicts = render_exhibit::<AllocProbe>("verdicts", &store).unwrap();
    assert!(verdicts.contains("size_of::&lt;T&gt;()"), "{verdicts}");
    // Data that lost a grid point is refused.
    let mut broken = file.data.clone();
    broken.grid.pop();
    assert!(AllocProbe::check(&broken).is_err());
}

fn main() {
    heap_bytes();
    println!("test heap_bytes ... ok");
}

fn heap_bytes() {
    let _profiler = dhat::Profiler::builder().testing().build();
    tokio_bytes_follow_the_fitted_formula();
    the_probe_rejects_bad_work();
    drop(_profiler);
    // measure() starts a profiler of its own.
    a_smoke_run_checks_and_renders_every_exhibit();
}
