//! The chapter end to end on the smoke profile: measure, check, render every
//! exhibit; and check rejects data that makes no sense.
use std::sync::OnceLock;

use harness::fixtures;
use harness::results::{ResultsFile, Store};
use harness::timing::{Estimate, Timing};
use harness::{Block, Chapter, Lab, Outcome, Profile, Progress};
use mutex_swap::run::{Data, Experiment, MutexSwap};
use mutex_swap::{Design, Wait};

/// One smoke run shared by the tests of this file: the suite's shared smoke
/// run when there is one.
fn smoke() -> Data {
    static RUN: OnceLock<Data> = OnceLock::new();
    RUN.get_or_init(|| match std::env::var_os(fixtures::SMOKE_RESULTS_ENV) {
        Some(root) => {
            fixtures::shared_smoke_run::<MutexSwap>(std::path::Path::new(&root))
                .unwrap_or_else(|e| panic!("{}: {e:#}", fixtures::SMOKE_RESULTS_ENV))
                .data
        }
        None => {
            let lab = Lab::new(Profile::Smoke, Progress::hidden("mutex-swap")).expect("a lab");
            MutexSwap::measure(&lab).expect("smoke profile measures")
        }
    })
    .clone()
}

#[test]
fn smoke_profile_measures_checks_and_renders_every_exhibit() {
    let data = smoke();
    MutexSwap::check(&data).expect("its own smoke results pass check");

    // Every point pools one timing per round, in equal parts, and its
    // consumer record counts the bursts of every round.
    let p = mutex_swap::params(Profile::Smoke);
    assert!(p.repeats >= 2, "smoke should exercise pooling");
    assert_eq!(data.repeats, p.repeats);
    assert!(
        p.decisive_repeats > p.repeats,
        "smoke should exercise the extra rounds"
    );
    assert_eq!(data.decisive_repeats, p.decisive_repeats);
    // FAN-4's points (the swap and one message per lock from 128 producers
    // up, with the Notify consumer and with the published busy-polling one)
    // pool the extra rounds; every other point pools the rest.
    let mut decisive = 0;
    for m in &data.points {
        let fair = m.wait == Wait::Notify
            && matches!(
                (m.experiment, m.design),
                (Experiment::Throughput, Design::StdMutexSwap)
                    | (Experiment::LockHold, Design::StdMutexPopOne)
            );
        let published = m.wait == Wait::BusyPoll
            && m.experiment == Experiment::Wait
            && matches!(m.design, Design::StdMutexSwap | Design::StdMutexPopOne);
        let fan4 =
            m.producers >= 128 && m.work_rounds == mutex_swap::LIGHT_WORK && (fair || published);
        let rounds = if fan4 { p.decisive_repeats } else { p.repeats };
        decisive += usize::from(fan4);
        assert_eq!(m.timing.repeats, vec![p.sampling.samples; rounds], "{m:?}");
        assert_eq!(m.passes.messages, m.passes.bursts * data.messages_per_burst);
        assert!(m.passes.bursts >= (rounds * p.sampling.samples) as u64);
        // The counts are kept round by round too, and add up to the point's.
        assert_eq!(m.rounds.len(), rounds, "{m:?}");
        let merged = m.rounds.iter().fold(
            Default::default(),
            |all: mutex_swap::experiment::Passes, r| all.merge(r),
        );
        assert_eq!(merged, m.passes);
        assert!(m
            .rounds
            .iter()
            .all(|r| r.bursts >= p.sampling.samples as u64));
    }
    let at_scale = |counts: &[u64]| counts.iter().filter(|&&n| n >= 128).count();
    assert!(at_scale(&p.wait_producers) > 0, "smoke has a published row");
    assert_eq!(
        decisive,
        2 * (at_scale(&p.producers) + at_scale(&p.wait_producers)),
        "FAN-4 has a swap and a one-per-lock point at each count from 128 up, in both rows"
    );

    let mut broken = data.clone();
    broken
        .points
        .retain(|m| m.design != mutex_swap::Design::LockFreeStack);
    let err = MutexSwap::check(&broken).unwrap_err().to_string();
    assert!(
        err.contains("lock-free-stack"),
        "check must name the missing design: {err}"
    );

    // A zero time (outside its own interval) is refused as the file is
    // read, before the chapter's checks see it.
    let dir = tempfile::tempdir().unwrap();
    let file = ResultsFile::new(
        MutexSwap::NAME,
        fixtures::provenance(Profile::Smoke),
        data.clone(),
    )
    .unwrap();
    let path = Store::new(dir.path()).write(&file).unwrap();
    harness::cli::check_file::<MutexSwap>(&path).expect("the run's own file reads back");
    let text = std::fs::read_to_string(&path).unwrap();
    let at = text.find("\"point_ns\": ").unwrap() + "\"point_ns\": ".len();
    let end = at + text[at..].find(',').unwrap();
    std::fs::write(&path, format!("{}0.0{}", &text[..at], &text[end..])).unwrap();
    let err = format!(
        "{:#}",
        harness::cli::check_file::<MutexSwap>(&path).unwrap_err()
    );
    assert!(
        err.contains("does not contain its estimate 0"),
        "a zero time must be rejected: {err}"
    );

    let mut broken = data.clone();
    broken.points[0].passes.messages += 1;
    assert!(
        MutexSwap::check(&broken).is_err(),
        "a wrong message count must be rejected"
    );

    let mut broken = data.clone();
    broken.points[0].rounds[1].passes_with_messages += 1;
    let err = MutexSwap::check(&broken).unwrap_err().to_string();
    assert!(err.contains("rounds' counts do not add up"), "{err}");

    let mut broken = data.clone();
    broken.points[0].rounds.pop();
    let err = MutexSwap::check(&broken).unwrap_err().to_string();
    assert!(err.contains("counts for 1 rounds, timings for 2"), "{err}");

    let mut broken = data.clone();
    let dup = broken.points[0].clone();
    broken.points.push(dup);
    assert!(
        MutexSwap::check(&broken).is_err(),
        "a duplicated point must be rejected"
    );

    // Every exhibit renders (the conformance suite, tests/conformance.rs);
    // two have shapes of their own.
    let book = fixtures::book::<MutexSwap>(data);
    // The smoke run records its profiles: drawn, with their table.
    let blocks = fixtures::render::<MutexSwap>("profiles", &book);
    let markdown = harness::render::exhibit_markdown("mutex-swap", "profiles", &book, &blocks);
    let Block::Drawn(fig) = &blocks[0] else {
        panic!("profiles exhibit does not open with its figure: {blocks:?}")
    };
    roxmltree::Document::parse(&fig.svg).expect("the flame graphs are well-formed SVG");
    assert!(matches!(blocks[1], Block::Table(_)), "{blocks:?}");
    assert!(
        markdown.contains("data-blocks=\"figure,table,text\""),
        "{}",
        &markdown[..300]
    );
    let Block::Verdicts(vs) = &fixtures::render::<MutexSwap>("verdicts", &book)[0] else {
        panic!("verdicts exhibit is not a Block::Verdicts")
    };
    assert_eq!(vs.len(), MutexSwap::CLAIMS.len());
    assert!(
        vs.iter().all(|v| v.outcome != Outcome::NotMeasured),
        "{vs:?}"
    );
    let store = Store::new(harness::code_dir().join("results"));
    let err = harness::cli::render_exhibit::<MutexSwap>("no-such-exhibit", &store)
        .unwrap_err()
        .to_string();
    assert!(err.contains("unknown exhibit"), "{err}");
}

/// The headline is FAN-4's (that every estimate is finite, inside its
/// interval, is the conformance suite's).
#[test]
fn the_headline_is_fan_4s() {
    let headline = MutexSwap::headline(&smoke());
    assert!(!headline.is_empty(), "a smoke run has headline estimates");
    for (name, e) in &headline {
        assert!(name.starts_with("FAN-4"), "{name}");
        assert!(e.lower_ns > 0.0, "{name}: {e:?}");
    }
}

/// Replaces a timing's mean and its samples, keeping its number of rounds:
/// in each round, half the samples at each end of the interval, so the
/// samples' mean is the point and ratios bootstrapped from them have
/// intervals of the same order.
fn set_mean(t: &mut Timing, mean: Estimate) {
    let rounds = t.repeats.len().max(1);
    t.mean = mean;
    t.per_sample_ns = [[mean.lower_ns; 5], [mean.upper_ns; 5]]
        .concat()
        .repeat(rounds);
    t.samples = t.per_sample_ns.len();
    t.repeats = vec![10; rounds];
}

/// The smoke run with every FAN-4 point from 128 producers up rewritten, in
/// every row of the map (each consumer): the swap takes 1 µs ± 5 % and
/// batches 20 messages per pass in every round; one per lock takes `pop_one`.
fn fan4_with(pop_one: Estimate) -> (Data, Outcome, String) {
    fan4_batching(pop_one, &[20])
}

/// As `fan4_with`, with round `i` of the swap's points batching
/// `batches[i % batches.len()]` messages per pass, each burst's largest pass
/// included (when empty, the swap's points keep one round only, batching 20).
fn fan4_batching(pop_one: Estimate, batches: &[u64]) -> (Data, Outcome, String) {
    fan4_first_pass(pop_one, batches, 0)
}

/// As `fan4_batching`, with each burst's largest pass moving `first` of the
/// burst's messages and the rest moved `batches[i]` at a time (`first` 0:
/// the largest pass is one batch like the others).
fn fan4_first_pass(pop_one: Estimate, batches: &[u64], first: u64) -> (Data, Outcome, String) {
    let mut data = smoke();
    for m in data.points.iter_mut().filter(|m| m.producers >= 128) {
        match (m.experiment, m.design) {
            (Experiment::Throughput | Experiment::Wait, Design::StdMutexSwap) => {
                let batches = if batches.is_empty() {
                    m.rounds.truncate(1);
                    m.timing.repeats.truncate(1);
                    &[20]
                } else {
                    batches
                };
                set_mean(&mut m.timing, Estimate::around(1000.0, 0.05));
                // Every round the same size, so the pooled batch follows
                // from `batches` alone (criterion runs rounds of different
                // lengths, which would weigh them unevenly).
                let (bursts, messages) = (m.rounds[0].bursts, m.rounds[0].messages);
                for (i, r) in m.rounds.iter_mut().enumerate() {
                    let batch = batches[i % batches.len()];
                    let largest = if first == 0 { batch } else { first };
                    r.bursts = bursts;
                    r.messages = messages;
                    r.largest_batches = bursts * largest;
                    r.max_batch = largest;
                    r.passes_with_messages = bursts + (messages - bursts * largest) / batch;
                }
                m.passes = m.rounds.iter().fold(
                    Default::default(),
                    |all: mutex_swap::experiment::Passes, r| all.merge(r),
                );
            }
            (Experiment::LockHold | Experiment::Wait, Design::StdMutexPopOne) => {
                set_mean(&mut m.timing, pop_one)
            }
            _ => {}
        }
    }
    let vs = fixtures::verdicts::<MutexSwap>(data.clone());
    assert_eq!(vs.len(), 1, "{vs:?}");
    (data, vs[0].outcome, vs[0].evidence.clone())
}

#[test]
fn a_ratio_interval_straddling_the_minimum_effect_gives_inconclusive() {
    // 1.2× ± about 7 %: the interval straddles the rule's line of 1.2.
    let (data, outcome, evidence) = fan4_with(Estimate::around(1200.0, 0.05));
    assert_eq!(outcome, Outcome::Inconclusive, "{evidence}");
    assert!(
        evidence.contains('[') && evidence.contains('–'),
        "{evidence}"
    );
    let headline = MutexSwap::headline(&data);
    assert!(
        headline
            .iter()
            .all(|(_, r)| r.lower_ns < 1.2 && r.upper_ns > 1.2),
        "{headline:?}"
    );

    let (_, outcome, evidence) = fan4_with(Estimate::around(2000.0, 0.01));
    assert_eq!(outcome, Outcome::Holds, "{evidence}");
    let (_, outcome, evidence) = fan4_with(Estimate::around(500.0, 0.01));
    assert_eq!(outcome, Outcome::DoesNotHold, "{evidence}");
    // One message per lock clearly slower, but by less than the minimum
    // effect: batching is not shown to be why the swap wins.
    let (_, outcome, evidence) = fan4_with(Estimate::around(1080.0, 0.01));
    assert_eq!(outcome, Outcome::DoesNotHold, "{evidence}");
}

#[test]
fn the_map_names_the_consumer_under_which_the_claim_fails() {
    let (mut data, outcome, _) = fan4_with(Estimate::around(2000.0, 0.01));
    assert_eq!(outcome, Outcome::Holds);
    // The published busy-polling consumer: one per lock as fast as the swap.
    for m in data.points.iter_mut().filter(|m| {
        m.producers >= 128
            && m.experiment == Experiment::Wait
            && m.wait == Wait::BusyPoll
            && m.design == Design::StdMutexPopOne
    }) {
        set_mean(&mut m.timing, Estimate::around(1000.0, 0.01));
    }
    let vs = fixtures::verdicts::<MutexSwap>(data);
    let v = &vs[0];
    assert_eq!(v.outcome, Outcome::Depends, "{v:?}");
    assert_eq!(
        v.headline(),
        "holds except when busy-polling consumer",
        "{v:?}"
    );
    let settings: Vec<(&str, bool, bool)> = v
        .conditions
        .iter()
        .map(|c| (c.setting.as_str(), c.fair, c.as_published))
        .collect();
    assert_eq!(
        settings,
        [
            ("Notify consumer", true, false),
            ("busy-polling consumer", false, true),
            ("yield_now consumer", false, false),
            ("median burst time instead of the mean", false, false),
            ("every pass counted", false, false),
        ]
    );
    // The evidence is the fair row's.
    assert_eq!(v.evidence, v.conditions[0].figure);
}

#[test]
fn a_batch_is_judged_by_its_interval_over_the_rounds() {
    let faster = Estimate::around(2000.0, 0.01);
    // Every round clear of 10: holds, and the evidence gives the interval.
    let (_, outcome, evidence) = fan4_batching(faster, &[20, 24, 16]);
    assert_eq!(outcome, Outcome::Holds, "{evidence}");
    assert!(evidence.contains("messages per pass"), "{evidence}");
    // Every round below 10: does not hold, however fast the swap is.
    let (_, outcome, evidence) = fan4_batching(faster, &[4, 5, 6]);
    assert_eq!(outcome, Outcome::DoesNotHold, "{evidence}");
    // Rounds on both sides of 10, the pooled point above it: the interval
    // straddles 10, so the run cannot tell, and says so.
    let (data, outcome, evidence) = fan4_batching(faster, &[8, 40, 9]);
    assert_eq!(outcome, Outcome::Inconclusive, "{evidence}");
    let swap = data
        .points
        .iter()
        .find(|m| {
            m.producers >= 128
                && m.experiment == Experiment::Throughput
                && m.design == Design::StdMutexSwap
        })
        .unwrap();
    assert!(swap.passes.messages_per_pass() > 10.0, "{:?}", swap.passes);
    let batch = swap.batch().unwrap();
    assert!(batch.lower_ns < 10.0 && batch.upper_ns >= 10.0, "{batch:?}");
    // Below 10 but within the minimum effect of it (above 8): a batch that
    // moves between runs by more than that decides nothing.
    let (_, outcome, evidence) = fan4_batching(faster, &[9, 9, 9]);
    assert_eq!(outcome, Outcome::Inconclusive, "{evidence}");
    // A single round has no spread to draw an interval from: no decision.
    let (_, outcome, evidence) = fan4_batching(faster, &[]);
    assert_eq!(outcome, Outcome::Inconclusive, "{evidence}");
    assert!(evidence.contains("one round: no interval"), "{evidence}");
}

#[test]
fn a_burst_whose_first_pass_takes_half_of_it_batches_many_only_when_every_pass_counts() {
    let faster = Estimate::around(2000.0, 0.01);
    let (data, _, _) = fan4_batching(faster, &[6]);
    let half = data.messages_per_burst / 2;
    // The consumer waits out half the burst for a core, then moves 6
    // messages per pass: the mean over every pass is about 12, the steady
    // batch 6.
    let (data, outcome, evidence) = fan4_first_pass(faster, &[6, 6, 6], half);
    let swap = data
        .points
        .iter()
        .find(|m| m.producers >= 128 && m.design == Design::StdMutexSwap)
        .unwrap();
    assert!(swap.batch().unwrap().lower_ns > 10.0, "{:?}", swap.passes);
    let steady = swap.steady_batch().unwrap();
    assert!((steady.point_ns - 6.0).abs() < 0.01, "{steady:?}");
    assert_eq!(outcome, Outcome::Depends, "{evidence}");
    let vs = fixtures::verdicts::<MutexSwap>(data);
    let v = &vs[0];
    assert_eq!(v.headline(), "holds only when every pass counted", "{v:?}");
    let every = v.conditions.iter().find(|c| c.axis == "batch").unwrap();
    assert!(every.figure.contains("(every pass)"), "{}", every.figure);
    assert_eq!(every.outcome, Outcome::Holds, "{every:?}");
    assert_eq!(v.conditions[0].outcome, Outcome::DoesNotHold, "{v:?}");
}
