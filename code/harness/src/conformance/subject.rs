//! What every check reads: the suite's settings ([`Suite`]) and the chapter
//! binary with a private copy of its smoke run ([`Subject`]). The checks
//! (`checks`, `answer`, `page`) read this module and nothing above them.
use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::{bail, Context, Result};

use super::step::{self, StepOutput};

/// The exhibits the harness adds to every chapter.
pub const BUILT_IN: [&str; 4] = ["answer", "releases", "provenance", "precision"];

/// What `render` prints where an exhibit failed (see `cli::render_error`).
pub const RENDER_ERROR: &str = "**render error**";

/// The suite for one chapter binary.
#[derive(Debug, Clone)]
pub struct Suite {
    pub bin: PathBuf,
    /// The chapter's name: the binary's file name.
    pub chapter: String,
    pub work_counts: Vec<String>,
    /// The limit of every step but the smoke run.
    pub step_limit: Duration,
    /// The limit of the smoke run, when the suite measures one.
    pub measure_limit: Duration,
    /// The chapter's page; `None`: `src/<chapter>.md` of the checkout, or
    /// the crate's `page.md` (the template's). Includes are read relative
    /// to `src/`.
    pub page: Option<PathBuf>,
}

impl Suite {
    pub fn new(bin: &Path) -> Suite {
        let chapter = bin
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default();
        Suite {
            bin: bin.to_path_buf(),
            chapter,
            work_counts: Vec::new(),
            step_limit: Duration::from_secs(300),
            measure_limit: Duration::from_secs(900),
            page: None,
        }
    }

    pub fn work_counts(mut self, pointers: &[&str]) -> Suite {
        self.work_counts = pointers.iter().map(|p| p.to_string()).collect();
        self
    }
}

/// A chapter binary and a private copy of its smoke run.
pub(crate) struct Subject {
    pub suite: Suite,
    /// Holds `root`, removed when the suite ends.
    _dir: tempfile::TempDir,
    /// A results folder holding the chapter's run (`<root>/<chapter>/<machine>.json`).
    pub root: PathBuf,
    /// The run's results file in `root`.
    pub file: PathBuf,
    /// Scratch space of the checks.
    pub scratch: PathBuf,
}

impl Subject {
    /// The shared smoke run in `$BOOK_SMOKE_RESULTS` when it holds this
    /// chapter, else one measured now.
    pub(super) fn prepare(suite: &Suite) -> Result<Subject> {
        let shared = std::env::var_os(crate::fixtures::SMOKE_RESULTS_ENV).filter(|v| !v.is_empty());
        Subject::setup(suite, shared.as_deref().map(Path::new))
    }

    /// A smoke run measured now, whatever the environment says.
    #[cfg(test)]
    pub(super) fn measured(suite: &Suite) -> Result<Subject> {
        Subject::setup(suite, None)
    }

    fn setup(suite: &Suite, shared: Option<&Path>) -> Result<Subject> {
        if suite.chapter.is_empty() {
            bail!("{} names no chapter binary", suite.bin.display());
        }
        let dir = tempfile::tempdir().context("a temporary folder")?;
        let root = dir.path().join("results");
        let scratch = dir.path().join("scratch");
        std::fs::create_dir_all(&scratch)?;
        let to = root.join(&suite.chapter);
        std::fs::create_dir_all(&to)?;
        let env = crate::fixtures::SMOKE_RESULTS_ENV;
        // The shared run covers the registered chapters; the template (and
        // a chapter not registered yet) measures its own.
        match shared.filter(|s| s.join(&suite.chapter).is_dir()) {
            Some(shared) => {
                let from = shared.join(&suite.chapter);
                copy_json(&from, &to)
                    .with_context(|| format!("copying the smoke run named by {env}"))?;
            }
            None => {
                let limit = suite.measure_limit.as_secs().max(1).to_string();
                let out = step::run_step(
                    "the smoke run",
                    &suite.bin,
                    &[
                        "measure".as_ref(),
                        "--profile".as_ref(),
                        "smoke".as_ref(),
                        "--timeout".as_ref(),
                        limit.as_ref(),
                        "--results".as_ref(),
                        root.as_os_str(),
                    ],
                    &[],
                    suite.measure_limit,
                )?;
                out.success()?;
            }
        }
        // The published datasets a chapter's page compares with are committed,
        // not measured: a smoke folder may lack them.
        if let Ok(code) = harness_core::find_code_dir() {
            let committed = code.join("results").join(&suite.chapter);
            for f in json_files(&committed).unwrap_or_default() {
                let name = f.file_name().expect("a file name");
                if name.to_string_lossy().starts_with("published-") && !to.join(name).exists() {
                    std::fs::copy(&f, to.join(name))?;
                }
            }
        }
        let file = run_file(&to)?;
        Ok(Subject {
            suite: suite.clone(),
            _dir: dir,
            root,
            file,
            scratch,
        })
    }

    /// Runs the binary with `args` under the step limit.
    pub fn step(&self, what: &str, args: &[&OsStr]) -> Result<StepOutput> {
        self.step_with(what, args, &[])
    }

    pub fn step_with(
        &self,
        what: &str,
        args: &[&OsStr],
        env: &[(&str, &OsStr)],
    ) -> Result<StepOutput> {
        step::run_step(what, &self.suite.bin, args, env, self.suite.step_limit)
    }

    /// `render <exhibit> --results <root>`.
    pub fn render(&self, exhibit: &str, root: &Path) -> Result<StepOutput> {
        self.step(
            &format!("render {exhibit}"),
            &[
                "render".as_ref(),
                exhibit.as_ref(),
                "--results".as_ref(),
                root.as_os_str(),
            ],
        )
    }

    /// The results file as JSON.
    pub fn json(&self) -> Result<serde_json::Value> {
        let text = std::fs::read(&self.file)
            .with_context(|| format!("reading {}", self.file.display()))?;
        serde_json::from_slice(&text)
            .with_context(|| format!("{} is not JSON", self.file.display()))
    }

    /// A fresh results folder under the scratch space holding `value` as
    /// this chapter's results file named `name` (the run's own name when
    /// `None`), beside the run's published datasets: the folder and the file.
    pub fn planted(
        &self,
        folder: &str,
        name: Option<&str>,
        value: &serde_json::Value,
    ) -> Result<(PathBuf, PathBuf)> {
        let root = self.scratch.join(folder);
        let dir = root.join(&self.suite.chapter);
        std::fs::create_dir_all(&dir)?;
        for f in json_files(self.file.parent().expect("a folder"))? {
            if f != self.file {
                std::fs::copy(&f, dir.join(f.file_name().expect("a name")))?;
            }
        }
        let file = match name {
            Some(n) => dir.join(format!("{n}.json")),
            None => dir.join(self.file.file_name().expect("a name")),
        };
        std::fs::write(&file, serde_json::to_vec_pretty(value)?)?;
        Ok((root, file))
    }
}

/// The `.json` files of folder `dir`.
fn json_files(dir: &Path) -> Result<Vec<PathBuf>> {
    let mut out: Vec<PathBuf> = std::fs::read_dir(dir)
        .with_context(|| format!("cannot read {}", dir.display()))?
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.is_file() && p.extension().is_some_and(|x| x == "json"))
        .collect();
    out.sort();
    Ok(out)
}

fn copy_json(from: &Path, to: &Path) -> Result<()> {
    for f in json_files(from)? {
        std::fs::copy(&f, to.join(f.file_name().expect("a name")))?;
    }
    Ok(())
}

/// The one measured results file in a chapter's folder: this machine's,
/// or the only one that is not a published dataset.
fn run_file(dir: &Path) -> Result<PathBuf> {
    let own = dir.join(format!("{}.json", harness_measure::machine::detect().id));
    if own.is_file() {
        return Ok(own);
    }
    let runs: Vec<PathBuf> = json_files(dir)?
        .into_iter()
        .filter(|p| {
            !p.file_name()
                .is_some_and(|n| n.to_string_lossy().starts_with("published-"))
        })
        .collect();
    match runs.as_slice() {
        [one] => Ok(one.clone()),
        [] => bail!("{} holds no results file of a run", dir.display()),
        _ => bail!(
            "{} holds several runs and none of this machine ({})",
            dir.display(),
            own.display()
        ),
    }
}
