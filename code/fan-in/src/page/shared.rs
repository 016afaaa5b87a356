//! What every exhibit shares: the statistic the figures rest on, how a
//! caption names a run, and the post's published rows. A leaf of the page:
//! it imports nothing of it.
use anyhow::Result;
use harness_core::Estimate;
use harness_measure::timing::Statistic;
use harness_page::{Book, Run};
use serde::Deserialize;

use fan_in::run::FanInData;
use fan_in::sweep::Measured;

/// The statistic every figure rests on.
pub(super) const STAT: Statistic = Statistic::Median;

/// The figure of merit everywhere: the median of one burst, pooled over the
/// run's passes.
pub(super) fn time_per_burst(m: &Measured) -> &Estimate {
    m.timing.estimate(STAT)
}

/// How a caption names the run it shows: `machine (profile profile)`.
pub(super) fn on(run: &Run<FanInData>) -> String {
    format!("{} ({} profile)", run.machine(), run.provenance.profile)
}

/// The same with the rig's runtime: `machine (runtime, profile profile)`.
pub(super) fn on_rig(run: &Run<FanInData>) -> String {
    format!(
        "{} ({}, {} profile)",
        run.machine(),
        run.data.runtime(),
        run.provenance.profile
    )
}

/// The published burst times, one row per worker count (microseconds).
#[derive(Clone, Debug, Deserialize)]
pub(super) struct PublishedRow {
    pub workers: usize,
    pub std_mutex_us: f64,
    pub tokio_mpsc_us: f64,
    pub tokio_mutex_us: f64,
}

/// Messages each worker sent in the published bench (`SAMPLE_SIZE` in its
/// benches/bench.rs); the dataset stores times only.
pub(super) const PUBLISHED_PER_WORKER: f64 = 1000.0;

/// The published rows and their citation, escaped for the page.
pub(super) fn published(book: &Book<FanInData>) -> Result<(Vec<PublishedRow>, String)> {
    let ds = book.published("burst")?;
    Ok((ds.rows()?, ds.citation()))
}
