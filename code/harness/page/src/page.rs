//! The page half of the contract between a chapter and the harness: the
//! claims a chapter makes, the rules that judge them over named estimates
//! (`judge`, a stage of its own: `measure -> check -> judge -> write`), and
//! the exhibits that show what was measured and judged. A chapter's `main`
//! composes it with the experiment half (`harness_measure::Experiment`):
//! `harness::chapter_main::<MyExperiment, MyPage>()`.
use std::collections::BTreeMap;
use std::path::Path;

use anyhow::{bail, Context, Result};
use serde::de::DeserializeOwned;
use serde::Serialize;

use harness_core::analysis::{Analysis, Named, StoredVerdict};
use harness_core::claims::{Claim, Verdict};
use harness_core::profile::Profile;
use harness_core::results::Provenance;
use harness_core::values::{Estimate, Unit};
use harness_measure::stats::{self, Statistic};
use harness_measure::timing::Timing;
use harness_measure::Experiment;

use crate::chapter::{Book, Exhibit, Run};

/// A chapter's page: what it claims, how it judges one run, what it shows.
pub trait Page: 'static {
    /// What one run measured: the experiment's data.
    type Data: Serialize + DeserializeOwned + 'static;
    /// The experiment half this page reads.
    type Experiment: Experiment<Data = Self::Data>;
    /// The chapter's name (its experiment's).
    const NAME: &'static str = <Self::Experiment as Experiment>::NAME;
    const CLAIMS: &'static [Claim];
    /// The chapter's own exhibits; the harness adds `answer`, `releases`,
    /// `provenance` and `precision`.
    const EXHIBITS: &'static [Exhibit<Self::Data>];

    /// Sanity checks on data read from a file (import, load): shapes, counts,
    /// what the work must have done. Return an error naming what is wrong.
    fn check(data: &Self::Data) -> Result<()>;

    /// Judges one run: names the estimates the verdicts and the headline
    /// read (`Judge::estimate`, `Judge::ratio`), gives each claim its verdict
    /// on this run (`Judge::verdict`) and lists the headline
    /// (`Judge::headline`). Deterministic: the same data gives the same
    /// analysis. A claim that does not apply to the run's architecture is
    /// simply not judged.
    fn judge(run: &Judged<Self::Data>, j: &mut Judge) -> Result<()>;

    /// Every verdict the page shows, from the runs' stored analyses: run by
    /// run, in the order each run's verdicts were judged. Read-only: it
    /// assembles, it never computes.
    fn verdicts(book: &Book<Self::Data>) -> Result<Vec<Verdict>> {
        stored_verdicts(book, Self::CLAIMS)
    }
}

/// Every run beside its stored verdicts, in the runs' order: what a page
/// that orders or dresses its verdicts its own way (claim-major, a badge)
/// starts from. An analysis that names a claim the page lacks is an error
/// naming the file.
pub fn verdicts_by_run<'b, D>(
    book: &'b Book<D>,
    claims: &[Claim],
) -> Result<Vec<(&'b Run<D>, Vec<Verdict>)>> {
    book.runs
        .iter()
        .map(|run| {
            let verdicts = run
                .analysis
                .verdicts(claims)
                .with_context(|| format!("the analysis of {}", run.path.display()))?;
            Ok((run, verdicts))
        })
        .collect()
}

/// Every run's stored verdicts, run by run (the default `Page::verdicts`).
/// A verdict no machine decided ("not measured: no arm64 results yet") is
/// listed once however many runs carry it.
pub fn stored_verdicts<D>(book: &Book<D>, claims: &[Claim]) -> Result<Vec<Verdict>> {
    let mut out: Vec<Verdict> = Vec::new();
    for (_, verdicts) in verdicts_by_run(book, claims)? {
        for v in verdicts {
            let seen = v.machine.is_none()
                && out.iter().any(|o| {
                    o.machine.is_none() && o.claim.id == v.claim.id && o.evidence == v.evidence
                });
            if !seen {
                out.push(v);
            }
        }
    }
    Ok(out)
}

/// One run as `Page::judge` sees it: its data and where it was measured.
pub struct Judged<'a, D> {
    pub path: &'a Path,
    pub provenance: &'a Provenance,
    pub data: &'a D,
}

impl<D> Judged<'_, D> {
    pub fn machine(&self) -> &str {
        &self.provenance.machine.id
    }

    pub fn arch(&self) -> &str {
        &self.provenance.machine.arch
    }

    pub fn profile(&self) -> Profile {
        self.provenance.profile
    }
}

/// What judging one run gives, as it is built: named estimates, verdicts,
/// the headline. `finish` checks it and seals it with the code that judged.
#[derive(Default)]
pub struct Judge {
    estimates: BTreeMap<String, Named>,
    verdicts: Vec<StoredVerdict>,
    headline: Vec<String>,
}

impl Judge {
    /// Names `e` (in `unit`, drawn by `method`). A name given twice must
    /// name the same figure: two figures under one name would make a
    /// verdict's or the headline's reading ambiguous.
    pub fn estimate(
        &mut self,
        name: &str,
        e: Estimate,
        unit: Unit,
        method: &str,
    ) -> Result<Estimate> {
        let named = Named::new(e, unit.csv_name(), method);
        if let Some(old) = self.estimates.get(name) {
            if *old != named {
                bail!(
                    "estimate {name:?} named twice with different figures ({} and {})",
                    old.point,
                    named.point
                );
            }
        }
        self.estimates.insert(name.to_string(), named);
        Ok(e)
    }

    /// `statistic(a) ÷ statistic(b)` with its bootstrapped interval
    /// (`harness_measure::stats::ratio`), named.
    pub fn ratio(
        &mut self,
        name: &str,
        a: &Timing,
        b: &Timing,
        statistic: Statistic,
    ) -> Result<Estimate> {
        let e = stats::ratio(a, b, statistic);
        let method = format!("ratio of {}s, bootstrapped", statistic_name(statistic));
        self.estimate(name, e, Unit::Ratio, &method)
    }

    /// The geometric mean of per-repeat ratios (`stats::paired_ratio`), named.
    pub fn paired_ratio(
        &mut self,
        name: &str,
        a: &Timing,
        b: &Timing,
        statistic: Statistic,
    ) -> Result<Estimate> {
        let e = stats::paired_ratio(a, b, statistic)?;
        let method = format!("paired ratio of {}s", statistic_name(statistic));
        self.estimate(name, e, Unit::Ratio, &method)
    }

    /// A figure of several timings' statistic (`stats::bootstrap`), named;
    /// `formula` says in words what `f` computes.
    pub fn bootstrap<F: Fn(&[f64]) -> f64>(
        &mut self,
        name: &str,
        timings: &[&Timing],
        statistic: Statistic,
        unit: Unit,
        formula: &str,
        f: F,
    ) -> Result<Estimate> {
        let e = stats::bootstrap(timings, statistic, f)?;
        self.estimate(name, e, unit, formula)
    }

    /// A claim's verdict on this run, resting on the estimates `reads`
    /// names (each named before or after, checked by `finish`).
    pub fn verdict(&mut self, v: Verdict, reads: &[&str]) {
        self.verdicts.push(StoredVerdict::of(
            &v,
            reads.iter().map(|s| s.to_string()).collect(),
        ));
    }

    /// Adds a named estimate to the headline.
    pub fn headline(&mut self, name: &str) {
        if !self.headline.iter().any(|n| n == name) {
            self.headline.push(name.to_string());
        }
    }

    /// The analysis, checked (`Analysis::validate`: every name read is
    /// named) and every claim judged among `claims`.
    pub fn finish(self, judged_by: String, claims: &[Claim]) -> Result<Analysis> {
        let analysis = Analysis {
            judged_by,
            estimates: self.estimates,
            verdicts: self.verdicts,
            headline: self.headline,
        };
        analysis.validate()?;
        analysis.verdicts(claims)?;
        Ok(analysis)
    }
}

fn statistic_name(s: Statistic) -> &'static str {
    match s {
        Statistic::Mean => "mean",
        Statistic::Median => "median",
    }
}

/// Which page code judges chapter `P` now (`fingerprint::judged_by`),
/// hashed once per process.
pub fn judged_by<P: Page>() -> Result<String> {
    static KNOWN: std::sync::Mutex<BTreeMap<&'static str, String>> =
        std::sync::Mutex::new(BTreeMap::new());
    let mut known = KNOWN.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(h) = known.get(P::NAME) {
        return Ok(h.clone());
    }
    let h = harness_core::results::fingerprint::judged_by(&harness_core::code_dir(), P::NAME)?;
    known.insert(P::NAME, h.clone());
    Ok(h)
}

/// Judges one run of chapter `P` (the judge stage).
pub fn judge<P: Page>(path: &Path, provenance: &Provenance, data: &P::Data) -> Result<Analysis> {
    judge_by::<P>(path, provenance, data, judged_by::<P>()?)
}

/// [`judge`] with the page code's hash already computed.
pub fn judge_by<P: Page>(
    path: &Path,
    provenance: &Provenance,
    data: &P::Data,
    by: String,
) -> Result<Analysis> {
    let run = Judged {
        path,
        provenance,
        data,
    };
    let mut j = Judge::default();
    P::judge(&run, &mut j).with_context(|| format!("judging {}", path.display()))?;
    j.finish(by, P::CLAIMS)
        .with_context(|| format!("judging {}", path.display()))
}

/// The analysis a page reads for one run: what judging its data gives now,
/// with `true` when the stored one was judged by other page code (or there
/// is none). Every build judges every run it reads, so no stored verdict or
/// estimate reaches a page unless the data gives it: a stored analysis that
/// today's page code judged and that differs from judging again is refused,
/// naming the file, each claim with both outcomes and each estimate with
/// both intervals. (Data `edited` after measurement is badged as such; its
/// stored analysis is not held to the edited numbers.)
pub fn current_analysis<P: Page>(
    path: &Path,
    provenance: &Provenance,
    data: &P::Data,
    stored: Option<Analysis>,
    edited: bool,
) -> Result<(Analysis, bool)> {
    let by = judged_by::<P>()?;
    let fresh = judge_by::<P>(path, provenance, data, by.clone())?;
    match stored {
        Some(a) if a.judged_by == by => {
            let differences = a.differences(&fresh);
            if !edited && !differences.is_empty() {
                bail!(
                    "{}: its stored analysis is not what judging its data gives (edited after \
                     judging?):\n  {}\nRun `{} judge --write {}` to store what the data gives",
                    path.display(),
                    differences.join("\n  "),
                    P::NAME,
                    path.display()
                );
            }
            Ok((fresh, false))
        }
        _ => Ok((fresh, true)),
    }
}
