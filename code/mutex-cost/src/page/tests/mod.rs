//! The page over a smoke run and over data cut from it: unit tests of the
//! binary, as the page is not part of the library (`cargo test -p
//! mutex-cost`; `BOOK_SMOKE_RESULTS` points them at a shared smoke run).
mod chapter;
mod judge;
mod locks;

use std::sync::OnceLock;

use harness::fixtures;
use harness_core::results::ResultsFile;
use harness_core::Profile;
use harness_measure::Progress;
use harness_page::load::measure_checked;
use mutex_cost::run::Data;

use super::MutexCost;

/// One smoke run shared by the tests: the suite's shared smoke run when
/// there is one.
fn smoke_file() -> &'static ResultsFile<Data> {
    static RUN: OnceLock<ResultsFile<Data>> = OnceLock::new();
    RUN.get_or_init(|| {
        fixtures::smoke_run::<MutexCost>(|| {
            // A stuck lock or actor must fail the test, not hang the suite.
            let limit = std::time::Duration::from_secs(180);
            Ok(
                harness::conformance::within(limit, "the smoke profile", || {
                    measure_checked::<MutexCost>(Profile::Smoke, Progress::hidden("mutex-cost"))
                })?
                .0,
            )
        })
    })
}
