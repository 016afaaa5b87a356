//! How far two runs on one machine land from each other. The headline
//! estimates and verdicts of two results folders are paired by name;
//! `harness compare` prints the pairs, and the method page's `agreement`
//! exhibit renders the committed pair of runs under `results/replicates/`.
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use anyhow::{bail, Result};

use crate::cli::Headline;
use crate::render::blocks::Table;
use crate::registry::ChapterInfo;
use crate::results::{read_results, Provenance, Store};
use crate::values::Estimate;

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

/// The complementary error function (Numerical Recipes' `erfcc`, relative
/// error below 1.2e-7 everywhere).
pub fn erfc(x: f64) -> f64 {
    let z = x.abs();
    let t = 1.0 / (1.0 + 0.5 * z);
    let poly = -z * z - 1.265_512_23
        + t * (1.000_023_68
            + t * (0.374_091_96
                + t * (0.096_784_18
                    + t * (-0.186_288_06
                        + t * (0.278_868_07
                            + t * (-1.135_203_98
                                + t * (1.488_515_87 + t * (-0.822_152_23 + t * 0.170_872_77))))))));
    let r = t * poly.exp();
    if x >= 0.0 {
        r
    } else {
        2.0 - r
    }
}

/// Decimals that give `v` three significant digits (`sig3`'s, except that a
/// figure below 0.1 keeps three digits too: `0.0825`).
fn decimals(v: f64) -> usize {
    let a = v.abs();
    if a >= 100.0 || a == 0.0 || !a.is_finite() {
        0
    } else if a >= 10.0 {
        1
    } else if a >= 0.1 {
        2
    } else {
        (2 - a.log10().floor() as i32) as usize
    }
}

/// `3.57 [3.41 – 3.72]`: the bounds with the point's decimals.
fn with_interval(e: &Estimate) -> String {
    let d = decimals(e.point_ns);
    format!(
        "{:.d$} [{:.d$} – {:.d$}]",
        e.point_ns, e.lower_ns, e.upper_ns
    )
}

/// `0.6 %`, `4.0 %`, `12 %`.
fn percent(share: f64) -> String {
    let p = share * 100.0;
    if p.abs() < 10.0 {
        format!("{p:.1} %")
    } else {
        format!("{p:.0} %")
    }
}

/// The method page's `agreement` exhibit: for every machine with a replicate
/// pair under `<results>/replicates/{a,b}`, how its headline estimates and
/// verdicts moved from one run to the next. Text only when none is committed.
pub fn exhibit(
    results_root: &Path,
    chapters: &[&'static ChapterInfo],
    headline: &dyn Fn(&ChapterInfo, &Path) -> Result<Headline>,
) -> Result<String> {
    let dir = replicates_dir(results_root);
    let (a, b) = (dir.join("a"), dir.join("b"));
    let pairs = if a.is_dir() && b.is_dir() {
        pair_folders(&a, &b, chapters, headline)?
    } else {
        Vec::new()
    };
    let mut machines: Vec<&str> = pairs.iter().map(FilePair::machine).collect();
    machines.sort_unstable();
    machines.dedup();
    let mut out = String::new();
    let kinds = if machines.is_empty() {
        "text"
    } else {
        "text,table"
    };
    let _ = writeln!(
        out,
        "\n<div class=\"exhibit-marker\" data-exhibit=\"method/agreement\" data-blocks=\"{kinds}\"></div>\n"
    );
    if machines.is_empty() {
        let _ = writeln!(
            out,
            "No pair of replicate runs is committed under `{}`, so this book cannot yet \
             say how far a second run lands. `scripts/fresh --replicates` measures one.\n",
            display_under_code(&dir)
        );
        return Ok(out);
    }
    for machine in machines {
        let mine: Vec<&FilePair> = pairs.iter().filter(|p| p.machine() == machine).collect();
        out.push_str(&machine_section(machine, &mine));
    }
    Ok(out)
}

/// `results/replicates` for the committed folder, the full path otherwise.
fn display_under_code(dir: &Path) -> String {
    dir.strip_prefix(crate::code_dir())
        .unwrap_or(dir)
        .display()
        .to_string()
}

fn machine_section(machine: &str, pairs: &[&FilePair]) -> String {
    let mut out = String::new();
    let t = Tally::of(pairs.iter().copied(), WITHIN_PERCENT);
    let provenances = || {
        pairs
            .iter()
            .flat_map(|p| [p.a.as_ref(), p.b.as_ref()])
            .flatten()
    };
    let mut profiles: Vec<&str> = provenances().map(|p| p.profile.name()).collect();
    profiles.sort_unstable();
    profiles.dedup();
    let dates = |pick: fn(&FilePair) -> Option<&Provenance>| {
        let mut d: Vec<&str> = pairs
            .iter()
            .filter_map(|p| pick(p))
            .map(|p| p.date.as_str())
            .collect();
        d.sort_unstable();
        d.first().map(|s| s.to_string()).unwrap_or_default()
    };
    let _ = write!(
        out,
        "**{machine}**, {} profile: the first run started {}, the second {}.",
        profiles.join(" and "),
        dates(|p| p.a.as_ref()),
        dates(|p| p.b.as_ref())
    );
    let steal: Vec<f64> = provenances().filter_map(|p| p.steal_share).collect();
    if let (Some(lo), Some(hi)) = (
        steal.iter().copied().reduce(f64::min),
        steal.iter().copied().reduce(f64::max),
    ) {
        let (lo, hi) = (format!("{:.1}", lo * 100.0), format!("{:.1}", hi * 100.0));
        let range = if lo == hi { lo } else { format!("{lo}–{hi}") };
        let _ = write!(
            out,
            " The hypervisor took {range} % of CPU time while either run measured."
        );
    }
    let probe_moves: Vec<f64> = pairs
        .iter()
        .filter_map(|p| {
            let probe = |v: Option<&Provenance>| v?.cores_apart.as_ref()?.probe;
            Some(probe(p.b.as_ref())?.median_ns / probe(p.a.as_ref())?.median_ns - 1.0)
        })
        .collect();
    if let Some(most) = probe_moves.iter().copied().map(f64::abs).reduce(f64::max) {
        let _ = write!(
            out,
            " The speed probe's median moved by at most {} from one run to the other \
             in any chapter.",
            percent(most)
        );
    }
    let stale: Vec<&str> = pairs
        .iter()
        .filter(|p| {
            [p.a.as_ref(), p.b.as_ref()]
                .into_iter()
                .any(|v| v.is_none_or(|v| !v.is_current(p.chapter).unwrap_or(false)))
        })
        .map(|p| p.chapter)
        .collect();
    if !stale.is_empty() {
        let _ = write!(
            out,
            " **Stale:** the code of {} has changed since, so those rows show how \
             far runs of the older code landed.",
            stale.join(", ")
        );
    }
    out.push_str("\n\n");
    let _ = writeln!(
        out,
        "**{} of {}** headline estimates agree within {} %, **{} of {}** pairs of 95 % \
         intervals overlap, and **{} of {}** verdicts are the same. Two honest 95 % \
         intervals of one quantity would miss each other in about {} of pairs; these \
         missed in {}.\n",
        t.compared - t.apart,
        t.compared,
        WITHIN_PERCENT,
        t.compared - t.disjoint,
        t.compared,
        t.judged - t.changed,
        t.judged,
        percent(honest_disjoint_share()),
        if t.compared == 0 {
            "none".to_string()
        } else {
            format!("{} of {}", t.disjoint, t.compared)
        }
    );
    let mut table = Table::new(
        format!(
            "Headline estimates of two runs on {machine}, one after the other, \
             with their 95 % intervals."
        ),
        &[
            "Chapter",
            "Estimate",
            "First run",
            "Second run",
            "Change",
            &format!("Within {WITHIN_PERCENT} %"),
            "Intervals",
        ],
    )
    .left(&[1, 6]);
    for p in pairs {
        for e in &p.estimates {
            table.push(vec![
                format!("[{0}]({0}.md)", p.chapter),
                e.name.clone(),
                with_interval(&e.a),
                with_interval(&e.b),
                crate::fmt::percent_delta(e.change()),
                if e.agrees(WITHIN_PERCENT) {
                    "yes".into()
                } else {
                    "**no**".into()
                },
                if e.overlap() {
                    "overlap".into()
                } else {
                    "**disjoint**".into()
                },
            ]);
        }
    }
    out.push_str(&crate::render::table(&table));
    let changed: Vec<String> = pairs
        .iter()
        .flat_map(|p| p.verdicts.iter().map(move |v| (p.chapter, v)))
        .filter(|(_, v)| !v.same())
        .map(|(chapter, v)| format!("{} ({chapter}): {} → {}", v.claim, v.a, v.b))
        .collect();
    if changed.is_empty() {
        out.push_str("No verdict changed between the two runs.\n\n");
    } else {
        let _ = writeln!(
            out,
            "Verdicts that changed between the two runs: {}.\n",
            changed.join("; ")
        );
    }
    let only: Vec<String> = pairs
        .iter()
        .flat_map(|p| {
            p.only.iter().map(move |(run, name)| {
                format!(
                    "{name} ({}, {} run only)",
                    p.chapter,
                    if *run == "a" { "first" } else { "second" }
                )
            })
        })
        .collect();
    if !only.is_empty() {
        let _ = writeln!(
            out,
            "Where the data chose a different point, one run has an estimate the \
             other lacks: {}.\n",
            only.join("; ")
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cli::{HeadlineEstimate, HeadlineVerdict};

    fn est(point: f64, half: f64) -> Estimate {
        Estimate {
            point_ns: point,
            lower_ns: point - half,
            upper_ns: point + half,
        }
    }

    fn headline(estimates: &[(&str, f64, f64)], verdicts: &[(&str, &str)]) -> Headline {
        Headline {
            estimates: estimates
                .iter()
                .map(|&(name, p, h)| HeadlineEstimate {
                    name: name.into(),
                    estimate: est(p, h),
                })
                .collect(),
            verdicts: verdicts
                .iter()
                .map(|&(claim, outcome)| HeadlineVerdict {
                    claim: claim.into(),
                    machine: "m".into(),
                    outcome: outcome.into(),
                })
                .collect(),
        }
    }

    #[test]
    fn estimates_and_verdicts_pair_by_name_and_count_what_moved() {
        let a = headline(
            &[
                ("x", 10.0, 0.5),
                ("y", 2.0, 0.1),
                ("z", 1.0, 0.3),
                ("old", 5.0, 1.0),
            ],
            &[("C-1", "holds"), ("C-2", "holds")],
        );
        let b = headline(
            &[
                ("x", 10.5, 0.5),
                ("y", 2.5, 0.1),
                ("z", 1.2, 0.3),
                ("new", 5.0, 1.0),
            ],
            &[("C-1", "holds"), ("C-2", "inconclusive")],
        );
        let p = pair("fan-in", "m.json", &a, &b);
        assert_eq!(p.machine(), "m");
        assert_eq!(
            p.only,
            vec![("a", "old".to_string()), ("b", "new".to_string())]
        );
        let names: Vec<&str> = p.estimates.iter().map(|e| e.name.as_str()).collect();
        assert_eq!(names, ["x", "y", "z"]);
        // x: +5 %, intervals overlap; y: +25 %, disjoint; z: +20 %, overlap.
        let (x, y, z) = (&p.estimates[0], &p.estimates[1], &p.estimates[2]);
        assert!((x.change() - 0.05).abs() < 1e-12 && x.agrees(10.0) && x.overlap());
        assert!(!y.agrees(10.0) && !y.overlap());
        assert!(!z.agrees(10.0) && z.overlap() && z.agrees(20.0 + 1e-9));
        assert_eq!(
            Tally::of([&p], 10.0),
            Tally {
                compared: 3,
                apart: 2,
                disjoint: 1,
                judged: 2,
                changed: 1
            }
        );
        assert_eq!(Tally::of([&p], 30.0).apart, 0);
    }

    #[test]
    fn honest_intervals_miss_each_other_about_once_in_two_hundred_pairs() {
        // erfc(1.96 / √2) = 0.05: the two-sided tail of a 95 % interval.
        assert!((erfc(1.959_963_984_540_054 / 2f64.sqrt()) - 0.05).abs() < 1e-6);
        assert!((erfc(0.0) - 1.0).abs() < 1e-6 && (erfc(-1.0) - 1.842_700_79).abs() < 1e-6);
        let share = honest_disjoint_share();
        assert!((share - 0.005_574).abs() < 1e-5, "{share}");
        assert_eq!(percent(share), "0.6 %");
    }

    #[test]
    fn small_figures_keep_three_digits() {
        let fig3 = |v: f64| format!("{v:.*}", decimals(v));
        assert_eq!(fig3(0.0825), "0.0825");
        assert_eq!(fig3(0.94), "0.94");
        assert_eq!(fig3(3.571), "3.57");
        assert_eq!(fig3(62.34), "62.3");
        assert_eq!(fig3(1234.4), "1234");
        assert_eq!(with_interval(&est(0.09, 0.005)), "0.0900 [0.0850 – 0.0950]");
        assert_eq!(with_interval(&est(0.084, 0.02)), "0.0840 [0.0640 – 0.1040]");
        assert_eq!(with_interval(&est(98.0, 4.0)), "98.0 [94.0 – 102.0]");
    }

    fn provenance(profile: crate::Profile, steal: f64, probe_ns: f64) -> Provenance {
        Provenance {
            machine: crate::machine::Machine::detect(),
            rustc: "rustc test".into(),
            crates: Default::default(),
            fingerprint: "not the current code".into(),
            profile,
            date: "2026-01-01T00:00:00Z".into(),
            wall_time_s: 1.0,
            load_average_at_start: None,
            busy_cores_at_start: None,
            cores_apart: Some(crate::cores::CoresApart {
                probe: Some(crate::cores::Spread {
                    min_ns: probe_ns,
                    median_ns: probe_ns,
                    max_ns: probe_ns,
                }),
                ..Default::default()
            }),
            steal_share: Some(steal),
        }
    }

    /// Writes `<root>/<chapter>/m.json` holding only a provenance.
    fn write_file(root: &Path, chapter: &'static str, p: Provenance) {
        let mut p = p;
        p.machine.id = "m".into();
        let file = crate::results::ResultsFile::new(chapter, p, serde_json::json!({})).unwrap();
        let text = serde_json::to_string(&file).unwrap();
        let path = Store::new(root).results_path(chapter, "m");
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }

    #[test]
    fn the_exhibit_tabulates_a_committed_pair_and_says_what_moved() {
        let dir = tempfile::tempdir().unwrap();
        let reps = replicates_dir(dir.path());
        let chapters: Vec<&'static ChapterInfo> = crate::registry::chapters().unwrap()[..2].iter().collect();
        let none = exhibit(dir.path(), &chapters, &|_, _| unreachable!()).unwrap();
        assert!(none.contains("data-blocks=\"text\""), "{none}");
        assert!(none.contains("No pair of replicate runs"), "{none}");
        assert!(!none.contains('|'), "{none}");

        let q = crate::Profile::Quick;
        write_file(&reps.join("a"), "fan-in", provenance(q, 0.0, 100.0));
        write_file(&reps.join("b"), "fan-in", provenance(q, 0.002, 104.0));
        // A file only one run has is left out.
        write_file(&reps.join("a"), "mutex-swap", provenance(q, 0.0, 100.0));
        let headlines = |_: &ChapterInfo, file: &Path| -> Result<Headline> {
            Ok(if file.starts_with(reps.join("a")) {
                headline(
                    &[("x", 0.0825, 0.004), ("y", 2.0, 0.1)],
                    &[("C-1", "holds")],
                )
            } else {
                headline(
                    &[("x", 0.0918, 0.004), ("y", 2.05, 0.1)],
                    &[("C-1", "inconclusive")],
                )
            })
        };
        let md = exhibit(dir.path(), &chapters, &headlines).unwrap();
        assert!(md.contains("data-exhibit=\"method/agreement\" data-blocks=\"text,table\""));
        assert!(md.contains("**m**, quick profile"), "{md}");
        assert!(md.contains("took 0.0–0.2 % of CPU time while"), "{md}");
        assert!(md.contains("moved by at most 4.0 %"), "{md}");
        assert!(md.contains("**Stale:** the code of fan-in"), "{md}");
        assert!(
            md.contains(
                "**1 of 2** headline estimates agree within 10 %, **1 of 2** pairs of 95 % \
                 intervals overlap, and **0 of 1** verdicts are the same"
            ),
            "{md}"
        );
        assert!(
            md.contains("about 0.6 % of pairs; these missed in 1 of 2"),
            "{md}"
        );
        assert!(
            md.contains(
                "| [fan-in](fan-in.md) | x | 0.0825 [0.0785 – 0.0865] | 0.0918 [0.0878 – 0.0958] \
                 | +11.3 % | **no** | **disjoint** |"
            ),
            "{md}"
        );
        assert!(
            md.contains("| y | 2.00 [1.90 – 2.10] | 2.05 [1.95 – 2.15] | +2.5 % | yes | overlap |")
        );
        assert!(md.contains("C-1 (fan-in): holds → inconclusive"), "{md}");
        assert!(!md.contains("mutex-swap"), "{md}");
    }

    #[test]
    fn a_missing_folder_and_an_unreadable_file_are_named() {
        let dir = tempfile::tempdir().unwrap();
        let chapters: Vec<&'static ChapterInfo> = crate::registry::chapters().unwrap().iter().collect();
        let err = pair_folders(
            &dir.path().join("gone"),
            dir.path(),
            &chapters,
            &|_, _| unreachable!(),
        )
        .unwrap_err();
        assert!(
            err.to_string().contains("gone is not a results folder"),
            "{err}"
        );
        let reps = replicates_dir(dir.path());
        for run in ["a", "b"] {
            write_file(
                &reps.join(run),
                "fan-in",
                provenance(crate::Profile::Quick, 0.0, 1.0),
            );
        }
        let err = exhibit(dir.path(), &chapters, &|_, file| {
            bail!("{}: not a fan-in results file", file.display())
        })
        .unwrap_err();
        assert!(
            err.to_string()
                .contains("replicates/a/fan-in/m.json: not a fan-in"),
            "{err}"
        );
    }
}
