//! The chapter binary's command line on bad input: a clear error naming the
//! problem, a non-zero exit, and existing results left exactly as they were.
use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn run(args: &[&str], results: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_alloc-probe"))
        .args(args)
        .arg("--results")
        .arg(results)
        .env("BOOK_MACHINE_ID", machine())
        .output()
        .unwrap()
}

/// The machine every run here is of, and the shared smoke run's results
/// file of it when there is one (`$BOOK_SMOKE_RESULTS`: scripts/test
/// measures every chapter once): this machine's id when that run stands in
/// for the tests' own, else one made up for the tests. Looked up once.
fn fixture() -> &'static (String, Option<PathBuf>) {
    static FIXTURE: std::sync::OnceLock<(String, Option<PathBuf>)> = std::sync::OnceLock::new();
    FIXTURE.get_or_init(|| {
        let shared = std::env::var_os(harness::fixtures::SMOKE_RESULTS_ENV).and_then(|root| {
            let id = harness_measure::machine::detect().id;
            let file = Path::new(&root)
                .join("alloc-probe")
                .join(format!("{id}.json"));
            file.is_file().then_some((id, file))
        });
        match shared {
            Some((id, file)) => (id, Some(file)),
            None => ("test-machine".to_string(), None),
        }
    })
}

fn machine() -> &'static str {
    &fixture().0
}

fn shared_run() -> Option<&'static PathBuf> {
    fixture().1.as_ref()
}

/// This machine's results file in the results folder `dir`.
fn own_file(dir: &Path) -> PathBuf {
    dir.join("alloc-probe").join(format!("{}.json", machine()))
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// Writes `text` as this machine's results file and returns its path.
fn planted(dir: &Path, text: &str) -> PathBuf {
    let path = own_file(dir);
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    fs::write(&path, text).unwrap();
    path
}

fn assert_refused(text: &str, expect: &str) {
    let dir = tempfile::tempdir().unwrap();
    let path = planted(dir.path(), text);
    for args in [
        &["render", "grid"][..],
        &["measure", "--profile", "smoke"][..],
    ] {
        let out = run(args, dir.path());
        assert!(!out.status.success(), "{args:?} accepted {text:?}");
        let err = stderr(&out);
        assert!(
            err.contains(&format!("{}.json", machine())) && err.contains(expect),
            "{args:?}: {err}"
        );
        assert_eq!(
            fs::read_to_string(&path).unwrap(),
            text,
            "{args:?} overwrote the file"
        );
    }
}

#[test]
fn a_corrupt_results_file_is_named_and_kept() {
    assert_refused("{\"schema\": \"async-rust-measured/resu", "not valid JSON");
}

#[test]
fn a_results_file_of_another_schema_version_is_named_and_kept() {
    let text =
        r#"{"schema":"async-rust-measured/results","schema_version":0,"chapter":"alloc-probe"}"#;
    assert_refused(text, "schema version 0");
}

#[test]
fn a_foreign_json_file_is_named_and_kept() {
    assert_refused(r#"{"name": "package.json"}"#, "not a results file");
}

#[test]
fn unknown_exhibit_and_profile_names_are_errors() {
    let dir = tempfile::tempdir().unwrap();
    let out = run(&["render", "gird"], dir.path());
    assert!(!out.status.success());
    assert!(
        stderr(&out).contains("unknown exhibit \"gird\""),
        "{}",
        stderr(&out)
    );
    assert!(
        stderr(&out).contains("grid"),
        "the error lists the known exhibits"
    );

    let out = run(&["measure", "--profile", "quik"], dir.path());
    assert!(!out.status.success());
    assert!(
        stderr(&out).contains("unknown profile 'quik'"),
        "{}",
        stderr(&out)
    );
    assert!(
        !dir.path().join("alloc-probe").exists(),
        "a refused run wrote something"
    );
}

#[test]
fn a_smoke_measurement_writes_a_file_that_checks() {
    let dir = tempfile::tempdir().unwrap();
    let out = run(&["measure", "--profile", "smoke"], dir.path());
    assert!(out.status.success(), "{}", stderr(&out));
    let file = own_file(dir.path());
    let check = Command::new(env!("CARGO_BIN_EXE_alloc-probe"))
        .arg("check")
        .arg(&file)
        .output()
        .unwrap();
    assert!(check.status.success(), "{}", stderr(&check));
    // No temporary file is left beside it (the writer lock stays, by design).
    let names: Vec<_> = fs::read_dir(file.parent().unwrap())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .filter(|n| n != harness_core::lock::FILE)
        .collect();
    assert_eq!(names.len(), 1, "a partial file was left behind: {names:?}");
}

/// A valid results file of the tests' machine in `dir`, from a real smoke
/// run: the shared one copied in, else one measured now.
fn measured(dir: &Path) -> (PathBuf, String) {
    let path = own_file(dir);
    match shared_run() {
        Some(shared) => {
            fs::create_dir_all(path.parent().unwrap()).unwrap();
            fs::copy(shared, &path).unwrap();
        }
        None => {
            let out = run(&["measure", "--profile", "smoke"], dir);
            assert!(out.status.success(), "{}", stderr(&out));
        }
    }
    let text = fs::read_to_string(&path).unwrap();
    (path, text)
}

fn only_file_is(path: &Path, text: &str) {
    assert_eq!(
        fs::read_to_string(path).unwrap(),
        text,
        "earlier results changed"
    );
    let names: Vec<_> = fs::read_dir(path.parent().unwrap())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .filter(|n| n != harness_core::lock::FILE)
        .collect();
    assert_eq!(names.len(), 1, "a partial file was left behind: {names:?}");
}

#[test]
fn a_hung_step_is_stopped_and_named() {
    let dir = tempfile::tempdir().unwrap();
    let (path, text) = measured(dir.path());
    let out = Command::new(env!("CARGO_BIN_EXE_alloc-probe"))
        .args([
            "measure",
            "--profile",
            "smoke",
            "--timeout",
            "2",
            "--results",
        ])
        .arg(dir.path())
        .env("BOOK_MACHINE_ID", machine())
        .env("BOOK_FAULT_HANG", "scenarios")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(124), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("step \"scenarios"),
        "{}",
        stderr(&out)
    );
    only_file_is(&path, &text);
}

#[test]
fn a_budget_from_the_environment_that_is_not_seconds_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let (path, text) = measured(dir.path());
    let out = Command::new(env!("CARGO_BIN_EXE_alloc-probe"))
        .args(["measure", "--profile", "smoke", "--results"])
        .arg(dir.path())
        .env("BOOK_MACHINE_ID", machine())
        .env("BOOK_CORE_GATE_BUDGET_S", "soon")
        .output()
        .unwrap();
    assert!(!out.status.success());
    let err = stderr(&out);
    assert!(
        err.contains("BOOK_CORE_GATE_BUDGET_S=soon") && err.contains("not a number of seconds"),
        "{err}"
    );
    only_file_is(&path, &text);
}

#[test]
fn an_interrupted_run_leaves_earlier_results_and_no_partial_file() {
    let dir = tempfile::tempdir().unwrap();
    let (path, text) = measured(dir.path());
    for signal in ["INT", "TERM", "KILL"] {
        // The hang keeps the run mid-way whatever the machine's speed.
        let mut command = Command::new(env!("CARGO_BIN_EXE_alloc-probe"));
        command
            .args(["measure", "--profile", "quick", "--results"])
            .arg(dir.path())
            .env("BOOK_MACHINE_ID", machine())
            .env("BOOK_FAULT_HANG", "scenarios")
            .stderr(std::process::Stdio::null());
        // A shell that started this test in the background may have passed on
        // SIGINT as ignored; give the run the default Ctrl-C behaviour back.
        // SAFETY: only async-signal-safe `signal` between fork and exec.
        unsafe {
            use std::os::unix::process::CommandExt;
            command.pre_exec(|| {
                libc::signal(libc::SIGINT, libc::SIG_DFL);
                Ok(())
            });
        }
        let mut child = command.spawn().unwrap();
        std::thread::sleep(std::time::Duration::from_millis(700));
        let sent = Command::new("kill")
            .args([format!("-{signal}"), child.id().to_string()])
            .status()
            .unwrap();
        assert!(sent.success());
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
        let status = loop {
            if let Some(status) = child.try_wait().unwrap() {
                break status;
            }
            if std::time::Instant::now() > deadline {
                let _ = child.kill();
                let _ = child.wait();
                panic!("SIG{signal} did not stop the run within 20 s");
            }
            std::thread::sleep(std::time::Duration::from_millis(50));
        };
        assert!(!status.success(), "SIG{signal}: the run claims success");
        only_file_is(&path, &text);
    }
}

#[test]
fn results_of_older_code_carry_a_stale_badge() {
    let dir = tempfile::tempdir().unwrap();
    let (path, text) = measured(dir.path());
    let page = |out: Output| {
        assert!(out.status.success(), "{}", stderr(&out));
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    assert!(!page(run(&["render", "grid"], dir.path())).contains("badge stale"));
    // Results measured by other code: the fingerprint no longer matches.
    let at = text.find("\"fingerprint\": \"").unwrap() + "\"fingerprint\": \"".len();
    let end = at + text[at..].find('"').unwrap();
    fs::write(
        &path,
        format!("{}0123456789abcdef{}", &text[..at], &text[end..]),
    )
    .unwrap();
    let grid = page(run(&["render", "grid"], dir.path()));
    assert!(
        grid.contains("badge stale") && grid.contains("0123456789abcdef"),
        "{grid}"
    );
    assert!(page(run(&["render", "provenance"], dir.path())).contains("badge stale"));
}

#[test]
fn a_run_records_what_else_the_machine_was_doing() {
    let dir = tempfile::tempdir().unwrap();
    let (_path, text) = measured(dir.path());
    // The number after a JSON key, without a JSON parser in this crate.
    let number = |key: &str| -> Option<f64> {
        let at = text.find(&format!("\"{key}\": "))? + key.len() + 4;
        let end = at + text[at..].find([',', '\n', '}'])?;
        text[at..end].trim().parse().ok()
    };
    let cores = number("cores").expect("the machine's cores are recorded");
    if cfg!(target_os = "linux") {
        let busy =
            number("busy_cores_at_start").expect("Linux runs sample /proc/stat before measuring");
        assert!((0.0..=cores + 0.01).contains(&busy), "{busy} of {cores}");
    }
    let out = run(&["render", "provenance"], dir.path());
    assert!(out.status.success(), "{}", stderr(&out));
    let card = String::from_utf8_lossy(&out.stdout);
    assert!(card.contains("Other work at start"), "{card}");
}
