//! The template measures what it says and decides its claim from the data.
use chapter_template::run::{Data, Template};
use chapter_template::{crossbeam_batch, vec_batch, BATCH, EXPECTED_SUM};
use harness::timing::Timing;
use harness::{fixtures, Outcome};

#[test]
fn every_variant_delivers_the_whole_batch() {
    assert_eq!(vec_batch::vec_batch(BATCH), EXPECTED_SUM);
    assert_eq!(crossbeam_batch::crossbeam_batch(BATCH), EXPECTED_SUM);
}

fn timing(ns: f64) -> Timing {
    Timing::of_samples((0..20).map(|i| ns + i as f64).collect()).unwrap()
}

#[test]
fn the_verdict_follows_the_ratio() {
    let slower = Data {
        batch: BATCH,
        vec: timing(1_000.0),
        crossbeam: timing(5_000.0),
    };
    let v = fixtures::verdicts::<Template>(slower);
    assert_eq!(v.len(), 1);
    assert_eq!(v[0].outcome, Outcome::Holds);
    assert!(
        v[0].evidence.contains("crossbeam ÷ vec = "),
        "{}",
        v[0].evidence
    );
    let faster = Data {
        batch: BATCH,
        vec: timing(5_000.0),
        crossbeam: timing(1_000.0),
    };
    assert_eq!(
        fixtures::verdicts::<Template>(faster)[0].outcome,
        Outcome::DoesNotHold
    );
}
