//! The chapter end to end: a smoke run passes its own checks and renders every
//! exhibit; damaged or foreign results files are rejected with a clear reason
//! (what `scripts/import` relies on).
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use channel_latency::run::Data;

use super::super::{ChannelLatency, Reads};
use harness::cli::{check_file, render_exhibit};
use harness::fixtures;
use harness_core::results::{ResultsFile, Store};
use harness_core::{Outcome, Profile, Unit, Verdict};
use harness_measure::Progress;
use harness_page::load::measure_checked;
use harness_page::{render::blocks::Block, render::blocks::Cell, Page};

pub(super) fn smoke() -> &'static ResultsFile<Data> {
    static RUN: OnceLock<ResultsFile<Data>> = OnceLock::new();
    // Read from the suite's shared smoke run when there is one.
    RUN.get_or_init(|| {
        fixtures::smoke_run::<ChannelLatency>(|| {
            Ok(measure_checked::<ChannelLatency>(
                Profile::Smoke,
                Progress::hidden("channel-latency"),
            )?
            .0)
        })
    })
}

/// Where a results file of this machine must lie in `dir`: named after the machine.
fn file_in(dir: &Path) -> PathBuf {
    dir.join(format!("{}.json", smoke().provenance.machine.id))
}

fn published_dir() -> PathBuf {
    harness_core::code_dir().join("results/channel-latency")
}

/// A results folder holding the published datasets and the given files.
fn store_with(files: &[&ResultsFile<Data>]) -> (tempfile::TempDir, Store) {
    let dir = tempfile::tempdir().unwrap();
    let chapter = dir.path().join("channel-latency");
    std::fs::create_dir_all(&chapter).unwrap();
    for name in ["published-payload.json", "published-backpressure.json"] {
        std::fs::copy(published_dir().join(name), chapter.join(name)).unwrap();
    }
    let store = Store::new(dir.path());
    for f in files {
        store.write(*f).unwrap();
    }
    (dir, store)
}

#[test]
fn a_smoke_run_checks_and_renders_every_exhibit() {
    let run = smoke();
    ChannelLatency::check(&run.data).expect("a fresh run passes the chapter's checks");
    // Every exhibit renders and every claim has its verdict: the
    // conformance suite (tests/conformance.rs).
    let (_dir, store) = store_with(&[run]);
    let verdicts = render_exhibit::<ChannelLatency>("verdicts", &store).unwrap();
    // No arm64 file here: LAT-4 must say so rather than guess.
    if std::env::consts::ARCH != "aarch64" {
        assert!(verdicts.contains("data-claim-map=\"LAT-4\">not measured on these machines"));
    }
}

#[test]
fn a_second_machine_gets_its_own_line_and_lat4_is_decided_on_arm64() {
    let mut arm = smoke().clone();
    arm.provenance.machine.id = "aarch64-test-runner-4c".into();
    arm.provenance.machine.arch = "aarch64".into();
    let (_dir, store) = store_with(&[smoke(), &arm]);
    let fig = render_exhibit::<ChannelLatency>("ratio-figure", &store).unwrap();
    assert!(
        fig.contains("aarch64-test-runner-4c (aarch64)"),
        "no line for the imported machine"
    );
    let verdicts = render_exhibit::<ChannelLatency>("verdicts", &store).unwrap();
    let lat4 = verdicts
        .lines()
        .find(|l| l.contains("data-claim=\"LAT-4\""))
        .expect("a LAT-4 row");
    assert!(lat4.contains("aarch64-test-runner-4c"), "{lat4}");
    assert!(!lat4.contains("not measured"), "{lat4}");
}

/// Writes `file` (after `damage`) and returns the import check's error.
fn rejection(damage: impl FnOnce(&mut serde_json::Value)) -> String {
    let dir = tempfile::tempdir().unwrap();
    let path = file_in(dir.path());
    let mut value = serde_json::to_value(smoke()).unwrap();
    damage(&mut value);
    std::fs::write(&path, serde_json::to_vec(&value).unwrap()).unwrap();
    match check_file::<ChannelLatency>(&path) {
        Ok(_) => panic!("a damaged file passed the check"),
        Err(e) => format!("{e:#}"),
    }
}

#[test]
fn a_good_file_from_another_machine_passes_the_import_check() {
    let dir = tempfile::tempdir().unwrap();
    let path = file_in(dir.path());
    std::fs::write(&path, serde_json::to_vec_pretty(smoke()).unwrap()).unwrap();
    let file = check_file::<ChannelLatency>(&path).expect("a genuine results file passes");
    assert_eq!(file.chapter, "channel-latency");
}

/// One way to spoil a results file.
type Damage = dyn FnOnce(&mut serde_json::Value);

#[test]
fn damaged_files_are_rejected_with_the_reason() {
    let cases: Vec<(&str, Box<Damage>)> = vec![
        ("fan-in", Box::new(|v| v["chapter"] = "fan-in".into())),
        (
            "schema",
            Box::new(|v| v["schema"] = "something-else".into()),
        ),
        (
            "machine id \"\" must be",
            Box::new(|v| v["provenance"]["machine"]["id"] = "".into()),
        ),
        (
            "does not contain its estimate 0",
            Box::new(|v| v["data"]["points"][0]["timing"]["mean"]["point_ns"] = 0.0.into()),
        ),
        (
            "data.points[3].timing.mean.lower_ns = -6.0: a duration in nanoseconds",
            Box::new(|v| {
                let m = &mut v["data"]["points"][3]["timing"]["mean"];
                m["point_ns"] = (-5.0).into();
                m["lower_ns"] = (-6.0).into();
            }),
        ),
        (
            "does not contain its estimate",
            Box::new(|v| v["data"]["points"][1]["timing"]["mean"]["upper_ns"] = 1.0.into()),
        ),
        (
            "experiment A has no point (\"tokio\", \"array\", 8)",
            Box::new(|v| {
                v["data"]["points"].as_array_mut().unwrap().remove(0);
            }),
        ),
        (
            "unknown variant",
            Box::new(|v| v["data"]["points"][0]["variant"] = "flume".into()),
        ),
        (
            "appears twice",
            Box::new(|v| {
                let first = v["data"]["points"][0].clone();
                v["data"]["points"][1] = first;
            }),
        ),
        (
            "memcpy",
            Box::new(|v| {
                v["data"]["memcpy"].as_array_mut().unwrap().pop();
            }),
        ),
        (
            "received",
            Box::new(|v| v["data"]["runs"][0]["received"] = 7.into()),
        ),
        (
            "not in order",
            Box::new(|v| v["data"]["runs"][2]["before_send"]["p99_ns"] = 0.into()),
        ),
        (
            "experiment B has",
            Box::new(|v| {
                v["data"]["runs"].as_array_mut().unwrap().pop();
            }),
        ),
        (
            "payload sizes",
            Box::new(|v| v["data"]["sweep"]["sizes"][7] = 65536.into()),
        ),
        (
            "polls",
            Box::new(|v| v["data"]["points"][0]["polls_per_burst"] = serde_json::Value::Null),
        ),
        (
            "head-to-head points, expected 8",
            Box::new(|v| {
                v["data"]["head_to_head"].as_array_mut().unwrap().pop();
            }),
        ),
        (
            // A window dropped with its samples, and the timing's count,
            // mean and median made those of what is left: the file holds
            // together, so the chapter's own check is what refuses it.
            "tokio has windows of",
            Box::new(|v| {
                let t = &mut v["data"]["head_to_head"][2]["tokio"];
                t["repeats"].as_array_mut().unwrap().pop();
                t["per_sample_ns"].as_array_mut().unwrap().truncate(3 * 64);
                let mut xs: Vec<f64> = t["per_sample_ns"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|x| x.as_f64().unwrap())
                    .collect();
                xs.sort_by(f64::total_cmp);
                let mean = xs.iter().sum::<f64>() / xs.len() as f64;
                let median = (xs[xs.len() / 2 - 1] + xs[xs.len() / 2]) / 2.0;
                t["samples"] = xs.len().into();
                for (name, point) in [("mean", mean), ("median", median)] {
                    let e = &mut t[name];
                    e["point_ns"] = point.into();
                    e["lower_ns"] = point.into();
                    e["upper_ns"] = point.into();
                }
            }),
        ),
        (
            "bursts checked, expected",
            Box::new(|v| v["data"]["head_to_head"][0]["bursts_checked"] = 3.into()),
        ),
        (
            "setup records no windows",
            Box::new(|v| v["data"]["sweep"]["head_to_head_windows"] = 0.into()),
        ),
        (
            "missing field `head_to_head`",
            Box::new(|v| {
                v["data"].as_object_mut().unwrap().remove("head_to_head");
            }),
        ),
        (
            "missing field `repeats`",
            Box::new(|v| {
                v["data"]["sweep"]
                    .as_object_mut()
                    .unwrap()
                    .remove("repeats");
            }),
        ),
        (
            "experiment B ladder, published",
            Box::new(|v| v["data"]["ladder"][0]["run"]["received"] = 7.into()),
        ),
        (
            "messages counted of",
            Box::new(|v| v["data"]["ladder"][0]["counted_at_end"] = 0.into()),
        ),
        (
            "experiment B's ladder has",
            Box::new(|v| {
                v["data"]["ladder"].as_array_mut().unwrap().pop();
            }),
        ),
        (
            "experiment A's other ways have",
            Box::new(|v| {
                v["data"]["methods"].as_array_mut().unwrap().pop();
            }),
        ),
        (
            // The repeats no longer add up to the samples: refused as the
            // file is read, before the chapter's own check.
            "repeats add up to",
            Box::new(|v| {
                let t = &mut v["data"]["methods"][0]["tokio"];
                t["repeats"].as_array_mut().unwrap().pop();
            }),
        ),
        (
            "unknown case",
            Box::new(|v| v["data"]["instructions"][0]["name"] = "flume-8".into()),
        ),
        (
            "do not make a count per burst",
            Box::new(|v| v["data"]["instructions"][0]["large"] = 0.into()),
        ),
        ("layout", Box::new(|v| v["data"] = "junk".into())),
    ];
    for (expected, damage) in cases {
        let err = rejection(damage);
        assert!(
            err.contains(expected),
            "expected the error to mention {expected:?}, got: {err}"
        );
    }
    let dir = tempfile::tempdir().unwrap();
    let junk = dir.path().join("junk.json");
    std::fs::write(&junk, "not json at all").unwrap();
    let err = format!("{:#}", check_file::<ChannelLatency>(&junk).unwrap_err());
    assert!(err.contains("not valid JSON"), "{err}");
}

#[test]
fn repeats_of_a_point_pool_into_one_and_mismatches_are_refused() {
    use channel_latency::sweep::{MemcpyPoint, Point};
    let data = &smoke().data;
    assert_eq!(
        data.sweep.repeats,
        channel_latency::sweep_repeats(Profile::Smoke)
    );
    let one = data.points[0].clone();
    // Smoke runs measure once: each point is a single repeat or a pool of one.
    assert!(one.timing.repeats.len() <= 1, "{:?}", one.timing.repeats);
    let single = Point {
        timing: harness_measure::timing::Timing {
            repeats: Vec::new(),
            ..one.timing.clone()
        },
        ..one.clone()
    };
    let mut other = single.clone();
    other.timing.per_sample_ns = vec![1.0; 12];
    other.timing.samples = 12;
    other.bursts_checked = 5;
    let pooled = Point::pooled(vec![single.clone(), other.clone()]).unwrap();
    let n = single.timing.per_sample_ns.len();
    assert_eq!(pooled.timing.repeats, vec![n, 12]);
    assert_eq!(pooled.timing.per_sample_ns.len(), n + 12);
    assert_eq!(pooled.bursts_checked, single.bursts_checked + 5);
    assert_eq!(
        (pooled.variant.as_str(), pooled.bytes),
        (one.variant.as_str(), one.bytes)
    );

    let mut foreign = other.clone();
    foreign.bytes *= 2;
    let err = Point::pooled(vec![single.clone(), foreign]).unwrap_err();
    assert!(err.to_string().contains("different points"), "{err}");
    assert!(Point::pooled(Vec::new()).is_err());

    let floor = MemcpyPoint {
        bytes: 8,
        timing: single.timing.clone(),
    };
    let mut wide = floor.clone();
    wide.bytes = 64;
    assert!(MemcpyPoint::pooled(vec![floor.clone(), wide]).is_err());
    let pooled = MemcpyPoint::pooled(vec![floor.clone(), floor]).unwrap();
    assert_eq!(pooled.timing.repeats, vec![n, n]);
}

/// A head-to-head timing whose windows take these times, every burst of a
/// window the same.
fn windows_of(times: &[f64]) -> harness_measure::timing::Timing {
    let pairs = channel_latency::head_to_head::PAIRS;
    harness_measure::timing::Timing::pooled(
        times
            .iter()
            .map(|&ns| harness_measure::timing::Timing::of_samples(vec![ns; pairs]).unwrap())
            .collect(),
    )
    .unwrap()
}

/// The verdicts for a smoke run whose head-to-head windows at each size have
/// tokio take `tokio_at(bytes)` (one time per window; crossbeam takes 1000 ns
/// everywhere).
fn verdicts_with(tokio_at: impl Fn(usize) -> Vec<f64>) -> Vec<Verdict> {
    let mut data = smoke().data.clone();
    for h in &mut data.head_to_head {
        let tokio = tokio_at(h.bytes);
        h.crossbeam = windows_of(&vec![1000.0; tokio.len()]);
        h.tokio = windows_of(&tokio);
    }
    fixtures::verdicts::<ChannelLatency>(data)
}

/// This machine's verdict on `claim`.
fn verdict<'a>(verdicts: &'a [Verdict], claim: &str) -> &'a Verdict {
    verdicts
        .iter()
        .find(|v| v.claim.id == claim && v.machine.is_some())
        .unwrap_or_else(|| panic!("no {claim} verdict in {verdicts:?}"))
}

/// The outcome of the fair row of this machine's map for `claim`; and the
/// headline, which must be what the rows give.
fn fair_outcome(verdicts: &[Verdict], claim: &str) -> Outcome {
    let v = verdict(verdicts, claim);
    assert_eq!(
        v.outcome,
        harness_core::claims::headline(&v.conditions).0,
        "{claim}: the headline is derived from the map"
    );
    let fair: Vec<_> = v.conditions.iter().filter(|c| c.fair).collect();
    assert_eq!(fair.len(), 1, "{claim}: one fair row");
    assert!(v.conditions[0].fair, "{claim}: the fair row leads the map");
    fair[0].outcome
}

#[test]
fn a_row_holds_only_when_its_whole_interval_clears_the_minimum_effect() {
    if std::env::consts::ARCH != "x86_64" {
        return; // LAT-1 and LAT-2 are about x86-64 machines.
    }
    let windows = channel_latency::head_to_head_windows(Profile::Smoke);
    let same = |ns: f64| vec![ns; windows];
    // Windows that disagree around `m`, so the interval is wide.
    let spread = |m: f64, step: f64| -> Vec<f64> {
        (0..windows)
            .map(|i| m + step * (2.0 * i as f64 / (windows - 1) as f64 - 1.0))
            .collect()
    };

    // 8 B the largest ratio, about 1.9x; 64 B 10 % below it (a tie within
    // the minimum effect of 20 % still counts as largest); 1 KiB and 4 KiB
    // exactly 1.
    let v = verdicts_with(|b| match b {
        8 => same(1900.0),
        64 => same(1710.0),
        1024 | 4096 => same(1000.0),
        32768 => same(1300.0),
        _ => same(1500.0),
    });
    assert_eq!(fair_outcome(&v, "LAT-2"), Outcome::Holds);
    assert_eq!(fair_outcome(&v, "LAT-1"), Outcome::Holds);
    assert_eq!(fair_outcome(&v, "LAT-3"), Outcome::Holds);
    let lat1 = verdict(&v, "LAT-1");
    assert_eq!(
        lat1.evidence,
        "fair experiment: 1.00× [1.00 – 1.00] at 1 KiB, 1.00× [1.00 – 1.00] at 4 KiB"
    );
    // 64 B a little above 8 B: still a tie.
    let v = verdicts_with(|b| match b {
        8 => same(1900.0),
        64 => same(2090.0),
        _ => same(1000.0),
    });
    assert_eq!(fair_outcome(&v, "LAT-2"), Outcome::Holds);
    // 8 B the largest by far, but twice the published size: the order
    // holds, the "about 1.9x" does not.
    let v = verdicts_with(|b| match b {
        8 => same(4000.0),
        64 => same(3700.0),
        _ => same(1000.0),
    });
    assert_eq!(fair_outcome(&v, "LAT-2"), Outcome::DoesNotHold);

    // Intervals that straddle each rule's line.
    let v = verdicts_with(|b| match b {
        8 => same(1900.0),
        64 => spread(2090.0, 400.0),
        1024 => spread(1000.0, 300.0),
        32768 => spread(1300.0, 400.0),
        _ => same(1000.0),
    });
    assert_eq!(fair_outcome(&v, "LAT-2"), Outcome::Inconclusive);
    assert_eq!(fair_outcome(&v, "LAT-1"), Outcome::Inconclusive);
    assert_eq!(fair_outcome(&v, "LAT-3"), Outcome::Inconclusive);
    // 8 B straddling the band's upper end.
    let v = verdicts_with(|b| match b {
        8 => spread(2280.0, 300.0),
        _ => same(1000.0),
    });
    assert_eq!(fair_outcome(&v, "LAT-2"), Outcome::Inconclusive);

    // 64 B a third above 8 B; 1 KiB half again; 32 KiB twice 1.3.
    let v = verdicts_with(|b| match b {
        8 => same(1900.0),
        64 => same(2530.0),
        1024 => same(1500.0),
        32768 => same(2600.0),
        _ => same(1000.0),
    });
    assert_eq!(fair_outcome(&v, "LAT-2"), Outcome::DoesNotHold);
    assert_eq!(fair_outcome(&v, "LAT-1"), Outcome::DoesNotHold);
    assert_eq!(fair_outcome(&v, "LAT-3"), Outcome::DoesNotHold);
}

#[test]
fn every_timing_claim_has_a_map_with_an_as_published_row_and_a_sensitivity_axis() {
    let v = fixtures::verdicts::<ChannelLatency>(smoke().data.clone());
    for claim in ["LAT-1", "LAT-2", "LAT-3", "LAT-5", "LAT-6"] {
        if claim != "LAT-3"
            && claim != "LAT-5"
            && claim != "LAT-6"
            && std::env::consts::ARCH != "x86_64"
        {
            continue;
        }
        let v = verdict(&v, claim);
        assert!(v.conditions.iter().any(|c| c.as_published), "{claim}");
        assert!(v.conditions.iter().any(|c| c.fair), "{claim}");
        let axes: std::collections::BTreeSet<&str> =
            v.conditions.iter().map(|c| c.axis.as_str()).collect();
        assert!(axes.len() >= 3, "{claim}: axes {axes:?}");
        // A fresh run measured every row.
        assert!(
            v.conditions
                .iter()
                .all(|c| c.outcome != Outcome::NotMeasured),
            "{claim}: {:?}",
            v.conditions
        );
    }
}

#[test]
fn a_run_from_before_the_maps_still_renders_and_says_what_it_lacks() {
    let mut old = smoke().data.clone();
    old.methods.clear();
    old.methods_setup = None;
    old.instructions.clear();
    old.ladder.clear();
    old.ladder_setup = None;
    old.profiles.clear();
    ChannelLatency::check(&old).expect("a run without the new experiments passes its checks");
    let book = fixtures::book::<ChannelLatency>(old.clone());
    for e in ChannelLatency::EXHIBITS {
        fixtures::render::<ChannelLatency>(e.name, &book);
    }
    let text = |name: &str| format!("{:?}", fixtures::render::<ChannelLatency>(name, &book));
    for name in [
        "seed-ladder",
        "instructions",
        "backpressure-ladder",
        "page-faults",
    ] {
        assert!(
            text(name).contains("not in this run: re-measure with scripts/fresh channel-latency"),
            "{name}"
        );
    }
    let v = fixtures::verdicts::<ChannelLatency>(old);
    let lat5 = verdict(&v, "LAT-5");
    // Without the ladder every row that could decide is unmeasured (the
    // settings are read from the ladder's fair step); the long run, with no
    // interval, is shown and leaves the claim inconclusive.
    assert!(lat5
        .conditions
        .iter()
        .filter(|c| c.decides())
        .all(|c| c.outcome == Outcome::NotMeasured));
    assert_eq!(lat5.outcome, Outcome::Inconclusive);
    for id in ["LAT-5", "LAT-6"] {
        let long: Vec<_> = verdict(&v, id)
            .conditions
            .iter()
            .filter(|c| c.axis == "messages per run")
            .collect();
        assert_eq!(long.len(), 1, "{id}");
        assert_eq!(
            long[0].not_deciding.as_deref(),
            Some("one run per setting, no interval"),
            "{id}: a figure with no interval never decides"
        );
    }
    if std::env::consts::ARCH == "x86_64" {
        let lat1 = verdict(&v, "LAT-1");
        assert!(lat1
            .conditions
            .iter()
            .any(|c| c.as_published && c.outcome == Outcome::NotMeasured));
        assert_ne!(
            lat1.outcome,
            Outcome::NotMeasured,
            "the fair row still decides"
        );
    }
}

#[test]
fn the_verdicts_rest_on_the_head_to_head_ratio() {
    let data = &smoke().data;
    assert_eq!(
        data.sweep.head_to_head_windows,
        channel_latency::head_to_head_windows(Profile::Smoke)
    );
    assert_eq!(
        data.sweep.head_to_head_pairs,
        channel_latency::head_to_head::PAIRS
    );
    for h in &data.head_to_head {
        // Every window's bursts, timed and untimed, of both channels.
        let per_window = 2 * (channel_latency::head_to_head::PAIRS as u64 + 1);
        assert_eq!(
            h.bursts_checked,
            per_window * data.sweep.head_to_head_windows as u64
        );
        let headline = data.tokio_over_crossbeam(h.bytes).unwrap();
        let paired = harness_measure::stats::paired_ratio(
            &h.tokio,
            &h.crossbeam,
            harness_measure::stats::Statistic::Median,
        )
        .unwrap();
        assert_eq!(headline, paired, "at {} B", h.bytes);
    }
    // The headline is the head-to-head ratio at every size, named as
    // precision and `harness compare` read it.
    let analysis = fixtures::judged::<ChannelLatency>(data);
    let headline = analysis.headline_estimates().unwrap();
    assert_eq!(headline.len(), channel_latency::PAYLOAD_SIZES.len());
    assert_eq!(headline[0].0, "tokio mpsc ÷ crossbeam-channel, 8 B");
    assert_eq!(headline[0].1, data.tokio_over_crossbeam(8).unwrap());
    assert_eq!(headline[7].0, "tokio mpsc ÷ crossbeam-channel, 32 KiB");

    // A run without head-to-head points is refused, not read another way.
    let mut without = data.clone();
    without.head_to_head.clear();
    let err = ChannelLatency::check(&without).unwrap_err().to_string();
    assert!(err.contains("0 head-to-head points, expected 8"), "{err}");
    assert!(without.tokio_over_crossbeam(8).is_err());

    // The table says which ratio each column shows, as typed ratios.
    let book = fixtures::book::<ChannelLatency>(data.clone());
    let blocks = fixtures::render::<ChannelLatency>("ratio-table", &book);
    let Some(Block::Table(t)) = blocks.first() else {
        panic!("ratio-table renders a table: {blocks:?}");
    };
    let ends = |suffix: &str| t.header.iter().filter(|h| h.ends_with(suffix)).count();
    assert_eq!(ends(", head to head"), 1, "{:?}", t.header);
    assert_eq!(ends(", timed alone"), 1, "{:?}", t.header);
    for (row, bytes) in t.rows.iter().zip(channel_latency::PAYLOAD_SIZES) {
        assert_eq!(
            row[3],
            Cell::Estimate(data.tokio_over_crossbeam(bytes).unwrap(), Unit::Ratio)
        );
        assert_eq!(
            row[4],
            Cell::Estimate(
                data.alone_ratio(channel_latency::Carry::Array, bytes)
                    .unwrap(),
                Unit::Ratio
            )
        );
    }
}

/// What the summary list picks for the situation whose words contain
/// `situation`: the text after the situation, up to the reasons.
fn picked(md: &str, situation: &str) -> Option<String> {
    let line = md.lines().find(|l| l.contains(situation))?;
    let after = line.split("</strong>: ").nth(1)?;
    Some(after.split(". The lowest").next()?.to_string())
}

#[test]
fn what_to_use_picks_follow_the_results() {
    use channel_latency::{Carry, Variant};
    let run = smoke();
    let situation = "async end (<code>.await</code> on either side), tiny messages (8 B by value)";
    let (_dir, store) = store_with(&[run]);
    let before = render_exhibit::<ChannelLatency>("summary-list", &store).unwrap();
    // The async ends at 8 B, fastest first, as the sweep measured them.
    let mut ranked: Vec<(Variant, f64)> = [
        Variant::TokioMpsc,
        Variant::KanalAsync,
        Variant::FlumeAsync,
        Variant::AsyncChannel,
    ]
    .into_iter()
    .map(|v| (v, run.data.median(v, Carry::Array, 8).unwrap().point_ns))
    .collect();
    ranked.sort_by(|a, b| a.1.total_cmp(&b.1));
    let (best, next) = (ranked[0].0, ranked[1].0);
    assert_eq!(
        picked(&before, situation).as_deref(),
        Some(best.label()),
        "{before}"
    );
    // Swap the two fastest channels' numbers: the pick must follow them.
    let mut data = run.data.clone();
    let at = |d: &Data, v: Variant| {
        d.points
            .iter()
            .position(|p| p.variant == v.id() && p.carry == "array" && p.bytes == 8)
            .unwrap()
    };
    let (i, j) = (at(&data, best), at(&data, next));
    let (a, b) = (data.points[i].clone(), data.points[j].clone());
    data.points[i].timing = b.timing;
    data.points[i].bursts_checked = b.bursts_checked;
    data.points[j].timing = a.timing;
    data.points[j].bursts_checked = a.bursts_checked;
    let swapped =
        ResultsFile::new("channel-latency", run.provenance.clone(), data).expect("sealed");
    let (_dir, store) = store_with(&[&swapped]);
    let after = render_exhibit::<ChannelLatency>("summary-list", &store).unwrap();
    assert_eq!(
        picked(&after, situation).as_deref(),
        Some(next.label()),
        "{after}"
    );
    // The picks are comparisons: none names a claim.
    let line = after.lines().find(|l| l.contains(situation)).unwrap();
    assert!(!line.contains("the verdict on"), "{line}");
}
