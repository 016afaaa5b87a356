//! The sweep: one timed point as the results file stores it, and the run's
//! passes over every point, each on a fresh `Rig`.
use std::collections::BTreeMap;
use std::time::Duration;

use anyhow::{bail, ensure, Context, Result};
use harness::timing::{Sampling, Timing};
use harness::Lab;
use serde::{Deserialize, Serialize};

use crate::experiment::{worker_threads, Job, Rig};
use crate::placement::{Pins, Placement};
use crate::plan::{plan, FREE_DESIGNS};
use crate::run::FanInData;
use crate::sink::SinkKind;
use crate::{Design, BOUNDED_CAPACITY, CHUNK_BYTES, PER_WORKER, RECV_MANY_LIMIT, WRITE_BYTES};

/// One timed point of the sweep, as stored in the results file.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Measured {
    pub sink: SinkKind,
    pub design: Design,
    pub workers: usize,
    /// Criterion's estimates of one burst, in nanoseconds.
    pub timing: Timing,
    /// Bursts run for this point (warm-up included), each one validated.
    pub bursts: u64,
    /// Bytes the sink received per burst (`workers x PER_WORKER`, checked).
    pub bytes_per_burst: u64,
    /// Mean write calls the consumer made per burst.
    pub writes_per_burst: f64,
}

impl Measured {
    /// One point's passes as one point: samples pooled by `Timing::pooled`
    /// (so the interval draws passes first), bursts added up, write calls
    /// averaged over every burst.
    pub fn pooled(parts: Vec<Measured>) -> Result<Measured> {
        let first = parts.first().context("no passes to pool")?.clone();
        if let Some(odd) = parts.iter().find(|m| {
            (m.sink, m.design, m.workers, m.bytes_per_burst)
                != (
                    first.sink,
                    first.design,
                    first.workers,
                    first.bytes_per_burst,
                )
        }) {
            bail!(
                "passes of different points cannot be pooled: {} / {} / {} workers and {} / {} / {} workers",
                first.sink.label(),
                first.design.id(),
                first.workers,
                odd.sink.label(),
                odd.design.id(),
                odd.workers
            );
        }
        let bursts: u64 = parts.iter().map(|m| m.bursts).sum();
        let writes: f64 = parts
            .iter()
            .map(|m| m.writes_per_burst * m.bursts as f64)
            .sum();
        let timing = Timing::pooled(parts.into_iter().map(|m| m.timing).collect())?;
        Ok(Measured {
            timing,
            bursts,
            writes_per_burst: writes / bursts.max(1) as f64,
            ..first
        })
    }
}

/// Times `design` with criterion: every iteration is one full, validated
/// burst. `pass` only names the timing: each pass gets its own criterion id,
/// so criterion does not spend a bootstrap comparing it with the last pass.
pub fn time_point(
    rig: &mut Rig,
    lab: &Lab,
    sampling: Sampling,
    (design, kind, workers): (Design, SinkKind, usize),
    pass: usize,
) -> Result<Measured> {
    let id = format!(
        "{}-{}-{}-w{workers}-pass{pass}",
        rig.placement().label(),
        match kind {
            SinkKind::Tcp => "tcp",
            SinkKind::Memory => "memory",
        },
        design.id()
    );
    time_job(rig, lab, sampling, Job::fair(design, kind, workers), &id)
}

/// Times one job with criterion under the criterion id `id` (unique in the
/// lab): every iteration is one full burst, validated on the driver thread.
pub fn time_job(
    rig: &mut Rig,
    lab: &Lab,
    sampling: Sampling,
    job: Job,
    id: &str,
) -> Result<Measured> {
    let (design, kind, workers) = (job.design, job.kind, job.workers);
    let mut failure: Option<anyhow::Error> = None;
    let (mut bursts, mut writes, mut bytes) = (0u64, 0u64, 0u64);
    let timing = lab.time(id, sampling, |b| {
        b.iter_custom(|iters| {
            let mut total = Duration::ZERO;
            for _ in 0..iters {
                if failure.is_some() {
                    // Criterion cannot be stopped from here: report slow
                    // iterations so it winds down at once; the error wins below.
                    return Duration::from_secs(iters);
                }
                match rig.run_job(job.clone()) {
                    Ok(burst) => {
                        total += burst.elapsed;
                        bursts += 1;
                        writes += burst.writes;
                        bytes = burst.tally.bytes;
                    }
                    Err(e) => failure = Some(e),
                }
            }
            total
        })
    })?;
    if let Some(e) = failure {
        return Err(e);
    }
    if bursts == 0 {
        bail!("{id}: criterion ran no burst");
    }
    Ok(Measured {
        sink: kind,
        design,
        workers,
        timing,
        bursts,
        bytes_per_burst: bytes,
        writes_per_burst: writes as f64 / bursts as f64,
    })
}

/// Every point of the lab's profile, in passes: each pass sweeps both sinks
/// on a fresh rig, then its short passes time the points FAN-1 and FAN-2
/// rest on, then the free-placement control runs on a rig of its own.
pub fn run(lab: &Lab) -> Result<FanInData> {
    let progress = lab.progress();
    let mut plan = plan(lab.profile());
    let placement = if Pins::for_this_thread().is_some() {
        Placement::Pinned
    } else {
        // Nothing to contrast the control with.
        progress.note("this OS cannot pin threads: every point runs with free placement");
        plan.free_workers.clear();
        Placement::Free
    };
    let method_plan = crate::method::plan(lab.profile());
    progress.set_total((plan.timings() + crate::method::timings(&method_plan)) as u64);
    let mut passes: BTreeMap<(SinkKind, Design, usize), Vec<Measured>> = BTreeMap::new();
    let mut free_passes: BTreeMap<(Design, usize), Vec<Measured>> = BTreeMap::new();
    // One timing of one point in one pass, announced as a step; `None`
    // for the heavy points a later pass skips.
    // `short` numbers a short pass after pass `pass` (from 1), 0 for the
    // full pass itself.
    let time = |rig: &mut Rig,
                pass: usize,
                short: usize,
                (design, kind, workers): (Design, SinkKind, usize)| {
        if !(plan.measures(design, kind, workers) && plan.measures_in(pass, design, workers)) {
            return Ok(None);
        }
        progress.step(format!(
            "pass {}/{}{}, {}{}, {workers} workers, {}",
            pass + 1,
            plan.passes,
            if short == 0 {
                String::new()
            } else {
                format!(", short pass {short}/{}", plan.decisive_extra)
            },
            match rig.placement() {
                Placement::Free if placement == Placement::Pinned => "free placement, ",
                _ => "",
            },
            kind.label(),
            design.label()
        ));
        let sampling = plan.sampling_for(design, workers);
        // A criterion id of its own for every timing of the run.
        let id = pass * (plan.decisive_extra + 1) + short;
        time_point(rig, lab, sampling, (design, kind, workers), id).map(Some)
    };
    for pass in 0..plan.passes {
        // A fresh runtime, socket and sink thread each pass.
        let mut rig = Rig::new(placement)?;
        ensure!(
            rig.placement() == placement,
            "pass {}: the rig's threads could not be pinned",
            pass + 1
        );
        for kind in SinkKind::ALL {
            for &workers in &plan.workers {
                // Designs alternate at each worker count, so a burst of
                // background load smears over all of them rather than one.
                for design in Design::ALL {
                    if let Some(m) = time(&mut rig, pass, 0, (design, kind, workers))? {
                        passes.entry((kind, design, workers)).or_default().push(m);
                    }
                }
            }
        }
        rig.finish()?;
        for short in 1..=plan.decisive_extra {
            let mut rig = Rig::new(placement)?;
            ensure!(
                rig.placement() == placement,
                "pass {}, short pass {short}: the rig's threads could not be pinned",
                pass + 1
            );
            for (design, kind, workers) in plan.decisive_points() {
                if let Some(m) = time(&mut rig, pass, short, (design, kind, workers))? {
                    passes.entry((kind, design, workers)).or_default().push(m);
                }
            }
            rig.finish()?;
        }
        if plan.free_workers.is_empty() {
            continue;
        }
        let mut rig = Rig::new(Placement::Free)?;
        for &workers in &plan.free_workers {
            for design in FREE_DESIGNS {
                if let Some(m) = time(&mut rig, pass, 0, (design, SinkKind::Tcp, workers))? {
                    free_passes.entry((design, workers)).or_default().push(m);
                }
            }
        }
        rig.finish()?;
    }
    let mut free_points = Vec::new();
    for &workers in &plan.free_workers {
        for design in FREE_DESIGNS {
            if let Some(parts) = free_passes.remove(&(design, workers)) {
                free_points.push(Measured::pooled(parts)?);
            }
        }
    }
    // In the sweep's order: sink, then workers, then design.
    let mut points = Vec::new();
    for kind in SinkKind::ALL {
        for &workers in &plan.workers {
            for design in Design::ALL {
                if let Some(parts) = passes.remove(&(kind, design, workers)) {
                    points.push(Measured::pooled(parts)?);
                }
            }
        }
    }
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
        points,
        placement,
        free_points,
        method,
    })
}
