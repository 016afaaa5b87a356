//! What a stored run must hold: every point of the sweep once, each with the
//! bytes its workers sent, and a free-placement control only of the control's
//! points beside a pinned sweep.
use std::collections::BTreeSet;

use anyhow::{bail, ensure, Result};

use super::FanInData;
use crate::experiment::FREE_DESIGNS;
use crate::placement::Placement;
use crate::sink::SinkKind;
use crate::sweep::Measured;
use crate::Design;

pub(super) fn check(data: &FanInData) -> Result<()> {
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
    for kind in SinkKind::ALL {
        for design in Design::ALL {
            for &w in &data.workers {
                if !seen.contains(&(kind, design, w)) {
                    bail!("missing {} / {} / {w} workers", kind.label(), design.id());
                }
            }
        }
    }
    Ok(())
}

/// Checks one measured point against the run's parameters; returns its name
/// for the caller's own messages.
fn check_point(data: &FanInData, m: &Measured, prefix: &str) -> Result<String> {
    let what = format!(
        "{prefix}{} / {} / {} workers",
        m.sink.label(),
        m.design.id(),
        m.workers
    );
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
