//! The `harness` command line on bad input: errors name what is wrong, the
//! exit code is non-zero, and nothing under the results folder changes.
use std::fs;
use std::path::Path;
use std::process::{Command, Output};

use harness::fixtures::{committed_results, machine_file};

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

/// `harness render` with the render cache in `cache`.
fn render_cached(exhibit: &str, results: &Path, cache: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_harness"))
        .arg("--results")
        .arg(results)
        .args(["render", "alloc-probe", exhibit])
        .env("BOOK_RENDER_CACHE", cache)
        .output()
        .unwrap()
}

/// The one cached page of alloc-probe in `cache`.
fn cached_page(cache: &Path) -> std::path::PathBuf {
    let pages: Vec<_> = fs::read_dir(cache)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| {
            p.file_name()
                .unwrap()
                .to_string_lossy()
                .starts_with("alloc-probe-")
        })
        .collect();
    assert_eq!(
        pages.len(),
        1,
        "one cached page, older ones removed: {pages:?}"
    );
    pages[0].clone()
}

#[test]
fn a_page_is_rendered_once_and_read_from_the_cache_until_its_results_change() {
    let bin = Path::new(env!("CARGO_BIN_EXE_harness")).with_file_name("alloc-probe");
    assert!(
        bin.exists(),
        "{} is not built: `cargo build --release -p alloc-probe` (cargo test --workspace builds it)",
        bin.display()
    );
    // The committed alloc-probe results, in a folder of their own.
    let dir = tempfile::tempdir().unwrap();
    let cache = tempfile::tempdir().unwrap();
    let committed = harness_core::code_dir().join("results/alloc-probe");
    fs::create_dir_all(dir.path().join("alloc-probe")).unwrap();
    for entry in fs::read_dir(&committed).unwrap().flatten() {
        if entry.file_type().unwrap().is_file() {
            fs::copy(
                entry.path(),
                dir.path().join("alloc-probe").join(entry.file_name()),
            )
            .unwrap();
        }
    }
    let ok = |out: Output| -> String {
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout).unwrap()
    };

    let grid = ok(render_cached("grid", dir.path(), cache.path()));
    assert!(grid.contains("data-exhibit=\"alloc-probe/grid\""), "{grid}");
    let page = cached_page(cache.path());
    let verdicts = ok(render_cached("verdicts", dir.path(), cache.path()));
    assert!(
        verdicts.contains("data-exhibit=\"alloc-probe/verdicts\""),
        "{verdicts}"
    );
    assert_eq!(
        cached_page(cache.path()),
        page,
        "the second exhibit came from the same page"
    );

    // The page is read, not rendered again: an entry changed in the cache
    // is what the next render prints.
    let mut kept: serde_json::Value = serde_json::from_slice(&fs::read(&page).unwrap()).unwrap();
    kept["exhibits"]["grid"]["Ok"] = "from the cache\n".into();
    fs::write(&page, serde_json::to_vec(&kept).unwrap()).unwrap();
    assert_eq!(
        ok(render_cached("grid", dir.path(), cache.path())),
        "from the cache\n"
    );

    // A results file touched: a new key, the page rendered again, the old
    // one removed.
    let file = machine_file(&dir.path().join("alloc-probe"));
    let later = std::time::SystemTime::now() + std::time::Duration::from_secs(5);
    fs::File::options()
        .append(true)
        .open(&file)
        .unwrap()
        .set_modified(later)
        .unwrap();
    assert_eq!(ok(render_cached("grid", dir.path(), cache.path())), grid);
    assert_ne!(cached_page(cache.path()), page);

    // An exhibit the chapter does not have: named, in the page and on stderr.
    let out = render_cached("gird", dir.path(), cache.path());
    refused(&out, "unknown exhibit \"gird\" for chapter alloc-probe");
    assert!(String::from_utf8_lossy(&out.stdout).contains("**render error**"));
}

#[test]
fn convert_rewrites_schema_1_files_only_when_every_one_passes_its_chapters_checks() {
    let (_, machine_file) = committed_results("alloc-probe");
    let name = machine_file.file_name().unwrap().to_owned();
    let mut v: serde_json::Value =
        serde_json::from_slice(&fs::read(&machine_file).unwrap()).unwrap();
    let data = v["data"].clone();
    // What a schema-1 file held: no stored intervals, an older checksum.
    v["schema_version"] = 1.into();
    v.as_object_mut().unwrap().remove("derived");
    v["checksum"] = "0000".into();
    let old = serde_json::to_vec_pretty(&v).unwrap();

    let dir = tempfile::tempdir().unwrap();
    let good = dir.path().join("alloc-probe").join(&name);
    let wrong = dir.path().join("mutex-swap").join(&name);
    for f in [&good, &wrong] {
        fs::create_dir_all(f.parent().unwrap()).unwrap();
        fs::write(f, &old).unwrap();
    }
    let convert = |files: &[&Path]| {
        Command::new(env!("CARGO_BIN_EXE_harness"))
            .arg("convert")
            .args(files)
            .output()
            .unwrap()
    };

    // alloc-probe's data in mutex-swap's folder fails mutex-swap's checks:
    // named, and neither file written.
    refused(
        &convert(&[&good, &wrong]),
        "converted does not pass its chapter's checks",
    );
    refused(&convert(&[&good, &wrong]), &wrong.display().to_string());
    assert_eq!(fs::read(&good).unwrap(), old);
    assert_eq!(fs::read(&wrong).unwrap(), old);

    let out = convert(&[&good]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(String::from_utf8_lossy(&out.stdout).contains("to schema 3"));
    let new: serde_json::Value = serde_json::from_slice(&fs::read(&good).unwrap()).unwrap();
    assert_eq!(new["schema_version"], 3);
    // Judged by its chapter as it was converted: the analysis is there.
    assert_eq!(
        new["analysis"]["verdicts"].as_array().map(Vec::len),
        Some(6)
    );
    assert!(new.get("derived").is_none());
    assert_eq!(
        new["data"], data,
        "the measurements are carried over untouched"
    );
    assert_ne!(new["checksum"], "0000");
    let check =
        Command::new(Path::new(env!("CARGO_BIN_EXE_harness")).with_file_name("alloc-probe"))
            .arg("check")
            .arg(&good)
            .output()
            .unwrap();
    assert!(
        check.status.success(),
        "{}",
        String::from_utf8_lossy(&check.stderr)
    );

    // A file already at schema 3, and one that is not JSON: named, untouched.
    let converted = fs::read(&good).unwrap();
    refused(
        &convert(&[&good]),
        "is schema 3, not 1 or 2: nothing to convert",
    );
    assert_eq!(fs::read(&good).unwrap(), converted);
    fs::write(&wrong, "{ not json").unwrap();
    refused(&convert(&[&wrong]), "is not valid JSON");
    refused(&convert(&[]), "name the schema-1 or schema-2 results files");
}

#[test]
fn judge_lists_what_to_judge_again_and_write_stores_what_judging_gives() {
    let committed = harness_core::code_dir().join("results/alloc-probe");
    let machine_file = machine_file(&committed);
    let mut v: serde_json::Value =
        serde_json::from_slice(&fs::read(&machine_file).unwrap()).unwrap();
    // Judged by older page code (a schema-2 file was judged by none).
    let expect_before = match v.get_mut("analysis") {
        Some(a) => {
            a["judged_by"] = "an older page".into();
            "judged by older page code"
        }
        None => "has no analysis",
    };
    let dir = tempfile::tempdir().unwrap();
    let file = dir
        .path()
        .join("alloc-probe")
        .join(machine_file.file_name().unwrap());
    fs::create_dir_all(file.parent().unwrap()).unwrap();
    let before = serde_json::to_vec_pretty(&v).unwrap();
    fs::write(&file, &before).unwrap();
    let said = |out: &Output| {
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout).into_owned()
    };

    // Listing writes nothing.
    let out = harness(&["judge", "alloc-probe"], dir.path());
    let listed = said(&out);
    assert!(
        listed.contains(&format!("{}: {expect_before}", file.display())),
        "{listed}"
    );
    assert!(String::from_utf8_lossy(&out.stderr).contains("1 file(s) to judge again"));
    assert_eq!(fs::read(&file).unwrap(), before);

    // --write stores the analysis and leaves the data alone.
    said(&harness(&["judge", "--write", "alloc-probe"], dir.path()));
    let judged: serde_json::Value = serde_json::from_slice(&fs::read(&file).unwrap()).unwrap();
    assert_eq!(judged["schema_version"], 3);
    assert_eq!(judged["data"], v["data"], "only the analysis changes");
    assert_ne!(judged["analysis"]["judged_by"], "an older page");
    let listed = said(&harness(&["judge", "alloc-probe"], dir.path()));
    assert!(
        listed.contains(&format!("{}: current", file.display())),
        "{listed}"
    );

    // An analysis edited by hand is told apart from an old one.
    let mut edited = judged.clone();
    edited["analysis"]["verdicts"][0]["evidence"] = "edited by hand".into();
    fs::write(&file, serde_json::to_vec_pretty(&edited).unwrap()).unwrap();
    let listed = said(&harness(&["judge", "alloc-probe"], dir.path()));
    assert!(
        listed.contains("differs from judging its data now"),
        "{listed}"
    );

    refused(
        &harness(&["judge", "fan-out"], dir.path()),
        "unknown chapter \"fan-out\"",
    );
}
