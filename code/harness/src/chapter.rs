//! The contract between a chapter crate and the harness: what a chapter
//! measures, the claims it judges, and the exhibits it puts on its page.
use std::path::PathBuf;

use anyhow::{bail, Context, Result};
use serde::de::DeserializeOwned;
use serde::Serialize;

use crate::claims::Claim;
use crate::measure::counts::Counted;
use crate::measure::machine::Machine;
use crate::measure::profile::Profile;
use crate::measure::progress::Progress;
use crate::measure::{measure_in_memory, Lab};
use crate::render::blocks::{Block, Table};
use crate::results::fingerprint::fingerprint;
use crate::results::published::Dataset;
use crate::results::{read_results, Provenance, Store};
use crate::values::Estimate;

/// What kind of thing an exhibit puts on the page (checked in the built HTML).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ExhibitKind {
    Table,
    Figure,
    Verdicts,
    Text,
}

/// One exhibit of a chapter's page: the name the page asks for
/// (`<!-- cmdrun ../code/target/release/harness render <chapter> <name> -->`),
/// what it shows, and the function that draws it from every machine's
/// results. Render, `exhibits`, export and the book checks all read a
/// chapter's list of these, so a name exists in one place.
pub struct Exhibit<D: 'static> {
    pub name: &'static str,
    pub kind: ExhibitKind,
    pub about: &'static str,
    pub render: fn(&Book<D>) -> Result<Vec<Block>>,
}

/// A chapter of the book: its experiments, its claims and its exhibits.
pub trait Chapter: 'static {
    /// Everything one run measures. Stored as the `data` of a results file.
    type Data: Serialize + DeserializeOwned + 'static;

    /// The chapter's name: its crate, its results folder, its page, its
    /// line in `code/chapters.toml`.
    const NAME: &'static str;
    /// Crates whose versions decide the numbers (recorded from Cargo.lock).
    const MEASURED_CRATES: &'static [&'static str];
    const CLAIMS: &'static [Claim];
    /// The chapter's own exhibits; the harness adds `provenance` and `precision`.
    const EXHIBITS: &'static [Exhibit<Self::Data>];
    /// Single-threaded work callgrind may count (`count <name> <n>`, see
    /// `measure::counts`); `measure` records it with `counts::per_op`.
    const COUNTED: &'static [Counted] = &[];
    /// What the chapter cannot measure at older releases of a crate it
    /// measures (an API the crate gained later): the releases exhibit says
    /// so under every release it measured that is older.
    const RELEASE_GAPS: &'static [crate::releases::ReleaseGap] = &[];

    /// Runs every experiment of the lab's profile, validating the work as it
    /// goes. An experiment that fails validation returns an error: nothing
    /// is written.
    fn measure(lab: &Lab) -> Result<Self::Data>;

    /// Sanity checks on data read from a file (import, load): shapes, counts,
    /// what the work must have done. Return an error naming what is wrong.
    /// (Numbers out of physical bounds are refused before this runs.)
    fn check(data: &Self::Data) -> Result<()>;

    /// The estimates the chapter's verdicts rest on, named, for the built-in
    /// `precision` exhibit. Chapters whose numbers are exact (counted, so a
    /// second run repeats them) return none; the sentence on a claim across
    /// releases then says a change is the releases', without the caveat that
    /// each release is one run (`releases::History::exact`).
    fn headline(_data: &Self::Data) -> Vec<(String, Estimate)> {
        Vec::new()
    }
}

/// One machine's results as the page sees them.
pub struct Run<D> {
    pub path: PathBuf,
    pub provenance: Provenance,
    pub data: D,
    /// The chapter's code, lock file, toolchain or profile changed since.
    pub stale: bool,
    /// The measured payload no longer matches the checksum written with it.
    pub edited: bool,
    /// Measured on the fly with the smoke profile because no results existed.
    pub ephemeral: bool,
    /// The intervals drawn from `data` when it was measured.
    pub derived: crate::measure::stats::Derived,
}

impl<D> Run<D> {
    /// The machine's id (validated on load: letters, digits, `-`, `_`, `.`).
    pub fn machine(&self) -> &str {
        &self.provenance.machine.id
    }

    /// The machine's architecture (validated on load like the id).
    pub fn arch(&self) -> &str {
        &self.provenance.machine.arch
    }
}

/// Every machine's results for one chapter, plus its published datasets.
pub struct Book<D> {
    pub chapter: &'static str,
    pub runs: Vec<Run<D>>,
    pub store: Store,
}

impl<D> Book<D> {
    /// `code/results/<chapter>/published-<name>.json`: reference data lives
    /// with the committed results even when measurements are read elsewhere.
    pub fn published(&self, name: &str) -> Result<Dataset> {
        Dataset::load(
            &Store::new(crate::code_dir().join("results"))
                .chapter_dir(self.chapter)
                .join(format!("published-{name}.json")),
        )
    }

    /// One table per run, in the runs' order: the shape of most exhibits.
    pub fn table_per_run(&self, table: impl FnMut(&Run<D>) -> Result<Table>) -> Result<Vec<Block>> {
        self.runs
            .iter()
            .map(table)
            .map(|t| t.map(Block::Table))
            .collect()
    }

    /// Every interval the runs' files carry (see `stats::Derived`).
    pub fn derived(&self) -> crate::measure::stats::Derived {
        let mut all = crate::measure::stats::Derived::default();
        for run in &self.runs {
            all.0
                .extend(run.derived.0.iter().map(|(k, v)| (k.clone(), *v)));
        }
        all
    }

    /// The run a single-machine exhibit shows: this machine's run if there
    /// is one, else the first.
    pub fn primary(&self) -> &Run<D> {
        let here = Machine::detect().id;
        self.runs
            .iter()
            .find(|r| r.machine() == here)
            .unwrap_or(&self.runs[0])
    }
}

impl<D: serde::Serialize + serde::de::DeserializeOwned> Book<D> {
    /// The same book with only the runs `keep` picks: what a figure drawn
    /// once per machine (the page's machine switch) or a verdict of one
    /// release variant is computed from. The runs' data are copied through
    /// serde, as chapter data need not be `Clone`.
    pub fn only(&self, keep: impl Fn(&Run<D>) -> bool) -> Result<Book<D>> {
        let mut runs = Vec::new();
        for run in self.runs.iter().filter(|r| keep(r)) {
            runs.push(run.copy()?);
        }
        Ok(Book {
            chapter: self.chapter,
            runs,
            store: self.store.clone(),
        })
    }
}

impl<D: serde::Serialize + serde::de::DeserializeOwned> Run<D> {
    /// A copy of the run, its data through serde.
    pub fn copy(&self) -> Result<Run<D>> {
        Ok(Run {
            path: self.path.clone(),
            stale: self.stale,
            edited: self.edited,
            ephemeral: self.ephemeral,
            provenance: self.provenance.clone(),
            data: serde_json::from_value(serde_json::to_value(&self.data)?)?,
            derived: self.derived.clone(),
        })
    }
}

impl<D: Serialize> Run<D> {
    /// A run of chapter `C` read from `path`, after the chapter's checks
    /// pass on its data; `stale` as the caller judges it (a release variant
    /// is stale by its code fingerprint, any other run by its fingerprint).
    pub fn checked<C: Chapter<Data = D>>(
        path: PathBuf,
        file: crate::results::ResultsFile<D>,
        stale: bool,
    ) -> Result<Run<D>> {
        C::check(&file.data)
            .with_context(|| format!("{} failed the chapter's checks", path.display()))?;
        Ok(Run {
            stale,
            edited: !file.checksum_matches()?,
            provenance: file.provenance,
            data: file.data,
            derived: file.derived,
            path,
            ephemeral: false,
        })
    }
}

/// Loads every machine's results, marking stale and edited ones. With none
/// at all, measures the smoke profile once (cached under target/, never
/// under src/ or results/) and says so on the page.
pub fn load_book<C: Chapter>(store: &Store) -> Result<Book<C::Data>> {
    let code = crate::code_dir();
    let mut runs = Vec::new();
    for (path, file) in store.load_all::<C::Data>(C::NAME)? {
        let stale = !file.provenance.is_current(C::NAME)?;
        runs.push(Run::checked::<C>(path, file, stale)?);
    }
    if runs.is_empty() {
        let cache = Store::new(code.join("target").join("smoke-results"));
        let path = cache.results_path(C::NAME, &Machine::detect().id);
        let fresh = fingerprint(&code, C::NAME, Profile::Smoke)?;
        let cached = read_results::<C::Data>(&path, C::NAME)
            .ok()
            .filter(|f| f.provenance.fingerprint == fresh);
        let file = match cached {
            Some(f) => f,
            None if std::env::var_os("BOOK_NO_MEASURE").is_some() => bail!(
                "no results for chapter {} in {} and BOOK_NO_MEASURE is set: \
                 commit results measured with scripts/fresh",
                C::NAME,
                store.chapter_dir(C::NAME).display()
            ),
            None => {
                eprintln!(
                    "{}: no results for any machine; measuring the smoke profile",
                    C::NAME
                );
                let (file, _) = measure_in_memory::<C>(Profile::Smoke, Progress::new(C::NAME))?;
                let file = crate::cli::derive::<C>(file, &path)?;
                cache.write(&file)?;
                file
            }
        };
        runs.push(Run {
            path,
            provenance: file.provenance,
            data: file.data,
            derived: file.derived,
            stale: false,
            edited: false,
            ephemeral: true,
        });
    }
    Ok(Book {
        chapter: C::NAME,
        runs,
        store: store.clone(),
    })
}
