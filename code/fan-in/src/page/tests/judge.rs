//! The judge: the estimates FAN-1..FAN-4 rest on, named as results files
//! have always named the headline; every row's estimates stored and read by
//! the verdicts; the reader printing the stored estimates, not drawing its
//! own.
use harness::fixtures;
use harness_core::{Estimate, Unit};
use harness_measure::stats::{self, Statistic};
use harness_page::render::blocks::Block;
use harness_page::render::reader::numbers_of;

use fan_in::run::FanInData;
use fan_in::sink::SinkKind;
use fan_in::Design;

use super::super::FanIn;
use super::common;

/// Workers 1, 8, 64 and 2048: mpsc slower than the swap from 8 up,
/// recv_many close to the swap, tokio's swap 2,000 ns everywhere.
fn data() -> FanInData {
    common::synthetic(&[1, 8, 64, 2048], 100, |design, w| match (design, w) {
        (Design::StdMutexSwap, 1) => Estimate::around(200.0, 0.01),
        (Design::MpscUnbounded, 1) => Estimate::around(100.0, 0.01),
        (Design::MpscUnbounded, 8) => Estimate::around(300.0, 0.02),
        (Design::MpscUnbounded, _) => Estimate::around(2000.0, 0.01),
        (Design::MpscRecvMany, _) => Estimate::around(110.0, 0.01),
        (Design::TokioMutexSwap, _) => Estimate::around(2000.0, 0.01),
        _ => Estimate::around(100.0, 0.01),
    })
}

#[test]
fn the_headline_keeps_the_names_results_files_have_always_carried() {
    let a = fixtures::judged::<FanIn>(&data());
    assert_eq!(
        a.headline,
        [
            "FAN-1, 1 worker: std swap ÷ mpsc unbounded",
            "FAN-2, 8 workers (closest call): mpsc unbounded ÷ std swap",
            "FAN-2 and FAN-4, 2048 workers: mpsc unbounded ÷ std swap",
            "FAN-3: tokio swap ÷ std swap, geometric mean over worker counts",
            "FAN-4, 2048 workers: share of mpsc's excess over the swap removed by recv_many",
        ]
    );
    // Below a thousand workers FAN-2 is not decided: no closest call, and
    // the gap at the largest count is FAN-4's alone.
    let small = common::synthetic(&[1, 8, 64], 100, |design, _| match design {
        Design::MpscUnbounded => Estimate::around(2000.0, 0.01),
        _ => Estimate::around(100.0, 0.01),
    });
    let a = fixtures::judged::<FanIn>(&small);
    assert_eq!(
        a.headline[1],
        "FAN-4, 64 workers: mpsc unbounded ÷ std swap"
    );
    assert!(!a.headline.iter().any(|n| n.contains("closest call")));
    // Judging is deterministic: the same data, the same analysis.
    assert_eq!(a, fixtures::judged::<FanIn>(&small));
}

#[test]
fn every_row_names_what_it_reads_and_the_fair_row_is_the_headline() {
    let d = data();
    let a = fixtures::judged::<FanIn>(&d);
    // The fair row's FAN-1 figure is the pooled ratio here (one pass per
    // point: nothing to pair), stored with that method.
    let tcp = |design| &d.get(SinkKind::Tcp, design, 1).unwrap().timing;
    let want = stats::ratio(
        tcp(Design::StdMutexSwap),
        tcp(Design::MpscUnbounded),
        Statistic::Median,
    );
    let name = "FAN-1, 1 worker: std swap ÷ mpsc unbounded";
    assert_eq!(a.estimate(name).unwrap(), want);
    assert_eq!(a.estimates[name].method, "ratio of medians, bootstrapped");
    assert_eq!(a.estimates[name].unit, Unit::Ratio.csv_name());
    let share = &a.estimates
        ["FAN-4, 2048 workers: share of mpsc's excess over the swap removed by recv_many"];
    assert_eq!(share.unit, Unit::Share.csv_name());
    // Every verdict rests on named estimates, each row on its own: the fair
    // row's are the headline's, the mean's row says so in its names.
    assert_eq!(a.verdicts.len(), 4);
    for v in &a.verdicts {
        assert!(!v.estimates.is_empty(), "{}: reads nothing", v.claim);
        for c in &v.conditions {
            assert!(!c.estimates.is_empty(), "{} / {}", v.claim, c.setting);
            for n in &c.estimates {
                assert!(a.estimates.contains_key(n), "{n}");
                assert!(v.estimates.contains(n), "{n}");
                assert!(n.starts_with(&v.claim) || n.starts_with("FAN-2 and FAN-4"));
                if !c.fair {
                    assert!(n.contains(&c.setting), "{n} is not {}'s", c.setting);
                }
            }
        }
    }
    let fan_2 = a.verdicts.iter().find(|v| v.claim == "FAN-2").unwrap();
    assert_eq!(
        fan_2.conditions[0].estimates,
        [
            "FAN-2 and FAN-4, 2048 workers: mpsc unbounded ÷ std swap",
            "FAN-2, 8 workers: mpsc unbounded ÷ std swap",
            "FAN-2, 64 workers: mpsc unbounded ÷ std swap",
        ]
    );
    let mean = "FAN-3, criterion's mean instead of its median: \
                tokio swap ÷ std swap, geometric mean over worker counts";
    assert!(a.estimates.contains_key(mean), "{:?}", a.estimates.keys());
    // The figure a row prints is its stored estimate's.
    let fan_3 = a.verdicts.iter().find(|v| v.claim == "FAN-3").unwrap();
    let geo = a
        .estimate("FAN-3: tokio swap ÷ std swap, geometric mean over worker counts")
        .unwrap();
    assert!(
        fan_3.conditions[0].figure.ends_with(&geo.show(Unit::Ratio)),
        "{}",
        fan_3.conditions[0].figure
    );
}

/// The answer's marked numbers, name by name.
fn answer_numbers(book: &harness_page::Book<FanInData>) -> Vec<(String, String)> {
    let blocks = fixtures::render::<FanIn>("in-short", book);
    let [Block::Text(html)] = blocks.as_slice() else {
        panic!("in-short is not one text: {blocks:?}")
    };
    numbers_of(html)
}

#[test]
fn the_reader_prints_the_stored_estimates() {
    let mut book = fixtures::book::<FanIn>(data());
    let geo = "FAN-3: tokio swap ÷ std swap, geometric mean over worker counts";
    let shown = |book: &harness_page::Book<FanInData>| {
        answer_numbers(book)
            .into_iter()
            .find(|(n, _)| n == geo)
            .map(|(_, s)| s)
    };
    // 10× at one worker, 20× at the three others.
    assert_eq!(shown(&book).as_deref(), Some("16.8×"));
    // An analysis that says otherwise is what the answer, the badge and
    // the summary print: they read it by name and draw nothing.
    let n = book.runs[0].analysis.estimates.get_mut(geo).unwrap();
    (n.point, n.lower, n.upper) = (7.0, 6.0, 8.0);
    assert_eq!(shown(&book).as_deref(), Some("7.00×"));
    let verdicts = <FanIn as harness_page::Page>::verdicts(&book).unwrap();
    let fan_3 = verdicts.iter().find(|v| v.claim.id == "FAN-3").unwrap();
    assert_eq!(fan_3.reading.number.as_deref(), Some("7.00×"));
    let blocks = fixtures::render::<FanIn>("summary-list", &book);
    let [Block::Advice(advice)] = blocks.as_slice() else {
        panic!("summary-list is not one advice block: {blocks:?}")
    };
    assert!(advice
        .iter()
        .any(|x| x.claim.as_deref() == Some("FAN-3") && x.evidence.contains("7.00×")));
    // No stored estimate, no sentence: the reader does not draw its own.
    book.runs[0].analysis.estimates.remove(geo);
    assert_eq!(shown(&book), None);
}
