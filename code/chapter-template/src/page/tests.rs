//! The page's rule over synthetic data: unit tests of the binary, as the
//! page is not part of the library (`cargo test -p chapter-template`).
use chapter_template::run::Data;
use chapter_template::BATCH;
use harness::fixtures;
use harness_core::Outcome;
use harness_measure::timing::Timing;

use super::Template;

fn timing(ns: f64) -> Timing {
    Timing::of_samples((0..20).map(|i| ns + i as f64).collect()).unwrap()
}

fn data(vec: f64, crossbeam: f64) -> Data {
    Data {
        batch: BATCH,
        vec: timing(vec),
        crossbeam: timing(crossbeam),
    }
}

#[test]
fn the_verdict_follows_the_ratio() {
    let v = fixtures::verdicts::<Template>(data(1_000.0, 5_000.0));
    assert_eq!(v.len(), 1);
    assert_eq!(v[0].outcome, Outcome::Holds);
    assert!(
        v[0].evidence.contains("crossbeam ÷ vec = "),
        "{}",
        v[0].evidence
    );
    assert_eq!(
        fixtures::verdicts::<Template>(data(5_000.0, 1_000.0))[0].outcome,
        Outcome::DoesNotHold
    );
}

#[test]
fn the_analysis_names_the_estimate_the_verdict_and_headline_read() {
    let a = fixtures::judged::<Template>(&data(1_000.0, 5_000.0));
    assert_eq!(a.headline, ["crossbeam ÷ vec"]);
    assert_eq!(a.verdicts[0].estimates, ["crossbeam ÷ vec"]);
    let e = a.estimate("crossbeam ÷ vec").unwrap();
    assert!(e.lower_ns > 4.0 && e.upper_ns < 6.0, "{e:?}");
    assert_eq!(a.estimates["crossbeam ÷ vec"].unit, "ratio");
    // Judging is deterministic: the same data, the same analysis.
    assert_eq!(a, fixtures::judged::<Template>(&data(1_000.0, 5_000.0)));
}
