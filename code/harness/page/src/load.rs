//! A chapter's results as its page reads them: every machine's run, or a
//! smoke run measured on the spot when none is committed.
use std::path::Path;

use anyhow::{bail, Context, Result};

use harness_core::profile::Profile;
use harness_core::results::fingerprint::fingerprint;
use harness_core::results::{read_results, ResultsFile, Store};
use harness_measure::{measure_in_memory, Progress};

use crate::chapter::{Book, Run};
use crate::page::{current_analysis, judge, Page};

/// Measures chapter `P` (`harness_measure::measure_in_memory`), then holds
/// the run to the chapter's own checks: what a run measured passes the
/// checks a file read back must pass.
pub fn measure_checked<P: Page>(
    profile: Profile,
    progress: Progress,
) -> Result<(ResultsFile<P::Data>, Progress)> {
    let (file, progress) = measure_in_memory::<P::Experiment>(profile, progress)?;
    P::check(&file.data).context("the run's own results failed the chapter's checks")?;
    Ok((file, progress))
}

/// The judge stage: `file` with the analysis of its data (`page::judge`).
pub fn judged<P: Page>(file: ResultsFile<P::Data>, path: &Path) -> Result<ResultsFile<P::Data>> {
    let analysis = judge::<P>(path, &file.provenance, &file.data)?;
    file.with_analysis(analysis)
}

/// Loads every machine's results, marking stale and edited ones, with
/// their analyses (a file judged by other page code is judged again in
/// memory, and a line on stderr says so). With none at all, measures the
/// smoke profile once (cached under target/, never under src/ or
/// results/) and says so on the page.
pub fn load_book<C: Page>(store: &Store) -> Result<Book<C::Data>> {
    let code = harness_core::code_dir();
    let mut runs = Vec::new();
    for (path, file) in store.load_all::<C::Data>(C::NAME)? {
        let stale = !file.provenance.is_current(C::NAME)?;
        let run = checked_run::<C>(path, file, stale)?;
        if let Some(note) = run.rejudged_note(C::NAME) {
            eprintln!("{note}");
        }
        runs.push(run);
    }
    if runs.is_empty() {
        let cache = Store::new(code.join("target").join("smoke-results"));
        let path = cache.results_path(C::NAME, &harness_measure::machine::detect().id);
        let fresh = fingerprint(&code, C::NAME, Profile::Smoke)?;
        let cached = read_results::<C::Data>(&path, C::NAME)
            .ok()
            .filter(|f| f.provenance.fingerprint == fresh)
            .filter(|f| f.analysis.is_some());
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
                let (file, _) = measure_checked::<C>(Profile::Smoke, Progress::new(C::NAME))?;
                let file = judged::<C>(file, &path)?;
                cache.write(&file)?;
                file
            }
        };
        let (analysis, rejudged) = crate::page::current_analysis::<C>(
            &path,
            &file.provenance,
            &file.data,
            file.analysis,
            false,
        )?;
        runs.push(Run {
            path,
            provenance: file.provenance,
            data: file.data,
            analysis,
            rejudged,
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

/// A run of chapter `P` read from `path`, after the chapter's checks pass
/// on its data, with its analysis (`page::current_analysis`: judged again
/// when today's page code did not judge it); `stale` as the caller judges
/// it (a release variant is stale by its code fingerprint, any other run by
/// its fingerprint).
pub fn checked_run<P: Page>(
    path: std::path::PathBuf,
    file: ResultsFile<P::Data>,
    stale: bool,
) -> Result<Run<P::Data>> {
    P::check(&file.data)
        .with_context(|| format!("{} failed the chapter's checks", path.display()))?;
    let edited = !file.checksum_matches()?;
    let (analysis, rejudged) = current_analysis::<P>(
        &path,
        &file.provenance,
        &file.data,
        file.analysis.clone(),
        edited,
    )?;
    Ok(Run {
        stale,
        edited,
        provenance: file.provenance,
        data: file.data,
        analysis,
        rejudged,
        path,
        ephemeral: false,
    })
}
