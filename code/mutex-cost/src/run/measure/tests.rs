//! The schedules time what the loops they replaced timed, in the same
//! order, under the same criterion ids and progress lines (the loops are
//! kept here, frozen, as the oracle: an order change would move no test but
//! this one).
use super::*;
use harness_core::Profile;

/// One timing: which point, its round (a late repeat continues the count
/// after the regular repeats), its criterion id and its progress line.
type Timed = (Point, usize, String, String);

/// The point a timing times, in whichever shape.
#[derive(Clone, Debug, PartialEq)]
enum Point {
    JoinAll(usize, Variant),
    Spawned(usize, usize, Variant),
    Ladder(Placement, usize, Variant),
}

/// What the loops before the schedules timed, in order (`join_all`, the
/// contended shape, the ladder, then, after the rest of the run, MUT-2's
/// late repeats), and the progress total they set. Frozen copy of
/// `run/measure.rs:72-248` at ef196a3, timing nothing; the criterion ids
/// as `experiments.rs:228,285,342` built them there.
fn frozen_loops(profile: Profile) -> (Vec<Timed>, u64) {
    let plan = Plan::for_profile(profile);
    let variants = Variant::ALL.len();
    let contended_timings: usize = plan
        .contended_sizes
        .iter()
        .map(|&f| plan.contended_variants(f).len() * plan.worker_counts.len())
        .sum();
    let decisive = plan
        .worker_counts
        .iter()
        .flat_map(|&w| plan.contended_sizes.iter().map(move |&f| (f, w)))
        .filter(|&(f, w)| plan.is_decisive(f, w))
        .count();
    let ladder = ladder_points(&plan);
    let ladder_timings: usize = ladder.iter().map(|&(_, n)| ladder_variants(n).len()).sum();
    let polls = poll_points(&plan);
    let total = (plan.join_all_sizes.len() * variants * plan.repeats
        + contended_timings * plan.repeats
        + decisive * variants * plan.decisive_extra
        + ladder_timings * plan.ladder_repeats
        + PER_OP_LOCKS.len()
        + 1
        + Load::ALL.len()
        + plan.sensitivity.samples()
        + polls.len()
        + COUNTED.len()
        + ProfiledShape::ALL.len() * PROFILED_VARIANTS.len()) as u64;
    let mut timed = Vec::new();
    let repeat_of = |r: usize| format!("repeat {} of {}", r + 1, plan.repeats);
    for &futures in &plan.join_all_sizes {
        for r in 0..plan.repeats {
            for variant in Variant::ALL {
                let step = format!(
                    "join_all, {}, {} futures, {}",
                    variant.label(),
                    fmt::thousands(futures as u64),
                    repeat_of(r)
                );
                let id = format!("join_all-{}-{futures}", variant.name());
                timed.push((Point::JoinAll(futures, variant), r, id, step));
            }
        }
    }
    let spawned = |futures: usize, workers: usize, repeat: String, variant: Variant| {
        let step = format!(
            "spawned, {}, {} futures, {workers} workers, {repeat}",
            variant.label(),
            fmt::thousands(futures as u64),
        );
        let id = format!("spawned-{}-{futures}-w{workers}", variant.name());
        (id, step)
    };
    for &workers in &plan.worker_counts {
        for &futures in &plan.contended_sizes {
            let variants = plan.contended_variants(futures);
            for r in 0..plan.repeats {
                for &variant in &variants {
                    let (id, step) = spawned(futures, workers, repeat_of(r), variant);
                    timed.push((Point::Spawned(workers, futures, variant), r, id, step));
                }
            }
        }
    }
    for (placement, futures) in ladder {
        let vs = ladder_variants(futures);
        for r in 0..plan.ladder_repeats {
            for &variant in &vs {
                let step = format!(
                    "ladder, {}, {}, {} futures, repeat {} of {}",
                    placement.name(),
                    variant.label(),
                    fmt::thousands(futures as u64),
                    r + 1,
                    plan.ladder_repeats
                );
                let id = format!("{}-{}-{futures}", placement.name(), variant.name());
                timed.push((Point::Ladder(placement, futures, variant), r, id, step));
            }
        }
    }
    for &workers in &plan.worker_counts {
        for &futures in &plan.contended_sizes {
            if !plan.is_decisive(futures, workers) {
                continue;
            }
            for r in 0..plan.decisive_extra {
                for variant in Variant::ALL {
                    let repeat = format!("late repeat {} of {}", r + 1, plan.decisive_extra);
                    let (id, step) = spawned(futures, workers, repeat, variant);
                    let point = Point::Spawned(workers, futures, variant);
                    timed.push((point, plan.repeats + r, id, step));
                }
            }
        }
    }
    (timed, total)
}

/// What the four schedules have `run` time, recorded by `time` closures
/// that build the ids and progress lines as `run`'s do.
fn scheduled(profile: Profile) -> Vec<Timed> {
    let plan = Plan::for_profile(profile);
    let s = Schedules::of(&plan).unwrap();
    let mut timed = Vec::new();
    let sampling = |used: Option<Sampling>| assert_eq!(used, Some(plan.sampling), "{profile:?}");
    s.join_all
        .run(
            |_| Ok(()),
            |(), &(futures, variant), used, at| {
                sampling(used);
                let (id, step) = join_all_step(&plan, (futures, variant), at);
                timed.push((Point::JoinAll(futures, variant), at.round, id, step));
                Ok(())
            },
            |()| Ok(()),
        )
        .unwrap();
    s.contended
        .run(
            |_| Ok(()),
            |(), &(workers, futures, variant), used, at| {
                sampling(used);
                let (id, step) = spawned_step(&plan, (workers, futures, variant), at);
                let point = Point::Spawned(workers, futures, variant);
                timed.push((point, at.round, id, step));
                Ok(())
            },
            |()| Ok(()),
        )
        .unwrap();
    s.ladder
        .run(
            |_| Ok(()),
            |(), &(placement, futures, variant), used, at| {
                sampling(used);
                let (id, step) = ladder_step(&plan, (placement, futures, variant), at);
                let point = Point::Ladder(placement, futures, variant);
                timed.push((point, at.round, id, step));
                Ok(())
            },
            |()| Ok(()),
        )
        .unwrap();
    s.late
        .run(
            |_| Ok(()),
            |(), &(workers, futures, variant), used, at| {
                sampling(used);
                let (id, step) = spawned_step(&plan, (workers, futures, variant), at);
                let point = Point::Spawned(workers, futures, variant);
                timed.push((point, at.round, id, step));
                Ok(())
            },
            |()| Ok(()),
        )
        .unwrap();
    timed
}

#[test]
fn the_schedules_time_what_the_loops_timed_in_the_same_order() {
    for profile in Profile::ALL {
        let (before, _) = frozen_loops(profile);
        let after = scheduled(profile);
        assert_eq!(after.len(), before.len(), "{profile:?}: timings");
        for (i, (a, b)) in after.iter().zip(&before).enumerate() {
            assert_eq!(a, b, "{profile:?}: timing {i} moved");
        }
    }
}

#[test]
fn the_progress_total_is_the_loops() {
    for profile in Profile::ALL {
        let (before, total) = frozen_loops(profile);
        let plan = Plan::for_profile(profile);
        assert_eq!(progress_total(&plan).unwrap() as u64, total, "{profile:?}");
        let s = Schedules::of(&plan).unwrap();
        let steps: usize = s.record().iter().map(|r| r.steps).sum();
        assert_eq!(steps, before.len(), "{profile:?}");
    }
}

/// The criterion ids carry no round: every repeat of a point, late ones
/// included, is timed under the point's one id, and two points never share
/// one.
#[test]
fn each_point_has_one_criterion_id_of_its_own() {
    for profile in Profile::ALL {
        let mut ids: Vec<(Point, String)> = Vec::new();
        for (point, _, id, _) in scheduled(profile) {
            match ids.iter().find(|(p, _)| *p == point) {
                Some((_, known)) => assert_eq!(*known, id, "{profile:?} {point:?}"),
                None => {
                    assert!(
                        ids.iter().all(|(_, other)| *other != id),
                        "{profile:?}: {id} twice"
                    );
                    ids.push((point, id));
                }
            }
        }
    }
}

#[test]
fn the_records_give_mut_2s_points_their_late_repeats() {
    for profile in Profile::ALL {
        let plan = Plan::for_profile(profile);
        let records = Schedules::of(&plan).unwrap().record();
        let names: Vec<&str> = records.iter().map(|r| r.name.as_str()).collect();
        assert_eq!(names, ["join_all", "contended", "ladder", "late repeats"]);
        for r in &records {
            r.check().unwrap();
        }
        let (contended, late) = (&records[1], &records[3]);
        assert_eq!(contended.rounds, plan.repeats, "{profile:?}");
        assert_eq!(late.rounds, 0, "{profile:?}: extra rounds only");
        assert_eq!(
            late.extras,
            vec![harness_measure::schedule::RecordedExtra {
                rounds: plan.decisive_extra,
                place: harness_measure::schedule::Place::Later,
                points: Variant::ALL.len(),
            }],
            "{profile:?}"
        );
        for &w in &plan.worker_counts {
            for &f in &plan.contended_sizes {
                for v in plan.contended_variants(f) {
                    let key = (w, f, v);
                    let point = contended
                        .point(&key)
                        .expect("every contended point recorded");
                    assert_eq!(point.all_timings(), plan.repeats, "{profile:?} {key:?}");
                    let decisive = plan.is_decisive(f, w) && Variant::ALL.contains(&v);
                    let later = late.point(&key).map_or(0, |p| p.all_timings());
                    let expected = if decisive { plan.decisive_extra } else { 0 };
                    assert_eq!(later, expected, "{profile:?} {key:?}");
                }
            }
        }
    }
}
