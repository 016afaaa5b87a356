//! How much the method moves the numbers the claims rest on, measured in
//! the same run as the sweep: the ladder from the published bench to the
//! fair experiment (`published::ladder`), the method choices a careful
//! reproducer could make differently (`Variation`), and the counted swaps
//! that explain the largest swing (`cause`).
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::{ensure, Result};
use harness_core::Profile;
use harness_measure::timing::Sampling;
use harness_measure::Lab;
use serde::{Deserialize, Serialize};

use crate::cause::{Counters, Counts};
use crate::experiment::{ConsumerOn, Job, Rig, Threads};
use crate::placement::Placement;
use crate::published::ladder::{self, Step};
use crate::published::rounds::{time_step, LadderPoint};
use crate::sink::SinkKind;
use crate::sweep::{time_job, Measured};
use crate::Design;

/// The worker counts and sampling of the method experiments.
#[derive(Clone, Debug)]
pub struct MethodPlan {
    /// Few counts, the fewest and the largest of the sweep among them: the
    /// points the claims are decided on.
    pub workers: Vec<usize>,
    pub sampling: Sampling,
    /// The ladder's steps that keep the published stop point take this
    /// many times the samples (see `ladder_sampling`).
    pub published_stop_samples: usize,
    /// The worker count of the counted swaps, and how many bursts each.
    pub counted_workers: usize,
    pub counted_bursts: usize,
    /// How long bursts run back to back for each CPU profile.
    pub profile_for: Duration,
}

// ANCHOR: method_plan
pub fn plan(profile: Profile) -> MethodPlan {
    MethodPlan {
        // Each a worker count of the same profile's sweep (`plan::plan`).
        workers: profile.pick(vec![1, 8], vec![1, 128, 512], vec![1, 128, 1024, 8192]),
        // (samples, warm-up ms, measurement ms) per point, one pass.
        sampling: profile.pick(
            Sampling::new(10, 5, 20).flat(),
            Sampling::new(10, 10, 80).flat(),
            Sampling::new(10, 30, 250).flat(),
        ),
        published_stop_samples: 2,
        counted_workers: profile.pick(8, 1024, 1024),
        counted_bursts: profile.pick(3, 6, 10),
        // Long enough for a few hundred samples of each design in full.
        profile_for: Duration::from_millis(profile.pick(150, 500, 1500)),
    }
}
// ANCHOR_END: method_plan

impl MethodPlan {
    /// The sampling of one ladder step. Under the published stop point (the
    /// swap's iteration ends when its first worker finishes) each iteration
    /// is a race with two outcomes: one worker done at once, or the whole
    /// backlog first. Samples fall near one time or the other, so these
    /// steps take more of them and the ladder reads their mean
    /// (the page's `views::LADDER_STAT`, in the binary).
    pub fn ladder_sampling(&self, step: Step) -> Sampling {
        match step.recipe().stop {
            ladder::Stop::Published => Sampling {
                samples: self.sampling.samples * self.published_stop_samples,
                ..self.sampling
            },
            ladder::Stop::SinkHasAll => self.sampling,
        }
    }
}

/// A method choice of the fair experiment that a careful reproducer could
/// make differently. Each changes one thing of the fair experiment.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Variation {
    /// The multi-thread runtime with a single worker (pinned to the second
    /// core, so the driver keeps the first).
    OneWorker,
    /// The same runtime with the swap consumer on the `block_on` thread,
    /// which then has a core of its own.
    OneWorkerConsumerOnBlockOn,
    /// The current-thread runtime: the driver thread runs everything.
    CurrentThread,
    /// The published message count per worker.
    PublishedMessages,
}

impl Variation {
    pub const ALL: [Variation; 4] = [
        Variation::OneWorker,
        Variation::OneWorkerConsumerOnBlockOn,
        Variation::CurrentThread,
        Variation::PublishedMessages,
    ];

    /// Stable id, for criterion ids.
    pub fn id(self) -> &'static str {
        match self {
            Variation::OneWorker => "one-worker",
            Variation::OneWorkerConsumerOnBlockOn => "one-worker-consumer-on-block-on",
            Variation::CurrentThread => "current-thread",
            Variation::PublishedMessages => "published-messages",
        }
    }

    /// The method choice it varies, as the verdict maps name it.
    pub fn axis(self) -> &'static str {
        match self {
            Variation::OneWorker | Variation::CurrentThread => "runtime",
            Variation::OneWorkerConsumerOnBlockOn => "consumer placement",
            Variation::PublishedMessages => "messages per worker",
        }
    }

    pub fn label(self) -> &'static str {
        match self {
            Variation::OneWorker => "one worker thread",
            Variation::OneWorkerConsumerOnBlockOn => {
                "swap consumer on the block_on thread, with a core of its own (one worker thread)"
            }
            Variation::CurrentThread => "current-thread runtime",
            Variation::PublishedMessages => "the published bench's messages per worker",
        }
    }

    pub fn threads(self) -> Threads {
        match self {
            Variation::OneWorker | Variation::OneWorkerConsumerOnBlockOn => Threads::OneWorker,
            Variation::CurrentThread => Threads::CurrentThread,
            Variation::PublishedMessages => Threads::PerCore,
        }
    }

    pub fn per_worker(self) -> usize {
        match self {
            Variation::PublishedMessages => crate::published::PER_WORKER,
            _ => crate::PER_WORKER,
        }
    }

    /// Where the swap consumer runs (every other consumer is a task).
    pub fn swap_consumer(self) -> ConsumerOn {
        match self {
            Variation::OneWorkerConsumerOnBlockOn => ConsumerOn::BlockOnThread,
            _ => ConsumerOn::Worker,
        }
    }

    /// The points it measures: both swaps at every method count; mpsc and
    /// recv_many where the claims about them are decided (the fewest and
    /// the largest count), except where the variation cannot change them
    /// (their consumers are tasks already) or one write per message at the
    /// published count would take many seconds a burst (the largest).
    pub fn points(self, workers: &[usize]) -> Vec<(Design, usize)> {
        let (fewest, largest) = (workers[0], *workers.last().expect("counts"));
        let mut points: Vec<(Design, usize)> = workers
            .iter()
            .flat_map(|&w| [(Design::StdMutexSwap, w), (Design::TokioMutexSwap, w)])
            .collect();
        let channels: &[usize] = match self {
            Variation::OneWorker | Variation::CurrentThread => &[fewest, largest],
            Variation::OneWorkerConsumerOnBlockOn => &[],
            Variation::PublishedMessages => &[fewest],
        };
        for &w in channels {
            points.push((Design::MpscUnbounded, w));
            // recv_many matters to FAN-4 only, decided at the largest count.
            if w == largest {
                points.push((Design::MpscRecvMany, w));
            }
        }
        points.sort();
        points.dedup();
        points
    }

    fn job(self, design: Design, workers: usize) -> Job {
        let consumer = match design {
            Design::StdMutexSwap | Design::TokioMutexSwap => self.swap_consumer(),
            _ => ConsumerOn::Worker,
        };
        Job {
            design,
            kind: SinkKind::Tcp,
            workers,
            per_worker: self.per_worker(),
            consumer,
            counted: None,
        }
    }
}

/// One point of a variation.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Varied {
    pub variation: Variation,
    pub per_worker: usize,
    pub point: Measured,
}

/// The counted swaps: one design, one runtime, one consumer placement.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CountedRun {
    pub design: Design,
    pub threads: Threads,
    pub consumer: ConsumerOn,
    pub workers: usize,
    pub per_worker: usize,
    /// Each burst's time (ns, over TCP, validated like every burst) and counts.
    pub bursts: Vec<(f64, Counts)>,
}

/// One setting of the counted swaps.
#[derive(Clone, Copy, Debug)]
pub struct CountedSetting {
    pub threads: Threads,
    pub consumer: ConsumerOn,
    pub per_worker: usize,
    /// A single producer instead of the plan's count.
    pub one_producer: bool,
}

const fn counted(
    threads: Threads,
    consumer: ConsumerOn,
    per_worker: usize,
    one_producer: bool,
) -> CountedSetting {
    CountedSetting {
        threads,
        consumer,
        per_worker,
        one_producer,
    }
}

/// The settings of the counted swaps: the consumer as a task or on the
/// `block_on` thread, that thread sharing a core with a worker (a worker per
/// core) or having one of its own (one worker); the book's messages per
/// worker, and the published count, which crosses tokio's cooperative
/// budget of 128 operations per turn, with many producers and with one.
pub const COUNTED: [CountedSetting; 6] = [
    counted(
        Threads::PerCore,
        ConsumerOn::Worker,
        crate::PER_WORKER,
        false,
    ),
    counted(
        Threads::PerCore,
        ConsumerOn::BlockOnThread,
        crate::PER_WORKER,
        false,
    ),
    counted(
        Threads::OneWorker,
        ConsumerOn::Worker,
        crate::PER_WORKER,
        false,
    ),
    counted(
        Threads::OneWorker,
        ConsumerOn::BlockOnThread,
        crate::PER_WORKER,
        false,
    ),
    counted(Threads::PerCore, ConsumerOn::Worker, PUBLISHED, false),
    counted(Threads::PerCore, ConsumerOn::Worker, PUBLISHED, true),
];

const PUBLISHED: usize = crate::published::PER_WORKER;

/// The designs profiled at the largest method count: the baseline, the
/// other crates' inboxes and both swaps as the fair experiment runs them,
/// and the tokio swap where its consumer's placement
/// moves it most (on the `block_on` thread, with a core of its own).
pub const PROFILED: [(Design, Threads, ConsumerOn); 6] = [
    // The published baseline: one write call per message.
    (Design::MpscUnbounded, Threads::PerCore, ConsumerOn::Worker),
    // The other crates' channels, drained in batches as each allows.
    (Design::FlumeInbox, Threads::PerCore, ConsumerOn::Worker),
    (
        Design::AsyncChannelInbox,
        Threads::PerCore,
        ConsumerOn::Worker,
    ),
    (Design::StdMutexSwap, Threads::PerCore, ConsumerOn::Worker),
    (Design::TokioMutexSwap, Threads::PerCore, ConsumerOn::Worker),
    (
        Design::TokioMutexSwap,
        Threads::OneWorker,
        ConsumerOn::BlockOnThread,
    ),
];

/// The book's design and the floor, profiled the same way at the same
/// count, so the design's section can show where its time goes beyond the
/// floor's (`MethodData::design_profiles`).
pub const DESIGN_PROFILED: [Design; 2] = [Design::WorkerChunks, Design::Floor];

/// Where one swap's CPU time went: bursts back to back, every thread
/// sampled (`harness_measure::stacks`), outside any timing.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct SwapProfile {
    pub design: Design,
    pub threads: Threads,
    pub consumer: ConsumerOn,
    pub workers: usize,
    /// Bursts run (each one validated) while sampling.
    pub bursts: u64,
    pub stacks: harness_measure::stacks::Stacks,
}

/// Everything the method experiments measured.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct MethodData {
    pub workers: Vec<usize>,
    pub ladder: Vec<LadderPoint>,
    pub varied: Vec<Varied>,
    pub counted: Vec<CountedRun>,
    pub profiles: Vec<SwapProfile>,
    /// `DESIGN_PROFILED`, in its order; empty in runs made before them.
    #[serde(default)]
    pub design_profiles: Vec<SwapProfile>,
}

/// The ladder's points, in the order they are measured: every design at
/// every step that changes it, count by count.
pub fn ladder_points(plan: &MethodPlan) -> Vec<(Design, Step, usize)> {
    let largest = *plan.workers.last().expect("counts");
    let mut points = Vec::new();
    for &w in &plan.workers {
        for step in Step::ALL {
            for design in ladder::DESIGNS {
                // The mpsc inbox on the book's rig is the fair experiment's
                // own point, measured by the sweep.
                if step.applies_to(design)
                    && !(design == Design::MpscUnbounded && step >= Step::BookRig)
                {
                    points.push((design, step, w));
                }
            }
        }
        if w == largest {
            // FAN-4 as published: recv_many under the published bench.
            points.push((Design::MpscRecvMany, Step::AsPublished, w));
        }
    }
    points
}

/// Timings the method experiments make, counted swaps included (for the
/// progress total).
pub fn timings(plan: &MethodPlan) -> usize {
    ladder_points(plan).len()
        + 2 * COUNTED.len()
        + PROFILED.len()
        + DESIGN_PROFILED.len()
        + Variation::ALL
            .iter()
            .map(|v| v.points(&plan.workers).len())
            .sum::<usize>()
}

/// Runs the ladder, the variations and the counted swaps. `placement` is
/// the sweep's: where the OS cannot pin, the rigs run free like the sweep.
pub fn run(lab: &Lab, plan: &MethodPlan, placement: Placement) -> Result<MethodData> {
    let progress = lab.progress();
    let step = |what: String| progress.step(what);
    let mut data = MethodData {
        workers: plan.workers.clone(),
        ..MethodData::default()
    };
    let mut rig = Rig::new(placement)?;
    for (design, s, w) in ladder_points(plan) {
        step(format!(
            "ladder {}, {w} workers, {}",
            s.label(),
            design.label()
        ));
        data.ladder.push(time_step(
            lab,
            &mut rig,
            plan.ladder_sampling(s),
            (design, s, w),
        )?);
    }
    rig.finish()?;
    for variation in Variation::ALL {
        let mut rig = Rig::with(placement, variation.threads())?;
        for (design, w) in variation.points(&plan.workers) {
            step(format!(
                "{}, {w} workers, {}",
                variation.label(),
                design.label()
            ));
            let id = format!("varied-{}-{}-w{w}", variation.id(), design.id());
            let point = time_job(&mut rig, lab, plan.sampling, variation.job(design, w), &id)?;
            data.varied.push(Varied {
                variation,
                per_worker: variation.per_worker(),
                point,
            });
        }
        rig.finish()?;
    }
    for setting in COUNTED {
        let CountedSetting {
            threads,
            consumer,
            per_worker,
            one_producer,
        } = setting;
        let workers = if one_producer {
            1
        } else {
            plan.counted_workers
        };
        let mut rig = Rig::with(placement, threads)?;
        for design in [Design::StdMutexSwap, Design::TokioMutexSwap] {
            step(format!(
                "counted locks, {}, {}, {workers} workers of {per_worker} messages, {}",
                threads.label(),
                consumer.label(),
                design.label()
            ));
            let counters = Arc::new(Counters::default());
            let mut bursts = Vec::new();
            for _ in 0..plan.counted_bursts {
                let burst = rig.run_job(Job {
                    design,
                    kind: SinkKind::Tcp,
                    workers,
                    per_worker,
                    consumer,
                    counted: Some(Arc::clone(&counters)),
                })?;
                let counts = burst.counts.expect("a counted burst counts");
                ensure!(
                    counts.pushes == (workers * per_worker) as u64,
                    "a counted burst counted {} pushes",
                    counts.pushes
                );
                bursts.push((burst.elapsed.as_nanos() as f64, counts));
            }
            data.counted.push(CountedRun {
                design,
                threads,
                consumer,
                workers,
                per_worker,
                bursts,
            });
        }
        rig.finish()?;
    }
    let largest = *plan.workers.last().expect("counts");
    let design_profiled = DESIGN_PROFILED.map(|d| (d, Threads::PerCore, ConsumerOn::Worker));
    for (i, (design, threads, consumer)) in PROFILED.into_iter().chain(design_profiled).enumerate()
    {
        let mut rig = Rig::with(placement, threads)?;
        let name = format!(
            "{}, {}, {}",
            design.label(),
            consumer.label(),
            threads.label()
        );
        step(format!("CPU profile, {largest} workers: {name}"));
        let job = Job {
            design,
            kind: SinkKind::Tcp,
            workers: largest,
            per_worker: crate::PER_WORKER,
            consumer,
            counted: None,
        };
        let (bursts, stacks) = harness_measure::stacks::record(lab, &name, || {
            let started = Instant::now();
            let mut bursts = 0u64;
            while bursts == 0 || started.elapsed() < plan.profile_for {
                rig.run_job(job.clone())?;
                bursts += 1;
            }
            Ok(bursts)
        })?;
        rig.finish()?;
        let profile = SwapProfile {
            design,
            threads,
            consumer,
            workers: largest,
            bursts,
            stacks,
        };
        if i < PROFILED.len() {
            data.profiles.push(profile);
        } else {
            data.design_profiles.push(profile);
        }
    }
    Ok(data)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_steps_under_the_published_stop_point_take_twice_the_samples() {
        for profile in [Profile::Smoke, Profile::Quick, Profile::Full] {
            let plan = plan(profile);
            for step in Step::ALL {
                let want = if step < Step::SameStopPoint { 2 } else { 1 };
                let got = plan.ladder_sampling(step);
                assert_eq!(
                    got.samples,
                    want * plan.sampling.samples,
                    "{profile} {step:?}"
                );
                assert_eq!(got.measurement, plan.sampling.measurement);
                assert!(got.flat);
            }
        }
    }
}
