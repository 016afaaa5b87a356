use super::exhibit::{decimals, percent, with_interval};
use super::*;
use crate::headline::{HeadlineEstimate, HeadlineVerdict};

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

fn provenance(profile: harness_core::profile::Profile, steal: f64, probe_ns: f64) -> Provenance {
    Provenance {
        machine: harness_measure::machine::detect(),
        rustc: "rustc test".into(),
        crates: Default::default(),
        fingerprint: "not the current code".into(),
        profile,
        date: "2026-01-01T00:00:00Z".into(),
        wall_time_s: 1.0,
        load_average_at_start: None,
        busy_cores_at_start: None,
        cores_apart: Some(harness_core::results::cores::CoresApart {
            probe: Some(harness_core::results::cores::Spread {
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
    let file = harness_core::results::ResultsFile::new(chapter, p, serde_json::json!({})).unwrap();
    let text = serde_json::to_string(&file).unwrap();
    let path = Store::new(root).results_path(chapter, "m");
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

#[test]
fn the_exhibit_tabulates_a_committed_pair_and_says_what_moved() {
    let dir = tempfile::tempdir().unwrap();
    let reps = replicates_dir(dir.path());
    let chapters: Vec<&'static ChapterInfo> = harness_core::registry::chapters().unwrap()[..2]
        .iter()
        .collect();
    let none = exhibit(dir.path(), &chapters, &|_, _| unreachable!()).unwrap();
    assert!(none.contains("data-blocks=\"text\""), "{none}");
    assert!(none.contains("No pair of replicate runs"), "{none}");
    assert!(!none.contains('|'), "{none}");

    let q = harness_core::profile::Profile::Quick;
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
    assert!(md.contains("| y | 2.00 [1.90 – 2.10] | 2.05 [1.95 – 2.15] | +2.5 % | yes | overlap |"));
    assert!(md.contains("C-1 (fan-in): holds → inconclusive"), "{md}");
    assert!(!md.contains("mutex-swap"), "{md}");
}

#[test]
fn a_missing_folder_and_an_unreadable_file_are_named() {
    let dir = tempfile::tempdir().unwrap();
    let chapters: Vec<&'static ChapterInfo> =
        harness_core::registry::chapters().unwrap().iter().collect();
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
            provenance(harness_core::profile::Profile::Quick, 0.0, 1.0),
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
