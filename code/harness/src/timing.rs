//! Timings for the book's runs, with their spread, computed by criterion.
//! The book never hand-rolls statistics: a chapter's `measure` runs criterion
//! programmatically into a scratch folder and keeps its estimates.
use std::path::Path;
use std::time::Duration;

use anyhow::{Context, Result};
use criterion::{Bencher, Criterion};
use serde::{Deserialize, Serialize};

/// A point estimate with criterion's 95% confidence interval, in nanoseconds
/// per iteration (one iteration is whatever the chapter says it is).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Estimate {
    pub point_ns: f64,
    pub lower_ns: f64,
    pub upper_ns: f64,
}

impl Estimate {
    /// Half-width of the interval as a fraction of the point estimate.
    pub fn relative_half_width(&self) -> f64 {
        (self.upper_ns - self.lower_ns) / 2.0 / self.point_ns
    }

    /// `a / b` with a conservative interval (bounds divided crosswise).
    pub fn ratio(a: &Estimate, b: &Estimate) -> Estimate {
        Estimate {
            point_ns: a.point_ns / b.point_ns,
            lower_ns: a.lower_ns / b.upper_ns,
            upper_ns: a.upper_ns / b.lower_ns,
        }
    }
}

/// One timing as stored in a results file: criterion's mean and median
/// estimates and how many samples and iterations they rest on.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Timing {
    pub mean: Estimate,
    pub median: Estimate,
    pub samples: usize,
    pub iterations: u64,
}

/// How long and how often criterion samples; chapters pick one per profile.
#[derive(Clone, Copy, Debug)]
pub struct Sampling {
    pub samples: usize,
    pub warm_up: Duration,
    pub measurement: Duration,
}

impl Sampling {
    pub const fn new(samples: usize, warm_up_ms: u64, measurement_ms: u64) -> Self {
        Sampling {
            samples,
            warm_up: Duration::from_millis(warm_up_ms),
            measurement: Duration::from_millis(measurement_ms),
        }
    }
}

/// A criterion instance that writes only into `scratch` and draws nothing.
pub fn criterion(scratch: &Path, sampling: Sampling) -> Criterion {
    Criterion::default()
        .output_directory(scratch)
        .sample_size(sampling.samples.max(10))
        .warm_up_time(sampling.warm_up)
        .measurement_time(sampling.measurement)
        .without_plots()
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
/// unique within `scratch` (criterion files results under it).
pub fn measure<F>(scratch: &Path, sampling: Sampling, id: &str, routine: F) -> Result<Timing>
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
    let mut c = criterion(scratch, sampling);
    c.bench_function(id, routine);
    read_timing(scratch, id)
}

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
    Ok(Timing {
        mean: est.mean.into(),
        median: est.median.into(),
        samples: sample.iters.len(),
        iterations: sample.iters.iter().sum::<f64>() as u64,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn criterion_estimates_come_back_with_an_interval() {
        let dir = tempfile::tempdir().unwrap();
        let scratch = dir.path();
        let t = measure(scratch, Sampling::new(10, 50, 200), "sum-1-1000", |b| {
            b.iter(|| (1..1000u64).map(std::hint::black_box).sum::<u64>())
        })
        .unwrap();
        assert_eq!(t.samples, 10);
        assert!(t.iterations >= 10);
        assert!(t.mean.lower_ns <= t.mean.point_ns && t.mean.point_ns <= t.mean.upper_ns);
        assert!(t.median.point_ns > 0.0);
        assert!(measure(scratch, Sampling::new(10, 1, 1), "a b", |b| b.iter(|| 1)).is_err());
    }
}
