//! Test fixtures every chapter's tests share: a book of one synthetic run,
//! with defaults for everything a test does not care about.
use harness_core::claims::Verdict;
use harness_core::profile::Profile;
use harness_core::results::Store;
use harness_page::render::blocks::Block;
use harness_page::{Book, Page};

pub use harness_measure::fixtures::{
    provenance, provenance_apart, provenance_loaded, provenance_with,
};
pub use harness_page::fixtures::book;

/// Every verdict chapter `C` gives `data` (judged in memory, then read as
/// the page reads stored verdicts), after the chapter's own checks pass on it.
pub fn verdicts<C: Page>(data: C::Data) -> Vec<Verdict> {
    C::check(&data).expect("synthetic data passes the chapter's checks");
    C::verdicts(&book::<C>(data)).expect("the stored verdicts read back")
}

/// What judging `data` gives chapter `C` (the judge stage, in memory).
pub fn judged<C: Page>(data: &C::Data) -> harness_core::analysis::Analysis {
    let provenance = provenance(Profile::Smoke);
    harness_page::page::judge::<C>("synthetic.json".as_ref(), &provenance, data)
        .expect("the synthetic run is judged")
}

/// The blocks exhibit `name` of chapter `C` renders from `book`.
pub fn render<C: Page>(name: &str, book: &Book<C::Data>) -> Vec<Block> {
    let e = C::EXHIBITS
        .iter()
        .find(|e| e.name == name)
        .unwrap_or_else(|| panic!("chapter {} has no exhibit {name}", C::NAME));
    (e.render)(book).unwrap_or_else(|err| panic!("exhibit {name}: {err:#}"))
}

/// The environment variable naming a results folder that holds a smoke run
/// of every chapter on this machine (`scripts/test` measures one and sets
/// it), so that the chapters' tests read that run instead of each measuring
/// its own.
pub const SMOKE_RESULTS_ENV: &str = "BOOK_SMOKE_RESULTS";

/// A smoke run of chapter `C` on this machine, as `measure_in_memory` gives
/// it: read from `$BOOK_SMOKE_RESULTS/<chapter>/<machine>.json` when that
/// variable is set (the file must be there, be a smoke run and pass the
/// chapter's checks), else measured here and now, so that `cargo test -p
/// <chapter>` works on its own. `measure` is how the caller measures one
/// (`measure_in_memory` with a watchdog, say).
pub fn smoke_run<C: Page>(
    measure: impl FnOnce() -> anyhow::Result<harness_core::results::ResultsFile<C::Data>>,
) -> harness_core::results::ResultsFile<C::Data> {
    match std::env::var_os(SMOKE_RESULTS_ENV) {
        Some(root) => shared_smoke_run::<C>(std::path::Path::new(&root))
            .unwrap_or_else(|e| panic!("{SMOKE_RESULTS_ENV}: {e:#}")),
        None => measure().expect("the smoke profile measures and validates"),
    }
}

/// Chapter `C`'s smoke run of this machine in the results folder `root`,
/// checked, with what a fresh in-memory run would have: the same chapter,
/// provenance and data, sealed anew (no analysis, no stored checksum).
pub fn shared_smoke_run<C: Page>(
    root: &std::path::Path,
) -> anyhow::Result<harness_core::results::ResultsFile<C::Data>> {
    use anyhow::{ensure, Context};
    let path = Store::new(root).results_path(C::NAME, &harness_measure::machine::detect().id);
    let file = crate::cli::check_file::<C>(&path)
        .with_context(|| format!("no usable smoke run of {} at {}", C::NAME, path.display()))?;
    ensure!(
        file.provenance.profile == Profile::Smoke,
        "{} is a {} run, not a smoke run",
        path.display(),
        file.provenance.profile.name()
    );
    harness_core::results::ResultsFile::new(C::NAME, file.provenance, file.data)
}

/// The JSON crate the fixtures edit results with, for tests of chapters
/// that do not depend on it themselves.
pub use serde_json as json;

/// What a chapter's answer (`in-short`) prints over a results folder, and
/// the headline estimates of the results file it reads: the numbers the
/// answer marks with an estimate's name, each beside that estimate.
pub struct AnswerCheck {
    pub markdown: String,
    /// `(estimate name, number shown, the headline estimate)` for every
    /// number the answer marks with a name the headline has.
    pub matched: Vec<(String, String, harness_core::values::Estimate)>,
    /// Marked numbers whose name the headline does not have.
    pub unmatched: Vec<(String, String)>,
}

/// Runs the chapter binary `bin` on the results folder `results` holding
/// one results file of `chapter` (its path: `file`): `render in-short` and
/// `headline`, and lines up what the answer printed with the estimates.
pub fn answer_check(
    bin: &std::path::Path,
    results: &std::path::Path,
    file: &std::path::Path,
) -> AnswerCheck {
    let run = |args: &[&std::ffi::OsStr]| {
        let out = std::process::Command::new(bin)
            .args(args)
            .output()
            .expect("the chapter binary runs");
        assert!(
            out.status.success(),
            "{args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout).expect("utf-8")
    };
    let markdown = run(&[
        "render".as_ref(),
        "in-short".as_ref(),
        "--results".as_ref(),
        results.as_os_str(),
    ]);
    let headline: crate::cli::Headline =
        serde_json::from_str(&run(&["headline".as_ref(), file.as_os_str()]))
            .expect("headline prints JSON");
    let mut matched = Vec::new();
    let mut unmatched = Vec::new();
    for (name, shown) in harness_page::render::reader::numbers_of(&markdown) {
        match headline.estimates.iter().find(|e| e.name == name) {
            Some(e) => matched.push((name, shown, e.estimate)),
            None => unmatched.push((name, shown)),
        }
    }
    AnswerCheck {
        markdown,
        matched,
        unmatched,
    }
}

/// Whether `shown` prints the point of `e` in one of the units an answer
/// uses (a ratio, a share, a duration).
pub fn shows_point(shown: &str, e: &harness_core::values::Estimate) -> bool {
    use harness_core::values::Unit;
    [Unit::Ratio, Unit::Share, Unit::Nanos, Unit::Plain]
        .iter()
        .any(|u| u.show(e.point_ns) == shown)
}

/// The committed results of `chapter` for its one machine: the folder and
/// the file (`code/results/<chapter>/<machine>.json`).
pub fn committed_results(chapter: &str) -> (std::path::PathBuf, std::path::PathBuf) {
    let root = harness_core::code_dir().join("results");
    let file = machine_file(&root.join(chapter));
    (root, file)
}

/// The machine's results file in a chapter's results folder: by its `.json`
/// name (a folder a run wrote into also holds `.writer.lock`), not a
/// published dataset.
pub fn machine_file(dir: &std::path::Path) -> std::path::PathBuf {
    std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", dir.display()))
        .flatten()
        .map(|e| e.path())
        .find(|p| {
            p.extension().is_some_and(|x| x == "json")
                && !p
                    .file_name()
                    .is_some_and(|n| n.to_string_lossy().starts_with("published-"))
        })
        .unwrap_or_else(|| panic!("no machine results file in {}", dir.display()))
}

/// A copy of `chapter`'s committed results file in a temporary results
/// folder, edited by `edit` (its stored analysis dropped, so nothing
/// stored stands in for the edited numbers): the folder and the file.
pub fn edited_results(
    chapter: &str,
    edit: impl FnOnce(&mut serde_json::Value),
) -> (tempfile::TempDir, std::path::PathBuf) {
    let (_, file) = committed_results(chapter);
    let mut v: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&file).expect("read")).expect("JSON");
    edit(&mut v["data"]);
    if let Some(d) = v.get_mut("derived") {
        *d = serde_json::json!({});
    }
    if let Some(map) = v.as_object_mut() {
        map.remove("analysis");
    }
    let dir = tempfile::tempdir().expect("temp dir");
    let to = dir
        .path()
        .join(chapter)
        .join(file.file_name().expect("a name"));
    std::fs::create_dir_all(to.parent().expect("a folder")).expect("mkdir");
    std::fs::write(&to, serde_json::to_vec_pretty(&v).expect("JSON")).expect("write");
    (dir, to)
}

/// Asserts that chapter `chapter`'s answer over its committed results
/// (printed by its binary `bin`) carries its answer block, marks at least
/// one headline estimate, and shows every marked estimate's point.
pub fn assert_answer_prints_the_headline(chapter: &str, bin: &std::path::Path) {
    let (results, file) = committed_results(chapter);
    let check = answer_check(bin, &results, &file);
    assert!(
        check
            .markdown
            .contains(&format!("data-answer=\"{chapter}\"")),
        "{}",
        check.markdown
    );
    assert!(
        !check.matched.is_empty(),
        "no headline estimate in the answer: {}",
        check.markdown
    );
    for (name, shown, e) in &check.matched {
        assert!(
            shows_point(shown, e),
            "{name}: the answer shows {shown}, the headline {e:?}"
        );
    }
}
