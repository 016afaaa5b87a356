//! How far two runs on one machine land from each other. The headline
//! estimates and verdicts of two results folders are paired by name;
//! `harness compare` prints the pairs, and the method page's `agreement`
//! exhibit renders the committed pair of runs under `results/replicates/`.
use std::path::{Path, PathBuf};

use anyhow::{bail, Result};

use crate::headline::Headline;
use crate::render::blocks::Table;
use harness_core::registry::ChapterInfo;
use harness_core::results::{read_results, Provenance, Store};
use harness_core::values::Estimate;

/// The tolerance two runs' headline estimates must meet to agree, in percent
/// of the first run's value: `harness compare`'s default and the exhibit's.
pub const WITHIN_PERCENT: f64 = 10.0;

/// The replicate runs' folder inside a results folder: `a/` and `b/` in it
/// are whole results folders, measured one after the other.
pub fn replicates_dir(results_root: &Path) -> PathBuf {
    results_root.join("replicates")
}

/// One headline estimate as each of the two runs measured it.
#[derive(Clone, Debug, PartialEq)]
pub struct EstimatePair {
    pub name: String,
    pub a: Estimate,
    pub b: Estimate,
}

impl EstimatePair {
    /// b's point relative to a's: `0.05` when b is 5 % higher.
    pub fn change(&self) -> f64 {
        self.b.point_ns / self.a.point_ns - 1.0
    }

    pub fn agrees(&self, within_percent: f64) -> bool {
        self.change().abs() * 100.0 <= within_percent
    }

    /// Two honest 95 % intervals of the same quantity should almost never
    /// miss each other: disjoint ones mean at least one run claimed more
    /// precision than the machine gave it.
    pub fn overlap(&self) -> bool {
        self.a.compare(&self.b).is_none()
    }
}

/// One claim's outcome in each run.
#[derive(Clone, Debug, PartialEq)]
pub struct VerdictPair {
    pub claim: String,
    /// The machine that decided it (empty when none did).
    pub machine: String,
    pub a: String,
    pub b: String,
}

impl VerdictPair {
    pub fn same(&self) -> bool {
        self.a == self.b
    }
}

/// One chapter's results file for one machine, present in both folders.
#[derive(Clone, Debug)]
pub struct FilePair {
    pub chapter: &'static str,
    /// `<machine-id>.json`.
    pub file_name: String,
    pub a: Option<Provenance>,
    pub b: Option<Provenance>,
    pub estimates: Vec<EstimatePair>,
    /// Estimates only one run has, with the run ("a" or "b"): the data chose
    /// a different point (a closest call, say).
    pub only: Vec<(&'static str, String)>,
    pub verdicts: Vec<VerdictPair>,
}

impl FilePair {
    pub fn machine(&self) -> &str {
        self.file_name
            .strip_suffix(".json")
            .unwrap_or(&self.file_name)
    }
}

/// Pairs two headlines of one chapter and machine.
pub fn pair(chapter: &'static str, file_name: &str, ha: &Headline, hb: &Headline) -> FilePair {
    let mut only = Vec::new();
    for (run, these, others) in [("a", ha, hb), ("b", hb, ha)] {
        for e in &these.estimates {
            if !others.estimates.iter().any(|o| o.name == e.name) {
                only.push((run, e.name.clone()));
            }
        }
    }
    let estimates = ha
        .estimates
        .iter()
        .filter_map(|x| {
            let y = hb.estimates.iter().find(|e| e.name == x.name)?;
            Some(EstimatePair {
                name: x.name.clone(),
                a: x.estimate,
                b: y.estimate,
            })
        })
        .collect();
    let verdicts = ha
        .verdicts
        .iter()
        .filter_map(|x| {
            let y = hb
                .verdicts
                .iter()
                .find(|v| v.claim == x.claim && v.machine == x.machine)?;
            Some(VerdictPair {
                claim: x.claim.clone(),
                machine: x.machine.clone(),
                a: x.outcome.clone(),
                b: y.outcome.clone(),
            })
        })
        .collect();
    FilePair {
        chapter,
        file_name: file_name.to_string(),
        a: None,
        b: None,
        estimates,
        only,
        verdicts,
    }
}

/// Every chapter's machine file present in both folders, paired: chapters in
/// the order given, machines by name. `headline` reads one file's headline
/// (the harness asks the chapter's binary).
pub fn pair_folders(
    a: &Path,
    b: &Path,
    chapters: &[&'static ChapterInfo],
    headline: &dyn Fn(&ChapterInfo, &Path) -> Result<Headline>,
) -> Result<Vec<FilePair>> {
    for dir in [a, b] {
        if !dir.is_dir() {
            bail!("{} is not a results folder", dir.display());
        }
    }
    let (sa, sb) = (Store::new(a), Store::new(b));
    let mut pairs = Vec::new();
    for info in chapters {
        for file_a in sa.machine_files(&info.name)? {
            let Some(name) = file_a.file_name().and_then(|n| n.to_str()) else {
                continue;
            };
            let file_b = sb.chapter_dir(&info.name).join(name);
            if !file_b.exists() {
                continue;
            }
            let (ha, hb) = (headline(info, &file_a)?, headline(info, &file_b)?);
            let mut p = pair(&info.name, name, &ha, &hb);
            p.a = provenance_of(&file_a, &info.name);
            p.b = provenance_of(&file_b, &info.name);
            pairs.push(p);
        }
    }
    Ok(pairs)
}

/// A results file's provenance, if the file reads.
fn provenance_of(file: &Path, chapter: &str) -> Option<Provenance> {
    read_results::<serde_json::Value>(file, chapter)
        .ok()
        .map(|f| f.provenance)
}

/// What a set of pairs adds up to.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Tally {
    /// Estimates both runs have.
    pub compared: usize,
    /// Of those, further apart than the tolerance.
    pub apart: usize,
    /// Of those, with intervals that miss each other.
    pub disjoint: usize,
    /// Verdicts both runs have.
    pub judged: usize,
    /// Of those, with another outcome in b.
    pub changed: usize,
}

impl Tally {
    pub fn of<'a>(pairs: impl IntoIterator<Item = &'a FilePair>, within_percent: f64) -> Tally {
        let mut t = Tally::default();
        for p in pairs {
            for e in &p.estimates {
                t.compared += 1;
                t.apart += usize::from(!e.agrees(within_percent));
                t.disjoint += usize::from(!e.overlap());
            }
            for v in &p.verdicts {
                t.judged += 1;
                t.changed += usize::from(!v.same());
            }
        }
        t
    }
}

/// The share of pairs in which two independent, honest 95 % intervals of one
/// quantity (normal, equally wide) miss each other: their points must then
/// lie more than two half-widths apart, `P(|Z| > 1.96 √2) = erfc(1.96)`.
pub fn honest_disjoint_share() -> f64 {
    erfc(1.959_963_984_540_054)
}

/// The complementary error function, from `libm`.
pub fn erfc(x: f64) -> f64 {
    libm::erfc(x)
}

/// Decimals that give `v` three significant digits (`sig3`'s, except that a
/// figure below 0.1 keeps three digits too: `0.0825`).
mod exhibit;

pub use exhibit::exhibit;

#[cfg(test)]
mod tests;
