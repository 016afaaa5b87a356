//! The chapter end to end at the smoke profile: measure, check, judge,
//! render every exhibit; `check` refuses results that make no sense; the
//! judge's rules over synthetic data.
use harness::cli::{check_file, render_exhibit};
use harness::fixtures;
use harness_core::results::{ResultsFile, Store};
use harness_core::{Estimate, Outcome, Profile, Unit};
use harness_measure::stats::{self, Statistic};
use harness_measure::timing::Timing;
use harness_page::{render::blocks::Block, render::blocks::Cell, Page as _};

use fan_in::placement::Placement;
use fan_in::plan::{Plan, FREE_DESIGNS};
use fan_in::run::FanInData;
use fan_in::sink::SinkKind;
use fan_in::sweep::Measured;
use fan_in::Design;

use super::super::FanIn;
use super::{common, headline, smoke};

#[test]
fn smoke_run_checks_and_renders_every_exhibit() {
    let file = smoke();
    // `measure_in_memory` runs `FanIn::measure` and `FanIn::check`; check again by hand.
    FanIn::check(&file.data).expect("a fresh run passes its own checks");
    assert!(file.data.worker_threads >= 1);
    assert!(file.data.points.iter().all(|m| m.bursts >= 10));
    // Every point pools one timing per pass (smoke has no heavy point), and
    // the points FAN-1 and FAN-2 rest on one more per short pass, in equal
    // parts; each counts the bursts of all of them.
    let plan = fan_in::plan::plan(Profile::Smoke);
    let planned = SinkKind::ALL
        .iter()
        .flat_map(|&k| Design::ALL.map(|d| (k, d)))
        .flat_map(|(k, d)| file.data.workers.iter().map(move |&w| (k, d, w)))
        .filter(|&(k, d, w)| plan.measures(d, k, w))
        .count();
    assert_eq!(file.data.points.len(), planned);
    assert!(plan.passes >= 2, "smoke should exercise pooling");
    assert!(
        plan.decisive_extra >= 1,
        "smoke should exercise the short passes"
    );
    assert_eq!(file.data.passes, plan.passes);
    assert_eq!(file.data.decisive_extra, plan.decisive_extra);
    let mut decisive = 0;
    for m in &file.data.points {
        let repeats = if Plan::is_decisive(m.design, m.sink, m.workers) {
            decisive += 1;
            plan.passes * (1 + plan.decisive_extra)
        } else {
            plan.passes
        };
        assert_eq!(m.timing.repeats.len(), repeats, "{m:?}");
        assert!(m.timing.repeats.iter().all(|&n| n == plan.sampling.samples));
        assert_eq!(m.timing.per_sample_ns.len(), m.timing.samples);
        assert!(m.bursts >= (repeats * plan.sampling.samples) as u64);
    }
    assert_eq!(decisive, 2 * file.data.workers.len());
    // The run recorded the schedule it followed: the code's for its
    // profile and placement.
    let code = fan_in::sweep::plan_schedule(Profile::Smoke, file.data.placement).unwrap();
    assert_eq!(file.data.schedules, vec![code.record()]);

    // The free-placement control: every control design at every control
    // count, over TCP, pooled over the same passes, validated like the rest.
    if file.data.placement == Placement::Pinned {
        assert_eq!(
            file.data.free_points.len(),
            FREE_DESIGNS.len() * plan.free_workers.len()
        );
        for m in &file.data.free_points {
            assert_eq!(m.sink, SinkKind::Tcp);
            assert!(plan.free_workers.contains(&m.workers));
            assert_eq!(m.timing.repeats.len(), plan.passes, "{m:?}");
            assert_eq!(m.bytes_per_burst, (m.workers * file.data.per_worker) as u64);
        }
    }

    let dir = tempfile::tempdir().unwrap();
    let store = Store::new(dir.path());
    store.write(file).unwrap();

    // Every exhibit renders and every claim has its verdict: the
    // conformance suite (tests/conformance.rs).
    if file.data.placement == Placement::Pinned {
        // One row per control point, each with both placements' fastest and
        // slowest pass, in that order.
        let book = fixtures::book::<FanIn>(file.data.clone());
        let blocks = fixtures::render::<FanIn>("placement-table", &book);
        let [Block::Table(t)] = blocks.as_slice() else {
            panic!("placement-table is not one table: {blocks:?}")
        };
        for m in &file.data.free_points {
            let row = t
                .rows
                .iter()
                .find(|r| {
                    r[0] == Cell::count(m.workers as u64) && r[1] == Cell::from(m.design.label())
                })
                .unwrap_or_else(|| panic!("no row for {} / {}", m.workers, m.design.id()));
            for (fastest, slowest) in [(&row[3], &row[4]), (&row[6], &row[7])] {
                let (Cell::Number(lo, Unit::Nanos), Cell::Number(hi, Unit::Nanos)) =
                    (fastest, slowest)
                else {
                    panic!("pass range is not two times: {row:?}")
                };
                assert!(0.0 < *lo && lo <= hi, "{row:?}");
            }
        }
    }
    let figure = render_exhibit::<FanIn>("burst-figure", &store).unwrap();
    assert!(figure.contains("<svg") && figure.contains("published"));
}

#[test]
fn every_measured_or_published_number_in_a_table_is_typed() {
    let book = fixtures::book::<FanIn>(smoke().data.clone());
    let tables = harness::cli::tables::<FanIn>(&book).unwrap();
    assert!(tables.iter().any(|(name, _)| name == "delta-table.csv"));
    // The parameters (the harness's tables) are words and lists; every
    // other table's text cells are names and dashes.
    for (name, t) in tables.iter().filter(|(n, _)| !n.starts_with("parameters")) {
        for row in &t.rows {
            for cell in row {
                if let Cell::Text(s) = cell {
                    assert!(!s.chars().any(|c| c.is_ascii_digit()), "{name}: {s:?}");
                }
            }
        }
    }
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

    // A negative time, or a median outside its interval, is refused as the
    // file is read, before the chapter's own checks.
    let refused_on_load = |what: &str, broken: FanInData| {
        let dir = tempfile::tempdir().unwrap();
        let file = ResultsFile::new(FanIn::NAME, smoke().provenance.clone(), broken).unwrap();
        let path = Store::new(dir.path()).write(&file).unwrap();
        let err = check_file::<FanIn>(&path).expect_err(what);
        assert!(
            format!("{err:#}").contains(what),
            "expected {what:?} in {err:#}"
        );
    };
    let mut d = good.clone();
    d.points[0].timing.median.point_ns = -1.0;
    d.points[0].timing.median.lower_ns = -1.0;
    refused_on_load("a duration in nanoseconds", d);
    let mut d = good.clone();
    d.points[0].timing.median.lower_ns = d.points[0].timing.median.point_ns * 2.0;
    refused_on_load("does not contain its estimate", d);

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

    let mut d = good.clone();
    d.workers.reverse();
    rejects("strictly increasing", d);

    // Against the run's record: a point is one the schedule timed, pooled
    // from as many timings as it got, deciding only for FAN-1 and FAN-2.
    assert_eq!(good.schedules.len(), 1, "a fresh run records its schedule");
    let light = good.schedules[0]
        .points
        .iter()
        .position(|p| !p.deciding && p.timings > 1)
        .unwrap();
    let mut d = good.clone();
    d.schedules[0].points[light].timings -= 1;
    d.schedules[0].steps -= 1;
    rejects("timings pooled, the schedule gave it", d);
    let mut d = good.clone();
    let r = &mut d.schedules[0];
    (r.points[light].deciding, r.points[light].extra_timings) = (true, 1);
    r.steps += 1;
    r.extras[0].points += 1;
    rejects("the schedule has it deciding true", d);
    let mut d = good.clone();
    let gone = d.schedules[0].points.remove(light);
    d.schedules[0].steps -= gone.all_timings();
    rejects("not a point the run's schedule timed", d);
    let mut d = good.clone();
    d.passes += 1;
    rejects("passes, the run", d);

    // The free-placement control: only the control's points, once each,
    // and only beside a pinned sweep.
    // (A point copied from the sweep is no point of the run's record: these
    // read the shape alone, as for a file from before the record.)
    let with_control = |f: &dyn Fn(&mut Measured)| {
        let mut d = good.clone();
        d.schedules.clear();
        let mut m = d
            .get(SinkKind::Tcp, Design::StdMutexSwap, d.workers[0])
            .unwrap()
            .clone();
        f(&mut m);
        d.free_points = vec![m];
        d
    };
    FanIn::check(&with_control(&|_| {})).expect("a control point is accepted");
    rejects(
        "not a point the free-placement control measures",
        with_control(&|m| m.design = Design::MpscBounded),
    );
    let mut d = with_control(&|m| m.sink = SinkKind::Memory);
    d.free_points[0].design = Design::Floor;
    rejects("not a point the free-placement control measures", d);
    rejects(
        "worker count not in the sweep",
        with_control(&|m| m.workers = 3),
    );
    let mut d = with_control(&|_| {});
    d.free_points.push(d.free_points[0].clone());
    rejects("measured twice", d);
    let mut d = with_control(&|_| {});
    d.placement = Placement::Free;
    rejects("beside a sweep that itself ran free", d);

    // The ladder and the variations: every point once, where the plan puts
    // it, with the work its stop point implies.
    assert!(!good.method.ladder.is_empty(), "smoke measures the ladder");
    let mut d = good.clone();
    let gone = d.method.ladder.pop().unwrap();
    rejects(&format!("missing ladder {}", gone.step.id()), d);
    let mut d = good.clone();
    let twice = d.method.ladder[0].clone();
    d.method.ladder.push(twice);
    rejects("measured twice", d);
    let mut d = good.clone();
    d.method.ladder[0].per_worker += 1;
    rejects("messages per worker", d);
    let mut d = good.clone();
    let checked = d
        .method
        .ladder
        .iter_mut()
        .find(|p| p.checksum_checked)
        .unwrap();
    checked.arrived_per_iteration += 1.0;
    rejects("at the sink", d);
    let mut d = good.clone();
    d.method.varied[0].point.bytes_per_burst += 1;
    rejects("bytes per burst", d);
    let mut d = good.clone();
    d.method.counted[0].bursts[0].1.pushes += 1;
    rejects("pushes", d);
}

#[test]
fn passes_pool_into_one_point_and_refuse_strangers() {
    let point = |design, workers, bursts, writes, samples: &[f64]| Measured {
        sink: SinkKind::Tcp,
        design,
        workers,
        timing: Timing {
            mean: Estimate::around(samples[0], 0.0),
            median: Estimate::around(samples[0], 0.0),
            samples: samples.len(),
            iterations: samples.len() as u64,
            per_sample_ns: samples.to_vec(),
            repeats: Vec::new(),
        },
        bursts,
        bytes_per_burst: (workers * 64) as u64,
        writes_per_burst: writes,
    };
    let a = point(Design::StdMutexSwap, 16, 10, 2.0, &[1.0, 2.0, 3.0]);
    let b = point(Design::StdMutexSwap, 16, 30, 6.0, &[10.0, 20.0, 30.0]);
    let pooled = Measured::pooled(vec![a.clone(), b]).unwrap();
    assert_eq!(pooled.bursts, 40);
    // Weighted by bursts: (10 x 2 + 30 x 6) / 40.
    assert_eq!(pooled.writes_per_burst, 5.0);
    assert_eq!(pooled.timing.repeats, vec![3, 3]);
    assert_eq!(pooled.timing.samples, 6);
    assert_eq!(pooled.timing.median.point_ns, 6.5);
    assert!(pooled.timing.median.lower_ns < 6.5 && pooled.timing.median.upper_ns > 6.5);

    let other = point(Design::MpscUnbounded, 16, 10, 2.0, &[1.0, 2.0, 3.0]);
    let err = Measured::pooled(vec![a.clone(), other]).unwrap_err();
    assert!(format!("{err:#}").contains("cannot be pooled"), "{err:#}");
    let err = Measured::pooled(Vec::new()).unwrap_err();
    assert!(format!("{err:#}").contains("no passes"), "{err:#}");
    // A pooled point is not pooled again.
    assert!(Measured::pooled(vec![pooled, a]).is_err());
}

/// FAN-1 and FAN-3 have headline estimates, FAN-1's paired pass by pass
/// (that every estimate is finite, inside its interval, is the conformance
/// suite's).
#[test]
fn the_headline_pairs_fan_1_pass_by_pass() {
    let headline = headline(&smoke().data);
    assert!(headline.iter().any(|(n, _)| n.starts_with("FAN-1")));
    assert!(headline.iter().any(|(n, _)| n.starts_with("FAN-3")));
    // FAN-1's points were timed in the same passes and short passes: their
    // ratio pairs pass by pass, which pooling first would not reproduce.
    let d = &smoke().data;
    let tcp = |design| {
        d.points
            .iter()
            .find(|m| m.design == design && m.sink == SinkKind::Tcp && m.workers == d.workers[0])
            .map(|m| &m.timing)
            .unwrap()
    };
    let (swap, mpsc) = (tcp(Design::StdMutexSwap), tcp(Design::MpscUnbounded));
    let paired = stats::paired_ratio(swap, mpsc, Statistic::Median).unwrap();
    let fan_1 = headline
        .iter()
        .find(|(n, _)| n.starts_with("FAN-1"))
        .unwrap()
        .1;
    assert_eq!(fan_1, paired);
    assert_ne!(fan_1, stats::ratio(swap, mpsc, Statistic::Median));
}

/// Every point of workers 1, 8 and 2048, timed by `time(design, workers)`.
fn synthetic(time: impl Fn(Design, usize) -> Estimate) -> FanInData {
    common::synthetic(&[1, 8, 2048], 100, time)
}

fn outcomes(data: FanInData) -> Vec<(&'static str, Outcome, String)> {
    fixtures::verdicts::<FanIn>(data)
        .into_iter()
        .map(|v| (v.claim.id, v.outcome, v.evidence))
        .collect()
}

#[test]
fn intervals_straddling_a_threshold_give_inconclusive() {
    // 1 worker: swap ÷ mpsc at the minimum effect, 1.25×, its interval
    // across it (FAN-1).
    // 2048 workers: mpsc ÷ swap = 10× with an interval across 10× (FAN-2);
    // recv_many removes 90 % of mpsc's excess, bounds across 90 % (FAN-4).
    // tokio ÷ std swap = 12.5× everywhere, across the low end (FAN-3).
    let straddling = synthetic(|design, w| match (design, w) {
        (Design::StdMutexSwap, 1) => Estimate::around(125.0, 0.05),
        (Design::MpscUnbounded, 1) => Estimate::around(100.0, 0.05),
        (Design::MpscUnbounded, _) => Estimate::around(1000.0, 0.05),
        (Design::MpscRecvMany, _) => Estimate::around(190.0, 0.05),
        (Design::TokioMutexSwap, 1) => Estimate::around(1562.5, 0.05),
        (Design::TokioMutexSwap, _) => Estimate::around(1250.0, 0.05),
        _ => Estimate::around(100.0, 0.05),
    });
    let headline = headline(&straddling);
    assert_eq!(headline.len(), 5, "{headline:?}");
    for (id, outcome, evidence) in outcomes(straddling) {
        assert_eq!(outcome, Outcome::Inconclusive, "{id}: {evidence}");
        assert!(evidence.contains('[') || id == "FAN-1", "{id}: {evidence}");
    }

    // The same shape with tight intervals well clear of every threshold.
    let clear = synthetic(|design, w| match (design, w) {
        (Design::StdMutexSwap, 1) => Estimate::around(200.0, 0.01),
        (Design::MpscUnbounded, 1) => Estimate::around(100.0, 0.01),
        (Design::MpscUnbounded, _) => Estimate::around(2000.0, 0.01),
        (Design::MpscRecvMany, _) => Estimate::around(110.0, 0.01),
        (Design::TokioMutexSwap, 1) => Estimate::around(5000.0, 0.01),
        (Design::TokioMutexSwap, _) => Estimate::around(2500.0, 0.01),
        _ => Estimate::around(100.0, 0.01),
    });
    for (id, outcome, evidence) in outcomes(clear) {
        assert_eq!(outcome, Outcome::Holds, "{id}: {evidence}");
    }

    // Intervals wholly on the wrong side of each threshold.
    let wrong = synthetic(|design, w| match (design, w) {
        (Design::StdMutexSwap, 1) => Estimate::around(50.0, 0.01),
        (Design::MpscUnbounded, 1) => Estimate::around(100.0, 0.01),
        (Design::MpscUnbounded, _) => Estimate::around(500.0, 0.01),
        (Design::MpscRecvMany, _) => Estimate::around(400.0, 0.01),
        (Design::TokioMutexSwap, _) => Estimate::around(200.0, 0.01),
        _ => Estimate::around(100.0, 0.01),
    });
    for (id, outcome, evidence) in outcomes(wrong) {
        assert_eq!(outcome, Outcome::DoesNotHold, "{id}: {evidence}");
    }
}

fn ladder_point(
    step: fan_in::published::ladder::Step,
    design: Design,
    workers: usize,
    t: Estimate,
) -> fan_in::published::rounds::LadderPoint {
    let per_worker = step.recipe().per_worker;
    fan_in::published::rounds::LadderPoint {
        step,
        design,
        workers,
        per_worker,
        timing: common::timing(t),
        iterations: 10,
        finished_per_iteration: workers as f64,
        arrived_per_iteration: (workers * per_worker) as f64,
        writes_per_iteration: 1.0,
        checksum_checked: true,
    }
}

#[test]
fn a_map_whose_rows_split_names_the_rows_where_the_claim_holds() {
    use fan_in::published::ladder::Step;
    // The fair experiment: tokio ÷ std swap 2× (FAN-3 does not hold). The
    // published bench, rebuilt: 25× (it holds); every other step: 2×.
    let mut d = synthetic(|design, _| match design {
        Design::TokioMutexSwap => Estimate::around(200.0, 0.01),
        _ => Estimate::around(100.0, 0.01),
    });
    d.method.workers = vec![1, 2048];
    let plan = fan_in::method::MethodPlan {
        workers: d.method.workers.clone(),
        ..fan_in::method::plan(Profile::Smoke)
    };
    for (design, step, w) in fan_in::method::ladder_points(&plan) {
        let t = match (design, step) {
            (Design::TokioMutexSwap, Step::AsPublished) => 2500.0,
            (Design::TokioMutexSwap, _) => 200.0,
            _ => 100.0,
        };
        d.method
            .ladder
            .push(ladder_point(step, design, w, Estimate::around(t, 0.01)));
    }
    let verdicts = fixtures::verdicts::<FanIn>(d);
    let fan_3 = verdicts.iter().find(|v| v.claim.id == "FAN-3").unwrap();
    assert_eq!(fan_3.outcome, Outcome::Depends, "{}", fan_3.headline());
    assert_eq!(
        fan_3.headline(),
        "holds only when the published bench (ladder step 0)"
    );
    // The fair row leads, the published one follows, every step is a row.
    assert!(fan_3.conditions[0].fair);
    assert!(fan_3.conditions[1].as_published);
    assert_eq!(fan_3.conditions[1].outcome, Outcome::Holds);
    let ladder_rows = fan_3
        .conditions
        .iter()
        .filter(|c| c.axis == "ladder")
        .count();
    assert_eq!(ladder_rows, Step::ALL.len());
    // FAN-4 needs recv_many, which the ladder measures as published only:
    // the later steps cannot decide it and are left out, not counted
    // against it.
    let fan_4 = verdicts.iter().find(|v| v.claim.id == "FAN-4").unwrap();
    assert!(fan_4
        .conditions
        .iter()
        .filter(|c| c.axis == "ladder")
        .all(|c| c.as_published || c.setting.starts_with("ladder step 1")));
}

#[test]
fn a_ratio_below_the_minimum_effect_does_not_decide_for_the_claim() {
    // The swap 10 % slower than mpsc at 1 worker, intervals tight: a real
    // difference, below the minimum effect, so FAN-1 does not hold.
    let d = synthetic(|design, w| match (design, w) {
        (Design::StdMutexSwap, 1) => Estimate::around(110.0, 0.01),
        (Design::MpscUnbounded, _) => Estimate::around(100.0, 0.01),
        _ => Estimate::around(100.0, 0.01),
    });
    let fan_1 = outcomes(d)
        .into_iter()
        .find(|(id, _, _)| *id == "FAN-1")
        .unwrap();
    assert_eq!(fan_1.1, Outcome::DoesNotHold, "{}", fan_1.2);
}
