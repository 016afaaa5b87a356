//! Timing a step of the ladder, and what the results file keeps of it. The
//! steps before the book's rig time the way the published bench did:
//! criterion's `to_async(&runtime).iter(...)`, whose every sample is one
//! `block_on` on the measuring thread looping over its iterations, on a
//! fresh `Runtime::new()`, threads unpinned. The later steps run on the
//! book's rig (`experiment::Rig`).
use anyhow::{bail, ensure, Context, Result};
use harness_measure::timing::{Sampling, Timing};
use harness_measure::Lab;
use serde::{Deserialize, Serialize};
use tokio::runtime::Runtime;

use super::iteration::{self, Env};
use super::ladder::{Step, Stop};
use super::sink::ConnectionsSink;
use crate::burst::Tally;
use crate::experiment::{ConsumerOn, Job, Rig};
use crate::sink::SinkKind;
use crate::sweep::time_job;
use crate::Design;

/// The runtime criterion's `to_async` drives, as criterion's own tokio
/// support would (its `block_on` is the runtime's). A newtype, so criterion
/// needs no tokio of its own: the harness links criterion, and a tokio
/// release measured with `scripts/fresh --with` then rebuilds only tokio and
/// this chapter.
#[derive(Clone, Copy)]
pub struct Tokio<'a>(pub &'a Runtime);

impl criterion::async_executor::AsyncExecutor for Tokio<'_> {
    fn block_on<T>(&self, future: impl std::future::Future<Output = T>) -> T {
        self.0.block_on(future)
    }
}

/// One step of the ladder at one worker count, as the results file keeps it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LadderPoint {
    pub step: Step,
    pub design: Design,
    pub workers: usize,
    pub per_worker: usize,
    /// Criterion's estimates of one iteration, in nanoseconds.
    pub timing: Timing,
    /// Iterations run (warm-up included), each one checked.
    pub iterations: u64,
    /// Producers that had sent every message when an iteration ended,
    /// per iteration: `workers` wherever the stop point waits for them.
    pub finished_per_iteration: f64,
    /// Bytes that reached the sink per iteration.
    pub arrived_per_iteration: f64,
    /// Write calls of the consumer per iteration.
    pub writes_per_iteration: f64,
    /// Every byte was checked by checksum (steps that stop at the sink), or
    /// only the bytes the consumer wrote against those that arrived (the
    /// published stop points, which end before the work does).
    pub checksum_checked: bool,
}

impl LadderPoint {
    /// Bytes the producers of one iteration send when they all finish.
    pub fn bytes_due(&self) -> u64 {
        (self.workers * self.per_worker) as u64
    }
}

/// Times `design` at `step` with `workers` producers, on the published
/// driver or on `rig` (which must be the book's pinned rig) from
/// `Step::BookRig` on, and checks what every iteration did.
pub fn time_step(
    lab: &Lab,
    rig: &mut Rig,
    sampling: Sampling,
    (design, step, workers): (Design, Step, usize),
) -> Result<LadderPoint> {
    let id = format!("ladder-{}-{}-w{workers}", step.id(), design.id());
    let recipe = step.recipe();
    if recipe.on_rig {
        let consumer = match design {
            Design::StdMutexSwap | Design::TokioMutexSwap => recipe.swap_consumer,
            _ => ConsumerOn::Worker,
        };
        let job = Job {
            design,
            kind: SinkKind::Tcp,
            workers,
            per_worker: recipe.per_worker,
            consumer,
            counted: None,
        };
        let m = time_job(rig, lab, sampling, job, &id)?;
        return Ok(LadderPoint {
            step,
            design,
            workers,
            per_worker: recipe.per_worker,
            timing: m.timing,
            iterations: m.bursts,
            finished_per_iteration: workers as f64,
            arrived_per_iteration: m.bytes_per_burst as f64,
            writes_per_iteration: m.writes_per_burst,
            checksum_checked: true,
        });
    }
    let rt = Runtime::new().context("building the published bench's runtime")?;
    let sink = ConnectionsSink::start()?;
    let env = Env::new(design, workers, recipe, &sink);
    if !recipe.connect_each_iteration {
        rt.block_on(env.connect_once())
            .context("connecting to the sink")?;
    }
    // ANCHOR: to_async
    let timing = lab.time(&id, sampling, |b| {
        b.to_async(Tokio(&rt)).iter(|| iteration::run(&env));
    })?;
    // ANCHOR_END: to_async
    let work = checked(env, rt, &sink, (design, step, workers))?;
    Ok(LadderPoint {
        step,
        design,
        workers,
        per_worker: recipe.per_worker,
        timing,
        iterations: work.iterations,
        finished_per_iteration: work.finished_per_iteration,
        arrived_per_iteration: work.arrived_per_iteration,
        writes_per_iteration: work.writes_per_iteration,
        checksum_checked: work.checksum_checked,
    })
}

/// What the iterations of one step did, checked.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Work {
    pub iterations: u64,
    pub finished_per_iteration: f64,
    pub arrived_per_iteration: f64,
    pub writes_per_iteration: f64,
    pub checksum_checked: bool,
}

/// Runs `iterations` iterations of a step on the published driver without
/// timing them (tests), checked as a timing's are.
pub fn run_unmeasured(design: Design, step: Step, workers: usize, iterations: u64) -> Result<Work> {
    let recipe = step.recipe();
    ensure!(!recipe.on_rig, "{} runs on the book's rig", step.label());
    let rt = Runtime::new()?;
    let sink = ConnectionsSink::start()?;
    let env = Env::new(design, workers, recipe, &sink);
    rt.block_on(async {
        if !recipe.connect_each_iteration {
            env.connect_once().await?;
        }
        for _ in 0..iterations {
            iteration::run(&env).await;
        }
        Ok::<_, std::io::Error>(())
    })?;
    checked(env, rt, &sink, (design, step, workers))
}

/// Ends a step's iterations (closes every connection, stops the sink) and
/// checks what they did against what arrived.
fn checked(
    env: Env<'_>,
    rt: Runtime,
    sink: &ConnectionsSink,
    (design, step, workers): (Design, Step, usize),
) -> Result<Work> {
    let recipe = env.recipe;
    env.disconnect();
    // Ends every task still holding a connection: an aborted consumer
    // writes until its next yield, so its count is read after this.
    drop(rt);
    let ledger = env.ledger.take();
    let accepted = (env.accepted.bytes(), env.accepted.calls());
    drop(env);
    let arrived = sink.finish()?;

    let what = format!("{} at {} ({workers} workers)", design.label(), step.label());
    if let Some(failure) = ledger.failure {
        bail!("{what}: {failure}");
    }
    let n = ledger.iterations;
    ensure!(n > 0, "{what}: no iteration ran");
    ensure!(
        arrived.tally.bytes == accepted.0,
        "{what}: the consumers' writes handed the kernel {} bytes, {} arrived",
        accepted.0,
        arrived.tally.bytes
    );
    let all = n * workers as u64;
    let checksum_checked = recipe.stop == Stop::SinkHasAll;
    if checksum_checked {
        ensure!(
            ledger.finished == all,
            "{what}: {} of {all} producers finished",
            ledger.finished
        );
        let want = Tally::expected(workers, recipe.per_worker).times(n);
        ensure!(
            arrived.tally == want && ledger.due == want.bytes,
            "{what}: the sink counted {} bytes (checksum {}/{}), expected {} (checksum {}/{})",
            arrived.tally.bytes,
            arrived.tally.sum,
            arrived.tally.sum_of_squares,
            want.bytes,
            want.sum,
            want.sum_of_squares
        );
    } else {
        // The published stop points: the swap's at the first producer to
        // finish, the mpsc inbox's once every producer has queued all.
        match design {
            Design::MpscUnbounded | Design::MpscRecvMany => ensure!(
                ledger.finished == all,
                "{what}: {} of {all} producers finished before the stop",
                ledger.finished
            ),
            _ => ensure!(
                ledger.finished >= n && ledger.finished <= all,
                "{what}: {} producers finished in {n} iterations of {workers}",
                ledger.finished
            ),
        }
        ensure!(
            arrived.connections <= n,
            "{what}: {} connections in {n} iterations",
            arrived.connections
        );
    }
    Ok(Work {
        iterations: n,
        finished_per_iteration: ledger.finished as f64 / n as f64,
        arrived_per_iteration: arrived.tally.bytes as f64 / n as f64,
        writes_per_iteration: accepted.1 as f64 / n as f64,
        checksum_checked,
    })
}
