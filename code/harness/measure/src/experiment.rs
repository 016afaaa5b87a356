//! The experiment half of a chapter: what it measures and how. The page
//! half (claims, exhibits, the checks of a file read back) is
//! `harness-page`'s `Chapter`, which builds on this trait.
use anyhow::Result;
use serde::de::DeserializeOwned;
use serde::Serialize;

use harness_core::profile::Profile;
use harness_core::releases::ReleaseGap;

use crate::counts::Counted;
use crate::lab::Lab;
use crate::schedule::RecordedSchedule;

/// A chapter's experiments: the data one run measures, the crates whose
/// versions decide its numbers, and the run itself.
pub trait Experiment: 'static {
    /// Everything one run measures. Stored as the `data` of a results file.
    type Data: Serialize + DeserializeOwned + 'static;

    /// The chapter's name: its crate, its results folder, its page, its
    /// line in `code/chapters.toml`.
    const NAME: &'static str;
    /// Crates whose versions decide the numbers (recorded from Cargo.lock).
    const MEASURED_CRATES: &'static [&'static str];
    /// Single-threaded work callgrind may count (`count <name> <n>`, see
    /// `counts`); `measure` records it with `counts::per_op`.
    const COUNTED: &'static [Counted] = &[];
    /// What the chapter cannot measure at older releases of a crate it
    /// measures (an API the crate gained later): the releases exhibit says
    /// so under every release it measured that is older.
    const RELEASE_GAPS: &'static [ReleaseGap] = &[];

    /// Runs every experiment of the lab's profile, validating the work as it
    /// goes. An experiment that fails validation returns an error: nothing
    /// is written.
    fn measure(lab: &Lab) -> Result<Self::Data>;

    /// The schedules of the chapter's timings (`schedule::Schedule`), for
    /// the page's parameters exhibit and the chapter's checks: with `data`,
    /// the ones the run recorded (a file older than the record falls back to
    /// the code's plan for `profile`, the run's); without, the code's plan
    /// for `profile`. Empty for a chapter that does not schedule through
    /// the harness.
    fn schedules(_profile: Profile, _data: Option<&Self::Data>) -> Vec<RecordedSchedule> {
        Vec::new()
    }
}
