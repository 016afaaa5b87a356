//! The page half of the contract between a chapter crate and the harness:
//! the claims a chapter judges and the exhibits it puts on its page, over
//! what its experiments (`harness_measure::Experiment`) measured.
use std::path::PathBuf;

use anyhow::Result;
use serde::Serialize;

use harness_core::analysis::Analysis;
use harness_core::results::published::Dataset;
use harness_core::results::{Provenance, Store};

use crate::render::blocks::{Block, Table};

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
    /// What judging `data` gives, judged again as the file was read (a
    /// stored analysis today's page code judged must agree with it:
    /// `page::current_analysis`).
    pub analysis: Analysis,
    /// The stored analysis was judged by other page code (or the file has
    /// none): `analysis` was judged as the file was read.
    pub rejudged: bool,
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
            &Store::new(harness_core::code_dir().join("results"))
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

    /// The run a single-machine exhibit shows: this machine's run if there
    /// is one, else the first.
    pub fn primary(&self) -> &Run<D> {
        let here = harness_measure::machine::detect().id;
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

impl<D: serde::Serialize + serde::de::DeserializeOwned> Book<D> {
    /// The runs whose verdicts count in an answer, a badge or a finding:
    /// every machine with current results (a quick or full run whose code
    /// has not changed since). A stale run, or a smoke run measured on the
    /// spot, never counts beside a current one; when no run is current, all
    /// count (the page marks them stale).
    pub fn counted(&self) -> Result<Book<D>> {
        let counts = |r: &Run<D>| {
            !r.stale
                && !r.ephemeral
                && r.provenance.profile != harness_core::profile::Profile::Smoke
        };
        if self.runs.iter().any(counts) {
            self.only(counts)
        } else {
            self.only(|_| true)
        }
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
            analysis: self.analysis.clone(),
            rejudged: self.rejudged,
        })
    }
}

impl<D: Serialize> Run<D> {
    /// What the build prints for a run judged as it was read.
    pub fn rejudged_note(&self, chapter: &str) -> Option<String> {
        self.rejudged.then(|| {
            format!(
                "{chapter}: {} was judged by older page code (or not at all): run `harness judge {chapter}`",
                self.path.display()
            )
        })
    }
}
