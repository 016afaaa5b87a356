//! What one run of the chapter measures and keeps: the results' data
//! model, the run itself (`measure`), and the experiment half of the
//! chapter's contract with the harness. This half decides the numbers, so
//! it is in the results' fingerprint; the page (the binary's `page`, which
//! this library cannot name) only reads them, and is not.
mod data;
mod measure;

use anyhow::Result;
use harness_core::Profile;
use harness_measure::schedule::RecordedSchedule;
use harness_measure::{Experiment, Lab};

pub use data::Data;

/// The experiment half of the chapter; its page is the binary's `page::MutexCost`.
pub struct MutexCost;

impl Experiment for MutexCost {
    type Data = Data;
    const NAME: &'static str = "mutex-cost";
    const MEASURED_CRATES: &'static [&'static str] = &[
        "tokio",
        "futures",
        "parking_lot",
        "async-lock",
        "criterion",
        "hdrhistogram",
        "mimalloc",
    ];
    const COUNTED: &'static [harness_measure::Counted] = crate::counted::COUNTED;
    const RELEASE_GAPS: &'static [harness_page::releases::ReleaseGap] =
        &[harness_page::releases::ReleaseGap {
            krate: "tokio",
            since: crate::tokio_budget_first_counter::POLL_PROCEED_SINCE,
            lacks: "tokio has no public `coop::poll_proceed`, so the budget-first \
                    variant is the plain `tokio::sync::Mutex`, which in those releases \
                    asks the budget before the lock by itself (the order changed in \
                    1.54.0).",
        }];

    fn measure(lab: &Lab) -> Result<Data> {
        measure::run(lab)
    }

    /// The run's recorded schedules; for a file older than the record, or
    /// without data, the code's plan for `profile` (its worker counts then
    /// are this machine's).
    fn schedules(profile: Profile, data: Option<&Data>) -> Vec<RecordedSchedule> {
        match data {
            Some(d) if !d.schedules.is_empty() => d.schedules.clone(),
            _ => measure::Schedules::of(&crate::Plan::for_profile(profile))
                .map(|s| s.record())
                .unwrap_or_default(),
        }
    }
}
