//! The chapter end to end at the smoke profile: measure, check, render every
//! exhibit; and `check` refuses results that make no sense.
use harness::chapter::{measure_in_memory, render_exhibit};
use std::sync::OnceLock;

use harness::results::{ResultsFile, Store};
use harness::{Chapter, Profile, Progress};

use fan_in::book::{FanIn, FanInData};
use fan_in::sink::SinkKind;
use fan_in::Design;

/// One smoke run shared by the tests of this file (it takes seconds).
fn smoke() -> &'static ResultsFile<FanInData> {
    static RUN: OnceLock<ResultsFile<FanInData>> = OnceLock::new();
    RUN.get_or_init(|| {
        measure_in_memory::<FanIn>(Profile::Smoke, &Progress::hidden("fan-in")).expect("smoke run")
    })
}

#[test]
fn smoke_run_checks_and_renders_every_exhibit() {
    let file = smoke();
    // `measure_in_memory` runs `FanIn::measure` and `FanIn::check`; check again by hand.
    FanIn::check(&file.data).expect("a fresh run passes its own checks");
    assert!(file.data.worker_threads >= 1);
    assert!(file.data.points.iter().all(|m| m.bursts >= 10));
    assert_eq!(
        file.data.points.len(),
        SinkKind::ALL.len() * Design::ALL.len() * file.data.workers.len()
    );

    let dir = tempfile::tempdir().unwrap();
    let store = Store::new(dir.path());
    store.write(file).unwrap();
    let published = harness::code_dir().join("results/fan-in/published-burst.json");
    std::fs::copy(
        published,
        store.chapter_dir("fan-in").join("published-burst.json"),
    )
    .unwrap();

    for exhibit in FanIn::EXHIBITS.iter().map(|e| e.name).chain(["provenance"]) {
        let md = render_exhibit::<FanIn>(exhibit, &store)
            .unwrap_or_else(|e| panic!("exhibit {exhibit}: {e:#}"));
        assert!(md.contains(&format!("data-exhibit=\"fan-in/{exhibit}\"")));
        assert!(!md.contains("render error"), "{exhibit}: {md}");
    }
    let verdicts = render_exhibit::<FanIn>("verdicts", &store).unwrap();
    for claim in FanIn::CLAIMS {
        assert!(verdicts.contains(&format!("data-claim=\"{}\"", claim.id)));
    }
    let figure = render_exhibit::<FanIn>("burst-figure", &store).unwrap();
    assert!(figure.contains("<svg") && figure.contains("published"));
}

#[test]
fn check_rejects_nonsense() {
    let good = smoke().data.clone();
    FanIn::check(&good).unwrap();
    let rejects = |what: &str, broken: FanInData| {
        let err = FanIn::check(&broken).expect_err(what);
        assert!(
            format!("{err:#}").contains(what),
            "expected {what:?} in {err:#}"
        );
    };

    let mut d = good.clone();
    d.points[0].timing.median.point_ns = 0.0;
    d.points[0].timing.median.lower_ns = 0.0;
    rejects("zero, negative", d);

    let mut d = good.clone();
    let gone = d.points.pop().unwrap();
    rejects(&format!("missing {}", gone.sink.label()), d);

    let mut d = good.clone();
    d.points[1].bytes_per_burst += 1;
    rejects("bytes per burst", d);

    let mut d = good.clone();
    let twice = d.points[2].clone();
    d.points.push(twice);
    rejects("measured twice", d);

    let mut d = good;
    d.workers.reverse();
    rejects("strictly increasing", d);
}
