//! What one profile measures: the worker counts, how often each design is
//! timed at each count, and with which criterion sampling. Which points are
//! heavy (measured in the first and last pass only) and which decide a
//! verdict (measured more often) is decided here, once.
use harness_core::Profile;
use harness_measure::timing::Sampling;

use crate::sink::SinkKind;
use crate::Design;

/// The worker counts and criterion sampling of one profile.
#[derive(Clone, Debug)]
pub struct Plan {
    pub workers: Vec<usize>,
    /// Passes over the whole sweep, each on a freshly built `Rig`; every
    /// point is measured once per pass and its passes are pooled
    /// (`sweep::Measured::pooled`). A burst's time wanders between modes
    /// (where the consumer task happens to be woken), and which mode
    /// dominates drifts over seconds: one long timing sees one stretch of
    /// that drift, passes spread over the run see several, and the pooled
    /// interval (repeats drawn first) widens when they disagree.
    pub passes: usize,
    /// Most points, per pass: equal samples, so each weighs the same in a
    /// median.
    pub sampling: Sampling,
    /// The write-per-message designs from `HEAVY_FROM` workers up, whose one
    /// burst takes up to a second over TCP: measured in the first and the
    /// last pass only, which keeps the run's length in bounds. Two passes,
    /// minutes apart, because one pass saw one stretch of the run: its
    /// samples agreed with each other, so its interval was narrow, while the
    /// next run's first stretch could be a fifth faster.
    pub heavy: Sampling,
    /// Worker counts measured a second time with free placement (TCP sink,
    /// `FREE_DESIGNS`), after each pass's pinned sweep, to show what the
    /// scheduler's choices cost.
    pub free_workers: Vec<usize>,
    /// Short passes after each full pass, each on a fresh `Rig`, over only
    /// the points FAN-1 and FAN-2 are decided on (`Plan::is_decisive`). At
    /// one worker the swap's burst takes microseconds and lands in one of
    /// several speeds per pass, so four passes left its ratio to mpsc
    /// moving by a tenth between runs; these points cost a fraction of a
    /// second each, so they get several times the passes for seconds.
    pub decisive_extra: usize,
    /// Worker counts at which the other crates' inboxes
    /// (`Design::OTHER_CRATES`) are measured, into both sinks: comparisons,
    /// not claims, so a few counts spread over the sweep, 128 and the
    /// largest among them.
    pub crate_workers: Vec<usize>,
    /// Worker counts also measured into the in-memory sink. No verdict
    /// reads that sink (the claims are decided over TCP); its figure shows
    /// the trend and the split table reads the largest count, so a few
    /// counts are enough. The time this saves pays for the other crates'
    /// inboxes: neither profile runs longer than before them.
    pub memory_workers: Vec<usize>,
}

/// The designs the free-placement control measures: the floor, the
/// published swap and the published baseline.
pub const FREE_DESIGNS: [Design; 3] = [Design::Floor, Design::StdMutexSwap, Design::MpscUnbounded];

/// Worker count from which write-per-message designs use `Plan::heavy`.
pub const HEAVY_FROM: usize = 2048;

/// The designs FAN-1 and FAN-2 compare.
pub const DECISIVE_DESIGNS: [Design; 2] = [Design::StdMutexSwap, Design::MpscUnbounded];

impl Plan {
    /// Whether the point is heavy: measured in the first and the last pass
    /// only, with `Plan::heavy`.
    pub fn is_heavy(design: Design, workers: usize) -> bool {
        matches!(design, Design::MpscUnbounded | Design::MpscBounded) && workers >= HEAVY_FROM
    }

    /// Whether the short passes measure this point: the TCP sink, the
    /// designs FAN-1 and FAN-2 compare, below `HEAVY_FROM` workers.
    pub fn is_decisive(design: Design, kind: SinkKind, workers: usize) -> bool {
        kind == SinkKind::Tcp && DECISIVE_DESIGNS.contains(&design) && workers < HEAVY_FROM
    }

    /// The points one short pass measures, in order.
    pub fn decisive_points(&self) -> Vec<(Design, SinkKind, usize)> {
        self.workers
            .iter()
            .flat_map(|&w| DECISIVE_DESIGNS.map(|d| (d, SinkKind::Tcp, w)))
            .filter(|&(d, k, w)| Plan::is_decisive(d, k, w))
            .collect()
    }

    /// Whether the sweep measures this point at all (in any pass).
    pub fn measures(&self, design: Design, kind: SinkKind, workers: usize) -> bool {
        (kind == SinkKind::Tcp || self.memory_workers.contains(&workers))
            && (!Design::OTHER_CRATES.contains(&design) || self.crate_workers.contains(&workers))
    }

    pub fn sampling_for(&self, design: Design, workers: usize) -> Sampling {
        if Plan::is_heavy(design, workers) {
            self.heavy
        } else {
            self.sampling
        }
    }

    /// Whether pass `pass` (from 0) measures this point.
    pub fn measures_in(&self, pass: usize, design: Design, workers: usize) -> bool {
        pass == 0 || pass + 1 == self.passes || !Plan::is_heavy(design, workers)
    }
}

// ANCHOR: plan
pub fn plan(profile: Profile) -> Plan {
    let powers = |ks: &[u32]| ks.iter().map(|k| 1usize << k).collect::<Vec<_>>();
    Plan {
        workers: profile.pick(
            powers(&[0, 3, 6]),
            powers(&[0, 2, 4, 6, 7, 9, 11, 13]),
            powers(&[0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13]),
        ),
        passes: profile.pick(2, 3, 5),
        // (samples, warm-up ms, measurement ms) per point and pass.
        sampling: profile.pick(
            Sampling::new(10, 5, 20).flat(),
            Sampling::new(10, 10, 80).flat(),
            Sampling::new(10, 30, 250).flat(),
        ),
        heavy: profile.pick(
            Sampling::new(10, 5, 20).flat(),
            Sampling::new(10, 40, 150).flat(),
            Sampling::new(10, 200, 1000).flat(),
        ),
        free_workers: profile.pick(vec![1, 8], vec![1, 16, 512], vec![1, 16, 512]),
        decisive_extra: profile.pick(1, 2, 3),
        crate_workers: profile.pick(
            powers(&[3, 6]),
            powers(&[0, 4, 7, 11, 13]),
            powers(&[0, 4, 7, 10, 13]),
        ),
        memory_workers: profile.pick(
            powers(&[0, 6]),
            powers(&[0, 6, 13]),
            powers(&[0, 2, 4, 6, 8, 10, 12, 13]),
        ),
    }
}
// ANCHOR_END: plan

#[cfg(test)]
mod tests {
    use super::*;
    use crate::placement::Placement;
    use crate::sink::SinkKind;

    #[test]
    fn heavy_points_are_measured_in_the_first_and_last_pass_and_light_ones_in_every_pass() {
        for profile in Profile::ALL {
            let plan = plan(profile);
            let passes_of = |design, workers| {
                (0..plan.passes)
                    .filter(|&pass| plan.measures_in(pass, design, workers))
                    .collect::<Vec<_>>()
            };
            let every: Vec<usize> = (0..plan.passes).collect();
            for &w in &plan.workers {
                for design in Design::ALL {
                    let want = if Plan::is_heavy(design, w) {
                        vec![0, plan.passes - 1]
                    } else {
                        every.clone()
                    };
                    assert_eq!(passes_of(design, w), want, "{profile} {design:?} {w}");
                }
            }
            // Every count is measured over TCP; the memory sink and the
            // other crates' inboxes at a subset of counts that holds the
            // largest (the split table reads it).
            let top = *plan.workers.last().unwrap();
            for subset in [&plan.memory_workers, &plan.crate_workers] {
                assert!(subset.iter().all(|w| plan.workers.contains(w)), "{profile}");
                assert!(subset.contains(&top), "{profile}");
            }
            for &w in &plan.workers {
                for d in Design::ALL {
                    assert!(
                        plan.measures(d, SinkKind::Tcp, w) || Design::OTHER_CRATES.contains(&d)
                    );
                    assert_eq!(
                        plan.measures(d, SinkKind::Memory, w),
                        plan.memory_workers.contains(&w)
                            && (!Design::OTHER_CRATES.contains(&d)
                                || plan.crate_workers.contains(&w))
                    );
                }
            }
            // The short passes measure FAN-1's and FAN-2's designs over TCP
            // at every count below the heavy ones, and nothing else.
            assert!(plan.decisive_extra >= 1);
            let light = plan.workers.iter().filter(|&&w| w < HEAVY_FROM).count();
            assert_eq!(plan.decisive_points().len(), 2 * light);
            assert!(plan
                .decisive_points()
                .iter()
                .all(|&(d, k, w)| k == SinkKind::Tcp
                    && DECISIVE_DESIGNS.contains(&d)
                    && w < HEAVY_FROM));
        }
        // Points of the TCP sweep with as many timings were timed in the
        // same passes and short passes, in the same order: the page pairs
        // their ratios pass by pass on that count alone.
        for profile in Profile::ALL {
            let plan = plan(profile);
            let schedule = crate::sweep::schedule(&plan, Placement::Pinned).unwrap();
            let slots = |d, w| -> Vec<(usize, usize)> {
                schedule
                    .slots()
                    .iter()
                    .filter(|s| s.key == (Placement::Pinned, SinkKind::Tcp, d, w))
                    .map(|s| (s.round, s.extra))
                    .collect()
            };
            let points: Vec<_> = plan
                .workers
                .iter()
                .flat_map(|&w| Design::ALL.map(|d| slots(d, w)))
                .filter(|s| !s.is_empty())
                .collect();
            for a in &points {
                for b in points.iter().filter(|b| b.len() == a.len()) {
                    assert_eq!(a, b, "{profile}");
                }
            }
            // FAN-1's and FAN-2's points pair, with every short pass.
            let swap = slots(Design::StdMutexSwap, plan.workers[0]);
            assert_eq!(swap.len(), plan.passes * (1 + plan.decisive_extra));
        }
        // The method experiments sit on worker counts the sweep measures
        // (the chapter's check refuses a run where they do not).
        for profile in Profile::ALL {
            let sweep = plan(profile).workers;
            let method = crate::method::plan(profile).workers;
            assert!(
                method.iter().all(|w| sweep.contains(w)),
                "{profile}: method {method:?} not in sweep {sweep:?}"
            );
        }
        // Quick and full measure the other crates at 128 workers, where
        // What to use picks an inbox (and at the largest count, checked above).
        for profile in [Profile::Quick, Profile::Full] {
            assert!(plan(profile).crate_workers.contains(&128), "{profile}");
        }
        // Quick and full reach the heavy points; smoke does not.
        assert!(plan(Profile::Quick)
            .workers
            .iter()
            .any(|&w| w >= HEAVY_FROM));
        assert!(!plan(Profile::Smoke)
            .workers
            .iter()
            .any(|&w| w >= HEAVY_FROM));
    }
}
