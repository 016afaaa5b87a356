//! Timings for the book's runs, with their spread, computed by criterion.
//! The book never hand-rolls statistics: a chapter's `measure` runs criterion
//! programmatically into a scratch folder and keeps its estimates.
use std::path::Path;
use std::time::Duration;

use anyhow::{Context, Result};
use criterion::{Bencher, Criterion};
use serde::{Deserialize, Serialize};

use crate::cores::Gatekeeper;

pub use crate::statistic::{Statistic, RESAMPLES};
pub use harness_core::values::Estimate;

/// One timing as stored in a results file: criterion's mean and median
/// estimates, how many samples and iterations they rest on, and each
/// sample's time per iteration (so intervals of ratios and other derived
/// figures can be bootstrapped from the data rather than guessed).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Timing {
    pub mean: Estimate,
    pub median: Estimate,
    pub samples: usize,
    pub iterations: u64,
    /// Nanoseconds per iteration of every criterion sample, in sample order.
    pub per_sample_ns: Vec<f64>,
    /// When the samples come from several separate criterion runs
    /// (`Timing::pooled`), how many each run contributed, in order; empty for
    /// a single run. The bootstrap resamples whole runs first.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub repeats: Vec<usize>,
}

impl Timing {
    /// The estimate of `statistic` criterion computed.
    pub fn estimate(&self, statistic: Statistic) -> &Estimate {
        match statistic {
            Statistic::Mean => &self.mean,
            Statistic::Median => &self.median,
        }
    }
}

/// How long and how often criterion samples; chapters pick one per profile.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Sampling {
    pub samples: usize,
    pub warm_up: Duration,
    pub measurement: Duration,
    /// Every sample runs the same number of iterations (criterion's flat
    /// mode) instead of a linear ramp. For routines of a millisecond and
    /// more: the ramp's 1 + 2 + … + n iterations would take far longer than
    /// the measurement time, and equal samples weigh the same in a median.
    pub flat: bool,
}

impl Sampling {
    pub const fn new(samples: usize, warm_up_ms: u64, measurement_ms: u64) -> Self {
        Sampling {
            samples,
            warm_up: Duration::from_millis(warm_up_ms),
            measurement: Duration::from_millis(measurement_ms),
            flat: false,
        }
    }

    /// The same sampling in criterion's flat mode (see `flat`).
    pub const fn flat(self) -> Self {
        Sampling { flat: true, ..self }
    }
}

/// A criterion instance that writes only into `scratch` and draws nothing.
pub fn criterion(scratch: &Path, sampling: Sampling) -> Criterion {
    Criterion::default()
        // Named, so criterion does not look for gnuplot (it draws nothing).
        .plotting_backend(criterion::PlottingBackend::Plotters)
        .output_directory(scratch)
        .sample_size(sampling.samples.max(10))
        .warm_up_time(sampling.warm_up)
        .measurement_time(sampling.measurement)
        .without_plots()
        // Criterion's own bootstrap (for its interval and, when an id is
        // measured again in the same scratch folder, for the change since)
        // runs after every timing; the book's figures are bootstrapped
        // again from the samples (`bootstrap`), with as many resamples.
        .nresamples(RESAMPLES)
}

#[derive(Deserialize)]
struct Interval {
    lower_bound: f64,
    upper_bound: f64,
}
#[derive(Deserialize)]
struct Stat {
    point_estimate: f64,
    confidence_interval: Interval,
}
#[derive(Deserialize)]
struct Estimates {
    mean: Stat,
    median: Stat,
}
#[derive(Deserialize)]
struct Sample {
    iters: Vec<f64>,
    times: Vec<f64>,
}

impl From<Stat> for Estimate {
    fn from(s: Stat) -> Self {
        Estimate {
            point_ns: s.point_estimate,
            lower_ns: s.confidence_interval.lower_bound,
            upper_ns: s.confidence_interval.upper_bound,
        }
    }
}

/// Times `routine` with criterion and returns its estimates. `id` must be
/// unique within `scratch` (criterion files results under it). The timing
/// goes through `gatekeeper`, the run's gate (see `cores`); chapters time
/// through `Lab::time`, which passes its own.
pub fn measure<F>(
    scratch: &Path,
    sampling: Sampling,
    id: &str,
    gatekeeper: &Gatekeeper,
    mut routine: F,
) -> Result<Timing>
where
    F: FnMut(&mut Bencher<'_>),
{
    // criterion files results under a folder named after the id; keep it plain.
    if id.is_empty()
        || !id
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_.".contains(c))
    {
        anyhow::bail!("timing id {id:?} must be letters, digits, '-', '_' or '.'");
    }
    // Between checks of how far apart the cores are, of how fast the machine
    // runs and of the hypervisor's steal, under this run's gate (see
    // `cores`): a timing that met a far spell, or lost a tenth of its CPU
    // time, is measured again.
    gatekeeper.gated(
        crate::cores::round_trip_ns,
        crate::cores::speed_probe_ns,
        crate::machine::CpuCounters::read,
        || {
            let mut c = criterion(scratch, sampling);
            if sampling.flat {
                let mut group = c.benchmark_group(id);
                group.sampling_mode(criterion::SamplingMode::Flat);
                group.bench_function(FLAT_FUNCTION, &mut routine);
                group.finish();
                read_timing(&scratch.join(id), FLAT_FUNCTION)
            } else {
                c.bench_function(id, &mut routine);
                read_timing(scratch, id)
            }
        },
    )
}

/// The function name of a flat-mode benchmark inside its group (the group
/// carries the id).
const FLAT_FUNCTION: &str = "run";

/// Reads what criterion wrote for benchmark `id` under `scratch`.
pub fn read_timing(scratch: &Path, id: &str) -> Result<Timing> {
    let dir = scratch.join(id).join("new");
    let est: Estimates =
        serde_json::from_slice(&std::fs::read(dir.join("estimates.json")).with_context(|| {
            format!(
                "criterion wrote no estimates for {id:?} in {}",
                dir.display()
            )
        })?)?;
    let sample: Sample = serde_json::from_slice(&std::fs::read(dir.join("sample.json"))?)?;
    if sample.iters.len() != sample.times.len() || sample.iters.iter().any(|&i| i <= 0.0) {
        anyhow::bail!(
            "criterion's samples for {id:?} in {} do not line up",
            dir.display()
        );
    }
    Ok(Timing {
        mean: est.mean.into(),
        median: est.median.into(),
        samples: sample.iters.len(),
        iterations: sample.iters.iter().sum::<f64>() as u64,
        per_sample_ns: sample
            .times
            .iter()
            .zip(&sample.iters)
            .map(|(t, i)| t / i)
            .collect(),
        repeats: Vec::new(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn criterion_estimates_come_back_with_an_interval() {
        let dir = tempfile::tempdir().unwrap();
        let scratch = dir.path();
        // Outside a run: no gate, nothing measured again.
        let outside = Gatekeeper::default();
        let t = measure(
            scratch,
            Sampling::new(10, 50, 200),
            "sum-1-1000",
            &outside,
            |b| b.iter(|| (1..1000u64).map(std::hint::black_box).sum::<u64>()),
        )
        .unwrap();
        assert_eq!(t.samples, 10);
        assert!(t.iterations >= 10);
        assert!(t.mean.lower_ns <= t.mean.point_ns && t.mean.point_ns <= t.mean.upper_ns);
        assert!(t.median.point_ns > 0.0);
        assert_eq!(t.per_sample_ns.len(), 10);
        // criterion's point estimates are the statistics of these samples.
        let mean = t.per_sample_ns.iter().sum::<f64>() / 10.0;
        assert!(
            (mean / t.mean.point_ns - 1.0).abs() < 1e-9,
            "{mean} vs {:?}",
            t.mean
        );
        let median = Statistic::Median.of(&mut t.per_sample_ns.clone());
        assert!((median / t.median.point_ns - 1.0).abs() < 1e-9);
        assert!(
            measure(scratch, Sampling::new(10, 1, 1), "a b", &outside, |b| b
                .iter(|| 1))
            .is_err()
        );

        // Flat mode: every sample runs the same number of iterations.
        let flat = measure(
            scratch,
            Sampling::new(12, 20, 100).flat(),
            "sum-flat",
            &outside,
            |b| b.iter(|| (1..1000u64).map(std::hint::black_box).sum::<u64>()),
        )
        .unwrap();
        assert_eq!(flat.samples, 12);
        assert_eq!(flat.iterations % 12, 0, "{flat:?}");
        let sample: Sample = serde_json::from_slice(
            &std::fs::read(scratch.join("sum-flat/run/new/sample.json")).unwrap(),
        )
        .unwrap();
        assert!(
            sample.iters.iter().all(|&i| i == sample.iters[0]),
            "{:?}",
            sample.iters
        );
    }
}
