//! The conditions a verdict map compares: for each, the timings it offers
//! (one point per design and worker count) and how the map names it. The
//! rules in `claims` read a claim's figures from any of them alike.
use harness_core::Estimate;
use harness_measure::stats::{self, Statistic, MIN_PAIRS};
use harness_measure::timing::Timing;

use fan_in::method::Variation;
use fan_in::published::ladder::Step;
use fan_in::run::FanInData;
use fan_in::sink::SinkKind;
use fan_in::sweep::Measured;
use fan_in::Design;

/// One design at one worker count under one condition.
#[derive(Clone, Copy, Debug)]
pub(super) struct Pt<'a> {
    pub timing: &'a Timing,
    /// Messages the producers handed over inside the timed region.
    pub messages: f64,
    /// Write calls the consumer made.
    pub writes: f64,
}

/// One row of a verdict map: a way of measuring, and its points.
pub(super) struct View<'a> {
    pub axis: &'static str,
    pub setting: String,
    pub as_published: bool,
    pub fair: bool,
    pub stat: Statistic,
    /// The worker counts the row measured, ascending.
    pub workers: Vec<usize>,
    points: Vec<(Design, usize, Pt<'a>)>,
}

impl<'a> View<'a> {
    pub fn get(&self, design: Design, workers: usize) -> Option<Pt<'a>> {
        self.points
            .iter()
            .find(|(d, w, _)| *d == design && *w == workers)
            .map(|(_, _, p)| *p)
    }

    /// The row as estimate names know it (`estimates::Row`).
    pub fn row(&self) -> Option<&str> {
        (!self.fair).then_some(self.setting.as_str())
    }

    pub fn fewest(&self) -> Option<usize> {
        self.workers.first().copied()
    }

    pub fn largest(&self) -> Option<usize> {
        self.workers.last().copied()
    }

    /// `a ÷ b` at `workers`, when the row has both.
    pub fn ratio(&self, a: Design, b: Design, workers: usize) -> Option<Estimate> {
        Some(ratio_of(
            self.get(a, workers)?.timing,
            self.get(b, workers)?.timing,
            self.stat,
        ))
    }

    fn new(axis: &'static str, setting: impl Into<String>, stat: Statistic) -> View<'a> {
        View {
            axis,
            setting: setting.into(),
            as_published: false,
            fair: false,
            stat,
            workers: Vec::new(),
            points: Vec::new(),
        }
    }

    fn push(&mut self, design: Design, workers: usize, p: Pt<'a>) {
        if !self.workers.contains(&workers) {
            self.workers.push(workers);
            self.workers.sort_unstable();
        }
        self.points.push((design, workers, p));
    }

    /// A point of the sweep (or of its free-placement control).
    fn push_measured(&mut self, m: &'a Measured) {
        self.push(
            m.design,
            m.workers,
            Pt {
                timing: &m.timing,
                messages: m.bytes_per_burst as f64,
                writes: m.writes_per_burst,
            },
        );
    }
}

/// `a ÷ b` of two timings' statistic with its interval. Two timings pooled
/// from as many passes, in the same order, pair up pass by pass
/// (`stats::paired_ratio`), so a state of the machine that held for one pass
/// cancels in that pass's ratio; others are bootstrapped from both
/// timings' samples (`stats::ratio`). In this chapter's plan, points with
/// as many timings were timed in the same passes, in the same order
/// (tested against the schedule).
pub(super) fn ratio_of(a: &Timing, b: &Timing, stat: Statistic) -> Estimate {
    ratio_of_with_method(a, b, stat).0
}

/// [`ratio_of`] and how it was drawn, in the words the judge stores.
pub(super) fn ratio_of_with_method(
    a: &Timing,
    b: &Timing,
    stat: Statistic,
) -> (Estimate, &'static str) {
    let name = match stat {
        Statistic::Median => ("paired ratio of medians", "ratio of medians, bootstrapped"),
        Statistic::Mean => ("paired ratio of means", "ratio of means, bootstrapped"),
    };
    if a.repeats.len() == b.repeats.len() && a.repeats.len() >= MIN_PAIRS {
        if let Ok(paired) = stats::paired_ratio(a, b, stat) {
            return (paired, name.0);
        }
    }
    (stats::ratio(a, b, stat), name.1)
}

/// The fair experiment: the sweep over TCP, every worker count.
pub(super) fn fair(d: &FanInData, stat: Statistic) -> View<'_> {
    let setting = match stat {
        Statistic::Median => "the fair experiment (criterion's median)",
        Statistic::Mean => "criterion's mean instead of its median",
    };
    let axis = match stat {
        Statistic::Median => "the book's method",
        Statistic::Mean => "statistic",
    };
    let mut v = View::new(axis, setting, stat);
    v.fair = stat == Statistic::Median;
    for m in d.points.iter().filter(|m| m.sink == SinkKind::Tcp) {
        v.push_measured(m);
    }
    v
}

/// The statistic the ladder reads: criterion's mean, the estimate it prints
/// and so the one the post reported. Under the published stop point a
/// step's samples gather near two times (`MethodPlan::ladder_sampling`),
/// and a median lands on whichever holds more of them: the mean weighs
/// both.
pub(super) const LADDER_STAT: Statistic = Statistic::Mean;

/// One step of the ladder, at the method's worker counts. A design the
/// step does not change keeps its last measured step; the mpsc inbox on the
/// book's rig is the sweep's own point.
pub(super) fn ladder(d: &FanInData, step: Step) -> View<'_> {
    let mut v = View::new("ladder", step.setting(), LADDER_STAT);
    v.as_published = step == Step::AsPublished;
    for &w in &d.method.workers {
        for design in [
            Design::StdMutexSwap,
            Design::TokioMutexSwap,
            Design::MpscUnbounded,
            Design::MpscRecvMany,
        ] {
            let measured = step.for_design(design);
            if let Some(p) = d
                .method
                .ladder
                .iter()
                .find(|p| p.design == design && p.step == measured && p.workers == w)
            {
                v.push(
                    design,
                    w,
                    Pt {
                        timing: &p.timing,
                        messages: p.finished_per_iteration * p.per_worker as f64,
                        writes: p.writes_per_iteration,
                    },
                );
            } else if design == Design::MpscUnbounded && measured >= Step::BookRig {
                if let Some(m) = d.get(SinkKind::Tcp, design, w) {
                    v.push(
                        design,
                        w,
                        Pt {
                            timing: &m.timing,
                            messages: m.bytes_per_burst as f64,
                            writes: m.writes_per_burst,
                        },
                    );
                }
            }
        }
    }
    v
}

/// One variation of the fair experiment. The swap consumer's placement does
/// not move the channels' consumers (tasks already): that row takes them
/// from the one-worker row, which runs the same runtime.
pub(super) fn variation(d: &FanInData, variation: Variation) -> View<'_> {
    let mut v = View::new(variation.axis(), variation.label(), Statistic::Median);
    let channels_from = match variation {
        Variation::OneWorkerConsumerOnBlockOn => Variation::OneWorker,
        other => other,
    };
    for x in &d.method.varied {
        let swap = matches!(
            x.point.design,
            Design::StdMutexSwap | Design::TokioMutexSwap
        );
        let wanted = if swap { variation } else { channels_from };
        if x.variation == wanted {
            v.push(
                x.point.design,
                x.point.workers,
                Pt {
                    timing: &x.point.timing,
                    messages: x.point.bytes_per_burst as f64,
                    writes: x.point.writes_per_burst,
                },
            );
        }
    }
    v
}

/// The free-placement control: the swap and mpsc at a few counts, threads
/// where the scheduler puts them.
pub(super) fn free(d: &FanInData) -> View<'_> {
    let mut v = View::new(
        "thread placement",
        "threads free (not pinned)",
        Statistic::Median,
    );
    for m in &d.free_points {
        v.push_measured(m);
    }
    v
}

/// Every row a verdict map may hold, the fair experiment first, then the
/// ladder from the published bench, then the variations.
pub(super) fn all(d: &FanInData) -> Vec<View<'_>> {
    let mut views = vec![fair(d, Statistic::Median)];
    views.extend(Step::ALL.iter().map(|&s| ladder(d, s)));
    views.extend(
        Variation::ALL
            .iter()
            .map(|&x| variation(d, x))
            .filter(|v| !v.workers.is_empty()),
    );
    views.push(fair(d, Statistic::Mean));
    if !d.free_points.is_empty() {
        views.push(free(d));
    }
    views
}
