//! What one run of the chapter measures and keeps: the results' data
//! model (`data`), the run itself (`measure`), and the experiment half of
//! the chapter's contract with the harness. This half decides the numbers,
//! so it is in the results' fingerprint; the page (the binary's `page`
//! module) only reads them, and is not.
mod data;
mod measure;

use anyhow::Result;
use harness_core::Profile;
use harness_measure::schedule::RecordedSchedule;
use harness_measure::Lab;

pub use data::{Data, Experiment, Key, Measured, WaitProfile, WorkCost};
pub use measure::{
    criterion_id, is_decisive, plan, plan_for, profile_name, progress_total, schedule,
    FAN4_FROM_PRODUCERS, PROFILED_DESIGN, PROFILED_WAITS,
};

/// The chapter's experiment; its page is the binary's `page::MutexSwap`.
pub struct MutexSwap;

impl harness_measure::Experiment for MutexSwap {
    type Data = Data;
    const NAME: &'static str = "mutex-swap";
    const MEASURED_CRATES: &'static [&'static str] = &["tokio", "parking_lot"];

    fn measure(lab: &Lab) -> Result<Data> {
        measure::measure(lab)
    }

    /// The run's recorded timetable; the code's for files older than it.
    fn schedules(profile: Profile, data: Option<&Data>) -> Vec<RecordedSchedule> {
        match data {
            Some(d) if !d.schedules.is_empty() => d.schedules.clone(),
            _ => vec![schedule(profile).record()],
        }
    }
}
