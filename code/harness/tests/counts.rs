//! Instruction counts under callgrind (`harness_measure::counts`), end to end: this
//! test binary is also a tiny chapter binary, which `per_op` runs under
//! Valgrind with `count <case> <n>`. These tests need valgrind on PATH
//! (scripts/test and scripts/fresh install it); without it they fail with
//! the message that says so, never skip.
use std::hint::black_box;
use std::process::ExitCode;

use anyhow::Result;
use harness_core::{Claim, Profile};
use harness_measure::counts::{
    counted, per_op, per_op_in, per_op_layouts, Counted, COUNTING_ENV, EXE_ENV, LAYOUTS,
};
use harness_measure::{Experiment, Lab, Progress};
use harness_page::{Exhibit, Judge, Judged, Page};

struct Probe;

impl Experiment for Probe {
    type Data = ();
    const NAME: &'static str = "counts-probe";
    const MEASURED_CRATES: &'static [&'static str] = &[];
    const COUNTED: &'static [Counted] = &[
        Counted {
            name: "sum",
            about: "adds 0..n, one opaque addition at a time",
            run: sum,
        },
        Counted {
            name: "boxes",
            about: "allocates and frees one cache-padded box at a time",
            run: boxes,
        },
        Counted {
            name: "outside",
            about: "does its work without entering the counted region",
            run: outside,
        },
        Counted {
            name: "wrong",
            about: "finds its own work wrong and panics",
            run: wrong,
        },
    ];

    fn measure(_: &Lab) -> Result<()> {
        Ok(())
    }
}

impl Page for Probe {
    type Data = ();
    type Experiment = Probe;
    const CLAIMS: &'static [Claim] = &[];
    const EXHIBITS: &'static [Exhibit<()>] = &[];

    fn check(_: &()) -> Result<()> {
        Ok(())
    }

    fn judge(_: &Judged<()>, _: &mut Judge) -> Result<()> {
        Ok(())
    }
}

fn sum(n: u64) {
    let total = counted(|| {
        let mut total = 0u64;
        for i in 0..n {
            total = black_box(total.wrapping_add(black_box(i)));
        }
        total
    });
    assert_eq!(total, n * n.saturating_sub(1) / 2, "the sum of 0..{n}");
}

/// Aligned like a cache-padded struct: glibc serves it from its aligned
/// path, whose cost depends on the heap it finds.
#[repr(align(128))]
struct Padded([u8; 200]);

fn boxes(n: u64) {
    let total = counted(|| {
        let mut total = 0u64;
        for i in 0..n {
            let b = black_box(Box::new(Padded([i as u8; 200])));
            total += u64::from(b.0[199]);
        }
        total
    });
    assert_eq!(total, (0..n).map(|i| i % 256).sum::<u64>());
}

fn outside(n: u64) {
    black_box((0..n).map(black_box).sum::<u64>());
}

fn wrong(n: u64) {
    let total = counted(|| black_box(n));
    assert_eq!(total, n + 1, "the work went wrong on purpose");
}

fn exe() -> std::path::PathBuf {
    std::env::current_exe().unwrap()
}

fn error(name: &str) -> String {
    format!("{:#}", per_op_in(&exe(), name, 10, 20, 0).unwrap_err())
}

fn two_runs_of_one_binary_count_the_same() {
    let a = per_op_in(&exe(), "sum", 1_000, 2_000, 0).unwrap();
    let b = per_op_in(&exe(), "sum", 1_000, 2_000, 0).unwrap();
    assert_eq!(a, b, "two runs counted differently");
    assert!(a.instructions_small > 0);
    println!(
        "    sum: {} and {} instructions for {} and {} additions, {} per addition; twice the same",
        a.instructions_small, a.instructions_large, a.small, a.large, a.per_op
    );
}

fn counts_grow_with_the_work() {
    let k = 1_000;
    let a = per_op_in(&exe(), "sum", k, 2 * k, 0).unwrap();
    assert!(a.instructions_large > a.instructions_small, "{a:?}");
    assert!(a.per_op > 0.0, "{a:?}");
    assert_eq!(
        a.per_op,
        (a.instructions_large - a.instructions_small) as f64 / k as f64
    );
    // A loop costs the same per iteration wherever it is measured, and the
    // region's fixed cost is what is left at zero iterations.
    let b = per_op_in(&exe(), "sum", 2 * k, 5 * k, 0).unwrap();
    assert_eq!(a.instructions_large, b.instructions_small, "{a:?} {b:?}");
    assert_eq!(a.per_op, b.per_op, "{a:?} {b:?}");
    let fixed = a.instructions_small as f64 - a.per_op * k as f64;
    assert!(fixed >= 0.0 && fixed < a.per_op * 100.0, "{a:?}");
}

fn a_count_does_not_depend_on_where_or_with_what_environment_it_starts() {
    let before = per_op_in(&exe(), "boxes", 100, 300, 0).unwrap();
    // The same binary in another checkout (a longer path: its arguments,
    // and what is allocated for them, would move the heap), run from
    // another folder with a longer environment.
    let elsewhere = tempfile::tempdir().unwrap();
    let copy = elsewhere
        .path()
        .join("a-checkout-somewhere-else-with-a-much-longer-path")
        .join("the-same-binary");
    std::fs::create_dir_all(copy.parent().unwrap()).unwrap();
    std::os::unix::fs::symlink(exe(), &copy).unwrap();
    let here = std::env::current_dir().unwrap();
    std::env::set_current_dir(elsewhere.path()).unwrap();
    std::env::set_var("BOOK_COUNTS_TEST_PADDING", "x".repeat(3000));
    let after = per_op_in(&copy, "boxes", 100, 300, 0);
    std::env::remove_var("BOOK_COUNTS_TEST_PADDING");
    std::env::set_current_dir(here).unwrap();
    assert_eq!(before, after.unwrap());
    assert!(before.per_op > 0.0);
    println!("    boxes: {} instructions per box", before.per_op);
}

fn a_wrong_name_lists_the_cases() {
    let e = error("sun");
    assert!(
        e.contains("unknown counted case \"sun\" for chapter counts-probe: expected one of sum, boxes, outside, wrong"),
        "{e}"
    );
}

fn work_outside_the_region_or_gone_wrong_is_refused() {
    let e = error("outside");
    assert!(
        e.contains("counted no instructions in book_counted_region"),
        "{e}"
    );
    let e = error("wrong");
    assert!(
        e.contains("failed") && e.contains("the work went wrong on purpose"),
        "{e}"
    );
    let e = format!("{:#}", per_op_in(&exe(), "sum", 20, 20, 0).unwrap_err());
    assert!(e.contains("must be more operations"), "{e}");
}

fn per_op_counts_with_the_chapter_binary() {
    // A test binary is not the chapter's binary: point per_op at this one.
    std::env::set_var(EXE_ENV, exe());
    let lab = Lab::new(
        Profile::Smoke,
        Progress::hidden(<Probe as Experiment>::NAME),
    )
    .unwrap();
    let a = per_op(&lab, "sum", 100, 300).unwrap();
    let all = per_op_layouts(&lab, "sum", 100, 300, &LAYOUTS).unwrap();
    std::env::remove_var(EXE_ENV);
    assert_eq!((a.name.as_str(), a.small, a.large), ("sum", 100, 300));
    assert!(a.per_op > 0.0);
    // Work that does not allocate counts the same from every starting heap.
    assert_eq!(all.len(), LAYOUTS.len());
    assert!(all.iter().all(|b| b.per_op == a.per_op), "{all:?}");
    assert_eq!(all[0], a);
    // A binary that measures instead of counting cannot start itself again.
    std::env::set_var(COUNTING_ENV, "sum");
    let e = error("sum");
    std::env::remove_var(COUNTING_ENV);
    assert!(e.contains("was itself started to count"), "{e}");
}

fn without_valgrind_the_error_says_how_to_get_it() {
    let empty = tempfile::tempdir().unwrap();
    let path = std::env::var_os("PATH");
    std::env::set_var("PATH", empty.path());
    let e = error("sum");
    match path {
        Some(p) => std::env::set_var("PATH", p),
        None => std::env::remove_var("PATH"),
    }
    assert!(
        e.contains("valgrind not found on PATH: scripts/fresh and scripts/test install it"),
        "{e}"
    );
}

fn main() -> ExitCode {
    // Under callgrind, this binary is the chapter binary.
    if std::env::args().nth(1).as_deref() == Some("count") {
        return harness::chapter_main::<Probe, Probe>();
    }
    let tests: [(&str, fn()); 7] = [
        (
            "two_runs_of_one_binary_count_the_same",
            two_runs_of_one_binary_count_the_same,
        ),
        ("counts_grow_with_the_work", counts_grow_with_the_work),
        (
            "a_count_does_not_depend_on_where_or_with_what_environment_it_starts",
            a_count_does_not_depend_on_where_or_with_what_environment_it_starts,
        ),
        ("a_wrong_name_lists_the_cases", a_wrong_name_lists_the_cases),
        (
            "work_outside_the_region_or_gone_wrong_is_refused",
            work_outside_the_region_or_gone_wrong_is_refused,
        ),
        (
            "per_op_counts_with_the_chapter_binary",
            per_op_counts_with_the_chapter_binary,
        ),
        (
            "without_valgrind_the_error_says_how_to_get_it",
            without_valgrind_the_error_says_how_to_get_it,
        ),
    ];
    // One at a time, on this thread: the tests change the environment.
    for (name, test) in tests {
        test();
        println!("test {name} ... ok");
    }
    println!("test result: ok. {} passed", tests.len());
    ExitCode::SUCCESS
}
