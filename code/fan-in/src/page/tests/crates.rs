//! The other crates' inboxes on the page: the run measures them where the
//! plan says (and `check` refuses a point off the plan), and the picks of
//! What to use follow the numbers.
use harness::fixtures;
use harness_core::Profile;
use harness_page::{render::blocks::Block, Page as _};

use fan_in::run::FanInData;
use fan_in::sink::SinkKind;
use fan_in::Design;

use super::super::FanIn;
use super::smoke;

#[test]
fn the_run_measures_the_other_crates_where_the_plan_says() {
    let d = &smoke().data;
    FanIn::check(d).unwrap();
    let plan = fan_in::plan::plan(Profile::Smoke);
    assert_eq!(d.crate_workers.as_ref(), Some(&plan.crate_workers));
    assert_eq!(d.memory_workers.as_ref(), Some(&plan.memory_workers));
    let mut want = 0;
    for kind in SinkKind::ALL {
        for design in Design::ALL {
            for &w in &d.workers {
                let point = d.get(kind, design, w);
                assert_eq!(
                    point.is_some(),
                    plan.measures(design, kind, w),
                    "{kind:?} {design:?} {w}"
                );
                want += usize::from(plan.measures(design, kind, w));
                if let Some(m) = point {
                    assert_eq!(m.bytes_per_burst, (w * d.per_worker) as u64);
                    assert!(m.bursts >= m.timing.samples as u64);
                }
            }
        }
    }
    assert_eq!(d.points.len(), want);
    // The other crates at the largest count, over both sinks (the split
    // table reads it).
    let top = *d.workers.last().unwrap();
    for design in Design::OTHER_CRATES {
        for kind in SinkKind::ALL {
            assert!(d.get(kind, design, top).is_some(), "{design:?} {kind:?}");
        }
    }

    // A point the plan does not measure, or one it does gone missing, is refused.
    let mut extra = d.clone();
    let off = d
        .workers
        .iter()
        .copied()
        .find(|w| !plan.crate_workers.contains(w))
        .unwrap();
    let mut m = d
        .get(SinkKind::Tcp, Design::MpscRecvMany, off)
        .unwrap()
        .clone();
    m.design = Design::FlumeInbox;
    extra.points.push(m);
    let err = FanIn::check(&extra).unwrap_err();
    assert!(
        format!("{err:#}").contains("not a point the run's plan measures"),
        "{err:#}"
    );
    let mut missing = d.clone();
    missing
        .points
        .retain(|m| !(m.design == Design::AsyncChannelInbox && m.workers == top));
    let err = FanIn::check(&missing).unwrap_err();
    assert!(format!("{err:#}").contains("missing"), "{err:#}");
}

/// The pick at `workers` in the summary list: what it reaches for.
fn pick_at(d: &FanInData, workers: usize) -> String {
    let book = fixtures::book::<FanIn>(d.clone());
    let blocks = fixtures::render::<FanIn>("summary-list", &book);
    let [Block::Advice(advice)] = blocks.as_slice() else {
        panic!("summary-list is not one advice block: {blocks:?}")
    };
    let measure = format!(
        "time per message at {} workers",
        harness_core::fmt::thousands(workers as u64)
    );
    let picks: Vec<_> = advice.iter().filter(|a| a.why.contains(&measure)).collect();
    assert_eq!(picks.len(), 1, "{advice:?}");
    picks[0].reach_for.clone()
}

#[test]
fn the_picks_follow_the_numbers() {
    let d = smoke().data.clone();
    let top = *d.workers.last().unwrap();
    let winner = pick_at(&d, top);
    let winning = Design::ALL
        .into_iter()
        .find(|x| x.label() == winner)
        .unwrap();
    assert_ne!(winning, Design::Floor, "the floor is no inbox");
    // The winner is the lowest time per burst (so per message) of the
    // inboxes at that count.
    let time = |d: &FanInData, x| {
        d.get(SinkKind::Tcp, x, top)
            .map(|m| m.timing.median.point_ns)
    };
    for x in Design::ALL.into_iter().filter(|&x| x != Design::Floor) {
        assert!(time(&d, winning).unwrap() <= time(&d, x).unwrap(), "{x:?}");
    }
    // Swap the winner's numbers with another crate's inbox: the pick moves.
    let other = Design::OTHER_CRATES
        .into_iter()
        .find(|&x| x != winning)
        .unwrap();
    let mut swapped = d.clone();
    let i = swapped
        .points
        .iter()
        .position(|m| (m.sink, m.design, m.workers) == (SinkKind::Tcp, winning, top))
        .unwrap();
    let j = swapped
        .points
        .iter()
        .position(|m| (m.sink, m.design, m.workers) == (SinkKind::Tcp, other, top))
        .unwrap();
    let (a, b) = (
        swapped.points[i].timing.clone(),
        swapped.points[j].timing.clone(),
    );
    swapped.points[i].timing = b;
    swapped.points[j].timing = a;
    assert_eq!(pick_at(&swapped, top), other.label());
}
