//! What a results file must show the work did: the grids it was asked for,
//! every burst checked, every message received, every latency counted.
//! (Numbers out of physical bounds and estimates outside their intervals are
//! refused by the harness before this runs.)
use std::collections::BTreeSet;

use anyhow::{bail, ensure, Context, Result};
use harness::timing::Timing;

use super::{Data, BP_CHANNELS};
use crate::backpressure::Latencies;
use crate::{Carry, Variant, BOUNDS, BURST, CAPACITY, PAYLOAD_SIZES, TASKS};

pub(super) fn check(data: &Data) -> Result<()> {
    check_sweep(data)?;
    check_head_to_head(data)?;
    check_backpressure(data)
}

/// Criterion took at least its minimum of samples, each of one iteration or more.
fn check_timing(what: &str, t: &Timing) -> Result<()> {
    ensure!(
        t.samples >= 10 && t.iterations >= t.samples as u64,
        "{what}: {} samples of {} iterations are too few",
        t.samples,
        t.iterations
    );
    Ok(())
}

fn check_latencies(what: &str, l: &Latencies, received: u64) -> Result<()> {
    ensure!(
        l.count == received,
        "{what}: {} latencies for {received} messages",
        l.count
    );
    ensure!(l.mean_ns > 0.0 && l.p50_ns > 0, "{what}: latency is zero");
    ensure!(
        l.p50_ns <= l.p90_ns
            && l.p90_ns <= l.p99_ns
            && l.p99_ns <= l.p999_ns
            && l.p999_ns <= l.max_ns,
        "{what}: percentiles are not in order (p50 {} p90 {} p99 {} p99.9 {} max {})",
        l.p50_ns,
        l.p90_ns,
        l.p99_ns,
        l.p999_ns,
        l.max_ns
    );
    ensure!(
        l.mean_ns <= l.max_ns as f64 * 1.001,
        "{what}: mean {} ns exceeds max {} ns",
        l.mean_ns,
        l.max_ns
    );
    Ok(())
}

/// Experiment A's sweep: every variant, carry and size once, every burst
/// checked, polls recorded by the async variants alone, and a memcpy floor
/// per size.
fn check_sweep(data: &Data) -> Result<()> {
    let s = &data.sweep;
    ensure!(
        s.burst == BURST && s.capacity == CAPACITY,
        "experiment A ran bursts of {} through capacity {}, expected {BURST} through {CAPACITY}",
        s.burst,
        s.capacity
    );
    ensure!(
        s.sizes == PAYLOAD_SIZES,
        "experiment A payload sizes {:?} differ from {PAYLOAD_SIZES:?}",
        s.sizes
    );
    let mut seen = BTreeSet::new();
    for p in &data.points {
        let what = format!("experiment A point {} {} {} B", p.variant, p.carry, p.bytes);
        let variant =
            Variant::from_id(&p.variant).with_context(|| format!("{what}: unknown variant"))?;
        Carry::from_id(&p.carry).with_context(|| format!("{what}: unknown payload carry"))?;
        ensure!(
            PAYLOAD_SIZES.contains(&p.bytes),
            "{what}: size not in the sweep"
        );
        ensure!(
            seen.insert((p.variant.clone(), p.carry.clone(), p.bytes)),
            "{what}: appears twice"
        );
        check_timing(&what, &p.timing)?;
        ensure!(
            p.bursts_checked >= p.timing.iterations,
            "{what}: {} bursts checked, fewer than the {} criterion timed",
            p.bursts_checked,
            p.timing.iterations
        );
        ensure!(p.message_size > 0, "{what}: message size is zero");
        match (variant.is_async(), p.polls_per_burst) {
            (true, Some(n)) if n >= 1 => {}
            (true, _) => bail!("{what}: an async variant must record its polls per burst"),
            (false, None) => {}
            (false, Some(_)) => bail!("{what}: a sync variant records no polls"),
        }
    }
    for variant in Variant::ALL {
        for carry in Carry::ALL {
            for bytes in PAYLOAD_SIZES {
                data.point(variant, carry, bytes)?;
            }
        }
    }
    ensure!(
        data.memcpy.len() == PAYLOAD_SIZES.len(),
        "experiment A has {} memcpy floors, expected {}",
        data.memcpy.len(),
        PAYLOAD_SIZES.len()
    );
    for bytes in PAYLOAD_SIZES {
        check_timing(&format!("memcpy floor {bytes} B"), data.memcpy(bytes)?)?;
    }
    Ok(())
}

/// The head-to-head timing: one point per size, each of exactly the windows
/// and pairs the setup states, every burst checked, and a ratio that can be
/// computed.
fn check_head_to_head(data: &Data) -> Result<()> {
    let s = &data.sweep;
    let (windows, pairs) = (s.head_to_head_windows, s.head_to_head_pairs);
    ensure!(
        windows > 0,
        "experiment A's head-to-head setup records no windows"
    );
    ensure!(
        pairs > 0,
        "experiment A's head-to-head setup records no bursts per window"
    );
    ensure!(
        data.head_to_head.len() == PAYLOAD_SIZES.len(),
        "experiment A has {} head-to-head points, expected {}",
        data.head_to_head.len(),
        PAYLOAD_SIZES.len()
    );
    for bytes in PAYLOAD_SIZES {
        let what = format!("head to head at {bytes} B");
        let h = data.head_to_head(bytes)?;
        for (name, t) in [("tokio", &h.tokio), ("crossbeam", &h.crossbeam)] {
            ensure!(
                t.repeats.len() == windows && t.repeats.iter().all(|&n| n == pairs),
                "{what}: {name} has windows of {:?} bursts, expected {windows} of {pairs}",
                t.repeats
            );
            check_timing(&format!("{what}, {name}"), t)?;
        }
        let expected = 2 * (pairs as u64 + 1) * windows as u64;
        ensure!(
            h.bursts_checked == expected,
            "{what}: {} bursts checked, expected {expected}",
            h.bursts_checked
        );
        h.ratio()?;
    }
    Ok(())
}

/// Experiment B: the published grid, every message received and timed both ways.
fn check_backpressure(data: &Data) -> Result<()> {
    let b = &data.backpressure;
    ensure!(
        b.worker_threads > 0,
        "experiment B ran on zero worker threads"
    );
    ensure!(
        b.tasks == TASKS && b.bounds == BOUNDS,
        "experiment B grid {:?} x {:?} differs from {TASKS:?} x {BOUNDS:?}",
        b.tasks,
        b.bounds
    );
    let expected = TASKS.len() * BOUNDS.len() * BP_CHANNELS.len();
    ensure!(
        data.runs.len() == expected,
        "experiment B has {} runs, expected {expected}",
        data.runs.len()
    );
    for tasks in TASKS {
        for bound in BOUNDS {
            for channel in BP_CHANNELS {
                let what = format!("experiment B {channel}, {tasks} tasks, bound {bound}");
                let r = data.bp(channel, tasks, bound)?;
                let total = (r.tasks * r.messages_per_task) as u64;
                ensure!(
                    total > 0 && r.received == total,
                    "{what}: received {} of {total} messages",
                    r.received
                );
                ensure!(r.wall_ns > 0, "{what}: wall time is zero");
                check_latencies(&format!("{what}, before send"), &r.before_send, r.received)?;
                check_latencies(
                    &format!("{what}, enqueue to dequeue"),
                    &r.enqueue_to_dequeue,
                    r.received,
                )?;
                ensure!(
                    r.dequeued_before_send_returned <= r.received,
                    "{what}: more early dequeues than messages"
                );
            }
        }
    }
    Ok(())
}
