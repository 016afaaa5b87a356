//! What the chapter adds to the harness's parameters exhibit
//! (`harness_page::parameters`): its set-up per profile and per run. The
//! schedules of round timings (sizes and worker counts as points, repeats,
//! MUT-2's late repeats, sampling) come from the run's record.
use harness_core::{fmt, Profile};
use harness_measure::timing::Sampling;
use harness_page::parameters::{Parameters, Setting};
use harness_page::{render::blocks::Cell, Run};

use mutex_cost::run::Data;
use mutex_cost::Plan;

use super::MutexCost;

fn sampling(s: &Sampling) -> String {
    format!(
        "{} samples, {} warm-up, {} measuring",
        s.samples,
        fmt::nanos(s.warm_up.as_nanos() as f64),
        fmt::nanos(s.measurement.as_nanos() as f64)
    )
}

fn nanos(d: std::time::Duration) -> Cell {
    Cell::nanos(d.as_nanos() as f64)
}

fn list(v: &[usize]) -> String {
    v.iter()
        .map(|&n| fmt::thousands(n as u64))
        .collect::<Vec<_>>()
        .join(", ")
}

impl Parameters for MutexCost {
    const ABOUT: &'static str = "Each round timing is one criterion run on a freshly built \
                                 runtime, the variants interleaved and the runs pooled; the \
                                 deciding points are MUT-2's, timed again at the end of the run.";

    fn per_profile(profile: Profile) -> Vec<Setting> {
        let p = Plan::for_profile(profile);
        let g = &p.sensitivity;
        vec![
            Setting::new("Futures per round, join_all shape", list(&p.join_all_sizes)),
            Setting::new(
                "Futures per round, contended shape",
                list(&p.contended_sizes),
            ),
            Setting::new(
                "Futures per round, every lock compared (parking_lot, async-lock, futures)",
                list(&p.compared_sizes),
            ),
            // The measuring machine's cores decide the last: its runs'
            // columns and points give the counts it used.
            Setting::new("Worker threads, contended shape", "1, 2 and every core"),
            Setting::new("Ladder futures per round", list(&p.ladder_sizes)),
            Setting::new(
                "Ladder, a task per future",
                format!(
                    "{} futures only",
                    fmt::thousands(mutex_cost::ACTOR_CLAIM_FUTURES as u64)
                ),
            ),
            Setting::new("Criterion, per lock + unlock", sampling(&p.per_op_sampling)),
            Setting::new("Heartbeat run per load", nanos(p.heartbeat_run)),
            Setting::new(
                "Sensitivity grid",
                format!(
                    "{} futures; {} allocators × {} drivers; {} fresh process{} per cell, each {} \
                     warm-up + {} timed rounds",
                    fmt::thousands(g.futures as u64),
                    g.allocators.len(),
                    g.settings.len(),
                    g.processes,
                    if g.processes == 1 { "" } else { "es" },
                    g.warm_up_rounds,
                    g.rounds
                ),
            ),
            Setting::new(
                "Polls counted per round",
                format!(
                    "{} futures ({} where the count grows with the square of the futures)",
                    fmt::thousands(p.poll_futures as u64),
                    fmt::thousands(p.poll_futures.min(mutex_cost::ACTOR_CLAIM_FUTURES) as u64)
                ),
            ),
            Setting::new("CPU profile per round shape and lock", nanos(p.profile_for)),
            Setting::new(
                "Spawned tasks, contended shape",
                Cell::count(mutex_cost::CONTENDING_TASKS as u64),
            ),
            Setting::new(
                "Actor queue capacity",
                Cell::count(mutex_cost::ACTOR_QUEUE as u64),
            ),
            Setting::new(
                "Heartbeat worker threads",
                Cell::count(mutex_cost::HEARTBEAT_WORKERS as u64),
            ),
            Setting::new(
                "Heartbeat contending tasks",
                Cell::count(mutex_cost::HEARTBEAT_CONTENDERS as u64),
            ),
            Setting::new("Heartbeat period", nanos(mutex_cost::HEARTBEAT_PERIOD)),
            Setting::new(
                "Critical section (busy or awaited)",
                nanos(mutex_cost::CRITICAL_SECTION),
            ),
            Setting::new(
                "Uncontended locks in the co-op probe",
                Cell::count(mutex_cost::COOP_PROBE_OPS),
            ),
        ]
    }

    fn per_run(run: &Run<Data>) -> Vec<Setting> {
        let d = &run.data;
        let mut workers: Vec<usize> = d.contended.iter().map(|r| r.runtime.workers).collect();
        workers.sort_unstable();
        workers.dedup();
        vec![
            Setting::new("Cores", Cell::count(d.cores as u64)),
            Setting::new("Worker threads, contended shape", list(&workers)),
        ]
    }
}
