//! The `harness` command line on bad input: errors name what is wrong, the
//! exit code is non-zero, and nothing under the results folder changes.
use std::fs;
use std::path::Path;
use std::process::{Command, Output};

fn harness(args: &[&str], results: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_harness"))
        .arg("--results")
        .arg(results)
        .args(args)
        .output()
        .unwrap()
}

fn refused(out: &Output, expect: &str) {
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "accepted; stderr: {err}");
    assert!(err.contains(expect), "expected {expect:?} in: {err}");
}

/// A results folder holding one file, to prove refusals leave it alone.
fn results_with_a_file() -> (tempfile::TempDir, std::path::PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("alloc-probe/some-machine.json");
    fs::create_dir_all(file.parent().unwrap()).unwrap();
    fs::write(&file, "precious").unwrap();
    (dir, file)
}

#[test]
fn unknown_chapters_are_named_and_nothing_runs() {
    let (dir, file) = results_with_a_file();
    let out = harness(&["measure", "alloc-probe", "fan-out"], dir.path());
    refused(&out, "unknown chapter \"fan-out\"");
    refused(&out, "alloc-probe, channel-latency");
    refused(
        &harness(&["render", "nope", "grid"], dir.path()),
        "unknown chapter \"nope\"",
    );
    assert_eq!(fs::read_to_string(file).unwrap(), "precious");
}

#[test]
fn a_core_gate_that_is_not_a_round_trip_is_refused_before_measuring() {
    let (dir, file) = results_with_a_file();
    for bad in ["fast", "-3", "0"] {
        let arg = format!("--core-gate={bad}");
        let out = harness(&["measure", "alloc-probe", &arg], dir.path());
        refused(&out, "--core-gate");
        refused(&out, "is not a round trip in nanoseconds");
    }
    assert_eq!(fs::read_to_string(file).unwrap(), "precious");
}

#[test]
fn unknown_profiles_are_named() {
    let (dir, _) = results_with_a_file();
    refused(
        &harness(&["measure", "--profile", "fast"], dir.path()),
        "unknown profile 'fast': expected one of smoke, quick, full",
    );
}

#[test]
fn import_rejects_junk_and_copies_nothing() {
    let (dir, file) = results_with_a_file();
    let junk = dir.path().join("junk.json");
    fs::write(&junk, "<html>").unwrap();
    refused(
        &harness(&["import", junk.to_str().unwrap()], dir.path()),
        "junk.json is not valid JSON",
    );
    fs::write(&junk, r#"{"chapter": "weather"}"#).unwrap();
    refused(
        &harness(&["import", junk.to_str().unwrap()], dir.path()),
        "unknown chapter \"weather\"",
    );
    fs::write(&junk, r#"{"schema": "x"}"#).unwrap();
    refused(
        &harness(&["import", junk.to_str().unwrap()], dir.path()),
        "names no chapter",
    );
    refused(
        &harness(&["import"], dir.path()),
        "at least one results file",
    );
    let missing = dir.path().join("missing.json");
    refused(
        &harness(&["import", missing.to_str().unwrap()], dir.path()),
        "missing.json",
    );
    assert_eq!(fs::read_to_string(&file).unwrap(), "precious");
    assert_eq!(fs::read_dir(file.parent().unwrap()).unwrap().count(), 1);
}

#[test]
fn check_book_fails_on_an_empty_build() {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("src");
    fs::create_dir_all(&src).unwrap();
    let out = harness(
        &[
            "check-book",
            dir.path().join("book").to_str().unwrap(),
            "--src",
            src.to_str().unwrap(),
        ],
        dir.path(),
    );
    refused(&out, "alloc-probe.html is missing from the built book");
}

#[test]
fn compare_names_bad_folders_chapters_and_tolerances() {
    let (dir, file) = results_with_a_file();
    let a = dir.path().to_str().unwrap();
    let missing = dir.path().join("elsewhere");
    refused(
        &harness(&["compare", a, missing.to_str().unwrap()], dir.path()),
        "elsewhere is not a results folder",
    );
    refused(
        &harness(&["compare", a, a, "--chapter", "fan-out"], dir.path()),
        "unknown chapter \"fan-out\"",
    );
    refused(
        &harness(&["compare", a, a, "--within=-3"], dir.path()),
        "--within must be a percentage of zero or more",
    );
    // Two folders with no results of the same machine: nothing to line up.
    let empty = tempfile::tempdir().unwrap();
    refused(
        &harness(&["compare", a, empty.path().to_str().unwrap()], dir.path()),
        "share no headline estimates",
    );
    assert_eq!(fs::read_to_string(file).unwrap(), "precious");
}

#[test]
fn the_method_page_exhibit_says_when_no_pair_is_committed() {
    let (dir, file) = results_with_a_file();
    refused(
        &harness(&["render", "method", "nonsense"], dir.path()),
        "unknown exhibit \"nonsense\" for the method page: expected agreement",
    );
    let out = harness(&["render", "method", "agreement"], dir.path());
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        text.contains("data-exhibit=\"method/agreement\" data-blocks=\"text\"")
            && text.contains("No pair of replicate runs is committed"),
        "{text}"
    );
    assert_eq!(fs::read_to_string(file).unwrap(), "precious");
}

#[test]
fn list_shows_the_replicate_runs_beside_the_published_ones() {
    let (dir, _) = results_with_a_file();
    let replicate = dir
        .path()
        .join("replicates/b/alloc-probe/other-machine.json");
    fs::create_dir_all(replicate.parent().unwrap()).unwrap();
    fs::write(&replicate, "{").unwrap();
    let out = harness(&["list"], dir.path());
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let unreadable: Vec<&str> = text.lines().filter(|l| l.contains("UNREADABLE")).collect();
    assert_eq!(unreadable.len(), 2, "{text}");
    assert!(unreadable[0].contains("some-machine.json"), "{text}");
    assert!(
        unreadable[1].contains("replicate b: UNREADABLE")
            && unreadable[1].contains("replicates/b/alloc-probe/other-machine.json"),
        "{text}"
    );
}

/// `harness list | head -1`: a reader that leaves early ends the listing
/// quietly (by SIGPIPE, as other tools end), not with a panic.
#[cfg(unix)]
#[test]
fn a_closed_pipe_ends_the_output_quietly() {
    use std::os::unix::process::ExitStatusExt;
    let (reader, writer) = std::io::pipe().unwrap();
    drop(reader);
    let out = Command::new(env!("CARGO_BIN_EXE_harness"))
        .arg("chapters")
        .stdout(writer)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!err.contains("panicked"), "{err}");
    assert_eq!(out.status.signal(), Some(13), "{:?}: {err}", out.status);
}

#[test]
fn a_timeout_of_zero_is_refused_before_anything_runs() {
    let (dir, file) = results_with_a_file();
    for flag in ["--timeout=0", "--chapter-timeout=0"] {
        let out = harness(&["measure", "alloc-probe", flag], dir.path());
        refused(&out, "0 is not in 1..");
        refused(&out, flag.trim_end_matches("=0"));
    }
    assert_eq!(fs::read_to_string(file).unwrap(), "precious");
}

#[test]
fn the_registry_is_printed_for_scripts() {
    let out = Command::new(env!("CARGO_BIN_EXE_harness"))
        .args(["chapters", "--json"])
        .output()
        .unwrap();
    assert!(out.status.success());
    let all: Vec<serde_json::Value> = serde_json::from_slice(&out.stdout).unwrap();
    let names: Vec<&str> = all.iter().filter_map(|c| c["name"].as_str()).collect();
    assert_eq!(
        names,
        [
            "fan-in",
            "mutex-swap",
            "mutex-cost",
            "alloc-probe",
            "channel-latency"
        ]
    );
    assert!(all
        .iter()
        .all(|c| c["title"].is_string() && c["search"].is_string()));
    // Another registry, named by BOOK_CHAPTERS, replaces it; a broken one is named.
    let dir = tempfile::tempdir().unwrap();
    let other = dir.path().join("chapters.toml");
    fs::write(&other, "[[chapter]]\nname = \"x\"\n").unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_harness"))
        .arg("chapters")
        .env("BOOK_CHAPTERS", &other)
        .output()
        .unwrap();
    refused(&out, "is not a chapter registry");
}
