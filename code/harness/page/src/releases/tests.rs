use super::*;
use crate::chapter::{Exhibit, ExhibitKind};
use crate::page::{Judge, Judged, Page};
use crate::render::blocks::{Block, Cell, Table};
use harness_core::claims::Claim;
use harness_core::claims::Verdict;
use harness_core::results::cores::CoresApart;
use harness_core::results::published::Dataset;
use harness_core::results::ResultsFile;
use harness_measure::{Experiment, Lab};

/// A chapter whose one claim holds when its measured ratio is above 1.
/// It borrows the template chapter's name so that the code fingerprint
/// of a real crate decides whether its files are current.
struct Toy;

const CLAIM: Claim = Claim {
    id: "TOY-1",
    short: "the ratio is above one",
    statement: "the ratio is above one",
    source: "(test)",
    rule: "ratio > 1",
};

impl Experiment for Toy {
    type Data = f64;
    const NAME: &'static str = "chapter-template";
    const MEASURED_CRATES: &'static [&'static str] = &["crossbeam-channel"];

    fn measure(_: &Lab) -> Result<f64> {
        Ok(1.0)
    }
}

impl Page for Toy {
    type Data = f64;
    type Experiment = Toy;
    const CLAIMS: &'static [Claim] = &[CLAIM];
    const EXHIBITS: &'static [Exhibit<f64>] = &[Exhibit {
        name: "verdicts",
        kind: ExhibitKind::Verdicts,
        about: "TOY-1",
        render: |book| Ok(vec![Block::Verdicts(<Toy as Page>::verdicts(book)?)]),
    }];

    fn check(ratio: &f64) -> Result<()> {
        ensure!(ratio.is_finite(), "ratio {ratio}");
        Ok(())
    }

    fn judge(run: &Judged<f64>, j: &mut Judge) -> Result<()> {
        let outcome = if *run.data > 1.0 {
            Outcome::Holds
        } else {
            Outcome::DoesNotHold
        };
        j.verdict(
            Verdict::new(&CLAIM, run.machine(), outcome, "the ratio"),
            &[],
        );
        Ok(())
    }
}

fn variant(store: &Store, version: &str, ratio: f64, current: bool) -> PathBuf {
    variant_gated(store, version, ratio, current, None)
}

/// A variant whose run records what its core gate found.
fn variant_gated(
    store: &Store,
    version: &str,
    ratio: f64,
    current: bool,
    cores_apart: Option<CoresApart>,
) -> PathBuf {
    let mut p = harness_measure::fixtures::provenance(Profile::Quick);
    p.cores_apart = cores_apart;
    p.crates = BTreeMap::from([("crossbeam-channel".into(), version.into())]);
    let mut file = ResultsFile::new(<Toy as Experiment>::NAME, p, ratio).unwrap();
    let code = code_fingerprint(
        &harness_core::code_dir(),
        <Toy as Experiment>::NAME,
        Profile::Quick,
    )
    .unwrap();
    file.release = Some(Release {
        crates: BTreeMap::from([("crossbeam-channel".into(), version.into())]),
        code_fingerprint: if current {
            code
        } else {
            "0123456789abcdef".into()
        },
    });
    store.write(&file).unwrap()
}

#[test]
fn the_table_gives_each_release_its_own_verdict() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::new(dir.path());
    let old = variant(&store, "0.5.1", 0.5, true);
    let new = variant(&store, "0.5.10", 2.0, false);
    assert!(old.starts_with(store.releases_dir(<Toy as Experiment>::NAME)));
    assert!(old
        .to_string_lossy()
        .ends_with("@crossbeam-channel-0.5.1.json"));
    assert_eq!(load::<Toy>(&store).unwrap().len(), 2);

    // The committed run: another release again, and the ratio of the newest.
    let mut book = crate::fixtures::book::<Toy>(3.0);
    book.store = store.clone();
    book.runs[0].ephemeral = false;
    book.runs[0].provenance.crates =
        BTreeMap::from([("crossbeam-channel".into(), "0.5.15".into())]);
    // Two more releases that agree with 0.5.1: one row for the three.
    variant(&store, "0.5.2", 0.6, true);
    variant(&store, "0.5.3", 0.7, true);
    let blocks = exhibit::<Toy>(&book).unwrap();
    let Block::Table(t) = &blocks[0] else {
        panic!("no table: {blocks:?}")
    };
    assert_eq!(t.header, ["Release", "Profile", "**TOY-1**"]);
    // The committed lock first, then the variants in release order (0.5.10
    // after 0.5.3), alike neighbours merged, the stale one marked and kept
    // apart.
    let cells = texts(t);
    assert_eq!(
        cells,
        [
            [
                "committed lock (crossbeam-channel 0.5.15)",
                "smoke",
                "holds"
            ],
            [
                "crossbeam-channel 0.5.1 to 0.5.3 (3 releases)",
                "quick",
                "does not hold"
            ],
            ["crossbeam-channel 0.5.10 (stale)", "quick", "holds"],
        ]
    );
    std::fs::remove_file(new).unwrap();

    // A file in releases/ without a release record is refused by name.
    let plain = ResultsFile::new(
        <Toy as Experiment>::NAME,
        harness_measure::fixtures::provenance(Profile::Quick),
        1.5,
    )
    .unwrap();
    let stray = store
        .releases_dir(<Toy as Experiment>::NAME)
        .join(format!("{}.json", plain.provenance.machine.id));
    harness_core::results::write_atomically(&stray, &plain.to_bytes().unwrap()).unwrap();
    let err = match load::<Toy>(&store) {
        Ok(_) => panic!("a file without a release record was loaded"),
        Err(e) => format!("{e:#}"),
    };
    assert!(
        err.contains("releases/") && err.contains("not a release variant"),
        "{err}"
    );
}

#[test]
fn with_arguments_are_checked() {
    assert_eq!(
        parse_with("tokio@1.37.0").unwrap(),
        ("tokio".to_string(), "1.37.0".to_string())
    );
    assert_eq!(parse_with("kanal@0.1.0-pre8").unwrap().1, "0.1.0-pre8");
    for bad in [
        "tokio",
        "tokio@1.37",
        "@1.0.0",
        "to<b>@1.0.0",
        "tokio@1.x.0",
        "tokio@",
    ] {
        let err = format!("{:#}", parse_with(bad).unwrap_err());
        assert!(err.contains("CRATE@VERSION"), "{bad}: {err}");
    }
}

#[test]
fn a_claims_range_names_where_its_current_verdict_began() {
    use Outcome::*;
    let at = |v: &[(&str, Outcome)]| -> Vec<(String, Outcome)> {
        v.iter().map(|(a, o)| (a.to_string(), *o)).collect()
    };
    assert_eq!(
        range_note("tokio", None, false, &at(&[("1.54.1", Holds)])),
        None
    );
    assert_eq!(
        range_note(
            "tokio",
            None,
            false,
            &at(&[("1.20.0", Holds), ("1.54.1", Holds)])
        )
        .unwrap(),
        "holds at every tokio release measured (2 releases measured, 1.20.0 to 1.54.1)"
    );
    assert_eq!(
        range_note(
            "tokio",
            None,
            false,
            &at(&[
                ("1.20.0", DoesNotHold),
                ("1.37.0", Holds),
                ("1.54.1", Holds)
            ])
        )
        .unwrap(),
        "holds for tokio 1.37.0 and later; does not hold at 1.20.0; one run at each \
         release, so a change may be the runs' rather than the releases' \
         (3 releases measured, 1.20.0 to 1.54.1)"
    );
    assert_eq!(
        range_note(
            "tokio",
            None,
            false,
            &at(&[("1.0.0", Holds), ("1.20.0", DoesNotHold), ("1.54.1", Holds)])
        )
        .unwrap(),
        "holds at every tokio release measured but 1.20.0 (does not hold); one run at each \
         release, so a lone exception may be the run rather than the release \
         (3 releases measured, 1.0.0 to 1.54.1)"
    );
    // Two releases apart from the rest: the verdict did change, twice.
    assert_eq!(
        range_note(
            "tokio",
            None,
            false,
            &at(&[
                ("1.0.0", Holds),
                ("1.20.0", DoesNotHold),
                ("1.30.0", DoesNotHold),
                ("1.54.1", Holds)
            ])
        )
        .unwrap(),
        "holds for tokio 1.54.1 and later; does not hold at 1.30.0; it changed 2 times; one \
         run at each release, so a change may be the runs' rather than the releases' \
         (4 releases measured, 1.0.0 to 1.54.1)"
    );
    // Never "does not hold at every": a claim that fails everywhere holds at none.
    assert_eq!(
        range_note(
            "tokio",
            Some(Profile::Quick),
            false,
            &at(&[("1.37.0", DoesNotHold), ("1.54.1", DoesNotHold)])
        )
        .unwrap(),
        "does not hold at any tokio release measured \
         (2 releases measured at the quick profile, 1.37.0 to 1.54.1)"
    );
    assert_eq!(
        range_note(
            "tokio",
            None,
            false,
            &at(&[("1.37.0", NotMeasured), ("1.54.1", NotMeasured)])
        ),
        None,
        "nothing to say about a claim no release could decide"
    );
    // Exact numbers (bytes counted): a second run would say the same, so a
    // change is the releases', said without the one-run caveat, and a lone
    // release apart is two changes.
    assert_eq!(
        range_note(
            "tokio",
            None,
            true,
            &at(&[
                ("1.20.0", DoesNotHold),
                ("1.37.0", Holds),
                ("1.54.1", Holds)
            ])
        )
        .unwrap(),
        "holds for tokio 1.37.0 and later; does not hold at 1.20.0 \
         (3 releases measured, 1.20.0 to 1.54.1)"
    );
    assert_eq!(
        range_note(
            "tokio",
            None,
            true,
            &at(&[("1.0.0", Holds), ("1.20.0", DoesNotHold), ("1.54.1", Holds)])
        )
        .unwrap(),
        "holds for tokio 1.54.1 and later; does not hold at 1.20.0; it changed 2 times \
         (3 releases measured, 1.0.0 to 1.54.1)"
    );
}

/// A results file of the toy chapter at crossbeam-channel `version`, current
/// (its fingerprint is the toy crate's), written to `store`.
fn plain_run(store: &Store, version: &str, ratio: f64, profile: Profile) -> PathBuf {
    let mut p = harness_measure::fixtures::provenance(profile);
    p.crates = BTreeMap::from([("crossbeam-channel".into(), version.into())]);
    p.fingerprint = fingerprint(
        &harness_core::code_dir(),
        <Toy as Experiment>::NAME,
        profile,
    )
    .unwrap();
    store
        .write(&ResultsFile::new(<Toy as Experiment>::NAME, p, ratio).unwrap())
        .unwrap()
}

#[test]
fn an_old_release_at_the_quick_profile_is_compared_with_the_current_one_at_quick() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::new(dir.path());
    // The post's release, quick: does not hold.
    variant(&store, "0.5.1", 0.5, true);
    // The committed lock: the full run holds; its quick replicate does not.
    let full = plain_run(&store, "0.5.15", 3.0, Profile::Full);
    let replicate = Store::new(crate::agreement::replicates_dir(dir.path()).join("a"));
    plain_run(&replicate, "0.5.15", 0.9, Profile::Quick);
    let mut book = crate::fixtures::book::<Toy>(3.0);
    book.store = store.clone();
    book.runs[0].ephemeral = false;
    book.runs[0].path = full;
    book.runs[0].provenance = read_results::<f64>(&book.runs[0].path, <Toy as Experiment>::NAME)
        .unwrap()
        .provenance;

    let h = history::<Toy>(&book).unwrap();
    assert_eq!(h.krate, "crossbeam-channel");
    assert_eq!(
        h.profile,
        Some(Profile::Quick),
        "two releases at quick, one at full"
    );
    assert_eq!(
        h.claims["TOY-1"],
        [
            ("0.5.1".to_string(), Outcome::DoesNotHold),
            ("0.5.15".to_string(), Outcome::DoesNotHold)
        ],
        "the quick replicate stands for the current release, not the full run"
    );
    assert!(
        h.exact,
        "the toy chapter has no headline estimates: its numbers are exact"
    );
    assert_eq!(
        range_note(&h.krate, h.profile, h.exact, &h.claims["TOY-1"]).unwrap(),
        "does not hold at any crossbeam-channel release measured \
         (2 releases measured at the quick profile, 0.5.1 to 0.5.15)"
    );

    // The table shows the replicate beside the committed run, labelled.
    let blocks = exhibit::<Toy>(&book).unwrap();
    let Block::Table(t) = &blocks[0] else {
        panic!("no table: {blocks:?}")
    };
    let cells = texts(t);
    assert_eq!(
        cells,
        [
            ["committed lock (crossbeam-channel 0.5.15)", "full", "holds"],
            [
                "committed lock, replicate a (crossbeam-channel 0.5.15)",
                "quick",
                "does not hold"
            ],
            ["crossbeam-channel 0.5.1", "quick", "does not hold"],
        ]
    );
}

#[test]
fn a_store_without_history_reads_no_variant_or_replicate() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::new(dir.path());
    // A variant and a replicate the chapter no longer reads (their data
    // is not what it measures now): read with the history, they fail the
    // page loudly.
    let replicate = Store::new(crate::agreement::replicates_dir(dir.path()).join("a"));
    for path in [
        variant(&store, "0.5.1", 0.5, true),
        plain_run(&replicate, "0.5.15", 0.9, Profile::Quick),
    ] {
        let text = std::fs::read_to_string(&path).unwrap();
        std::fs::write(
            &path,
            text.replace("\"data\": 0.", "\"data\": \"old\", \"x\": 0."),
        )
        .unwrap();
    }
    let mut book = crate::fixtures::book::<Toy>(3.0);
    book.store = store.clone();
    let err = format!("{:#}", history::<Toy>(&book).unwrap_err());
    assert!(err.contains("does not have the layout"), "{err}");
    // Without it (a fresh run drawing its intervals), neither is read.
    book.store = store.without_history();
    assert!(book
        .store
        .release_files(<Toy as Experiment>::NAME)
        .unwrap()
        .is_empty());
    let h = history::<Toy>(&book).unwrap();
    assert!(
        h.claims.values().all(|c| c.len() <= 1),
        "only the run itself: {:?}",
        h.claims
    );
    exhibit::<Toy>(&book).expect("the releases table renders from the run alone");
}

fn dataset(published: Option<&str>, then: &[(&str, &str)], how: Option<&str>) -> Dataset {
    Dataset {
        schema: harness_core::results::published::SCHEMA.into(),
        checksum: None,
        name: "d".into(),
        source: harness_core::results::published::Source {
            title: "A <post>".into(),
            url: "https://example.org/post".into(),
            machine: "m".into(),
            code: None,
            published: published.map(str::to_string),
            releases_then: then
                .iter()
                .map(|(c, v)| (c.to_string(), v.to_string()))
                .collect(),
            releases_how: how.map(str::to_string),
        },
        description: String::new(),
        rows: Vec::new(),
    }
}

fn run_at(crates: &[(&str, &str)]) -> Run<f64> {
    let mut provenance = harness_measure::fixtures::provenance(Profile::Quick);
    provenance.crates = crates
        .iter()
        .map(|(c, v)| (c.to_string(), v.to_string()))
        .collect();
    Run {
        path: "r.json".into(),
        provenance,
        data: 1.0,
        stale: false,
        edited: false,
        ephemeral: false,
        analysis: Default::default(),
        rejudged: false,
    }
}

#[test]
fn a_datasets_note_says_when_and_at_which_releases_it_was_measured() {
    let then = [("kanal", "0.1.0-pre8"), ("tokio", "1.34.0")];
    let how = Some("the only commit <b>");
    // Measured at both: no command to run.
    let both = run_at(&[("kanal", "0.1.0-pre8"), ("tokio", "1.34.0")]);
    let note = dataset_note("c", &dataset(Some("2023-12-04"), &then, how), &[&both]).unwrap();
    assert!(
        note.contains(
            "was published on 2023-12-04, when kanal 0.1.0-pre8 and tokio 1.34.0 were current"
        ) && note.contains("How we know: the only commit &lt;b&gt;.")
            && note.contains("measured at those releases")
            && note.contains("A &lt;post&gt;"),
        "{note}"
    );
    // Measured at one of the two: which, and which not.
    let one = run_at(&[("kanal", "0.1.2"), ("tokio", "1.34.0")]);
    let note = dataset_note("c", &dataset(Some("2023-12-04"), &then, how), &[&one]).unwrap();
    assert!(
        note.contains("measured at tokio 1.34.0 (in the table above), not at kanal 0.1.0-pre8"),
        "{note}"
    );
    // Measured at neither: the command that would.
    let none = run_at(&[("tokio", "1.54.1")]);
    let note = dataset_note("c", &dataset(Some("2023-12-04"), &then, how), &[&none]).unwrap();
    assert!(
        note.contains("`scripts/fresh c --with kanal@0.1.0-pre8 --with tokio@1.34.0`"),
        "{note}"
    );
    // Undated: said so, with the releases that stand for its time, or none.
    let note = dataset_note("c", &dataset(None, &[("tokio", "1.52.3")], how), &[&none]).unwrap();
    assert!(
        note.contains("has no exact date; tokio 1.52.3 stands for the releases of its time"),
        "{note}"
    );
    let note = dataset_note("c", &dataset(None, &[], how), &[&none]).unwrap();
    assert!(
        note.contains("no release of its time can be named"),
        "{note}"
    );
    // A dataset that records nothing about its date gets no note.
    assert!(dataset_note("c", &dataset(None, &[], None), &[&none]).is_none());
}

#[test]
fn a_gap_is_noted_for_the_older_releases_measured_only() {
    let gaps = [
        ReleaseGap {
            krate: "tokio",
            since: "1.44.0",
            lacks: "no budget counts.",
        },
        ReleaseGap {
            krate: "kanal",
            since: "0.2.0",
            lacks: "no kanal.",
        },
    ];
    let at = |v: &str| BTreeMap::from([("tokio".to_string(), v.to_string())]);
    let (new, old, older, older_again) = (at("1.54.1"), at("1.37.0"), at("1.9.0"), at("1.9.0"));
    assert!(
        gap_notes(&gaps, &[&new]).is_empty(),
        "nothing older measured"
    );
    let notes = gap_notes(&gaps, &[&new, &old, &older, &older_again]);
    assert_eq!(
        notes,
        ["Before tokio 1.44.0 (measured here at tokio 1.9.0, tokio 1.37.0): no budget counts."],
        "numeric order, each release once, and no note for a crate not measured"
    );
}

/// A table's cells as text, row by row.
fn texts(t: &Table) -> Vec<Vec<String>> {
    t.rows
        .iter()
        .map(|row| {
            row.iter()
                .map(|c| match c {
                    Cell::Text(s) => s.clone(),
                    other => panic!("not text: {other:?}"),
                })
                .collect()
        })
        .collect()
}

#[test]
fn with_no_results_yet_the_table_shows_the_smoke_run_the_page_was_built_on() {
    let dir = tempfile::tempdir().unwrap();
    let mut book = crate::fixtures::book::<Toy>(3.0);
    book.store = Store::new(dir.path());
    book.runs[0].provenance.crates =
        BTreeMap::from([("crossbeam-channel".into(), "0.5.15".into())]);
    assert!(book.runs[0].ephemeral);
    let blocks = exhibit::<Toy>(&book).unwrap();
    let Block::Table(t) = &blocks[0] else {
        panic!("no table: {blocks:?}")
    };
    assert_eq!(
        texts(t),
        [[
            "committed lock, measured while building this page (crossbeam-channel 0.5.15)",
            "smoke",
            "holds"
        ]]
    );
    assert!(
        blocks
            .iter()
            .any(|b| matches!(b, Block::Text(n) if n.contains("No other release"))),
        "{blocks:?}"
    );
}

#[test]
fn each_row_says_how_many_timings_ran_beyond_the_core_gate() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::new(dir.path());
    let gate = |beyond, timings| CoresApart {
        gate_ns: Some(335.0),
        timings,
        beyond_gate: beyond,
        ..CoresApart::default()
    };
    variant_gated(&store, "0.5.1", 2.0, true, Some(gate(0, 40)));
    variant_gated(&store, "0.5.2", 2.0, true, Some(gate(12, 40)));
    variant_gated(&store, "0.5.3", 0.5, true, Some(gate(30, 40)));
    let mut book = crate::fixtures::book::<Toy>(3.0);
    book.store = store.clone();
    book.runs[0].ephemeral = false;
    let blocks = exhibit::<Toy>(&book).unwrap();
    let Block::Table(t) = &blocks[0] else {
        panic!("no table: {blocks:?}")
    };
    assert_eq!(
        t.header,
        ["Release", "Profile", "Timed beyond the gate", "**TOY-1**"]
    );
    let cells = texts(t);
    // The committed run had no gate; 0.5.1 and 0.5.2 agree and share a row,
    // their counts added; 0.5.3's verdict differs with most timings beyond.
    assert_eq!(cells[0][2], "no gate", "{cells:?}");
    assert_eq!(cells[1][0], "crossbeam-channel 0.5.1 to 0.5.2 (2 releases)");
    assert_eq!(cells[1][2], "12 of 80", "{cells:?}");
    assert_eq!(cells[2][2], "30 of 40", "{cells:?}");
    assert_ne!(cells[1][3], cells[2][3], "{cells:?}");
    assert!(t
        .caption
        .contains("cores' distance rather than the release"));
    // Without any gate, no column.
    let dir = tempfile::tempdir().unwrap();
    book.store = Store::new(dir.path());
    variant(&book.store, "0.5.1", 2.0, true);
    let blocks = exhibit::<Toy>(&book).unwrap();
    let Block::Table(t) = &blocks[0] else {
        panic!("no table: {blocks:?}")
    };
    assert_eq!(t.header, ["Release", "Profile", "**TOY-1**"]);
}

/// Issue 60: the machines that count in an answer, a badge or a finding
/// are those with current results; a stale or smoke run never counts beside
/// one, and when none is current, every run does (the page marks them).
#[test]
fn only_current_runs_count_beside_a_current_one() {
    let mut book = crate::fixtures::book::<Toy>(3.0);
    book.runs[0].ephemeral = false;
    book.runs[0].provenance.profile = Profile::Quick;
    let with = |id: &str, f: &dyn Fn(&mut crate::chapter::Run<f64>)| {
        let mut r = book.runs[0].copy().unwrap();
        r.provenance.machine.id = id.into();
        f(&mut r);
        r
    };
    let current = with("current", &|_| {});
    let stale = with("stale", &|r| r.stale = true);
    let smoke = with("smoke", &|r| r.provenance.profile = Profile::Smoke);
    book.runs = vec![stale.copy().unwrap(), current, smoke.copy().unwrap()];
    let ids = |b: &crate::chapter::Book<f64>| {
        b.runs
            .iter()
            .map(|r| r.machine().to_string())
            .collect::<Vec<_>>()
    };
    assert_eq!(ids(&book.counted().unwrap()), ["current"]);
    book.runs = vec![stale, smoke];
    assert_eq!(ids(&book.counted().unwrap()), ["stale", "smoke"]);
}
