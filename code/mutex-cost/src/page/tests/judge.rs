//! The judge stage: the estimates it names (the headline's names verbatim,
//! the digits today's page drew from the same timings), the verdicts it
//! stores, and the order the page shows them in (claim by claim).
use harness::fixtures;
use harness_measure::stats::{ratio, Statistic};
use harness_page::Page;
use mutex_cost::experiments::RoundTiming;
use mutex_cost::run::Data;
use mutex_cost::{Variant, ACTOR_CLAIM_FUTURES, PUBLISHED_FUTURES};

use super::super::conditions::MUT_1_FAIR;
use super::{smoke_file, MutexCost};

/// The smoke run with its largest `join_all` size standing for the
/// published one, so that MUT-1's headline estimate is drawn.
fn with_the_published_size() -> Data {
    let mut d = smoke_file().data.clone();
    let largest = d.join_all.iter().map(|r| r.futures).max().unwrap();
    d.join_all.retain(|r| r.futures == largest);
    for r in &mut d.join_all {
        r.futures = PUBLISHED_FUTURES;
    }
    d
}

fn timing(
    rows: &[RoundTiming],
    v: Variant,
    futures: usize,
    workers: Option<usize>,
) -> &RoundTiming {
    rows.iter()
        .find(|r| {
            r.variant == v && r.futures == futures && workers.is_none_or(|w| r.runtime.workers == w)
        })
        .unwrap()
}

#[test]
fn the_headline_names_are_todays_and_so_are_their_digits() {
    let d = with_the_published_size();
    let a = fixtures::judged::<MutexCost>(&d);
    let w = d
        .contended
        .iter()
        .map(|r| r.runtime.workers)
        .filter(|&w| w <= d.cores)
        .max()
        .unwrap();
    let workers = if w == 1 {
        "1 worker".to_string()
    } else {
        format!("{w} workers")
    };
    let names: Vec<String> = a.headline.clone();
    assert_eq!(
        names,
        [
            "MUT-1, join_all of 100,000 futures: tokio Mutex ÷ std Mutex".to_string(),
            format!("MUT-2, 10,000 futures spawned on {workers}: actor ÷ tokio Mutex"),
            format!("MUT-2, 10,000 futures spawned on {workers}: actor ÷ std Mutex"),
        ]
    );
    // The same formula over the same timings, in the same order, as the
    // page drew them before judging was a stage: the same digits.
    let j = |v| &timing(&d.join_all, v, PUBLISHED_FUTURES, None).timing;
    let c = |v| &timing(&d.contended, v, ACTOR_CLAIM_FUTURES, Some(w)).timing;
    let expected = [
        ratio(
            j(Variant::TokioMutex),
            j(Variant::StdMutex),
            Statistic::Mean,
        ),
        ratio(c(Variant::Actor), c(Variant::TokioMutex), Statistic::Mean),
        ratio(c(Variant::Actor), c(Variant::StdMutex), Statistic::Mean),
    ];
    for (name, e) in names.iter().zip(expected) {
        assert_eq!(a.estimate(name).unwrap(), e, "{name}");
    }
}

#[test]
fn every_verdict_rests_on_named_estimates_and_the_answers_are_among_them() {
    let a = fixtures::judged::<MutexCost>(&smoke_file().data);
    let verdicts = a.verdicts(MutexCost::CLAIMS).unwrap();
    let ids: Vec<&str> = verdicts.iter().map(|v| v.claim.id).collect();
    assert_eq!(ids, ["MUT-1", "MUT-2", "MUT-3"]);
    for v in &a.verdicts {
        let expect_estimates = v.claim != "MUT-3";
        assert_eq!(!v.estimates.is_empty(), expect_estimates, "{}", v.claim);
        for name in &v.estimates {
            assert!(name.starts_with(&v.claim), "{}: {name}", v.claim);
            a.estimate(name).unwrap();
        }
    }
    // The answer marks the fair experiment's MUT-1 ratio under this name.
    assert!(a.estimate(MUT_1_FAIR).is_ok(), "{:?}", a.estimates.keys());
    // Each row's name is its own: as many names as ratios in the maps.
    let rows: usize = verdicts[..2]
        .iter()
        .map(|v| v.conditions.len())
        .sum::<usize>();
    let distinct: std::collections::BTreeSet<&String> =
        a.verdicts.iter().flat_map(|v| &v.estimates).collect();
    assert!(
        distinct.len() >= rows,
        "{} names for {rows} rows",
        distinct.len()
    );
}

#[test]
fn the_verdicts_go_claim_by_claim_across_the_runs() {
    let mut book = fixtures::book::<MutexCost>(smoke_file().data.clone());
    let mut other = fixtures::book::<MutexCost>(smoke_file().data.clone());
    let mut run = other.runs.pop().unwrap();
    // A second machine's run: the same data, judged there.
    run.provenance.machine.id = "second-machine".into();
    for v in &mut run.analysis.verdicts {
        v.machine = Some("second-machine".into());
    }
    book.runs.push(run);
    let shown: Vec<(&str, Option<String>)> = MutexCost::verdicts(&book)
        .unwrap()
        .iter()
        .map(|v| (v.claim.id, v.machine.clone()))
        .collect::<Vec<_>>()
        .into_iter()
        .collect();
    let first = book.runs[0].machine().to_string();
    let second = Some("second-machine".to_string());
    assert_eq!(
        shown,
        [
            ("MUT-1", Some(first.clone())),
            ("MUT-1", second.clone()),
            ("MUT-2", Some(first.clone())),
            ("MUT-2", second.clone()),
            ("MUT-3", Some(first)),
            ("MUT-3", second),
        ]
    );
}

#[test]
fn the_badges_are_read_when_the_page_shows_the_verdicts() {
    let book = fixtures::book::<MutexCost>(smoke_file().data.clone());
    // Stored without the badge (it reads the post's published numbers) ...
    assert!(book.runs[0]
        .analysis
        .verdicts
        .iter()
        .all(|v| v.reading.number.is_none()));
    // ... and read as the page shows them.
    for v in MutexCost::verdicts(&book).unwrap() {
        assert!(v.reading.number.is_some(), "{}: no number", v.claim.id);
        assert!(v.reading.direction.is_some(), "{}", v.claim.id);
    }
}
