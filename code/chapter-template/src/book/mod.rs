//! The chapter as the book sees it: what a run records, and its exhibits.
mod claims;
mod exhibits;

use anyhow::{ensure, Result};
use serde::{Deserialize, Serialize};

use harness::timing::{Sampling, Timing};
use harness::{Chapter, Claim, Exhibit, ExhibitKind, Lab};

use crate::{crossbeam_batch, vec_batch, BATCH, EXPECTED_SUM};

pub struct Template;

/// One run's measurements: a timing per variant.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Data {
    pub batch: u64,
    pub vec: Timing,
    pub crossbeam: Timing,
}

impl Chapter for Template {
    type Data = Data;
    const NAME: &'static str = "chapter-template";
    const MEASURED_CRATES: &'static [&'static str] = &["crossbeam-channel"];
    const CLAIMS: &'static [Claim] = claims::CLAIMS;
    const EXHIBITS: &'static [Exhibit<Data>] = &[
        Exhibit {
            name: "timings",
            kind: ExhibitKind::Table,
            about: "each variant's time per batch",
            render: exhibits::timings,
        },
        Exhibit {
            name: "figure",
            kind: ExhibitKind::Figure,
            about: "time per batch, per variant",
            render: exhibits::figure,
        },
        Exhibit {
            name: "verdicts",
            kind: ExhibitKind::Verdicts,
            about: "TPL-1",
            render: claims::verdicts,
        },
    ];

    fn measure(lab: &Lab) -> Result<Data> {
        let sampling = lab.profile().pick(
            Sampling::new(10, 50, 200),
            Sampling::new(30, 500, 2_000),
            Sampling::new(50, 1_000, 5_000),
        );
        lab.progress().set_total(2);
        // Each routine checks its work on every iteration: a variant that
        // lost a message would be timed doing less.
        lab.progress().step("vec");
        let vec = lab.time("vec", sampling, |b| {
            b.iter(|| assert_eq!(vec_batch::vec_batch(BATCH), EXPECTED_SUM))
        })?;
        lab.progress().step("crossbeam");
        let crossbeam = lab.time("crossbeam", sampling, |b| {
            b.iter(|| assert_eq!(crossbeam_batch::crossbeam_batch(BATCH), EXPECTED_SUM))
        })?;
        Ok(Data {
            batch: BATCH,
            vec,
            crossbeam,
        })
    }

    fn check(data: &Data) -> Result<()> {
        ensure!(data.batch > 0, "a batch of no messages measures nothing");
        Ok(())
    }

    fn headline(data: &Data) -> Vec<(String, harness::Estimate)> {
        vec![("crossbeam ÷ vec".into(), claims::ratio(data))]
    }
}
