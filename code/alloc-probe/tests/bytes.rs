//! Exact heap bytes, checked against the formula this machine's own
//! measurements give, never against typed-in constants. dhat counts every
//! allocation in the process, so everything here runs in one test, in order,
//! on the main thread, without libtest (`harness = false` in Cargo.toml):
//! libtest's own threads once added 900 bytes to a probe's count.
use std::path::Path;
use std::process::Command;

use alloc_probe::probe::{HeapProbe, Payload};
use alloc_probe::{creation_fit, Channel, GRID_CAPACITIES};
use harness::fixtures::json as serde_json;
use harness_core::results::Store;

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

/// Runs the chapter binary (the page is the binary's) and returns what it
/// printed, or what it said when it failed.
fn chapter(args: &[&std::ffi::OsStr]) -> Result<String, String> {
    let out = Command::new(env!("CARGO_BIN_EXE_alloc-probe"))
        .args(args)
        .output()
        .expect("the chapter binary runs");
    if out.status.success() {
        Ok(String::from_utf8(out.stdout).expect("utf-8"))
    } else {
        Err(String::from_utf8_lossy(&out.stderr).into_owned())
    }
}

fn render(exhibit: &str, results: &Path) -> String {
    chapter(&[
        "render".as_ref(),
        exhibit.as_ref(),
        "--results".as_ref(),
        results.as_os_str(),
    ])
    .unwrap_or_else(|e| panic!("render {exhibit}: {e}"))
}

fn a_smoke_run_checks_and_renders_every_exhibit() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::new(dir.path());
    let file = store.results_path("alloc-probe", &harness_measure::machine::detect().id);
    // The suite's shared smoke run when there is one, else one measured now.
    match std::env::var_os(harness::fixtures::SMOKE_RESULTS_ENV) {
        Some(root) => {
            std::fs::create_dir_all(file.parent().unwrap()).unwrap();
            let shared = Store::new(root)
                .results_path("alloc-probe", &harness_measure::machine::detect().id);
            std::fs::copy(&shared, &file).expect("the shared smoke run of alloc-probe");
        }
        None => {
            chapter(&[
                "measure".as_ref(),
                "--profile".as_ref(),
                "smoke".as_ref(),
                "--results".as_ref(),
                dir.path().as_os_str(),
            ])
            .expect("the smoke profile measures");
        }
    }
    chapter(&["check".as_ref(), file.as_os_str()]).expect("the smoke run checks");
    // Every exhibit renders a block of its kind and every claim has its
    // verdict: the conformance suite (tests/conformance.rs). The history
    // draws its figure from two releases on: a run alone gets its table and
    // a line on how to add a release.
    let history = render("history", dir.path());
    assert!(
        history.contains("at 1 release of tokio") && history.contains("|---"),
        "{history}"
    );
    #[cfg(target_arch = "x86_64")]
    {
        let grid = render("grid", dir.path());
        assert!(
            grid.contains("9 of 9 rows match"),
            "the x86-64 grid differs from the published one:\n{grid}"
        );
    }
    // `size_of::<T>()` reaches the page as written, not as an HTML tag.
    let fit = render("fit", dir.path());
    assert!(fit.contains("`size_of::<T>()`"), "{fit}");
    let verdicts = render("verdicts", dir.path());
    assert!(verdicts.contains("size_of::&lt;T&gt;()"), "{verdicts}");
    // Data that lost a grid point is refused.
    let mut broken: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&file).unwrap()).unwrap();
    broken["data"]["grid"].as_array_mut().unwrap().pop();
    std::fs::write(&file, serde_json::to_vec_pretty(&broken).unwrap()).unwrap();
    let err =
        chapter(&["check".as_ref(), file.as_os_str()]).expect_err("a lost grid point is refused");
    assert!(err.contains("failed the chapter's checks"), "{err}");
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
