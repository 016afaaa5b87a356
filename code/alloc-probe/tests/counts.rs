//! Channel creation counted by callgrind through the chapter's binary:
//! identical on every run, and a case that does not exist is named with the
//! ones that do. Needs valgrind on PATH (scripts/test installs it); without
//! it the counts fail with the message that says so.
use std::path::Path;
use std::process::Command;

use alloc_probe::run::COUNTED;
use harness_measure::counts::per_op_in;

fn binary() -> &'static Path {
    Path::new(env!("CARGO_BIN_EXE_alloc-probe"))
}

#[test]
fn two_runs_of_the_binary_count_the_same() {
    for (name, layout) in [
        ("create-requests-tokio-bounded", 0),
        ("create-health-crossbeam-bounded", 3),
    ] {
        let a = per_op_in(binary(), name, 100, 300, layout).unwrap();
        let b = per_op_in(binary(), name, 100, 300, layout).unwrap();
        assert_eq!(a, b, "{name} from starting heap {layout}");
        assert!(
            a.instructions_large > a.instructions_small && a.per_op > 0.0,
            "{a:?}"
        );
    }
}

#[test]
fn an_unknown_case_is_named_with_the_cases_there_are() {
    let out = Command::new(binary())
        .args(["count", "create-tokio", "10"])
        .output()
        .unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    let names: Vec<&str> = COUNTED.iter().map(|c| c.name).collect();
    assert!(
        err.contains(&format!(
            "unknown counted case \"create-tokio\" for chapter alloc-probe: expected one of {}",
            names.join(", ")
        )),
        "{err}"
    );
    // Under callgrind, the same words reach whoever counts.
    let e = format!(
        "{:#}",
        per_op_in(binary(), "create-tokio", 10, 20, 0).unwrap_err()
    );
    assert!(e.contains("unknown counted case \"create-tokio\""), "{e}");
}
