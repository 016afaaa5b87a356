//! The 8 B burst in a minimal reconstruction's shape beside the book's: the
//! smoke run measures and renders it, and LAT-2's "burst shape" row follows
//! the numbers.
use channel_latency::burst_shapes::Shape;
use channel_latency::run::Data;

use super::super::ChannelLatency;
use super::chapter::smoke;
use harness::fixtures;
use harness_core::{Condition, Outcome, Profile, Verdict};
use harness_measure::timing::Timing;
use harness_page::{render::blocks::Block, Page};

/// LAT-2's row for the burst's shape, on this machine.
fn shape_row(verdicts: &[Verdict]) -> Condition {
    let v = verdicts
        .iter()
        .find(|v| v.claim.id == "LAT-2" && v.machine.is_some())
        .expect("a LAT-2 verdict for this machine");
    let rows: Vec<_> = v
        .conditions
        .iter()
        .filter(|c| c.axis == "burst shape")
        .collect();
    assert_eq!(rows.len(), 1, "{:?}", v.conditions);
    rows[0].clone()
}

/// Windows of identical bursts taking `ns` each, as many as the smoke run timed.
fn windows_of(ns: f64, windows: usize, bursts: usize) -> Timing {
    Timing::pooled(
        (0..windows)
            .map(|_| Timing::of_samples(vec![ns; bursts]).unwrap())
            .collect(),
    )
    .unwrap()
}

/// The smoke run with each shape's bursts taking `ns(shape)`, and tokio at
/// 1.2x crossbeam head to head at every size.
fn with_shapes(ns: impl Fn(Shape) -> f64) -> Data {
    let mut d = smoke().data.clone();
    let s = d.shapes.as_mut().expect("the smoke run times the shapes");
    let (w, b) = (s.windows, s.bursts_per_window);
    for t in &mut s.shapes {
        t.timing = windows_of(ns(Shape::from_id(&t.shape).unwrap()), w, b);
    }
    for h in &mut d.head_to_head {
        let n = h.tokio.repeats.len();
        let pairs = h.tokio.repeats[0];
        h.tokio = windows_of(1200.0, n, pairs);
        h.crossbeam = windows_of(1000.0, n, pairs);
    }
    ChannelLatency::check(&d).expect("the fixture is a valid run");
    d
}

#[test]
fn a_smoke_run_times_every_shape_and_the_row_renders() {
    let d = &smoke().data;
    let s = d.shapes.as_ref().expect("the smoke run times the shapes");
    let (windows, bursts) = channel_latency::burst_shapes::rounds(Profile::Smoke);
    assert_eq!((s.windows, s.bursts_per_window), (windows, bursts));
    for shape in Shape::ALL {
        let t = s.of(shape).unwrap();
        let all = (windows * (bursts + 1)) as u64;
        assert_eq!(t.bursts_checked, all, "{shape:?}");
        if shape.counts_messages() {
            assert_eq!(
                t.messages_counted,
                all * 1000,
                "{shape:?}: every message counted"
            );
        }
        let p = t
            .instructions
            .as_ref()
            .expect("callgrind counted the shape");
        assert_eq!(p.name, shape.id());
        assert!(p.per_op > 1000.0, "{shape:?}: {p:?}");
    }
    let book = fixtures::book::<ChannelLatency>(d.clone());
    let blocks = fixtures::render::<ChannelLatency>("burst-shapes", &book);
    let Some(Block::Table(t)) = blocks.first() else {
        panic!("burst-shapes renders a table: {blocks:?}");
    };
    assert_eq!(t.rows.len(), 6);
    if std::env::consts::ARCH != "x86_64" {
        return; // LAT-2 is about x86-64 machines.
    }
    let row = shape_row(&fixtures::verdicts::<ChannelLatency>(d.clone()));
    assert_ne!(row.outcome, Outcome::NotMeasured);
    assert!(row.decides());
    assert!(
        row.figure
            .contains("the book's shape over the minimal one: tokio's time "),
        "{}",
        row.figure
    );
}

#[test]
fn the_row_s_conclusion_follows_the_shapes_numbers() {
    if std::env::consts::ARCH != "x86_64" {
        return;
    }
    let crossbeam = 15_000.0;
    // Both tokio shapes alike: the shape explains nothing, and at 4.67x
    // the minimal shape's ratio is far from "about 1.9x".
    let alike = shape_row(&fixtures::verdicts::<ChannelLatency>(with_shapes(
        |s| match s {
            Shape::TokioMinimal | Shape::TokioBook => 70_000.0,
            _ => crossbeam,
        },
    )));
    assert!(
        alike
            .figure
            .contains("so it does not explain a slower tokio"),
        "{}",
        alike.figure
    );
    assert!(
        alike.figure.contains("tokio's time 1.00×"),
        "{}",
        alike.figure
    );
    assert_eq!(alike.outcome, Outcome::DoesNotHold);
    // The minimal tokio burst much faster than the book's: the shape is the
    // cause, and the minimal shape's ratio (1.9x) is the claim's.
    let apart = shape_row(&fixtures::verdicts::<ChannelLatency>(with_shapes(
        |s| match s {
            Shape::TokioMinimal => 1.9 * crossbeam,
            Shape::TokioBook => 70_000.0,
            _ => crossbeam,
        },
    )));
    assert!(
        apart
            .figure
            .contains("the shape explains tokio's extra time"),
        "{}",
        apart.figure
    );
    assert_eq!(apart.outcome, Outcome::Holds);
    assert_ne!(alike.figure, apart.figure);
}

#[test]
fn a_run_from_before_the_shapes_says_so() {
    let mut old = smoke().data.clone();
    old.shapes = None;
    ChannelLatency::check(&old).expect("a run without the shapes passes its checks");
    let book = fixtures::book::<ChannelLatency>(old.clone());
    let text = format!(
        "{:?}",
        fixtures::render::<ChannelLatency>("burst-shapes", &book)
    );
    assert!(text.contains("not in this run"), "{text}");
    if std::env::consts::ARCH == "x86_64" {
        let row = shape_row(&fixtures::verdicts::<ChannelLatency>(old));
        assert_eq!(row.outcome, Outcome::NotMeasured);
    }
}
