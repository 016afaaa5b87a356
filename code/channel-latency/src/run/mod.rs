//! What one run of the chapter measures and keeps: the results' data
//! model (`data`), the run itself (`measure`, its schedules), and the
//! experiment half of the chapter's contract with the harness. This half decides the
//! numbers, so it is in the results' fingerprint; the page (the binary's
//! `page`, which the library cannot name) only reads them, and is not.
mod data;
mod measure;

use anyhow::Result;
use harness_core::Profile;
use harness_measure::schedule::RecordedSchedule;
use harness_measure::{Experiment, Lab};

pub use data::{
    bp_all, BackpressureSetup, BurstProfile, Data, LadderSetup, MethodsSetup, SweepSetup,
    BP_CHANNELS, BP_COMPARED,
};

pub use measure::{
    head_to_head_schedule, ladder_schedule, other_ways_schedule, progress_total, sweep_schedule,
    LadderKey, OtherKey, SweepKey, MEMCPY, SCHEDULES,
};

pub struct ChannelLatency;

impl Experiment for ChannelLatency {
    type Data = Data;
    const NAME: &'static str = "channel-latency";
    const MEASURED_CRATES: &'static [&'static str] = &[
        "tokio",
        "crossbeam-channel",
        "kanal",
        "flume",
        "async-channel",
        "criterion",
        "hdrhistogram",
    ];
    const COUNTED: &'static [harness_measure::Counted] = &crate::burst_shapes::CHAPTER_COUNTED;

    fn measure(lab: &Lab) -> Result<Data> {
        measure::measure(lab)
    }

    /// The run's recorded schedules; for a run from before them, or
    /// without a run, the code's plan of `profile`.
    fn schedules(profile: Profile, data: Option<&Data>) -> Vec<RecordedSchedule> {
        match data {
            Some(d) if !d.schedules.is_empty() => d.schedules.clone(),
            _ => measure::schedules(profile),
        }
    }
}
