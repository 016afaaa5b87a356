//! The page over a smoke run and over synthetic data: unit tests of the
//! binary, as the page is not part of the library (`cargo test -p fan-in`).
mod chapter;
mod common;
mod crates;
mod judge;
mod own_design;

use std::sync::OnceLock;

use harness::fixtures;
use harness_core::results::ResultsFile;
use harness_core::{Estimate, Profile};
use harness_measure::Progress;
use harness_page::load::measure_checked;

use fan_in::run::FanInData;

use super::FanIn;

/// One smoke run shared by the page's tests (it takes seconds): the
/// suite's shared smoke run when there is one.
fn smoke() -> &'static ResultsFile<FanInData> {
    static RUN: OnceLock<ResultsFile<FanInData>> = OnceLock::new();
    RUN.get_or_init(|| {
        fixtures::smoke_run::<FanIn>(|| {
            Ok(measure_checked::<FanIn>(Profile::Smoke, Progress::hidden("fan-in"))?.0)
        })
    })
}

/// The headline as the judge stores it: names and estimates, in order.
fn headline(data: &FanInData) -> Vec<(String, Estimate)> {
    fixtures::judged::<FanIn>(data)
        .headline_estimates()
        .expect("the headline names estimates of the analysis")
}
