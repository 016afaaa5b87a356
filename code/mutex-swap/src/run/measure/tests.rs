//! The schedule times what the loop it replaced timed, in the same order,
//! under the same criterion ids and progress lines (the loop is kept here,
//! frozen, as the oracle: an order change would move no test but this one).
use super::*;

/// What the loop before the schedule timed: `(key, round, criterion id,
/// progress line)` in order, and the progress total it set. Frozen copy of
/// `measure` at 73f5fda (`run/measure.rs:91-135`), timing nothing.
fn frozen_loop(profile: Profile) -> (Vec<(Key, usize, String, String)>, u64) {
    let p = params(profile);
    let plan = plan(profile);
    let rounds_of = |&planned: &Key| {
        if is_decisive(planned) {
            p.decisive_repeats.max(p.repeats)
        } else {
            p.repeats
        }
    };
    let all_rounds = plan.iter().map(rounds_of).max().unwrap_or(p.repeats);
    let profiled = PROFILED_WAITS.len() as u64;
    let total = plan.iter().map(rounds_of).sum::<usize>() as u64 + 2 + profiled;
    let mut timed = Vec::new();
    for round in 0..all_rounds {
        for planned in plan.iter() {
            let &(experiment, design, wait, producers, work_rounds) = planned;
            let of = rounds_of(planned);
            if round >= of {
                continue;
            }
            let id = format!(
                "{experiment:?}-{}-{}-{producers}-work{work_rounds}-round{round}",
                design.name(),
                wait.name()
            );
            let step = format!("round {}/{of}: {id}", round + 1);
            timed.push((*planned, round, id, step));
        }
    }
    (timed, total)
}

/// What the schedule has `measure` time, recorded by a `time` that
/// builds the id and progress line as `measure` does.
fn scheduled(profile: Profile) -> Vec<(Key, usize, String, String)> {
    let s = schedule(profile);
    let sampling = params(profile).sampling;
    let mut timed = Vec::new();
    s.run(
        |_| Ok(()),
        |(), &key, used, at| {
            assert_eq!(
                used,
                Some(sampling),
                "{profile:?} {key:?}: one sampling for every point"
            );
            let (id, step) = round_step(key, at);
            timed.push((key, at.round, id, step));
            Ok(())
        },
        |()| Ok(()),
    )
    .unwrap();
    timed
}

#[test]
fn the_schedule_times_what_the_loop_timed_in_the_same_order() {
    for profile in Profile::ALL {
        let (before, _) = frozen_loop(profile);
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
        let (before, total) = frozen_loop(profile);
        assert_eq!(progress_total(profile) as u64, total, "{profile:?}");
        assert_eq!(schedule(profile).steps(), before.len(), "{profile:?}");
    }
    // Full: 162 points, 3 rounds each, 21 more for FAN-4's 16 points.
    assert_eq!(schedule(Profile::Full).steps(), 162 * 3 + 16 * 21);
}

#[test]
fn criterion_ids_are_unique_within_a_run() {
    for profile in Profile::ALL {
        let ids: Vec<String> = scheduled(profile).into_iter().map(|t| t.2).collect();
        let unique: std::collections::BTreeSet<&String> = ids.iter().collect();
        assert_eq!(unique.len(), ids.len(), "{profile:?}");
    }
}

#[test]
fn the_record_gives_fan_4s_points_their_extra_rounds_at_the_end() {
    for profile in Profile::ALL {
        let p = params(profile);
        let r = schedule(profile).record();
        r.check().unwrap();
        assert_eq!(r.rounds, p.repeats, "{profile:?}");
        let keys = plan(profile);
        assert_eq!(r.points.len(), keys.len(), "{profile:?}");
        let extra = p.decisive_repeats.max(p.repeats) - p.repeats;
        for key in keys {
            let point = r.point(&key).expect("every planned key recorded");
            assert_eq!(point.deciding, is_decisive(key), "{profile:?} {key:?}");
            let expected = if is_decisive(key) { extra } else { 0 };
            assert_eq!(
                (point.timings, point.extra_timings),
                (p.repeats, expected),
                "{profile:?} {key:?}"
            );
        }
        let deciding = r.points.iter().filter(|p| p.deciding).count();
        assert_eq!(
            r.extras,
            vec![harness_measure::schedule::RecordedExtra {
                rounds: extra,
                place: harness_measure::schedule::Place::AtEnd,
                points: deciding,
            }],
            "{profile:?}"
        );
        assert_eq!(r.rig, harness_measure::schedule::RigPolicy::None);
    }
}
