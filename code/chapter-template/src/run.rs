//! What one run measures and keeps: the chapter's experiment, the half of
//! its contract with the harness that decides the numbers, so it is in the
//! results' fingerprint. The page (the binary's `page` module) only reads
//! them, and is not.
use anyhow::Result;
use serde::{Deserialize, Serialize};

use harness_measure::timing::{Sampling, Timing};
use harness_measure::{Experiment, Lab};

use crate::{crossbeam_batch, vec_batch, BATCH, EXPECTED_SUM};

pub struct Template;

/// One run's measurements: a timing per variant.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Data {
    pub batch: u64,
    pub vec: Timing,
    pub crossbeam: Timing,
}

impl Experiment for Template {
    type Data = Data;
    const NAME: &'static str = "chapter-template";
    const MEASURED_CRATES: &'static [&'static str] = &["crossbeam-channel"];

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
}
