//! The schedules time what the loops they replaced timed, in the same
//! order, with the same criterion ids, window indices and progress lines
//! (the loops are kept here, frozen, as the oracle: an order change would
//! move no test but these).
use super::*;
use crate::Carry;
use harness_measure::timing::Sampling;

/// One timing: what it timed, its round (0-based), the criterion id (the
/// sweep) or the index the timing function was given (a window, a
/// repeat), and its progress line.
type Timed = (String, usize, String, String);

fn sweep_key_name(key: &SweepKey) -> String {
    format!("{} {} {}", key.0, key.1, key.2)
}

/// Frozen copy of `sweep` at issue-41 ef196a3 (`run/measure.rs:200-235`),
/// timing nothing.
fn frozen_sweep(profile: Profile) -> Vec<Timed> {
    let repeats = sweep_repeats(profile);
    let plan: Vec<(Variant, Carry, usize)> = PAYLOAD_SIZES
        .into_iter()
        .flat_map(|bytes| {
            Variant::ALL
                .into_iter()
                .filter(move |v| v.sizes().contains(&bytes))
                .flat_map(move |v| v.carries().iter().map(move |&c| (v, c, bytes)))
        })
        .collect();
    let mut timed = Vec::new();
    for repeat in 1..=repeats {
        for bytes in PAYLOAD_SIZES {
            for &(variant, carry, _) in plan.iter().filter(|p| p.2 == bytes) {
                let step = format!(
                    "A: {} {} {bytes} B (repeat {repeat} of {repeats})",
                    variant.label(),
                    carry.id()
                );
                let id = format!("{}-{}-{}-r{repeat}", variant.id(), carry.id(), bytes);
                let key = format!("{} {} {bytes}", variant.id(), carry.id());
                timed.push((key, repeat - 1, id, step));
            }
            let step = format!("A: memcpy {BURST} x {bytes} B (repeat {repeat} of {repeats})");
            let id = format!("memcpy-{bytes}-r{repeat}");
            timed.push((format!("memcpy – {bytes}"), repeat - 1, id, step));
        }
    }
    timed
}

/// Frozen copy of `head_to_head` (`run/measure.rs:239-255`): the window
/// index is what `head_to_head::window` was given.
fn frozen_head_to_head(profile: Profile) -> Vec<Timed> {
    let windows = head_to_head_windows(profile);
    let mut timed = Vec::new();
    for window in 1..=windows {
        for bytes in PAYLOAD_SIZES {
            let step =
                format!("A: tokio against crossbeam, {bytes} B (window {window} of {windows})");
            timed.push((
                bytes.to_string(),
                window - 1,
                (window - 1).to_string(),
                step,
            ));
        }
    }
    timed
}

/// Frozen copy of `other_ways` (`run/measure.rs:121-140`).
fn frozen_other_ways(profile: Profile) -> Vec<Timed> {
    let (windows, _) = methods::windows(profile);
    let mut timed = Vec::new();
    for window in 0..windows {
        for bytes in PAYLOAD_SIZES {
            for m in METHODS.iter() {
                let step = format!(
                    "A, another way: {} at {bytes} B (window {} of {windows})",
                    m.id,
                    window + 1
                );
                timed.push((
                    format!("{bytes} {}", m.id),
                    window,
                    window.to_string(),
                    step,
                ));
            }
        }
    }
    timed
}

/// Frozen copy of `ladder` (`run/measure.rs:147-181`): the channel that
/// goes first alternates from repeat to repeat.
fn frozen_ladder() -> Vec<Timed> {
    let mut timed = Vec::new();
    for repeat in 0..backpressure_ladder::REPEATS {
        for tasks in TASKS {
            for bound in BOUNDS {
                for rung in RUNGS {
                    let mut channels = BP_CHANNELS;
                    if repeat % 2 == 1 {
                        channels.reverse();
                    }
                    for channel in channels {
                        let step = format!(
                            "B ladder: {} {channel}, {tasks} tasks, bound {bound} (repeat {} of {})",
                            rung.id,
                            repeat + 1,
                            backpressure_ladder::REPEATS
                        );
                        let key = format!("{tasks} {bound} {} {channel}", rung.id);
                        timed.push((key, repeat, repeat.to_string(), step));
                    }
                }
            }
        }
    }
    timed
}

/// Frozen copy of the progress total `measure` set (`run/measure.rs:25-37`).
fn frozen_total(profile: Profile) -> usize {
    let repeats = sweep_repeats(profile);
    let windows = head_to_head_windows(profile);
    let other_windows = methods::windows(profile).0;
    let sweep_steps = repeats * (Variant::points_per_pass() + PAYLOAD_SIZES.len())
        + PAYLOAD_SIZES.len() * (windows + other_windows * METHODS.len());
    let ladder_steps = backpressure_ladder::REPEATS * RUNGS.len();
    let bp_steps =
        TASKS.len() * BOUNDS.len() * (BP_CHANNELS.len() * (1 + ladder_steps) + BP_COMPARED.len());
    sweep_steps
        + bp_steps
        + counted::cases_for(profile).len()
        + crate::profiles::PROFILED.len()
        + crate::burst_shapes::steps(profile)
}

/// Runs `s` through a `time` that records what `measure`'s closure for it
/// would be told and would pass on.
fn scheduled<K: Clone + PartialEq + serde::Serialize>(
    s: &Schedule<K>,
    sampling: Option<Sampling>,
    what: impl Fn(&K, At) -> Timed,
) -> Vec<Timed> {
    let mut timed = Vec::new();
    s.run(
        |_| Ok(()),
        |(), key, used, at| {
            assert_eq!(used, sampling, "{}: one sampling for every point", s.name());
            timed.push(what(key, at));
            Ok(())
        },
        |()| Ok(()),
    )
    .unwrap();
    timed
}

fn same(profile: Profile, what: &str, after: Vec<Timed>, before: Vec<Timed>) {
    assert_eq!(after.len(), before.len(), "{profile:?} {what}: timings");
    for (i, (a, b)) in after.iter().zip(&before).enumerate() {
        assert_eq!(a, b, "{profile:?} {what}: timing {i} moved");
    }
}

#[test]
fn the_schedules_time_what_the_loops_timed_in_the_same_order() {
    for profile in Profile::ALL {
        let sweep = scheduled(
            &sweep_schedule(profile),
            Some(sweep_sampling(profile)),
            |key, at| {
                let (repeat, step) = sweep_step(key, at);
                let id = if key.0 == MEMCPY {
                    format!("memcpy-{}-r{repeat}", key.2)
                } else {
                    format!("{}-{}-{}-r{repeat}", key.0, key.1, key.2)
                };
                (sweep_key_name(key), at.round, id, step)
            },
        );
        same(profile, "sweep", sweep, frozen_sweep(profile));
        let duels = scheduled(&head_to_head_schedule(profile), None, |&bytes, at| {
            let (index, step) = head_to_head_step(bytes, at);
            (bytes.to_string(), at.round, index.to_string(), step)
        });
        same(profile, "head to head", duels, frozen_head_to_head(profile));
        let other = scheduled(&other_ways_schedule(profile), None, |key, at| {
            let (index, step) = other_way_step(key, at);
            let name = format!("{} {}", key.0, key.1);
            (name, at.round, index.to_string(), step)
        });
        same(profile, "other ways", other, frozen_other_ways(profile));
        let ladder = scheduled(&ladder_schedule(), None, |key, at| {
            let (repeat, step) = ladder_step(key, at);
            let name = format!("{} {} {} {}", key.0, key.1, key.2, key.3);
            (name, at.round, repeat.to_string(), step)
        });
        same(profile, "ladder", ladder, frozen_ladder());
    }
}

#[test]
fn the_progress_total_is_the_loops() {
    for profile in Profile::ALL {
        assert_eq!(
            progress_total(profile),
            frozen_total(profile),
            "{profile:?}"
        );
    }
}

#[test]
fn criterion_ids_are_unique_within_a_run() {
    for profile in Profile::ALL {
        let ids: Vec<String> = frozen_sweep(profile).into_iter().map(|t| t.2).collect();
        let unique: std::collections::BTreeSet<&String> = ids.iter().collect();
        assert_eq!(unique.len(), ids.len(), "{profile:?}");
    }
}

#[test]
fn the_record_holds_every_schedule_with_its_rounds() {
    for profile in Profile::ALL {
        let recorded = schedules(profile);
        let names: Vec<&str> = recorded.iter().map(|r| r.name.as_str()).collect();
        assert_eq!(names, SCHEDULES, "{profile:?}");
        for r in &recorded {
            r.check().unwrap();
        }
        assert_eq!(recorded[0].rounds, sweep_repeats(profile), "{profile:?}");
        assert_eq!(
            recorded[1].rounds,
            head_to_head_windows(profile),
            "{profile:?}"
        );
        assert_eq!(
            recorded[2].rounds,
            methods::windows(profile).0,
            "{profile:?}"
        );
        assert_eq!(
            recorded[3].rounds,
            backpressure_ladder::REPEATS,
            "{profile:?}"
        );
        assert_eq!(
            recorded[0].points.len(),
            Variant::points_per_pass() + PAYLOAD_SIZES.len(),
            "{profile:?}"
        );
    }
}
