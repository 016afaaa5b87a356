//! What the judge stores and what the page reads back: each map row's
//! ratio named, the verdicts claim by claim with one line per missing
//! architecture, and the check against the schedules the run recorded.
use harness::fixtures;
use harness_core::{Outcome, Profile};
use harness_measure::Experiment;
use harness_page::Page;

use super::super::ChannelLatency;
use super::chapter::smoke;

#[test]
fn the_check_reads_the_recorded_schedules() {
    let data = &smoke().data;
    assert_eq!(
        data.schedules,
        <channel_latency::ChannelLatency as Experiment>::schedules(Profile::Smoke, None),
        "a smoke run records the smoke plan"
    );
    // The head-to-head windows the set-up states must be the record's rounds.
    let mut windows = data.clone();
    windows.sweep.head_to_head_windows += 1;
    let err = format!("{:#}", ChannelLatency::check(&windows).unwrap_err());
    assert!(err.contains("bursts, expected"), "{err}");
    let mut rounds = data.clone();
    rounds.schedules[1].rounds += 1;
    let err = format!("{:#}", ChannelLatency::check(&rounds).unwrap_err());
    assert!(
        err.contains("the head-to-head timing: the schedule records"),
        "{err}"
    );
    // A sweep point's pooled repeats must be the record's timings.
    let mut timings = data.clone();
    let samples = timings.points[0].timing.per_sample_ns.len();
    timings.points[0].timing.repeats = vec![samples / 2, samples - samples / 2];
    let err = format!("{:#}", ChannelLatency::check(&timings).unwrap_err());
    assert!(
        err.contains("2 timings pooled, the recorded schedule gives it 1"),
        "{err}"
    );
    // A record that does not hold together is refused as such.
    let mut record = data.clone();
    record.schedules[0].points[0].timings += 1;
    let err = format!("{:#}", ChannelLatency::check(&record).unwrap_err());
    assert!(err.contains("schedule \"sweep\""), "{err}");
    // The schedules in their order.
    let mut order = data.clone();
    order.schedules.swap(0, 1);
    let err = format!("{:#}", ChannelLatency::check(&order).unwrap_err());
    assert!(err.contains("expected [\"sweep\""), "{err}");
    // A file from before the record passes on its set-ups alone.
    let mut old = data.clone();
    old.schedules.clear();
    ChannelLatency::check(&old).expect("a run without a record passes");
}

#[test]
fn the_judge_names_each_map_row_s_ratio() {
    let analysis = fixtures::judged::<ChannelLatency>(&smoke().data);
    let names: Vec<&String> = analysis.estimates.keys().collect();
    for expected in [
        "A, the seed read as criterion to_async on a multi-thread runtime, 1 KiB: tokio ÷ crossbeam",
        "A, each channel timed alone by criterion (the sweep), 32 KiB: tokio ÷ crossbeam",
        "A at 8 B, minimal shapes: tokio ÷ crossbeam",
    ] {
        if std::env::consts::ARCH != "x86_64" && expected.contains("1 KiB") {
            continue;
        }
        assert!(
            analysis.estimates.contains_key(expected),
            "{expected} not in {names:?}"
        );
    }
    assert!(
        names
            .iter()
            .any(|n| n.starts_with("B ladder, ") && n.ends_with(": tokio ÷ kanal")),
        "{names:?}"
    );
    // Every verdict reads the estimates it names, the headline among them.
    for v in &analysis.verdicts {
        for name in &v.estimates {
            assert!(analysis.estimates.contains_key(name), "{name}");
        }
    }
}

#[test]
fn the_verdicts_go_claim_by_claim_with_one_line_per_missing_architecture() {
    if std::env::consts::ARCH != "x86_64" {
        return; // The order below is an x86-64 machine's alone.
    }
    let v = fixtures::verdicts::<ChannelLatency>(smoke().data.clone());
    let lines: Vec<(&str, bool)> = v
        .iter()
        .map(|v| (v.claim.id, v.machine.is_some()))
        .collect();
    // The run's own verdicts where its architecture decides; LAT-3's
    // open arm64 half and LAT-4 once each, though the run stores LAT-4
    // as not measured too.
    assert_eq!(
        lines,
        [
            ("LAT-1", true),
            ("LAT-2", true),
            ("LAT-3", true),
            ("LAT-3", false),
            ("LAT-4", false),
            ("LAT-5", true),
            ("LAT-6", true),
        ]
    );
    let stored = fixtures::judged::<ChannelLatency>(&smoke().data);
    let lat4 = stored
        .verdicts
        .iter()
        .find(|v| v.claim == "LAT-4")
        .expect("LAT-4 stored");
    assert_eq!(lat4.outcome, Outcome::NotMeasured);
}
