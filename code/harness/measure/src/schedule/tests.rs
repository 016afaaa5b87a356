use super::*;

const S: Sampling = Sampling::new(10, 1, 2);
const HEAVY: Sampling = Sampling::new(3, 5, 9);

fn plan(keys: &[u32]) -> Vec<Planned<u32>> {
    keys.iter().map(|&k| Planned::every(k, S)).collect()
}

/// Runs `s` with a `time` that records what it was told, no rig.
fn timed(s: &Schedule<u32>) -> (Vec<(u32, At)>, Parts<u32, (usize, usize)>) {
    let mut told = Vec::new();
    let parts = s
        .run(
            |_| Ok(()),
            |(), &k, _, at| {
                told.push((k, at));
                Ok((at.round, at.extra))
            },
            |()| Ok(()),
        )
        .unwrap();
    (told, parts)
}

fn order(s: &Schedule<u32>) -> Vec<(u32, usize, usize)> {
    s.slots()
        .iter()
        .map(|x| (x.key, x.round, x.extra))
        .collect()
}

#[test]
fn rounds_across_the_plan_then_extra_rounds_at_the_end_continue_the_count() {
    let s = Schedule::across("sweep", 2, &plan(&[1, 2, 3])).extra_at_end(2, &[3, 1]);
    assert_eq!(
        order(&s),
        vec![
            (1, 0, 0),
            (2, 0, 0),
            (3, 0, 0),
            (1, 1, 0),
            (2, 1, 0),
            (3, 1, 0),
            (3, 2, 1),
            (1, 2, 1),
            (3, 3, 2),
            (1, 3, 2),
        ]
    );
    assert!(s.slots().iter().all(|x| x.rig.is_none()));
}

#[test]
fn extra_rounds_after_each_round_keep_its_number_and_only_time_the_deciding_keys() {
    let s = Schedule::across("passes", 2, &plan(&[1, 2, 3])).extra_after_each_round(2, &[2]);
    assert_eq!(
        order(&s),
        vec![
            (1, 0, 0),
            (2, 0, 0),
            (3, 0, 0),
            (2, 0, 1),
            (2, 0, 2),
            (1, 1, 0),
            (2, 1, 0),
            (3, 1, 0),
            (2, 1, 1),
            (2, 1, 2),
        ]
    );
    for x in s.slots().iter().filter(|x| x.extra > 0) {
        assert_eq!(x.key, 2, "an extra round timed a key not deciding: {x:?}");
    }
    assert_eq!(s.deciding(), vec![2]);
    let r = s.record();
    let deciding: Vec<bool> = r.points.iter().map(|p| p.deciding).collect();
    assert_eq!(deciding, vec![false, true, false]);
    assert_eq!(
        r.extras,
        vec![RecordedExtra {
            rounds: 2,
            place: Place::AfterEachRound,
            points: 1
        }]
    );
}

#[test]
fn rounds_within_groups_finish_a_group_before_the_next() {
    let groups = vec![plan(&[1, 2]), plan(&[3])];
    let s = Schedule::within_groups("groups", 2, &groups);
    assert_eq!(
        order(&s),
        vec![
            (1, 0, 0),
            (2, 0, 0),
            (1, 1, 0),
            (2, 1, 0),
            (3, 0, 0),
            (3, 1, 0)
        ]
    );
}

#[test]
fn a_first_and_last_point_is_timed_in_two_rounds_only() {
    let mut points = plan(&[1]);
    points.push(Planned::first_and_last(9, HEAVY));
    let s = Schedule::across("heavy", 4, &points);
    let nine: Vec<usize> = s
        .slots()
        .iter()
        .filter(|x| x.key == 9)
        .map(|x| x.round)
        .collect();
    assert_eq!(nine, vec![0, 3]);
    let r = s.record();
    assert_eq!(r.points[1].timings, 2);
    assert_eq!(r.points[1].samples, Some(3));
    r.check().unwrap();
}

#[test]
fn the_steps_are_the_timings_run() {
    for s in [
        Schedule::across("a", 3, &plan(&[1, 2, 3, 4])).extra_at_end(5, &[4, 2]),
        Schedule::across("b", 2, &plan(&[5, 6]))
            .extra_after_each_round(3, &[6])
            .fresh_rig_each_round(),
        Schedule::within_groups("c", 3, &[plan(&[1]), plan(&[2, 3])]),
    ] {
        let (told, _) = timed(&s);
        assert_eq!(told.len(), s.steps(), "{}", s.name());
        assert_eq!(s.record().steps, s.steps());
    }
    assert_eq!(
        Schedule::across("a", 3, &plan(&[1, 2, 3, 4]))
            .extra_at_end(5, &[4, 2])
            .steps(),
        3 * 4 + 5 * 2
    );
}

#[test]
fn parts_are_kept_per_key_in_the_order_they_were_timed() {
    let s = Schedule::across("p", 2, &plan(&[1, 2])).extra_after_each_round(1, &[2]);
    let (told, parts) = timed(&s);
    // Keys in the order of their first timing; parts chronological.
    let keys: Vec<u32> = parts.0.iter().map(|(k, _)| *k).collect();
    assert_eq!(keys, vec![1, 2]);
    assert_eq!(parts.get(&2).unwrap(), &[(0, 0), (0, 1), (1, 0), (1, 1)]);
    assert_eq!(parts.get(&1).unwrap(), &[(0, 0), (1, 0)]);
    // `time` is told which of the key's timings it runs, and of how many.
    let two: Vec<(usize, usize)> = told
        .iter()
        .filter(|(k, _)| *k == 2)
        .map(|(_, at)| (at.nth, at.of))
        .collect();
    assert_eq!(two, vec![(0, 4), (1, 4), (2, 4), (3, 4)]);
    let pooled = parts
        .pool(|k, p| Ok((k, p.len(), p.last().copied())))
        .unwrap();
    assert_eq!(pooled, vec![(1, 2, Some((1, 0))), (2, 4, Some((1, 1)))]);
}

#[test]
fn later_parts_extend_the_keys_they_name_and_refuse_new_ones() {
    let s = Schedule::across("p", 1, &plan(&[1, 2]));
    let (_, mut parts) = timed(&s);
    let later = Schedule::across("late", 2, &plan(&[2]));
    let (_, late) = timed(&later);
    parts.append(late).unwrap();
    assert_eq!(parts.get(&2).unwrap(), &[(0, 0), (0, 0), (1, 0)]);
    let (_, unknown) = timed(&Schedule::across("x", 1, &plan(&[7])));
    let err = parts.append(unknown).unwrap_err().to_string();
    assert!(err.contains("did not time before"), "{err}");
}

/// Which rig each `time` ran on, how many were built and finished.
fn rigs(s: &Schedule<u32>) -> (Vec<usize>, Vec<Option<usize>>, Vec<usize>) {
    let mut built = Vec::new();
    let mut finished = Vec::new();
    let mut ran_on = Vec::new();
    let mut next = 0;
    s.run(
        |slot| {
            built.push(slot.rig);
            next += 1;
            Ok(next - 1)
        },
        |rig, _, _, _| {
            ran_on.push(*rig);
            Ok(())
        },
        |rig| {
            finished.push(rig);
            Ok(())
        },
    )
    .unwrap();
    (ran_on, built, finished)
}

#[test]
fn a_fresh_rig_each_round_is_built_and_finished_once_per_round_and_extra_round() {
    let s = Schedule::across("r", 2, &plan(&[1, 2]))
        .fresh_rig_each_round()
        .extra_after_each_round(1, &[1]);
    let ids: Vec<Option<usize>> = s.slots().iter().map(|x| x.rig).collect();
    assert_eq!(
        ids,
        [0, 0, 1, 2, 2, 3].map(Some).to_vec(),
        "round 0, its extra, round 1, its extra"
    );
    let (ran_on, built, finished) = rigs(&s);
    assert_eq!(ran_on, vec![0, 0, 1, 2, 2, 3]);
    assert_eq!(built, [0, 1, 2, 3].map(Some).to_vec());
    assert_eq!(finished, vec![0, 1, 2, 3], "every rig finished, in order");
    assert_eq!(s.record().rig, RigPolicy::FreshEachRound);

    let one = Schedule::across("o", 3, &plan(&[1, 2])).one_rig();
    let (ran_on, built, finished) = rigs(&one);
    assert_eq!((built.len(), finished.len()), (1, 1));
    assert!(ran_on.iter().all(|&r| r == 0));
    assert_eq!(one.record().rig, RigPolicy::One);

    let none = Schedule::across("n", 3, &plan(&[1, 2]));
    let (_, built, finished) = rigs(&none);
    assert_eq!((built, finished), (vec![None], vec![0]));
    assert_eq!(none.record().rig, RigPolicy::None);
}

#[test]
fn slots_given_by_hand_keep_their_rigs_and_one_sampling_per_key() {
    let slot = |key, round, rig| Slot {
        key,
        sampling: Some(S),
        round,
        extra: 0,
        rig: Some(rig),
    };
    // Two segments per round, the second on a rig of its own.
    let s = Schedule::from_slots(
        "segments",
        vec![slot(1, 0, 0), slot(2, 0, 1), slot(1, 1, 2), slot(2, 1, 3)],
    )
    .unwrap();
    let (_, built, _) = rigs(&s);
    assert_eq!(built, [0, 1, 2, 3].map(Some).to_vec());
    assert_eq!(s.record().rig, RigPolicy::Rigs(4));
    let mut other = slot(1, 1, 0);
    other.sampling = Some(HEAVY);
    let err = Schedule::from_slots("bad", vec![slot(1, 0, 0), other])
        .unwrap_err()
        .to_string();
    assert!(err.contains("another sampling"), "{err}");
}

#[derive(Clone, Copy, PartialEq, Serialize)]
struct Point {
    size: u32,
    name: &'static str,
}

#[test]
fn the_record_summarises_each_key_and_reads_back() {
    let keys: Vec<(&str, u32)> = vec![("a", 1), ("b", 1), ("a", 2)];
    let points: Vec<Planned<(&str, u32)>> = keys.iter().map(|&k| Planned::every(k, S)).collect();
    let s = Schedule::across("sweep", 3, &points)
        .extra_at_end(21, &[("b", 1), ("a", 2)])
        .fields(&["design", "producers"]);
    let r = s.record();
    assert_eq!(r.name, "sweep");
    assert_eq!(r.fields, vec!["design", "producers"]);
    assert_eq!(r.rounds, 3);
    assert_eq!(
        r.extras,
        vec![RecordedExtra {
            rounds: 21,
            place: Place::AtEnd,
            points: 2
        }]
    );
    assert_eq!(r.steps, 3 * 3 + 21 * 2);
    assert_eq!(r.points[0].key, vec![Value::from("a"), Value::from(1)]);
    assert_eq!((r.points[1].timings, r.points[1].extra_timings), (3, 21));
    assert_eq!(r.points[1].all_timings(), 24);
    assert_eq!(r.points[0].warm_up_ns, Some(1_000_000));
    assert_eq!(r.points[0].measurement_ns, Some(2_000_000));
    assert_eq!(r.point(&("a", 2)).unwrap().all_timings(), 24);
    assert_eq!(r.point(&("a", 1)).unwrap().all_timings(), 3);
    assert!(r.point(&("c", 1)).is_none());
    r.check().unwrap();
    let back: RecordedSchedule = serde_json::from_str(&serde_json::to_string(&r).unwrap()).unwrap();
    assert_eq!(back, r);

    let mut broken = r.clone();
    broken.points[0].deciding = true;
    assert!(broken.check().unwrap_err().to_string().contains("deciding"));
    let mut broken = r.clone();
    broken.points[2].timings += 1;
    assert!(broken.check().unwrap_err().to_string().contains("add up"));
    let mut broken = r.clone();
    broken.points[2].key = broken.points[0].key.clone();
    assert!(broken.check().unwrap_err().to_string().contains("twice"));

    // A struct's fields name the columns, in the order given.
    let s = Schedule::across("s", 1, &[Planned::every(Point { size: 8, name: "x" }, S)])
        .fields(&["name", "size"]);
    assert_eq!(
        s.record().points[0].key,
        vec![Value::from("x"), Value::from(8)]
    );
    // A schedule of extra rounds only ran later than the regular ones.
    let late = Schedule::from_slots(
        "late",
        vec![Slot {
            key: 1u32,
            sampling: Some(S),
            round: 0,
            extra: 1,
            rig: None,
        }],
    )
    .unwrap();
    assert_eq!(late.record().extras[0].place, Place::Later);
}

#[test]
#[should_panic(expected = "does not time")]
fn an_extra_round_for_a_key_the_schedule_does_not_time_is_a_plan_mistake() {
    let _ = Schedule::across("p", 1, &plan(&[1])).extra_at_end(1, &[2]);
}

#[test]
fn an_error_stops_the_run_at_that_slot() {
    let s = Schedule::across("e", 2, &plan(&[1, 2]));
    let mut calls = 0;
    let err = s
        .run(
            |_| Ok(()),
            |(), &k, _, at| {
                calls += 1;
                if (k, at.round) == (1, 1) {
                    anyhow::bail!("invalid timing");
                }
                Ok(())
            },
            |()| Ok(()),
        )
        .unwrap_err();
    assert_eq!(calls, 3);
    assert!(err.to_string().contains("invalid timing"));
}

#[test]
fn a_point_timed_by_hand_is_recorded_without_criterion_sampling() {
    let points = [Planned::every(1u32, S), Planned::every(2u32, None)];
    let s = Schedule::across("mixed", 2, &points);
    let mut told = Vec::new();
    s.run(
        |_| Ok(()),
        |(), &key, sampling, _| {
            told.push((key, sampling.map(|x| x.samples)));
            Ok(())
        },
        |()| Ok(()),
    )
    .unwrap();
    let s10 = Some(S.samples);
    assert_eq!(told, [(1, s10), (2, None), (1, s10), (2, None)]);
    let r = s.record();
    r.check().unwrap();
    let by_hand = serde_json::to_value(&r.points[1]).unwrap();
    for field in ["samples", "warm_up_ns", "measurement_ns", "flat"] {
        assert!(by_hand.get(field).is_none(), "{field} written: {by_hand}");
        assert!(serde_json::to_value(&r.points[0])
            .unwrap()
            .get(field)
            .is_some());
    }
    let back: RecordedSchedule = serde_json::from_value(serde_json::to_value(&r).unwrap()).unwrap();
    assert_eq!(back, r);
    // Half of criterion's sampling is neither criterion's nor by hand.
    let mut half = r.clone();
    half.points[0].flat = None;
    let err = half.check().unwrap_err().to_string();
    assert!(err.contains("part of criterion's sampling"), "{err}");
}
