//! Statistics on timings, done once: bootstrapped intervals of a statistic,
//! of a ratio, of a paired ratio and of a ratio of sums, all on a seeded
//! generator so a page renders the same interval on every build.
use anyhow::{Context, Result};

pub use crate::statistic::{Statistic, RESAMPLES};
use crate::timing::Timing;
use harness_core::values::Estimate;

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

    /// Draws a bootstrap resample of the samples into `out`: with replacement,
    /// and for a pooled timing in two stages, as many repeats as there are
    /// (with replacement), then samples within each drawn repeat.
    pub(crate) fn resample(&self, starts: &[usize], rng: &mut Rng, out: &mut Vec<f64>) {
        out.clear();
        let xs = &self.per_sample_ns;
        if self.repeats.len() < 2 {
            let n = xs.len();
            out.extend((0..n).map(|_| xs[rng.below(n)]));
            return;
        }
        for _ in 0..self.repeats.len() {
            let r = rng.below(self.repeats.len());
            let (start, len) = (starts[r], self.repeats[r]);
            out.extend((0..len).map(|_| xs[start + rng.below(len)]));
        }
    }

    /// Where each repeat's samples start, after checking the repeats cover
    /// the samples exactly (a results file is data from outside).
    pub(crate) fn repeat_starts(&self) -> Result<Vec<usize>> {
        if self.repeats.is_empty() {
            return Ok(Vec::new());
        }
        if self.repeats.contains(&0)
            || self.repeats.iter().sum::<usize>() != self.per_sample_ns.len()
        {
            anyhow::bail!(
                "repeats {:?} do not cover the {} samples",
                self.repeats,
                self.per_sample_ns.len()
            );
        }
        Ok(self
            .repeats
            .iter()
            .scan(0, |at, len| {
                let start = *at;
                *at += len;
                Some(start)
            })
            .collect())
    }
}

/// A derived figure (`f` of each timing's `statistic`) with a 95% percentile
/// bootstrap interval: every resample draws each timing's samples again with
/// replacement, independently (repeats first for a pooled timing, see
/// `Timing::pooled`), and evaluates `f` on the resampled statistics. The
/// generator is seeded, so a page renders the same interval on every build, whatever order
/// intervals are drawn in (the generator is seeded per interval). Fails when a timing kept no samples (a file written
/// before they were stored).
pub fn bootstrap<F>(timings: &[&Timing], statistic: Statistic, f: F) -> Result<Estimate>
where
    F: Fn(&[f64]) -> f64,
{
    bootstrap_now(timings, statistic, &f)
}

fn bootstrap_now<F>(timings: &[&Timing], statistic: Statistic, f: &F) -> Result<Estimate>
where
    F: Fn(&[f64]) -> f64,
{
    if timings.is_empty() {
        anyhow::bail!("nothing to bootstrap");
    }
    if let Some(i) = timings.iter().position(|t| t.per_sample_ns.is_empty()) {
        anyhow::bail!("timing {i} kept no samples to resample (re-measure the chapter)");
    }
    let starts = timings
        .iter()
        .enumerate()
        .map(|(i, t)| t.repeat_starts().with_context(|| format!("timing {i}")))
        .collect::<Result<Vec<_>>>()?;
    let point_stats: Vec<f64> = timings
        .iter()
        .map(|t| statistic.of(&mut t.per_sample_ns.clone()))
        .collect();
    let point = f(&point_stats);
    let mut rng = Rng::seeded();
    let mut stats = vec![0.0; timings.len()];
    let mut scratch = Vec::new();
    let mut draws = Vec::with_capacity(RESAMPLES);
    for _ in 0..RESAMPLES {
        for ((slot, t), starts) in stats.iter_mut().zip(timings).zip(&starts) {
            t.resample(starts, &mut rng, &mut scratch);
            *slot = statistic.of(&mut scratch);
        }
        let v = f(&stats);
        if v.is_finite() {
            draws.push(v);
        }
    }
    percentile_interval("the derived figure", point, draws)
}

/// The 95% percentile interval of bootstrap `draws` (finite values only)
/// around `point`; fails, naming `what`, when most of the `RESAMPLES` were
/// undefined.
fn percentile_interval(what: &str, point: f64, mut draws: Vec<f64>) -> Result<Estimate> {
    if draws.len() < RESAMPLES / 2 {
        anyhow::bail!("{what} is undefined on most resamples");
    }
    draws.sort_by(f64::total_cmp);
    let at = |q: f64| draws[((draws.len() - 1) as f64 * q).round() as usize];
    Ok(Estimate {
        point_ns: point,
        lower_ns: at(0.025).min(point),
        upper_ns: at(0.975).max(point),
    })
}

/// `statistic(a) / statistic(b)` with its bootstrapped 95% interval; when
/// either timing kept no samples, the conservative crosswise interval.
pub fn ratio(a: &Timing, b: &Timing, statistic: Statistic) -> Estimate {
    bootstrap(&[a, b], statistic, |s| s[0] / s[1])
        .unwrap_or_else(|_| crosswise_ratio(a.estimate(statistic), b.estimate(statistic)))
}

/// `a / b` with a conservative interval (bounds divided crosswise): what
/// [`ratio`] falls back to when a timing kept no samples. Use [`ratio`]
/// when both timings keep their samples: its interval is the ratio's own,
/// not the sum of two.
pub fn crosswise_ratio(a: &Estimate, b: &Estimate) -> Estimate {
    Estimate {
        point_ns: a.point_ns / b.point_ns,
        lower_ns: a.lower_ns / b.upper_ns,
        upper_ns: a.upper_ns / b.lower_ns,
    }
}

/// Fewest pairs of repeats [`paired_ratio`] resamples: fewer give a
/// bootstrap too few distinct draws to make an interval of.
pub const MIN_PAIRS: usize = 4;

/// `statistic(a) ÷ statistic(b)` for two pooled timings measured side by
/// side, repeat by repeat (repeat `i` of each in the same stretch of the run,
/// on the same rig): the geometric mean over repeats of each repeat's ratio,
/// with a 95% percentile bootstrap interval that draws whole pairs with
/// replacement. A state of the machine that held for one stretch moves both
/// sides of its pair and cancels in their ratio, where pooling all samples
/// first lets such states decide which of two speeds a pooled median lands
/// on. Seeded like [`bootstrap`]. Fails unless both are pooled from the same
/// number of repeats, at least [`MIN_PAIRS`], that cover their samples.
pub fn paired_ratio(a: &Timing, b: &Timing, statistic: Statistic) -> Result<Estimate> {
    paired_ratio_now(a, b, statistic)
}

fn paired_ratio_now(a: &Timing, b: &Timing, statistic: Statistic) -> Result<Estimate> {
    let (ra, rb) = (a.repeats.len(), b.repeats.len());
    if ra != rb || ra < MIN_PAIRS {
        anyhow::bail!(
            "a paired ratio needs two timings of the same number of repeats, at least {MIN_PAIRS}; \
             these have {ra} and {rb}"
        );
    }
    let per_repeat = |t: &Timing, which: &str| -> Result<Vec<f64>> {
        let starts = t
            .repeat_starts()
            .with_context(|| format!("timing {which}"))?;
        Ok(starts
            .iter()
            .zip(&t.repeats)
            .map(|(&start, &len)| statistic.of(&mut t.per_sample_ns[start..start + len].to_vec()))
            .collect())
    };
    let logs: Vec<f64> = per_repeat(a, "a")?
        .into_iter()
        .zip(per_repeat(b, "b")?)
        .map(|(x, y)| (x / y).ln())
        .collect();
    let n = logs.len();
    let point = (logs.iter().sum::<f64>() / n as f64).exp();
    if !point.is_finite() || point <= 0.0 {
        anyhow::bail!("a repeat's statistic is zero or not finite");
    }
    let mut rng = Rng::seeded();
    let draws = (0..RESAMPLES)
        .map(|_| ((0..n).map(|_| logs[rng.below(n)]).sum::<f64>() / n as f64).exp())
        .filter(|v| v.is_finite())
        .collect();
    percentile_interval("the paired ratio", point, draws)
}

/// `Σ numerator ÷ Σ denominator` over independent rounds (say, messages and
/// passes counted in each round of a point), with a 95% percentile bootstrap
/// interval that draws whole rounds with replacement. The rounds are the
/// unit because each is a separate stretch of the run: whatever state the
/// machine was in, it held for a round. Seeded like [`bootstrap`]. Fails
/// with fewer than two rounds (one round has no spread to draw from) or a
/// zero total denominator.
pub fn ratio_of_sums(rounds: &[(f64, f64)]) -> Result<Estimate> {
    ratio_of_sums_now(rounds)
}

fn ratio_of_sums_now(rounds: &[(f64, f64)]) -> Result<Estimate> {
    if rounds.len() < 2 {
        anyhow::bail!(
            "{} round(s) counted: an interval needs at least two",
            rounds.len()
        );
    }
    let of = |pick: &mut dyn FnMut() -> usize| {
        let (mut num, mut den) = (0.0, 0.0);
        for _ in 0..rounds.len() {
            let (n, d) = rounds[pick()];
            num += n;
            den += d;
        }
        num / den
    };
    let mut i = 0;
    let point = of(&mut || {
        i += 1;
        i - 1
    });
    if !point.is_finite() {
        anyhow::bail!("the rounds' denominators sum to zero");
    }
    let mut rng = Rng::seeded();
    let draws = (0..RESAMPLES)
        .map(|_| of(&mut || rng.below(rounds.len())))
        .filter(|v| v.is_finite())
        .collect();
    percentile_interval("the ratio", point, draws)
}

/// The generator behind every bootstrap: oorandom's PCG, seeded, so a page
/// renders the same interval on every build.
pub(crate) struct Rng(oorandom::Rand64);

impl Rng {
    pub(crate) fn seeded() -> Rng {
        Rng(oorandom::Rand64::new(SEED))
    }

    /// Uniform in `0..n`.
    pub(crate) fn below(&mut self, n: usize) -> usize {
        self.0.rand_range(0..n as u64) as usize
    }
}

const SEED: u128 = 0x5eed_b00c;

#[cfg(test)]
mod timing_tests {
    use super::*;

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

    /// Nothing is remembered between intervals, and nothing needs to be: the
    /// generator is seeded per interval, so an interval drawn at render time
    /// has the same digits as the one the judge drew, whatever was drawn
    /// before it.
    #[test]
    fn an_interval_has_the_same_digits_whatever_was_drawn_before_it() {
        let (a, b, c) = (
            timing(&spread(200.0)),
            timing(&spread(100.0)),
            timing(&spread(300.0)),
        );
        let first = ratio(&a, &b, Statistic::Median);
        let _ = ratio(&c, &b, Statistic::Mean);
        let _ = bootstrap(&[&c, &a], Statistic::Median, |s| s[0] - s[1]).unwrap();
        let again = ratio(&a, &b, Statistic::Median);
        assert_eq!(first.lower_ns.to_bits(), again.lower_ns.to_bits());
        assert_eq!(first.upper_ns.to_bits(), again.upper_ns.to_bits());
        assert!(first.lower_ns < first.point_ns && first.point_ns < first.upper_ns);
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
            let crosswise = crosswise_ratio(&ea, &eb);
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
