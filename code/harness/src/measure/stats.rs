//! Statistics on timings, done once: bootstrapped intervals of a statistic,
//! of a ratio, of a paired ratio and of a ratio of sums, all on a seeded
//! generator so a page renders the same interval on every build.
use std::cell::RefCell;
use std::collections::BTreeMap;

use anyhow::{Context, Result};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use super::timing::Timing;
use crate::values::Estimate;

impl Timing {
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

/// Which of criterion's statistics a chapter's figures rest on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Statistic {
    Mean,
    Median,
}

impl Statistic {
    /// The statistic of `values` (which a median sorts in place).
    pub fn of(self, values: &mut [f64]) -> f64 {
        match self {
            Statistic::Mean => values.iter().sum::<f64>() / values.len() as f64,
            Statistic::Median => {
                values.sort_by(f64::total_cmp);
                let n = values.len();
                if n % 2 == 1 {
                    values[n / 2]
                } else {
                    (values[n / 2 - 1] + values[n / 2]) / 2.0
                }
            }
        }
    }
}

/// Resamples drawn for every bootstrapped interval.
pub const RESAMPLES: usize = 10_000;

/// A derived figure (`f` of each timing's `statistic`) with a 95% percentile
/// bootstrap interval: every resample draws each timing's samples again with
/// replacement, independently (repeats first for a pooled timing, see
/// `Timing::pooled`), and evaluates `f` on the resampled statistics. The
/// generator is seeded, so a page renders the same interval on every build. Fails when a timing kept no samples (a file written
/// before they were stored).
pub fn bootstrap<F>(timings: &[&Timing], statistic: Statistic, f: F) -> Result<Estimate>
where
    F: Fn(&[f64]) -> f64,
{
    let key = || {
        let mut h = Key::new(std::any::type_name::<F>(), statistic);
        timings.iter().for_each(|t| h.timing(t));
        h
    };
    let point = || {
        let stats: Vec<f64> = timings
            .iter()
            .map(|t| statistic.of(&mut t.per_sample_ns.clone()))
            .collect();
        f(&stats)
    };
    remembered(key, point, || bootstrap_now(timings, statistic, &f))
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
        .unwrap_or_else(|_| Estimate::ratio(a.estimate(statistic), b.estimate(statistic)))
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
    let key = || {
        let mut h = Key::new("paired_ratio", statistic);
        h.timing(a);
        h.timing(b);
        h
    };
    remembered(key, || f64::NAN, || paired_ratio_now(a, b, statistic))
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
    let key = || {
        let mut h = Key::new("ratio_of_sums", Statistic::Mean);
        for (n, d) in rounds {
            h.floats(&[*n, *d]);
        }
        h
    };
    remembered(key, || f64::NAN, || ratio_of_sums_now(rounds))
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

/// Bootstrapped intervals already drawn, by what they were drawn from: the
/// expensive, deterministic part of a page. A run computes them once when
/// it is measured (rendering every exhibit) and stores them in its results
/// file; rendering then only reads them. A figure a renderer asks for that
/// is not there (a renderer changed since) is drawn then, the same way.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Derived(pub BTreeMap<String, Estimate>);

thread_local! {
    /// The intervals known while `remembering` runs; none outside it.
    static KNOWN: RefCell<Option<Derived>> = const { RefCell::new(None) };
}

/// Runs `f` with `known` intervals at hand, and returns what `f` returned
/// with every interval it used, known or newly drawn.
pub fn remembering<T>(known: Derived, f: impl FnOnce() -> T) -> (T, Derived) {
    let outer = KNOWN.with(|k| k.replace(Some(known)));
    let out = f();
    let all = KNOWN.with(|k| k.replace(outer)).unwrap_or_default();
    (out, all)
}

fn remembered(
    key: impl FnOnce() -> Key,
    point: impl FnOnce() -> f64,
    draw: impl FnOnce() -> Result<Estimate>,
) -> Result<Estimate> {
    let active = KNOWN.with(|k| k.borrow().is_some());
    if !active {
        return draw();
    }
    let key = key().finish();
    if let Some(e) = KNOWN.with(|k| k.borrow().as_ref().and_then(|d| d.0.get(&key).copied())) {
        // A renderer whose formula changed under the same name gives
        // another point: draw again rather than show a stale interval.
        let p = point();
        if p.is_nan() || p == e.point_ns {
            return Ok(e);
        }
    }
    let e = draw()?;
    KNOWN.with(|k| {
        if let Some(d) = k.borrow_mut().as_mut() {
            d.0.insert(key, e);
        }
    });
    Ok(e)
}

/// A hash of what an interval is drawn from: the method, the statistic and
/// every sample in order (with how repeats split them).
struct Key(Sha256);

impl Key {
    fn new(method: &str, statistic: Statistic) -> Key {
        let mut h = Sha256::new();
        h.update(method.as_bytes());
        h.update([0, statistic as u8]);
        Key(h)
    }

    fn floats(&mut self, xs: &[f64]) {
        for x in xs {
            self.0.update(x.to_bits().to_le_bytes());
        }
    }

    fn timing(&mut self, t: &Timing) {
        self.0.update((t.per_sample_ns.len() as u64).to_le_bytes());
        self.floats(&t.per_sample_ns);
        for r in &t.repeats {
            self.0.update((*r as u64).to_le_bytes());
        }
        self.0.update([0xff]);
    }

    fn finish(self) -> String {
        self.0.finalize()[..12]
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn timing(base: f64) -> Timing {
        Timing::of_samples((0..40).map(|i| base + (i % 7) as f64).collect()).unwrap()
    }

    #[test]
    fn intervals_drawn_once_are_read_back_and_a_changed_formula_draws_again() {
        let (a, b) = (timing(200.0), timing(100.0));
        // Outside `remembering`, nothing is kept.
        let plain = ratio(&a, &b, Statistic::Median);
        let (first, known) = remembering(Derived::default(), || ratio(&a, &b, Statistic::Median));
        assert_eq!(first, plain);
        assert_eq!(known.0.len(), 1, "{known:?}");
        // Stored intervals are what a later render reads: doctor the stored
        // bounds and the doctored ones come back, so nothing was drawn.
        let mut doctored = known.clone();
        let e = doctored.0.values_mut().next().unwrap();
        e.lower_ns = 0.5;
        e.upper_ns = 9.0;
        let (read, after) = remembering(doctored.clone(), || ratio(&a, &b, Statistic::Median));
        assert_eq!((read.lower_ns, read.upper_ns), (0.5, 9.0));
        assert_eq!(after, doctored);
        // Other samples: another key, drawn afresh.
        let c = timing(300.0);
        let (other, more) = remembering(known.clone(), || ratio(&c, &b, Statistic::Median));
        assert_ne!(other.point_ns, plain.point_ns);
        assert_eq!(more.0.len(), 2);
        // The same key with another point (a formula changed under its
        // name): drawn again, not read.
        let mut wrong = known;
        wrong.0.values_mut().next().unwrap().point_ns = 42.0;
        let (fresh, _) = remembering(wrong, || ratio(&a, &b, Statistic::Median));
        assert_eq!(fresh, plain);
    }
}
