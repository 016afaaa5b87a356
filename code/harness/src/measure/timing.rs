//! Timings for the book's runs, with their spread, computed by criterion.
//! The book never hand-rolls statistics: a chapter's `measure` runs criterion
//! programmatically into a scratch folder and keeps its estimates.
use std::path::Path;
use std::time::Duration;

use anyhow::{Context, Result};
use criterion::{Bencher, Criterion};
use serde::{Deserialize, Serialize};

use crate::cores::Gatekeeper;

pub use super::stats::{
    bootstrap, paired_ratio, ratio, ratio_of_sums, Statistic, MIN_PAIRS, RESAMPLES,
};
pub use crate::values::Estimate;

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
    /// Several repeats of one measurement, each its own criterion run (on a
    /// freshly built runtime, say, interleaved with the designs it is
    /// compared with), as one timing. A machine that settles into a slow
    /// mode for one repeat then shows up as spread instead of deciding the
    /// whole figure. Points are the statistics of all samples together;
    /// intervals come from `bootstrap`, which draws repeats before samples,
    /// so repeats that disagree widen them.
    pub fn pooled(parts: Vec<Timing>) -> Result<Timing> {
        anyhow::ensure!(!parts.is_empty(), "no repeats to pool");
        if let Some(i) = parts
            .iter()
            .position(|t| t.per_sample_ns.is_empty() || !t.repeats.is_empty())
        {
            anyhow::bail!("repeat {i} kept no samples or is itself pooled");
        }
        Timing::bootstrapped(
            parts.iter().map(|t| t.samples).sum(),
            parts.iter().map(|t| t.iterations).sum(),
            parts.iter().map(|t| t.per_sample_ns.len()).collect(),
            parts.into_iter().flat_map(|t| t.per_sample_ns).collect(),
        )
    }

    /// A timing made outside criterion, from one run's own per-iteration
    /// times (one sample per iteration, in the order they were taken), with
    /// bootstrapped intervals for its mean and median.
    pub fn of_samples(per_sample_ns: Vec<f64>) -> Result<Timing> {
        anyhow::ensure!(!per_sample_ns.is_empty(), "no samples to make a timing of");
        anyhow::ensure!(
            per_sample_ns.iter().all(|x| x.is_finite() && *x > 0.0),
            "a sample is zero, negative or not a number"
        );
        let n = per_sample_ns.len();
        Timing::bootstrapped(n, n as u64, Vec::new(), per_sample_ns)
    }

    /// A timing of these samples, its mean and median with intervals from
    /// `bootstrap` (which draws repeats first when there are several).
    fn bootstrapped(
        samples: usize,
        iterations: u64,
        repeats: Vec<usize>,
        per_sample_ns: Vec<f64>,
    ) -> Result<Timing> {
        let unset = Estimate {
            point_ns: 0.0,
            lower_ns: 0.0,
            upper_ns: 0.0,
        };
        let mut t = Timing {
            mean: unset,
            median: unset,
            samples,
            iterations,
            per_sample_ns,
            repeats,
        };
        t.mean = bootstrap(&[&t], Statistic::Mean, |s| s[0])?;
        t.median = bootstrap(&[&t], Statistic::Median, |s| s[0])?;
        Ok(t)
    }

    /// The estimate of `statistic` criterion computed.
    pub fn estimate(&self, statistic: Statistic) -> &Estimate {
        match statistic {
            Statistic::Mean => &self.mean,
            Statistic::Median => &self.median,
        }
    }
}

/// How long and how often criterion samples; chapters pick one per profile.
#[derive(Clone, Copy, Debug)]
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

    fn timing(samples: &[f64]) -> Timing {
        let e = Estimate {
            point_ns: 0.0,
            lower_ns: 0.0,
            upper_ns: 0.0,
        };
        Timing {
            mean: e,
            median: e,
            samples: samples.len(),
            iterations: samples.len() as u64,
            per_sample_ns: samples.to_vec(),
            repeats: Vec::new(),
        }
    }

    /// 20 samples spread evenly (±10%) around `centre`, in a shuffled order.
    fn spread(centre: f64) -> Vec<f64> {
        (0..20)
            .map(|i| centre * (0.9 + 0.2 * ((i * 7) % 20) as f64 / 19.0))
            .collect()
    }

    #[test]
    fn pooled_repeats_that_disagree_widen_the_interval() {
        // Four repeats: three at 100 ns, one stuck in a slow mode at 200 ns.
        let fast = || timing(&spread(100.0));
        let slow = timing(&spread(200.0));
        let pooled = Timing::pooled(vec![fast(), fast(), slow, fast()]).unwrap();
        assert_eq!(pooled.repeats, vec![20; 4]);
        assert_eq!((pooled.samples, pooled.per_sample_ns.len()), (80, 80));
        assert_eq!(pooled.per_sample_ns[40..60], spread(200.0)[..]);
        let mean = pooled.per_sample_ns.iter().sum::<f64>() / 80.0;
        assert!((pooled.mean.point_ns - mean).abs() < 1e-9, "{pooled:?}");
        // Drawing repeats first: a resample can hold the slow repeat 0 to 4
        // times, so the mean's interval spans much of 100..200 ns.
        assert!(
            pooled.mean.lower_ns < 110.0 && pooled.mean.upper_ns > 160.0,
            "{:?}",
            pooled.mean
        );
        // The same 80 samples treated as one run: a far narrower interval.
        let flat = timing(&pooled.per_sample_ns);
        let one_run = bootstrap(&[&flat], Statistic::Mean, |s| s[0]).unwrap();
        assert!(
            one_run.relative_half_width() < pooled.mean.relative_half_width() / 2.0,
            "{one_run:?} vs {:?}",
            pooled.mean
        );
        // Repeats that agree give an interval like one run's.
        let agreeing = Timing::pooled(vec![fast(), fast(), fast(), fast()]).unwrap();
        assert!(agreeing.median.relative_half_width() < 0.05, "{agreeing:?}");
        assert!((agreeing.median.point_ns - 100.0).abs() < 5.0);
    }

    #[test]
    fn pooling_and_resampling_refuse_what_does_not_add_up() {
        assert!(Timing::pooled(Vec::new()).is_err());
        assert!(Timing::pooled(vec![timing(&[1.0]), timing(&[])]).is_err());
        let pooled = Timing::pooled(vec![timing(&[1.0, 2.0]), timing(&[3.0])]).unwrap();
        assert!(
            Timing::pooled(vec![pooled.clone()]).is_err(),
            "nested pooling"
        );
        let mut broken = pooled.clone();
        broken.repeats = vec![2, 2];
        let err = bootstrap(&[&pooled, &broken], Statistic::Mean, |s| s[0] / s[1]).unwrap_err();
        assert!(
            format!("{err:#}").contains("timing 1: repeats [2, 2] do not cover the 3 samples"),
            "{err:#}"
        );
        broken.repeats = vec![3, 0];
        assert!(bootstrap(&[&broken], Statistic::Mean, |s| s[0]).is_err());
        // A file's timing survives the trip through JSON, repeats included.
        let back: Timing = serde_json::from_str(&serde_json::to_string(&pooled).unwrap()).unwrap();
        assert_eq!(back, pooled);
    }

    #[test]
    fn a_bootstrapped_ratio_brackets_the_truth_and_is_narrower_than_crosswise() {
        let a = timing(&spread(200.0));
        let b = timing(&spread(100.0));
        for statistic in [Statistic::Mean, Statistic::Median] {
            let r = ratio(&a, &b, statistic);
            assert!((r.point_ns - 2.0).abs() < 1e-9, "{r:?}");
            assert!(r.lower_ns < 2.0 && 2.0 < r.upper_ns, "{r:?}");
            // criterion-like per-timing intervals from the same bootstrap
            let ea = bootstrap(&[&a], statistic, |s| s[0]).unwrap();
            let eb = bootstrap(&[&b], statistic, |s| s[0]).unwrap();
            let crosswise = Estimate::ratio(&ea, &eb);
            assert!(
                r.relative_half_width() < crosswise.relative_half_width(),
                "{r:?} vs {crosswise:?}"
            );
            assert!(r.relative_half_width() > 0.005, "{r:?}");
        }
        // Seeded: the same data gives the same interval on every build.
        assert_eq!(
            ratio(&a, &b, Statistic::Median),
            ratio(&a, &b, Statistic::Median)
        );
    }

    #[test]
    fn constant_samples_give_a_point_interval_and_missing_samples_fall_back() {
        let a = timing(&[3.0; 12]);
        let b = timing(&[1.5; 12]);
        let r = ratio(&a, &b, Statistic::Mean);
        assert_eq!((r.lower_ns, r.point_ns, r.upper_ns), (2.0, 2.0, 2.0));
        let geo = bootstrap(&[&a, &b], Statistic::Median, |s| (s[0] * s[1]).sqrt()).unwrap();
        assert!((geo.point_ns - 4.5f64.sqrt()).abs() < 1e-12);

        let mut old = timing(&[]);
        old.mean = Estimate {
            point_ns: 10.0,
            lower_ns: 9.0,
            upper_ns: 11.0,
        };
        let mut other = timing(&[]);
        other.mean = Estimate {
            point_ns: 5.0,
            lower_ns: 4.0,
            upper_ns: 6.0,
        };
        let err = bootstrap(&[&a, &old], Statistic::Mean, |s| s[0]).unwrap_err();
        assert!(
            err.to_string().contains("timing 1 kept no samples"),
            "{err}"
        );
        let r = ratio(&old, &other, Statistic::Mean);
        assert_eq!(
            (r.lower_ns, r.point_ns, r.upper_ns),
            (9.0 / 6.0, 2.0, 11.0 / 4.0)
        );
    }

    #[test]
    fn interval_helpers_decide_only_when_the_interval_is_clear() {
        let e = Estimate {
            point_ns: 2.0,
            lower_ns: 1.5,
            upper_ns: 2.5,
        };
        assert_eq!(e.at_least(1.5), Some(true));
        assert_eq!(e.at_least(2.0), None);
        assert_eq!(e.at_least(2.6), Some(false));
        assert_eq!(e.within(1.0, 3.0), Some(true));
        assert_eq!(e.within(2.0, 3.0), None);
        assert_eq!(e.within(3.0, 4.0), Some(false));
        let higher = Estimate {
            point_ns: 3.0,
            lower_ns: 2.6,
            upper_ns: 3.5,
        };
        assert_eq!(higher.compare(&e), Some(true));
        assert_eq!(e.compare(&higher), Some(false));
        assert_eq!(e.compare(&e), None);
    }

    #[test]
    fn a_ratio_of_sums_draws_whole_rounds() {
        // Ten rounds of (messages, passes): the point is the ratio of the
        // totals, not the mean of the per-round ratios.
        let rounds: Vec<(f64, f64)> = (0..10)
            .map(|i| {
                if i < 5 {
                    (1000.0, 100.0)
                } else {
                    (1000.0, 50.0)
                }
            })
            .collect();
        let e = ratio_of_sums(&rounds).unwrap();
        assert!((e.point_ns - 2000.0 / 150.0).abs() < 1e-9, "{e:?}");
        // Rounds read 10 or 20: the interval lies between them and around
        // the point, and it is wide because the rounds disagree.
        assert!(e.lower_ns > 10.0 && e.lower_ns < 12.5, "{e:?}");
        assert!(e.upper_ns < 20.0 && e.upper_ns > 15.0, "{e:?}");
        assert_eq!(e.at_least(10.0), Some(true));
        assert_eq!(e.at_least(14.0), None);
        // Seeded: the same rounds give the same interval.
        assert_eq!(ratio_of_sums(&rounds).unwrap(), e);
        // Rounds that agree leave no spread.
        let same = ratio_of_sums(&[(30.0, 3.0); 4]).unwrap();
        assert_eq!(
            (same.lower_ns, same.point_ns, same.upper_ns),
            (10.0, 10.0, 10.0)
        );
    }

    #[test]
    fn a_ratio_of_sums_refuses_what_it_cannot_resample() {
        let err = ratio_of_sums(&[(10.0, 1.0)]).unwrap_err().to_string();
        assert!(
            err.contains("1 round(s)") && err.contains("at least two"),
            "{err}"
        );
        let err = ratio_of_sums(&[(10.0, 0.0), (5.0, 0.0)])
            .unwrap_err()
            .to_string();
        assert!(err.contains("sum to zero"), "{err}");
    }

    #[test]
    fn a_timing_of_own_samples_keeps_them_and_bootstraps_its_statistics() {
        let xs = vec![5.0, 1.0, 3.0, 2.0, 4.0];
        let t = Timing::of_samples(xs.clone()).unwrap();
        assert_eq!(t.per_sample_ns, xs, "samples stay in the order taken");
        assert_eq!((t.samples, t.iterations), (5, 5));
        assert!(t.repeats.is_empty());
        assert_eq!(t.median.point_ns, 3.0);
        assert_eq!(t.mean.point_ns, 3.0);
        assert!(
            t.median.lower_ns < 3.0 && t.median.upper_ns > 3.0,
            "{:?}",
            t.median
        );
        // Such timings pool like criterion's.
        let pooled = Timing::pooled(vec![t.clone(), t]).unwrap();
        assert_eq!(pooled.repeats, vec![5, 5]);

        assert!(Timing::of_samples(Vec::new()).is_err());
        let err = Timing::of_samples(vec![1.0, 0.0]).unwrap_err();
        assert!(err.to_string().contains("zero"), "{err}");
        assert!(Timing::of_samples(vec![1.0, f64::NAN]).is_err());
    }

    #[test]
    fn a_paired_ratio_cancels_what_both_sides_of_a_repeat_met() {
        // Four repeats side by side. The machine ran fast, slow, fast, slow:
        // both designs moved together, and b took twice as long as a in
        // every repeat.
        let speeds = [1.0, 1.6, 1.0, 1.6];
        let side = |base: f64| {
            let parts = speeds.iter().map(|s| timing(&spread(base * s))).collect();
            Timing::pooled(parts).unwrap()
        };
        let (a, b) = (side(100.0), side(200.0));
        let e = paired_ratio(&a, &b, Statistic::Median).unwrap();
        assert!((e.point_ns - 0.5).abs() < 1e-9, "{e:?}");
        // The pairs agree, so the interval is narrow...
        assert!(e.relative_half_width() < 0.01, "{e:?}");
        // ...where pooling first bootstraps over the machine's two speeds.
        let pooled = ratio(&a, &b, Statistic::Median);
        assert!(pooled.relative_half_width() > 0.1, "{pooled:?}");
        // The point is the geometric mean of the repeats' ratios.
        let mut c = a.clone();
        c.per_sample_ns[..20].iter_mut().for_each(|x| *x *= 4.0);
        let e = paired_ratio(&c, &b, Statistic::Median).unwrap();
        assert!((e.point_ns - 0.5 * 4f64.powf(0.25)).abs() < 1e-9, "{e:?}");
        assert!(e.lower_ns < 0.55 && e.upper_ns > 1.0, "{e:?}");
        // Seeded.
        assert_eq!(paired_ratio(&c, &b, Statistic::Median).unwrap(), e);
    }

    #[test]
    fn a_paired_ratio_refuses_timings_it_cannot_pair() {
        let pooled =
            |n: usize| Timing::pooled((0..n).map(|_| timing(&spread(100.0))).collect()).unwrap();
        for (a, b) in [
            (pooled(4), pooled(5)),
            (pooled(3), pooled(3)),
            (timing(&spread(1.0)), timing(&spread(1.0))),
        ] {
            let err = paired_ratio(&a, &b, Statistic::Mean)
                .unwrap_err()
                .to_string();
            assert!(err.contains("same number of repeats, at least 4"), "{err}");
        }
        let mut broken = pooled(4);
        broken.repeats = vec![20, 20, 20, 10];
        let err = paired_ratio(&pooled(4), &broken, Statistic::Mean).unwrap_err();
        assert!(format!("{err:#}").contains("timing b: repeats"), "{err:#}");
        let mut zero = pooled(4);
        zero.per_sample_ns.iter_mut().for_each(|x| *x = 0.0);
        assert!(paired_ratio(&pooled(4), &zero, Statistic::Mean).is_err());
    }
}
