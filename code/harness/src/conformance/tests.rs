//! Each check of the suite passes a chapter that conforms and fails one
//! that does not: a chapter binary in shell (`fake.sh`) with one fault at a
//! time, measured into a temporary folder (no shared smoke run).
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::time::Duration;

use super::{checks, run_step, Subject, Suite};

const FAKE: &str = include_str!("fake.sh");

/// A run of the fake chapter: one count the check validates, one time.
fn pristine() -> serde_json::Value {
    serde_json::json!({
        "chapter": "fake",
        "provenance": {"machine": {"id": "m", "cpu": "Test CPU", "os": "linux", "kernel": "6"}},
        "data": {"count": 10, "time": 1.5},
        "analysis": {
            "judged_by": "h",
            "estimates": {"FK-1": {"point": 2.0, "lower": 1.5, "upper": 2.5, "unit": "ratio", "method": "m"}},
            "verdicts": [{"claim": "FK-1", "machine": "m", "outcome": "holds", "evidence": "2.00×",
                          "conditions": [], "qualifier": null, "reading": {}, "estimates": ["FK-1"]}],
            "headline": ["FK-1"],
        },
    })
}

/// The fake chapter binary with `fault` (`none`: it conforms), in `dir`.
fn fake(dir: &Path, fault: &str) -> PathBuf {
    std::fs::write(
        dir.join("pristine.json"),
        serde_json::to_vec_pretty(&pristine()).unwrap(),
    )
    .unwrap();
    let bin = dir.join("fake");
    std::fs::write(&bin, FAKE.replace("FAULT=none", &format!("FAULT={fault}"))).unwrap();
    std::fs::set_permissions(&bin, std::fs::Permissions::from_mode(0o755)).unwrap();
    bin
}

/// A page of the fake chapter in `dir`: one listing, one exhibit.
fn page(dir: &Path, listing: &str, exhibit: &str) -> PathBuf {
    std::fs::write(
        dir.join("code.rs"),
        format!("fn before() {{}}\n// ANCHOR: listing\n{listing}\n// ANCHOR_END: listing\n"),
    )
    .unwrap();
    let page = dir.join("fake.md");
    std::fs::write(
        &page,
        format!(
            "# Fake\n\n{{{{#include code.rs:listing}}}}\n\n\
             <!-- cmdrun ../code/target/release/harness render fake {exhibit} -->\n"
        ),
    )
    .unwrap();
    page
}

/// The suite over the fake chapter with `fault`, its work count `/count`.
fn suite(dir: &Path, fault: &str) -> Suite {
    let mut s = Suite::new(&fake(dir, fault)).work_counts(&["/count"]);
    s.page = Some(page(dir, "fn listing() {}", "table"));
    s.step_limit = Duration::from_secs(20);
    s
}

/// What the suite says of the fake chapter with `fault`: `(check, message)`.
fn failures(fault: &str) -> Vec<(&'static str, String)> {
    let dir = tempfile::tempdir().unwrap();
    run_without_shared_run(&suite(dir.path(), fault))
}

/// The suite measures its own run (the fake's), whatever the environment says.
fn run_without_shared_run(s: &Suite) -> Vec<(&'static str, String)> {
    let subject = Subject::measured(s).expect("the fake measures");
    s.checks()
        .iter()
        .filter_map(|(check, f)| f(&subject).err().map(|e| (*check, format!("{e:#}"))))
        .collect()
}

/// The one failure the fault should cause: of `check`, saying `says`.
fn fails_only(fault: &str, check: &str, says: &str) {
    let got = failures(fault);
    assert_eq!(
        got.iter().map(|(c, _)| *c).collect::<Vec<_>>(),
        [check],
        "fault {fault}: {got:#?}"
    );
    assert!(got[0].1.contains(says), "fault {fault}: {:?}", got[0].1);
}

#[test]
fn a_chapter_that_conforms_passes_every_check() {
    assert_eq!(failures("none"), []);
}

#[test]
fn an_exhibit_that_shows_a_render_error_fails() {
    fails_only(
        "render-error",
        "exhibits",
        "exhibit table shows a render error",
    );
}

#[test]
fn an_exhibit_without_a_block_of_its_kind_fails() {
    fails_only(
        "wrong-kind",
        "exhibits",
        "exhibit table is listed as Table but shows text",
    );
}

#[test]
fn a_claim_without_a_verdict_fails() {
    fails_only(
        "no-verdict",
        "exhibits",
        "no verdicts exhibit gives claim FK-1's verdict",
    );
}

#[test]
fn a_chapter_without_the_built_in_exhibits_fails() {
    // The hostile check misses the provenance card too.
    let got = failures("no-built-in");
    assert!(
        got.iter()
            .any(|(c, m)| *c == "exhibits"
                && m.contains("does not list the built-in exhibit answer")),
        "{got:#?}"
    );
}

#[test]
fn a_headline_outside_its_interval_or_not_finite_fails() {
    let got = failures("headline-outside");
    assert!(
        got.iter()
            .any(|(c, m)| *c == "headline" && m.contains("not inside its interval")),
        "{got:#?}"
    );
    let got = failures("headline-nan");
    assert!(
        got.iter()
            .any(|(c, m)| *c == "headline" && m.contains("is not finite")),
        "{got:#?}"
    );
}

#[test]
fn an_answer_that_misquotes_the_headline_fails() {
    fails_only("answer-wrong", "answer", "shows \"2.50×\" for \"FK-1\"");
}

#[test]
fn an_answer_that_names_no_headline_estimate_fails() {
    fails_only(
        "answer-none",
        "answer",
        "names none of the headline estimates (FK-1)",
    );
}

#[test]
fn a_headline_estimate_the_page_never_shows_fails() {
    fails_only(
        "headline-unshown",
        "answer",
        "headline estimate \"FK-2\" (7.00× or 700 % or 7.00 ns) is shown nowhere on the page",
    );
}

#[test]
fn a_measurement_written_as_text_in_the_csv_fails() {
    fails_only(
        "csv-text",
        "export",
        "holds \"1.5 ns\" where a number in ns is due",
    );
}

#[test]
fn a_check_that_accepts_a_broken_count_fails() {
    fails_only(
        "count-accepted",
        "refusals",
        "check accepts the run with data/count = 11 instead of 10",
    );
}

#[test]
fn no_work_count_named_fails() {
    let dir = tempfile::tempdir().unwrap();
    let s = suite(dir.path(), "none").work_counts(&[]);
    let got = run_without_shared_run(&s);
    assert!(
        got.iter()
            .any(|(c, m)| *c == "refusals" && m.contains("names no work count")),
        "{got:#?}"
    );
}

#[test]
fn an_edit_the_page_does_not_flag_fails() {
    fails_only("no-edited-badge", "refusals", "data/time edited from 1.5");
}

#[test]
fn a_machine_description_shown_raw_fails() {
    fails_only(
        "hostile-raw",
        "hostile",
        "shows the machine's description raw",
    );
}

#[test]
fn a_machine_id_with_markup_accepted_fails() {
    fails_only("id-accepted", "hostile", "check accepts the machine id");
}

#[test]
fn an_empty_listing_or_an_unlisted_exhibit_on_the_page_fails() {
    let dir = tempfile::tempdir().unwrap();
    let mut s = suite(dir.path(), "none");
    s.page = Some(page(dir.path(), "   ", "table"));
    let got = run_without_shared_run(&s);
    assert_eq!(got.len(), 1, "{got:#?}");
    assert!(
        got[0].0 == "page" && got[0].1.contains("code.rs: shows nothing"),
        "{got:#?}"
    );

    s.page = Some(page(dir.path(), "fn listing() {}", "no-such-exhibit"));
    let got = run_without_shared_run(&s);
    assert_eq!(got.len(), 1, "{got:#?}");
    assert!(
        got[0]
            .1
            .contains("renders exhibit \"no-such-exhibit\", which the chapter does not list"),
        "{got:#?}"
    );
}

#[test]
fn a_hung_step_is_killed_with_its_children_and_named() {
    let dir = tempfile::tempdir().unwrap();
    let pid_file = dir.path().join("child.pid");
    let bin = dir.path().join("hangs");
    std::fs::write(
        &bin,
        format!(
            "#!/usr/bin/env bash\nsleep 600 &\necho $! >{}\nwait\n",
            pid_file.display()
        ),
    )
    .unwrap();
    std::fs::set_permissions(&bin, std::fs::Permissions::from_mode(0o755)).unwrap();
    let started = std::time::Instant::now();
    let err = run_step("render table", &bin, &[], &[], Duration::from_secs(1)).unwrap_err();
    assert!(started.elapsed() < Duration::from_secs(30));
    let err = format!("{err:#}");
    assert!(
        err.contains("render table did not finish within 1 s") && err.contains("were killed"),
        "{err}"
    );
    let child: i32 = std::fs::read_to_string(&pid_file)
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    // Killed: gone, or a zombie until init reaps it.
    let dead = (0..100).any(|_| {
        let stat = std::fs::read_to_string(format!("/proc/{child}/stat"));
        let gone = stat.as_ref().map_or(true, |s| {
            s.rsplit_once(')')
                .is_some_and(|(_, rest)| rest.trim_start().starts_with('Z'))
        });
        if !gone {
            std::thread::sleep(Duration::from_millis(50));
        }
        gone
    });
    assert!(dead, "the hung step's child {child} outlived it");
}

#[test]
fn a_hung_exhibit_fails_the_suite_naming_the_step() {
    let dir = tempfile::tempdir().unwrap();
    let mut s = suite(dir.path(), "hang");
    s.step_limit = Duration::from_secs(1);
    let subject = Subject::measured(&s).unwrap();
    let err = format!("{:#}", checks::exhibits(&subject).unwrap_err());
    assert!(
        err.contains("render in-short did not finish within 1 s"),
        "{err}"
    );
}

#[test]
fn a_hung_smoke_run_fails_the_suite() {
    let dir = tempfile::tempdir().unwrap();
    let mut s = suite(dir.path(), "hang-measure");
    s.measure_limit = Duration::from_secs(1);
    let err = format!("{:#}", Subject::measured(&s).err().expect("refused"));
    assert!(err.contains("the smoke run did not finish"), "{err}");
}

#[test]
fn the_answer_s_marked_numbers_are_read_with_their_names() {
    let md = "<span data-estimate=\"A &amp; B\">2.00×</span> and <b data-estimate=\"C\">3 ns</b>";
    assert_eq!(
        harness_page::render::reader::numbers_of(md),
        [
            ("A & B".to_string(), "2.00×".to_string()),
            ("C".to_string(), "3 ns".to_string())
        ]
    );
}

#[test]
fn within_returns_what_finishes_in_time_and_names_what_does_not() {
    assert_eq!(super::within(Duration::from_secs(5), "a sum", || 1 + 1), 2);
    let hung = std::panic::catch_unwind(|| {
        super::within(Duration::from_millis(50), "the stuck lock", || {
            std::thread::sleep(Duration::from_secs(5))
        })
    })
    .unwrap_err();
    let said = hung.downcast_ref::<String>().cloned().unwrap_or_default();
    assert!(
        said.contains("the stuck lock did not finish within 50ms"),
        "{said}"
    );
}

#[test]
fn judging_that_gives_two_analyses_of_one_run_fails() {
    fails_only(
        "judge-random",
        "judge",
        "judging the same run twice gives two analyses",
    );
}

#[test]
fn a_stored_analysis_that_judging_does_not_give_fails() {
    fails_only(
        "judge-stale",
        "judge",
        "the analysis stored in the run is not what judging its data gives",
    );
}

#[test]
fn a_check_that_accepts_an_edited_analysis_fails() {
    fails_only(
        "analysis-edit-accepted",
        "judge",
        "check accepts the run with its analysis edited by hand",
    );
}
