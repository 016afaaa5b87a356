//! What a stored run must hold: every point of the sweep once, each with the
//! bytes its workers sent, and a free-placement control only of the control's
//! points beside a pinned sweep.
use std::collections::BTreeSet;

use anyhow::{bail, ensure, Result};

use fan_in::placement::Placement;
use fan_in::plan::{Plan, FREE_DESIGNS};
use fan_in::run::FanInData;
use fan_in::sink::SinkKind;
use fan_in::sweep::{Key, Measured};
use fan_in::Design;

pub fn check(data: &FanInData) -> Result<()> {
    ensure!(data.worker_threads > 0, "worker_threads is zero");
    ensure!(data.per_worker > 0, "per_worker is zero");
    ensure!(
        data.bounded_capacity > 0 && data.recv_many_limit > 0 && data.chunk_bytes > 0,
        "a capacity, limit or chunk size is zero"
    );
    ensure!(!data.workers.is_empty(), "no worker counts");
    ensure!(data.passes > 0, "passes is zero");
    ensure!(
        data.workers[0] > 0 && data.workers.windows(2).all(|w| w[0] < w[1]),
        "worker counts {:?} are not positive and strictly increasing",
        data.workers
    );
    let mut seen = BTreeSet::new();
    for m in &data.points {
        let what = check_point(data, m, "")?;
        ensure!(
            seen.insert((m.sink, m.design, m.workers)),
            "{what}: measured twice"
        );
    }
    let mut seen_free = BTreeSet::new();
    for m in &data.free_points {
        let what = check_point(data, m, "free placement, ")?;
        ensure!(
            data.placement == Placement::Pinned,
            "{what}: a free-placement control beside a sweep that itself ran free"
        );
        ensure!(
            m.sink == SinkKind::Tcp && FREE_DESIGNS.contains(&m.design),
            "{what}: not a point the free-placement control measures"
        );
        ensure!(
            seen_free.insert((m.design, m.workers)),
            "{what}: measured twice"
        );
    }
    for subset in [&data.crate_workers, &data.memory_workers]
        .into_iter()
        .flatten()
    {
        ensure!(
            subset.iter().all(|w| data.workers.contains(w)),
            "worker counts {subset:?} are not a subset of the sweep's"
        );
    }
    for kind in SinkKind::ALL {
        for design in Design::ALL {
            for &w in &data.workers {
                let planned = data.planned(kind, design, w);
                if planned && !seen.contains(&(kind, design, w)) {
                    bail!("missing {} / {} / {w} workers", kind.label(), design.id());
                }
                if !planned && seen.contains(&(kind, design, w)) {
                    bail!(
                        "{} / {} / {w} workers: not a point the run's plan measures",
                        kind.label(),
                        design.id()
                    );
                }
            }
        }
    }
    check_record(data)?;
    check_method(data)
}

/// With the timetable the run recorded (runs from before it have none;
/// the shape checks above are theirs): every stored point of the sweep and
/// of the control is one it timed, deciding exactly when FAN-1 and FAN-2
/// rest on it, pooled from as many timings as it got; every point it timed
/// is stored.
fn check_record(data: &FanInData) -> Result<()> {
    let record = match data.schedules.as_slice() {
        [] => return Ok(()),
        [one] => one,
        more => bail!("{} schedules recorded; the sweep follows one", more.len()),
    };
    record.check()?;
    ensure!(
        record.rounds == data.passes,
        "the schedule recorded {} passes, the run {}",
        record.rounds,
        data.passes
    );
    let sweep = data.points.iter().map(|m| (data.placement, m));
    let control = data.free_points.iter().map(|m| (Placement::Free, m));
    let mut stored = 0;
    for (placement, m) in sweep.chain(control) {
        let key: Key = (placement, m.sink, m.design, m.workers);
        let what = point_name(
            &format!("{}, {}", placement.label(), m.sink.label()),
            m.design,
            m.workers,
        );
        let Some(p) = record.point(&key) else {
            bail!("{what}: not a point the run's schedule timed");
        };
        let deciding =
            placement == data.placement && Plan::is_decisive(m.design, m.sink, m.workers);
        ensure!(
            p.deciding == deciding,
            "{what}: the schedule has it deciding {}, FAN-1 and FAN-2 {}",
            p.deciding,
            if deciding { "rest on it" } else { "do not" }
        );
        ensure!(
            m.timing.repeats.len() == p.all_timings(),
            "{what}: {} timings pooled, the schedule gave it {}",
            m.timing.repeats.len(),
            p.all_timings()
        );
        stored += 1;
    }
    ensure!(
        stored == record.points.len(),
        "the schedule timed {} points, the run stored {stored}",
        record.points.len()
    );
    Ok(())
}

/// The ladder, the variations and the counted swaps: each point where the
/// plan puts it, once, with the work its stop point implies.
fn check_method(data: &FanInData) -> Result<()> {
    let m = &data.method;
    // Every profile measures the ladder, the variations and the counted
    // swaps; the tests' synthetic runs may hold any of them, or none.
    if m.ladder.is_empty() && m.varied.is_empty() && m.counted.is_empty() {
        return Ok(());
    }
    ensure!(
        !m.workers.is_empty()
            && m.workers.windows(2).all(|w| w[0] < w[1])
            && m.workers.iter().all(|w| data.workers.contains(w)),
        "method worker counts {:?} are not an increasing subset of the sweep's",
        m.workers
    );
    let mut seen = BTreeSet::new();
    for p in &m.ladder {
        let what = point_name(&format!("ladder {}", p.step.id()), p.design, p.workers);
        ensure!(
            m.workers.contains(&p.workers),
            "{what}: worker count not in the method's"
        );
        ensure!(
            p.step.applies_to(p.design),
            "{what}: a step that does not change it"
        );
        ensure!(
            seen.insert((p.step, p.design, p.workers)),
            "{what}: measured twice"
        );
        ensure!(
            p.per_worker == p.step.recipe().per_worker,
            "{what}: {} messages per worker",
            p.per_worker
        );
        ensure!(
            p.iterations >= p.timing.samples as u64,
            "{what}: fewer checked iterations ({}) than samples ({})",
            p.iterations,
            p.timing.samples
        );
        ensure!(
            p.finished_per_iteration >= 1.0 && p.finished_per_iteration <= p.workers as f64,
            "{what}: {} producers finished per iteration",
            p.finished_per_iteration
        );
        if p.checksum_checked {
            ensure!(
                p.arrived_per_iteration == p.bytes_due() as f64
                    && p.finished_per_iteration == p.workers as f64,
                "{what}: {} bytes per iteration at the sink, {} due",
                p.arrived_per_iteration,
                p.bytes_due()
            );
        }
    }
    for l in fan_in::method::ladder_points(&fan_in::method::MethodPlan {
        workers: m.workers.clone(),
        ..fan_in::method::plan(harness_core::Profile::Smoke)
    }) {
        ensure!(
            seen.contains(&(l.1, l.0, l.2)),
            "missing {}",
            point_name(&format!("ladder {}", l.1.id()), l.0, l.2)
        );
    }
    let mut seen = BTreeSet::new();
    for x in &m.varied {
        let p = &x.point;
        let what = point_name(x.variation.id(), p.design, p.workers);
        ensure!(
            x.variation
                .points(&m.workers)
                .contains(&(p.design, p.workers)),
            "{what}: not a point of this variation"
        );
        ensure!(
            seen.insert((x.variation, p.design, p.workers)),
            "{what}: measured twice"
        );
        ensure!(
            x.per_worker == x.variation.per_worker()
                && p.bytes_per_burst == (p.workers * x.per_worker) as u64,
            "{what}: {} bytes per burst",
            p.bytes_per_burst
        );
        ensure!(
            p.bursts >= p.timing.samples as u64,
            "{what}: fewer validated bursts than samples"
        );
    }
    ensure!(
        m.design_profiles.is_empty()
            || m.design_profiles
                .iter()
                .map(|p| p.design)
                .eq(fan_in::method::DESIGN_PROFILED),
        "the design's profiles are not those of {:?}",
        fan_in::method::DESIGN_PROFILED
    );
    for p in m.profiles.iter().chain(&m.design_profiles) {
        p.stacks.check()?;
        ensure!(
            p.bursts >= 1 && m.workers.last() == Some(&p.workers),
            "the profile of {}: {} bursts of {} workers",
            p.stacks.design,
            p.bursts,
            p.workers
        );
    }
    for c in &m.counted {
        ensure!(!c.bursts.is_empty(), "counted {}: no burst", c.design.id());
        for (t, k) in &c.bursts {
            ensure!(
                *t > 0.0 && k.pushes == (c.workers * c.per_worker) as u64,
                "counted {}: a burst of {t} ns counted {} pushes",
                c.design.id(),
                k.pushes
            );
            ensure!(
                k.pushes_waited <= k.pushes && k.consumer_waits <= k.consumer_turns,
                "counted {}: more waits than locks",
                c.design.id()
            );
        }
    }
    Ok(())
}

/// Checks one measured point against the run's parameters; returns its name
/// for the caller's own messages.
fn check_point(data: &FanInData, m: &Measured, prefix: &str) -> Result<String> {
    let what = point_name(&format!("{prefix}{}", m.sink.label()), m.design, m.workers);
    ensure!(
        data.workers.contains(&m.workers),
        "{what}: worker count not in the sweep"
    );
    ensure!(
        m.bursts >= m.timing.samples as u64,
        "{what}: fewer validated bursts ({}) than samples ({})",
        m.bursts,
        m.timing.samples
    );
    ensure!(
        m.bytes_per_burst == (m.workers * data.per_worker) as u64,
        "{what}: {} bytes per burst, expected {}",
        m.bytes_per_burst,
        m.workers * data.per_worker
    );
    ensure!(
        m.writes_per_burst >= 1.0 && m.writes_per_burst <= m.bytes_per_burst as f64,
        "{what}: {} write calls per burst for {} bytes",
        m.writes_per_burst,
        m.bytes_per_burst
    );
    Ok(what)
}

/// How a message names one measured point: `<what> / <design> / <n> workers`.
fn point_name(what: &str, design: Design, workers: usize) -> String {
    format!("{what} / {} / {workers} workers", design.id())
}
