//! What one run of the chapter keeps, and the experiment half of the
//! chapter's contract with the harness. The run itself is
//! `Experiment::measure` below: `crate::sweep`, then `crate::method`. This
//! half decides the numbers, so it is in the results' fingerprint; the page
//! (the binary's `page`, which the library cannot name) only reads them,
//! and is not.
use anyhow::{Context, Result};
use harness_core::Profile;
use harness_measure::schedule::RecordedSchedule;
use harness_measure::{Experiment, Lab};
use serde::{Deserialize, Serialize};

use crate::experiment::worker_threads;
use crate::method::MethodData;
use crate::placement::Placement;
use crate::plan::plan;
use crate::sink::SinkKind;
use crate::sweep::{self, Measured};
use crate::{Design, BOUNDED_CAPACITY, CHUNK_BYTES, PER_WORKER, RECV_MANY_LIMIT, WRITE_BYTES};

pub struct FanIn;

/// Everything one run measured, with the parameters it ran under.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct FanInData {
    pub runtime_flavor: String,
    pub worker_threads: usize,
    pub per_worker: usize,
    pub bounded_capacity: usize,
    pub recv_many_limit: usize,
    pub chunk_bytes: usize,
    /// Bytes design 6's consumer gathers before it writes (`WRITE_BYTES`);
    /// zero in results measured before it had such a limit.
    #[serde(default)]
    pub write_bytes: usize,
    pub workers: Vec<usize>,
    /// Counts at which the other crates' inboxes were measured
    /// (`Plan::crate_workers`); `None` in runs from before they were.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub crate_workers: Option<Vec<usize>>,
    /// Counts also measured into the in-memory sink
    /// (`Plan::memory_workers`); `None` in runs that measured every count.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub memory_workers: Option<Vec<usize>>,
    /// Passes over the sweep pooled into each point (see `Plan::passes`).
    pub passes: usize,
    /// Short passes after each pass over the points FAN-1 and FAN-2 are
    /// decided on (`Plan::decisive_extra`).
    pub decisive_extra: usize,
    /// Criterion samples per point and pass (heavy points excepted).
    pub samples_per_point: usize,
    /// The timetable the run followed (`crate::sweep::schedule`), as
    /// recorded; empty in runs from before it was.
    #[serde(default)]
    pub schedules: Vec<RecordedSchedule>,
    pub points: Vec<Measured>,
    /// Where the threads of `points` ran (see `placement`).
    pub placement: Placement,
    /// The free-placement control: a few worker counts measured again with
    /// the scheduler choosing (TCP sink, `FREE_DESIGNS`). Empty where the
    /// main sweep itself ran free.
    pub free_points: Vec<Measured>,
    /// The ladder from the published bench, the variations of the method
    /// and the counted swaps (`crate::method`).
    pub method: MethodData,
}

impl FanInData {
    /// Whether the run's plan measured this point (runs from before the
    /// other crates measured none of theirs, and every count in memory).
    pub fn planned(&self, sink: SinkKind, design: Design, workers: usize) -> bool {
        let within = |counts: &Option<Vec<usize>>, all: bool| {
            counts.as_ref().map_or(all, |c| c.contains(&workers))
        };
        (sink == SinkKind::Tcp || within(&self.memory_workers, true))
            && (!Design::OTHER_CRATES.contains(&design) || within(&self.crate_workers, false))
    }

    pub fn get(&self, sink: SinkKind, design: Design, workers: usize) -> Option<&Measured> {
        self.points
            .iter()
            .find(|m| m.sink == sink && m.design == design && m.workers == workers)
    }

    /// The TCP point of `design` at `workers`, or an error naming it.
    pub fn tcp(&self, design: Design, workers: usize) -> Result<&Measured> {
        self.get(SinkKind::Tcp, design, workers)
            .with_context(|| format!("no TCP result for {} at {workers} workers", design.id()))
    }

    /// "multi-thread runtime, 2 worker threads": every caption states it.
    pub fn runtime(&self) -> String {
        format!(
            "tokio {} runtime, {} worker threads",
            self.runtime_flavor, self.worker_threads
        )
    }

    /// The largest worker count of the sweep (`check` refuses a run with none).
    pub fn largest(&self) -> usize {
        *self
            .workers
            .last()
            .expect("checked: at least one worker count")
    }
}

impl Experiment for FanIn {
    type Data = FanInData;

    const NAME: &'static str = "fan-in";
    const MEASURED_CRATES: &'static [&'static str] = &["tokio"];
    const RELEASE_GAPS: &'static [harness_page::releases::ReleaseGap] =
        &[harness_page::releases::ReleaseGap {
            krate: "tokio",
            since: crate::cause::BUDGET_QUERY_SINCE,
            lacks: "tokio cannot say whether a task's co-op budget is spent \
                    (`coop::has_budget_remaining`), so the counted runs cannot tell a \
                    lock that yielded for the budget from one that waited: the budget \
                    yields count as waits and their own column stays empty. No verdict \
                    reads those counts.",
        }];

    /// The sweep (`crate::sweep`), then the ladder, the variations and the
    /// counted swaps (`crate::method`), under one progress total.
    fn measure(lab: &Lab) -> Result<FanInData> {
        let progress = lab.progress();
        let mut plan = plan(lab.profile());
        let placement = sweep::placement_here(&mut plan);
        if placement == Placement::Free {
            // Nothing to contrast the control with.
            progress.note("this OS cannot pin threads: every point runs with free placement");
        }
        let schedule = sweep::schedule(&plan, placement)?;
        let method_plan = crate::method::plan(lab.profile());
        progress.set_total((schedule.steps() + crate::method::timings(&method_plan)) as u64);
        let (points, free_points) = sweep::run(lab, &plan, placement, &schedule)?;
        let method = crate::method::run(lab, &method_plan, placement)?;
        Ok(FanInData {
            runtime_flavor: "multi-thread".into(),
            worker_threads: worker_threads(),
            per_worker: PER_WORKER,
            bounded_capacity: BOUNDED_CAPACITY,
            recv_many_limit: RECV_MANY_LIMIT,
            chunk_bytes: CHUNK_BYTES,
            write_bytes: WRITE_BYTES,
            workers: plan.workers,
            crate_workers: Some(plan.crate_workers),
            memory_workers: Some(plan.memory_workers),
            passes: plan.passes,
            decisive_extra: plan.decisive_extra,
            samples_per_point: plan.sampling.samples,
            schedules: vec![schedule.record()],
            points,
            placement,
            free_points,
            method,
        })
    }

    /// The run's recorded timetable; for files older than the record, the
    /// code's for the run's profile and placement (without data: pinned).
    fn schedules(profile: Profile, data: Option<&FanInData>) -> Vec<RecordedSchedule> {
        if let Some(d) = data.filter(|d| !d.schedules.is_empty()) {
            return d.schedules.clone();
        }
        let placement = data.map_or(Placement::Pinned, |d| d.placement);
        sweep::plan_schedule(profile, placement)
            .map(|s| vec![s.record()])
            .unwrap_or_default()
    }
}
