//! The lab a chapter measures in: its profile, progress, scratch folder and
//! the run's core gate.
use std::path::Path;

use anyhow::{Context, Result};
use criterion::Bencher;

use harness_core::profile::Profile;

use crate::progress::Progress;
use crate::timing::{Sampling, Timing};
use crate::{cores, quiet, timing};

/// The lab a chapter measures in: the profile, the progress shown to the
/// person running it, a scratch folder criterion writes into, and the run's
/// core gate with its record. Every timing goes through [`Lab::time`], which
/// holds it to that gate.
pub struct Lab {
    profile: Profile,
    progress: Progress,
    scratch: tempfile::TempDir,
    gatekeeper: cores::Gatekeeper,
    /// Criterion's output diverted for as long as the lab lives, in a run.
    quiet: Option<quiet::QuietOutput>,
}

impl Lab {
    /// A lab outside any run (tests): no gate, no budget to measure anything
    /// again, and criterion's output left where it goes.
    pub fn new(profile: Profile, progress: Progress) -> Result<Lab> {
        Ok(Lab {
            profile,
            progress,
            scratch: tempfile::tempdir().context("cannot create criterion's scratch folder")?,
            gatekeeper: cores::Gatekeeper::default(),
            quiet: None,
        })
    }

    /// The lab of one run: its timings go through `gatekeeper`, and while
    /// it lives criterion's output goes to `log` and the progress to the
    /// terminal (see `quiet::QuietOutput`).
    pub(crate) fn for_run(
        profile: Profile,
        progress: Progress,
        gatekeeper: cores::Gatekeeper,
        log: &Path,
    ) -> Result<Lab> {
        let quiet = quiet::QuietOutput::new(log, progress.terminal());
        Ok(Lab {
            gatekeeper,
            quiet: Some(quiet),
            ..Lab::new(profile, progress)?
        })
    }

    pub fn profile(&self) -> Profile {
        self.profile
    }

    pub fn progress(&self) -> &Progress {
        &self.progress
    }

    /// Where criterion files its results while this lab measures.
    pub fn scratch(&self) -> &Path {
        self.scratch.path()
    }

    /// Times `routine` with criterion (see `timing::measure`) under the
    /// run's gate. `id` must be unique within the lab: letters, digits, `-`,
    /// `_`, `.`.
    pub fn time<F>(&self, id: &str, sampling: Sampling, routine: F) -> Result<Timing>
    where
        F: FnMut(&mut Bencher<'_>),
    {
        timing::measure(self.scratch(), sampling, id, &self.gatekeeper, routine)
    }

    /// Ends the lab: criterion's output restored, and the progress handed
    /// back with what the run's checks of the cores found.
    pub(crate) fn finish(self) -> (Progress, Option<cores::CoresApart>) {
        let Lab {
            progress,
            gatekeeper,
            quiet,
            ..
        } = self;
        drop(quiet);
        (progress, gatekeeper.finish())
    }
}
