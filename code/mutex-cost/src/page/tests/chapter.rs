//! The chapter end to end: a smoke run passes its own checks and renders every
//! exhibit; tampered data is refused; every listing the page includes exists.
use harness::fixtures;
use harness_core::results::{ResultsFile, Store};
use harness_core::{Estimate, Outcome, Profile};
use harness_measure::timing::Timing;
use harness_page::{render::blocks::Block, Book, Page};
use mutex_cost::run::Data;
use mutex_cost::{Variant, ACTOR_CLAIM_FUTURES, PUBLISHED_FUTURES};

use super::{smoke_file, MutexCost};

fn smoke() -> Book<Data> {
    fixtures::book::<MutexCost>(smoke_file().data.clone())
}

#[test]
fn a_smoke_run_checks_and_renders_every_exhibit() {
    let book = smoke();
    MutexCost::check(&book.runs[0].data).unwrap();
    // Every exhibit renders a block of its kind, no NaN or inf: the
    // conformance suite (tests/conformance.rs).
    let Block::Verdicts(v) = &fixtures::render::<MutexCost>("verdicts", &book)[0] else {
        panic!("verdicts exhibit is not a verdict block")
    };
    let ids: Vec<_> = v.iter().map(|v| v.claim.id).collect();
    assert_eq!(ids, ["MUT-1", "MUT-2", "MUT-3"]);
    let err =
        harness::cli::render_exhibit::<MutexCost>("nonsense", &Store::new(Store::default_root()))
            .unwrap_err();
    assert!(err.to_string().contains("unknown exhibit"), "{err:#}");

    let good = book.runs[0].data.clone();
    let tamper = |f: &dyn Fn(&mut Data), expect: &str| {
        let mut d = good.clone();
        f(&mut d);
        let err = format!("{:#}", MutexCost::check(&d).expect_err(expect));
        assert!(err.contains(expect), "expected {expect:?} in {err:?}");
    };
    tamper(
        &|d| {
            d.join_all
                .retain(|r| r.variant != mutex_cost::Variant::Actor)
        },
        "has no point Actor",
    );
    tamper(
        &|d| {
            let twice = d.contended[0].clone();
            d.contended.push(twice)
        },
        "has more than one point",
    );
    tamper(
        &|d| d.per_op.pop().map(|_| ()).unwrap(),
        "the uncontended experiment has no point",
    );
    tamper(
        &|d| d.heartbeat[1].latency.p99_ns = d.heartbeat[1].latency.max_ns + 1,
        "not increasing",
    );
    tamper(
        &|d| {
            d.heartbeat
                .retain(|h| h.load != mutex_cost::heartbeat::Load::Idle)
        },
        "the heartbeat experiment has no point Idle",
    );
    tamper(
        &|d| d.join_all[0].rounds_validated = 0,
        "no validated round",
    );
    // The contended points pooled what the recorded schedules gave them.
    tamper(
        &|d| d.contended[0].timing.repeats.push(1),
        "repeats pooled, where the recorded schedules give",
    );
    tamper(
        &|d| {
            let late = d.contended.iter_mut().find(|r| r.timing.repeats.len() > 2);
            late.unwrap().timing.repeats.pop().map(|_| ()).unwrap()
        },
        "late",
    );
    tamper(
        &|d| d.schedules.retain(|s| s.name != "contended"),
        "no \"contended\"",
    );
}

/// Timings whose interval misses its point never reach the chapter: a
/// results file holding one is refused as it is read.
#[test]
fn a_file_with_an_impossible_timing_is_refused_on_load() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::new(dir.path());
    let load = |f: &dyn Fn(&mut Data)| {
        let mut data = smoke_file().data.clone();
        f(&mut data);
        let file =
            ResultsFile::new(MutexCost::NAME, smoke_file().provenance.clone(), data).unwrap();
        let path = store.write(&file).unwrap();
        harness::cli::check_file::<MutexCost>(&path).map(|_| ())
    };
    load(&|_| {}).expect("the smoke run loads as it was measured");
    let refused = |f: &dyn Fn(&mut Data), expect: &str| {
        let err = format!("{:#}", load(f).expect_err(expect));
        assert!(err.contains(expect), "expected {expect:?} in {err:?}");
    };
    refused(
        &|d| d.contended[0].timing.mean.point_ns = 0.0,
        "does not contain its estimate 0",
    );
    refused(
        &|d| d.contended[1].timing.mean.lower_ns = d.contended[1].timing.mean.upper_ns * 2.0,
        "does not contain",
    );
    refused(
        &|d| d.join_all[0].timing.per_sample_ns[0] = -1.0,
        "a sample must be above 0",
    );
}

#[test]
fn every_timing_of_a_run_is_checked_for_how_far_apart_the_cores_were() {
    let p = &smoke_file().provenance;
    if p.machine.cores < 2 {
        assert_eq!(p.cores_apart, None, "one core has no second core to check");
        return;
    }
    let c = p
        .cores_apart
        .as_ref()
        .expect("a run on two cores records its checks");
    // Smoke runs ignore machines.toml's gate: they only exercise the code.
    assert_eq!(c.gate_ns, None);
    assert_eq!((c.beyond_gate, c.remeasured, c.waited_s), (0, 0, 0.0));
    // Two timings (join_all and spawned) per variant, size and repeat at
    // least, and up to two checks each (a check the busy test runner starved
    // is skipped).
    let plan = mutex_cost::Plan::for_profile(Profile::Smoke);
    assert!(c.timings >= 2 * Variant::ALL.len() * plan.repeats, "{c:?}");
    assert!(c.checks > 0 && c.checks <= 2 * c.timings, "{c:?}");
    assert!(
        0.0 < c.min_ns && c.min_ns <= c.median_ns && c.median_ns <= c.max_ns,
        "{c:?}"
    );
}

/// Every declared exhibit is on the page, and the page asks for no other.
#[test]
fn the_page_shows_every_exhibit_and_only_declared_ones() {
    let page = harness_core::code_dir().join("../src/mutex-cost.md");
    let text = std::fs::read_to_string(&page).unwrap();
    let prefix = "<!-- cmdrun ../code/target/release/harness render mutex-cost ";
    let shown: Vec<&str> = text
        .lines()
        .filter_map(|l| l.strip_prefix(prefix)?.strip_suffix(" -->"))
        .collect();
    // The chapter's own exhibits, then the ones the harness adds.
    let all = harness::cli::exhibits::<MutexCost>().unwrap();
    assert!(
        all.len() > MutexCost::EXHIBITS.len(),
        "no built-in exhibits"
    );
    for e in &all {
        assert!(
            shown.contains(&e.name),
            "exhibit {} is not on the page",
            e.name
        );
    }
    for name in &shown {
        let known = all.iter().any(|e| e.name == *name);
        assert!(known, "the page renders undeclared exhibit {name}");
    }
}

/// The headline is the chapter's claims' (that every estimate is finite,
/// inside its interval, is the conformance suite's).
#[test]
fn the_headline_is_the_claims() {
    let analysis = fixtures::judged::<MutexCost>(&smoke_file().data);
    let headline = analysis.headline_estimates().unwrap();
    assert!(!headline.is_empty(), "a smoke run has headline estimates");
    for (name, e) in &headline {
        assert!(name.starts_with("MUT-"), "{name}");
        assert!(e.lower_ns > 0.0, "{name}: {e:?}");
    }
    // Smoke runs stop at 10,000 futures: MUT-2's two ratios, not MUT-1's.
    assert!(headline.iter().any(|(n, _)| n.starts_with("MUT-2")));
    assert!(!headline.iter().any(|(n, _)| n.starts_with("MUT-1")));
}

/// The smoke run cut down to two ways of measuring MUT-1 at 100,000
/// futures: the published shape (std and tokio Mutex means as passed) and
/// the fair experiment (the contended shape on the only worker count). Its
/// map then has the published row, its median twin and the fair row.
fn mut_1_map(published: (f64, f64), fair: (f64, f64)) -> harness_core::Verdict {
    let mut data = smoke_file().data.clone();
    let largest = data.join_all.iter().map(|r| r.futures).max().unwrap();
    let pick = |rows: &[mutex_cost::experiments::RoundTiming], futures: usize| -> Vec<_> {
        rows.iter()
            .filter(|r| r.futures == futures && r.runtime.workers == rows[0].runtime.workers)
            .cloned()
            .collect()
    };
    let mut join_all = pick(&data.join_all, largest);
    let mut contended = pick(&data.contended, ACTOR_CLAIM_FUTURES);
    for (rows, (std, tokio)) in [(&mut join_all, published), (&mut contended, fair)] {
        for r in rows.iter_mut() {
            r.futures = PUBLISHED_FUTURES;
            r.runtime.workers = 1;
            match r.variant {
                Variant::StdMutex => set_mean(&mut r.timing, Estimate::around(std, 0.01)),
                Variant::TokioMutex => set_mean(&mut r.timing, Estimate::around(tokio, 0.01)),
                _ => {}
            }
        }
    }
    data.cores = 1;
    // Cut down, the run no longer follows its recorded schedules.
    data.schedules.clear();
    data.join_all = join_all;
    data.contended = contended;
    data.in_task.clear();
    data.task_per_future.clear();
    data.sensitivity.clear();
    data.instructions.clear();
    fixtures::verdicts::<MutexCost>(data)
        .into_iter()
        .find(|v| v.claim.id == "MUT-1")
        .unwrap()
}

/// Replaces a timing's mean and its samples: half at each end of the
/// interval, so the samples' mean is the point and ratios bootstrapped from
/// them have intervals of the same order.
fn set_mean(t: &mut Timing, mean: Estimate) {
    t.mean = mean;
    t.per_sample_ns = [[mean.lower_ns; 5], [mean.upper_ns; 5]].concat();
    t.repeats.clear();
}

#[test]
fn round_timings_pool_interleaved_repeats_each_on_its_own_runtime() {
    let plan = mutex_cost::Plan::for_profile(Profile::Smoke);
    assert!(plan.repeats >= 2, "smoke must exercise pooling");
    assert!(
        plan.decisive_extra >= 1,
        "smoke must exercise the late repeats"
    );
    let data = &smoke_file().data;
    assert_eq!(data.decisive_extra, plan.decisive_extra);
    let mut late = 0;
    for t in data.join_all.iter().chain(&data.contended) {
        let what = format!("{:?} {} futures {:?}", t.variant, t.futures, t.runtime);
        // MUT-2's points, and only those, have their late repeats pooled in
        // (for the variants MUT-2 compares).
        let decisive = t.tasks > 1
            && plan.is_decisive(t.futures, t.runtime.workers)
            && Variant::ALL.contains(&t.variant);
        let repeats = plan.repeats + if decisive { plan.decisive_extra } else { 0 };
        late += usize::from(decisive);
        assert_eq!(
            t.timing.repeats,
            vec![plan.sampling.samples; repeats],
            "{what}"
        );
        assert_eq!(t.timing.samples, plan.sampling.samples * repeats, "{what}");
        assert_eq!(t.timing.per_sample_ns.len(), t.timing.samples, "{what}");
        let e = t.timing.mean;
        assert!(
            e.lower_ns <= e.point_ns && e.point_ns <= e.upper_ns,
            "{what}: {e:?}"
        );
    }
    assert_eq!(
        late,
        Variant::ALL.len(),
        "one late-repeated point per variant"
    );
}

#[test]
fn the_late_repeats_go_to_the_point_mut_2_is_judged_on() {
    for profile in Profile::ALL {
        let plan = mutex_cost::Plan::for_profile(profile);
        let cores = mutex_cost::cores();
        let decisive: Vec<_> = plan
            .worker_counts
            .iter()
            .flat_map(|&w| plan.contended_sizes.iter().map(move |&f| (f, w)))
            .filter(|&(f, w)| plan.is_decisive(f, w))
            .collect();
        // The verdict takes the most workers up to the core count, at the
        // earlier post's size.
        let most = plan
            .worker_counts
            .iter()
            .copied()
            .filter(|&w| w <= cores)
            .max();
        assert_eq!(
            decisive,
            vec![(ACTOR_CLAIM_FUTURES, most.unwrap())],
            "{profile}"
        );
        assert!(
            plan.decisive_extra >= plan.repeats || profile == Profile::Smoke,
            "{profile}"
        );
    }
    // The page's MUT-2 ratios come from exactly that point of the smoke run.
    let data = &smoke_file().data;
    let plan = mutex_cost::Plan::for_profile(Profile::Smoke);
    let judged: Vec<_> = data
        .contended
        .iter()
        .filter(|r| r.timing.repeats.len() > plan.repeats)
        .map(|r| (r.variant, r.futures, r.runtime.workers))
        .collect();
    assert_eq!(
        judged.iter().map(|j| j.0).collect::<Vec<_>>(),
        Variant::ALL.to_vec()
    );
    let judged: Vec<_> = judged.into_iter().map(|(_, f, w)| (f, w)).collect();
    assert!(judged
        .iter()
        .all(|&p| p == (ACTOR_CLAIM_FUTURES, plan.decisive_workers().unwrap())));
}

#[test]
fn interleaving_alternates_variants_and_pools_each() {
    use mutex_cost::experiments::{interleaved, RoundTiming, RuntimeUsed};
    let mut order = Vec::new();
    let pooled = interleaved(3, &Variant::ALL, |repeat, variant| {
        order.push((repeat, variant));
        let ns = 100.0 * (1 + repeat) as f64;
        Ok(RoundTiming {
            variant,
            futures: 10,
            tasks: 1,
            runtime: RuntimeUsed::multi_thread(2),
            timing: Timing {
                mean: Estimate::around(ns, 0.0),
                median: Estimate::around(ns, 0.0),
                samples: 2,
                iterations: 2,
                per_sample_ns: vec![ns; 2],
                repeats: Vec::new(),
            },
            rounds_validated: 5,
        })
    })
    .unwrap();
    let v = Variant::ALL;
    assert_eq!(
        order,
        (0..3)
            .flat_map(|r| v.iter().map(move |&x| (r, x)))
            .collect::<Vec<_>>()
    );
    assert_eq!(pooled.iter().map(|t| t.variant).collect::<Vec<_>>(), v);
    for t in &pooled {
        assert_eq!(t.timing.repeats, vec![2, 2, 2]);
        assert_eq!(
            t.timing.per_sample_ns,
            vec![100.0, 100.0, 200.0, 200.0, 300.0, 300.0]
        );
        assert_eq!(t.rounds_validated, 15);
        assert!((t.timing.mean.point_ns - 200.0).abs() < 1e-9);
    }
    // Repeats of different measurements are refused.
    let mut flip = false;
    let err = interleaved(2, &Variant::ALL, |_, variant| {
        flip = !flip;
        let mut t = pooled[0].clone();
        t.variant = variant;
        t.timing.repeats.clear();
        t.futures = if flip { 10 } else { 20 };
        Ok(t)
    })
    .unwrap_err();
    assert!(
        err.to_string().contains("different measurements"),
        "{err:#}"
    );
}

#[test]
fn mut_1s_headline_comes_from_its_map() {
    let rows = |v: &harness_core::Verdict| -> Vec<(String, Outcome)> {
        v.conditions
            .iter()
            .map(|c| (c.setting.clone(), c.outcome))
            .collect()
    };
    // Every row agrees: the headline says so, unqualified.
    let agree = mut_1_map((100.0, 200.0), (100.0, 210.0));
    assert_eq!(agree.conditions.len(), 3, "{:?}", rows(&agree));
    assert!(agree.conditions[0].fair, "the fair row leads the map");
    assert_eq!(
        (agree.outcome, agree.qualifier.clone()),
        (Outcome::Holds, None)
    );

    // The rows split: the headline names the shorter side, here the one
    // row where the claim fails.
    let split = mut_1_map((100.0, 200.0), (100.0, 1_000.0));
    assert_eq!(split.outcome, Outcome::Depends, "{:?}", rows(&split));
    let failing: Vec<&str> = split
        .conditions
        .iter()
        .filter(|c| c.outcome == Outcome::DoesNotHold)
        .map(|c| c.setting.as_str())
        .collect();
    assert_eq!(failing.len(), 1, "{:?}", rows(&split));
    let q = split.qualifier.clone().unwrap();
    assert_eq!(q, format!("holds except when {}", failing[0]));
    assert!(!q.contains("as published"), "the published row held: {q}");

    // One interval straddles a bound: that row is inconclusive and named,
    // and the headline claims no more than the decided rows.
    let mut data_free = mut_1_map((100.0, 250.0), (100.0, 200.0));
    assert_eq!(data_free.outcome, Outcome::Holds, "{:?}", rows(&data_free));
    let q = data_free.qualifier.take().unwrap();
    assert!(q.starts_with("undecided when as published"), "{q}");

    // An effect below the minimum never decides: 15 % off the claimed 2×
    // holds, 35 % off does not.
    assert_eq!(
        mut_1_map((100.0, 230.0), (100.0, 230.0)).outcome,
        Outcome::Holds
    );
    assert_eq!(
        mut_1_map((100.0, 270.0), (100.0, 270.0)).outcome,
        Outcome::DoesNotHold
    );
    assert_eq!(
        mut_1_map((100.0, 170.0), (100.0, 170.0)).outcome,
        Outcome::Holds
    );
}

#[test]
fn every_verdict_of_a_smoke_run_comes_with_a_map() {
    for v in fixtures::verdicts::<MutexCost>(smoke_file().data.clone()) {
        assert!(
            !v.conditions.is_empty(),
            "{}: no map ({})",
            v.claim.id,
            v.evidence
        );
        if v.claim.id != "MUT-3" {
            assert_eq!(
                v.conditions.iter().filter(|c| c.as_published).count(),
                1,
                "{}",
                v.claim.id
            );
        }
        assert_eq!(
            v.conditions.iter().filter(|c| c.fair).count(),
            1,
            "{}",
            v.claim.id
        );
        assert!(v.claim.rule.contains("MIN_EFFECT") || v.claim.rule.contains("MUT_3_FACTOR"));
    }
}
