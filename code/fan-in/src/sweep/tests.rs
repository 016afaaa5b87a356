//! The schedule times what the pass loop it replaced timed, in the same
//! order, under the same criterion ids and progress lines (the loop is kept
//! here, frozen, as the oracle: an order change would move no test but
//! this one), and its record says so.
use harness_core::Profile;

use super::*;
use crate::plan::{DECISIVE_DESIGNS, HEAVY_FROM};

/// One timing: its key, its pass, its criterion id, its progress line.
type Timed = (Key, usize, String, String);

/// What the pass loop before the schedule timed, in order, and the
/// progress total it set. Frozen copy of `run` at issue-41's ef196a3
/// (`sweep.rs:150-247`) with `time_point`'s id (`sweep.rs:82-90`),
/// timing nothing; `placement` is the sweep's, its plan's control cleared
/// when it is free, as `run` did.
fn frozen_loop(profile: Profile, placement: Placement) -> (Vec<Timed>, u64) {
    let mut plan = plan(profile);
    if placement == Placement::Free {
        plan.free_workers.clear();
    }
    let method_plan = crate::method::plan(profile);
    let total = (frozen_timings(&plan) + crate::method::timings(&method_plan)) as u64;
    let mut timed = Vec::new();
    let mut time = |rig: Placement,
                    pass: usize,
                    short: usize,
                    (design, kind, workers): (Design, SinkKind, usize)| {
        if !(plan.measures(design, kind, workers) && plan.measures_in(pass, design, workers)) {
            return;
        }
        let step = format!(
            "pass {}/{}{}, {}{}, {workers} workers, {}",
            pass + 1,
            plan.passes,
            if short == 0 {
                String::new()
            } else {
                format!(", short pass {short}/{}", plan.decisive_extra)
            },
            match rig {
                Placement::Free if placement == Placement::Pinned => "free placement, ",
                _ => "",
            },
            kind.label(),
            design.label()
        );
        let n = pass * (plan.decisive_extra + 1) + short;
        let id = format!(
            "{}-{}-{}-w{workers}-pass{n}",
            rig.label(),
            match kind {
                SinkKind::Tcp => "tcp",
                SinkKind::Memory => "memory",
            },
            design.id()
        );
        timed.push(((rig, kind, design, workers), pass, id, step));
    };
    for pass in 0..plan.passes {
        for kind in SinkKind::ALL {
            for &workers in &plan.workers {
                for design in Design::ALL {
                    time(placement, pass, 0, (design, kind, workers));
                }
            }
        }
        for short in 1..=plan.decisive_extra {
            for (design, kind, workers) in plan.decisive_points() {
                time(placement, pass, short, (design, kind, workers));
            }
        }
        if plan.free_workers.is_empty() {
            continue;
        }
        for &workers in &plan.free_workers {
            for design in FREE_DESIGNS {
                time(Placement::Free, pass, 0, (design, SinkKind::Tcp, workers));
            }
        }
    }
    (timed, total)
}

/// `Plan::timings` as the loop's progress total counted them, frozen.
fn frozen_timings(plan: &Plan) -> usize {
    let per_pass = |pass| {
        SinkKind::ALL
            .iter()
            .flat_map(|&k| plan.workers.iter().map(move |&w| (k, w)))
            .flat_map(|(k, w)| Design::ALL.map(|d| (d, k, w)))
            .filter(|&(d, k, w)| plan.measures(d, k, w) && plan.measures_in(pass, d, w))
            .count()
    };
    let free = (0..plan.passes)
        .map(|pass| {
            plan.free_workers
                .iter()
                .flat_map(|&w| FREE_DESIGNS.map(|d| (d, w)))
                .filter(|&(d, w)| plan.measures_in(pass, d, w))
                .count()
        })
        .sum::<usize>();
    (0..plan.passes).map(per_pass).sum::<usize>()
        + plan.passes * plan.decisive_extra * plan.decisive_points().len()
        + free
}

/// What the schedule has `run` time, recorded by a `time` that builds the
/// id and progress line as `run` does, with the rig each slot gets.
fn scheduled(profile: Profile, placement: Placement) -> (Vec<Timed>, Vec<Placement>) {
    let mut plan = plan(profile);
    if placement == Placement::Free {
        plan.free_workers.clear();
    }
    let s = schedule(&plan, placement).unwrap();
    let mut timed = Vec::new();
    let mut rigs = Vec::new();
    s.run(
        |slot| {
            rigs.push(slot.key.0);
            Ok(slot.key.0)
        },
        |rig, &key, sampling, at| {
            let (_, _, design, workers) = key;
            assert_eq!(*rig, key.0, "{key:?}: timed on a rig of another placement");
            assert_eq!(
                sampling,
                Some(plan.sampling_for(design, workers)),
                "{key:?}"
            );
            timed.push((
                key,
                at.round,
                criterion_id(&plan, key, at),
                progress_line(&plan, placement, key, at),
            ));
            Ok(())
        },
        |_| Ok(()),
    )
    .unwrap();
    (timed, rigs)
}

#[test]
fn the_schedule_times_what_the_loop_timed_in_the_same_order() {
    for profile in Profile::ALL {
        for placement in [Placement::Pinned, Placement::Free] {
            let (before, _) = frozen_loop(profile, placement);
            let (after, _) = scheduled(profile, placement);
            assert_eq!(
                after.len(),
                before.len(),
                "{profile:?} {placement:?}: timings"
            );
            for (i, (a, b)) in after.iter().zip(&before).enumerate() {
                assert_eq!(a, b, "{profile:?} {placement:?}: timing {i} moved");
            }
        }
    }
}

#[test]
fn a_fresh_rig_for_each_pass_short_pass_and_control() {
    for profile in Profile::ALL {
        let p = plan(profile);
        let (_, rigs) = scheduled(profile, Placement::Pinned);
        let mut want = Vec::new();
        for _ in 0..p.passes {
            want.push(Placement::Pinned);
            want.extend(std::iter::repeat_n(Placement::Pinned, p.decisive_extra));
            want.push(Placement::Free);
        }
        assert_eq!(rigs, want, "{profile:?}");
        let (_, rigs) = scheduled(profile, Placement::Free);
        assert_eq!(rigs.len(), p.passes * (1 + p.decisive_extra), "{profile:?}");
    }
}

#[test]
fn the_progress_total_is_the_loops() {
    for profile in Profile::ALL {
        for placement in [Placement::Pinned, Placement::Free] {
            let (before, total) = frozen_loop(profile, placement);
            let mut p = plan(profile);
            if placement == Placement::Free {
                p.free_workers.clear();
            }
            let steps = schedule(&p, placement).unwrap().steps();
            assert_eq!(steps, before.len(), "{profile:?}");
            let method = crate::method::timings(&crate::method::plan(profile));
            assert_eq!((steps + method) as u64, total, "{profile:?}");
        }
    }
}

#[test]
fn criterion_ids_are_unique_within_a_run() {
    for profile in Profile::ALL {
        let (timed, _) = scheduled(profile, Placement::Pinned);
        let ids: std::collections::BTreeSet<&String> = timed.iter().map(|t| &t.2).collect();
        assert_eq!(ids.len(), timed.len(), "{profile:?}");
    }
}

#[test]
fn the_record_gives_the_deciding_points_their_short_passes() {
    for profile in Profile::ALL {
        let p = plan(profile);
        let r = schedule(&p, Placement::Pinned).unwrap().record();
        r.check().unwrap();
        assert_eq!(r.rounds, p.passes, "{profile:?}");
        assert_eq!(r.fields, ["placement", "sink", "design", "workers"]);
        for kind in SinkKind::ALL {
            for &w in &p.workers {
                for design in Design::ALL {
                    let point = r.point(&(Placement::Pinned, kind, design, w));
                    assert_eq!(point.is_some(), p.measures(design, kind, w));
                    let Some(point) = point else { continue };
                    let deciding = Plan::is_decisive(design, kind, w);
                    assert_eq!(point.deciding, deciding, "{profile:?} {design:?} {w}");
                    let regular = if Plan::is_heavy(design, w) {
                        2
                    } else {
                        p.passes
                    };
                    let extra = if deciding {
                        p.passes * p.decisive_extra
                    } else {
                        0
                    };
                    assert_eq!((point.timings, point.extra_timings), (regular, extra));
                }
            }
        }
        for &w in &p.free_workers {
            for design in FREE_DESIGNS {
                let point = r
                    .point(&(Placement::Free, SinkKind::Tcp, design, w))
                    .unwrap();
                assert_eq!((point.timings, point.extra_timings), (p.passes, 0));
            }
        }
        let deciding = r.points.iter().filter(|x| x.deciding).count();
        let light = p.workers.iter().filter(|&&w| w < HEAVY_FROM).count();
        assert_eq!(deciding, DECISIVE_DESIGNS.len() * light, "{profile:?}");
        assert_eq!(
            r.extras,
            vec![harness_measure::schedule::RecordedExtra {
                rounds: p.decisive_extra,
                place: harness_measure::schedule::Place::AfterEachRound,
                points: deciding,
            }],
            "{profile:?}"
        );
        // A rig per pass, per short pass and per control segment.
        assert_eq!(
            r.rig,
            harness_measure::schedule::RigPolicy::Rigs(p.passes * (p.decisive_extra + 2)),
            "{profile:?}"
        );
    }
}
