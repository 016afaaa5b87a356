//! The intervals a results file stores: every one its exhibits draw from
//! its data, found by rendering each exhibit once.
use std::path::Path;

use anyhow::{Context, Result};

use harness_core::results::{ResultsFile, Store};

use crate::chapter::{Book, Chapter, Run};
use crate::exhibits::exhibits;

/// `file` with every interval its exhibits draw from its data (see
/// `stats::Derived`), found by rendering each exhibit once. The chapter's
/// history is left unread: its files were checked when they were written,
/// and one the new code refuses (a replicate measured before a change to
/// the experiments) must not cost the run just measured.
pub fn derive<C: Chapter>(file: ResultsFile<C::Data>, path: &Path) -> Result<ResultsFile<C::Data>> {
    let ResultsFile {
        provenance,
        data,
        derived,
        ..
    } = file;
    let book = Book {
        chapter: C::NAME,
        runs: vec![Run {
            path: path.to_path_buf(),
            provenance,
            data,
            stale: false,
            edited: false,
            ephemeral: false,
            derived: Default::default(),
        }],
        store: Store::new(Store::committed()).without_history(),
    };
    let (rendered, derived) = harness_measure::stats::remembering(derived, || {
        exhibits::<C>()?
            .iter()
            .try_for_each(|e| (e.render)(&book).map(drop))
    });
    rendered.context("rendering the exhibits to draw their intervals")?;
    let run = book.runs.into_iter().next().expect("one run");
    ResultsFile::new(C::NAME, run.provenance, run.data)?.with_derived(derived)
}
