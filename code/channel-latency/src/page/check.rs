//! What a results file must show the work did: the grids it was asked for,
//! every burst checked, every message received, every latency counted.
//! (Numbers out of physical bounds and estimates outside their intervals are
//! refused by the harness before this runs.)
use std::collections::BTreeSet;

use anyhow::{bail, ensure, Context, Result};
use harness_measure::timing::Timing;

use super::{Data, BP_CHANNELS};
use channel_latency::backpressure::Latencies;
use channel_latency::backpressure_ladder::{rung, RUNGS};
use channel_latency::counted::case;
use channel_latency::methods::{method, METHODS};
use channel_latency::run::BP_COMPARED;
use channel_latency::run::{SweepKey, MEMCPY, SCHEDULES};
use channel_latency::{Carry, Variant, BOUNDS, BURST, CAPACITY, PAYLOAD_SIZES, TASKS};

pub fn check(data: &Data) -> Result<()> {
    check_sweep(data)?;
    check_head_to_head(data)?;
    check_backpressure(data)?;
    check_methods(data)?;
    check_ladder(data)?;
    check_instructions(data)?;
    channel_latency::burst_shapes::check(data.shapes.as_ref())?;
    check_profiles(data)?;
    check_schedules(data)
}

/// The schedules the run recorded (a file from before them has none, and
/// only the set-ups to meet): the four in order, each holding together,
/// their rounds the set-ups' round fields, every point of the sweep, the
/// head-to-head timing and the other ways in the record with as many
/// timings as it pooled, and the ladder's runs as many as the record's.
fn check_schedules(data: &Data) -> Result<()> {
    if data.schedules.is_empty() {
        return Ok(());
    }
    let names: Vec<&str> = data.schedules.iter().map(|s| s.name.as_str()).collect();
    ensure!(
        names == SCHEDULES,
        "the run records the schedules {names:?}, expected {SCHEDULES:?}"
    );
    for s in &data.schedules {
        s.check()?;
    }
    let [sweep, duels, other, ladder] = &data.schedules[..] else {
        bail!("four schedules expected");
    };
    let rounds = |what: &str, recorded: usize, setup: usize| -> Result<()> {
        ensure!(
            recorded == setup,
            "{what}: the schedule records {recorded} rounds, the set-up {setup}"
        );
        Ok(())
    };
    rounds("experiment A's sweep", sweep.rounds, data.sweep.repeats)?;
    rounds(
        "the head-to-head timing",
        duels.rounds,
        data.sweep.head_to_head_windows,
    )?;
    if let Some(m) = &data.methods_setup {
        rounds("experiment A's other ways", other.rounds, m.windows)?;
    }
    if let Some(l) = &data.ladder_setup {
        rounds("experiment B's ladder", ladder.rounds, l.repeats)?;
    }
    ensure!(
        sweep.points.len() == data.points.len() + data.memcpy.len(),
        "the sweep's schedule records {} points, the run measured {}",
        sweep.points.len(),
        data.points.len() + data.memcpy.len()
    );
    let timed = |what: &str,
                 point: Option<&harness_measure::schedule::RecordedPoint>,
                 pooled: usize|
     -> Result<()> {
        let point = point.with_context(|| format!("{what} is not in the recorded schedule"))?;
        ensure!(
            point.all_timings() == pooled,
            "{what}: {pooled} timings pooled, the recorded schedule gives it {}",
            point.all_timings()
        );
        Ok(())
    };
    let repeats = |t: &Timing| t.repeats.len().max(1);
    for p in &data.points {
        let key: SweepKey = (
            Variant::from_id(&p.variant).map_or("", Variant::id),
            Carry::from_id(&p.carry).map_or("", Carry::id),
            p.bytes,
        );
        let what = format!("experiment A point {} {} {} B", p.variant, p.carry, p.bytes);
        timed(&what, sweep.point(&key), repeats(&p.timing))?;
    }
    for m in &data.memcpy {
        let key: SweepKey = (MEMCPY, "–", m.bytes);
        let what = format!("memcpy floor {} B", m.bytes);
        timed(&what, sweep.point(&key), repeats(&m.timing))?;
    }
    for h in &data.head_to_head {
        let what = format!("head to head at {} B", h.bytes);
        timed(&what, duels.point(&h.bytes), h.tokio.repeats.len())?;
    }
    for p in &data.methods {
        let what = format!("experiment A, {} at {} B", p.method, p.bytes);
        timed(
            &what,
            other.point(&(p.bytes, &p.method)),
            p.tokio.repeats.len(),
        )?;
    }
    ensure!(
        ladder.steps == data.ladder.len() || data.ladder.is_empty(),
        "experiment B's ladder ran {} times, its schedule records {}",
        data.ladder.len(),
        ladder.steps
    );
    Ok(())
}

/// Sampled profiles: absent, or each profiled pair once, with checked bursts.
fn check_profiles(data: &Data) -> Result<()> {
    let mut seen = BTreeSet::new();
    for p in &data.profiles {
        let what = format!("CPU profile of {} at {} B", p.channel, p.bytes);
        ensure!(
            channel_latency::profiles::PROFILED.contains(&(p.channel.as_str(), p.bytes)),
            "{what}: not a profiled pair"
        );
        ensure!(
            seen.insert((p.channel.clone(), p.bytes)),
            "{what}: appears twice"
        );
        ensure!(p.bursts > 0, "{what}: no burst ran");
        p.stacks.check().with_context(|| what.clone())?;
    }
    Ok(())
}

/// Experiment A the other ways: absent (a run from before them), or every
/// method at every size once, every timed burst checked.
fn check_methods(data: &Data) -> Result<()> {
    if data.methods.is_empty() {
        return Ok(());
    }
    let setup = data
        .methods_setup
        .as_ref()
        .context("experiment A's other ways were measured but their setup is missing")?;
    ensure!(
        setup.cores > 0,
        "experiment A's other ways ran on zero cores"
    );
    ensure!(
        setup.windows >= harness_measure::stats::MIN_PAIRS && setup.pairs > 0,
        "experiment A's other ways ran {} windows of {} samples, too few for an interval",
        setup.windows,
        setup.pairs
    );
    let mut seen = BTreeSet::new();
    for p in &data.methods {
        let what = format!("experiment A, {} at {} B", p.method, p.bytes);
        method(&p.method).with_context(|| format!("{what}: unknown method"))?;
        ensure!(
            PAYLOAD_SIZES.contains(&p.bytes),
            "{what}: size not in the sweep"
        );
        ensure!(
            seen.insert((p.method.clone(), p.bytes)),
            "{what}: appears twice"
        );
        for (name, t) in [("tokio", &p.tokio), ("crossbeam", &p.crossbeam)] {
            ensure!(
                t.repeats.len() == setup.windows && t.repeats.iter().all(|&n| n == setup.pairs),
                "{what}: {name} has windows of {:?} samples, expected {} of {}",
                t.repeats,
                setup.windows,
                setup.pairs
            );
        }
        let timed = 2 * (setup.windows * setup.pairs) as u64;
        ensure!(
            p.bursts_checked >= timed + 2 * setup.fault_bursts,
            "{what}: {} bursts checked, fewer than the {timed} timed and {} counted for faults",
            p.bursts_checked,
            2 * setup.fault_bursts
        );
        for faults in [p.tokio_faults_per_burst, p.crossbeam_faults_per_burst] {
            ensure!(
                faults.is_some_and(|f| f.is_finite() && f >= 0.0),
                "{what}: {faults:?} page faults per burst"
            );
        }
        p.ratio(harness_measure::stats::Statistic::Median)?;
    }
    ensure!(
        seen.len() == METHODS.len() * PAYLOAD_SIZES.len(),
        "experiment A's other ways have {} points, expected {}",
        seen.len(),
        METHODS.len() * PAYLOAD_SIZES.len()
    );
    Ok(())
}

/// Experiment B's ladder: absent, or every rung, repeat, setting and
/// channel once, every message received once, the latencies counted over
/// what the method read.
fn check_ladder(data: &Data) -> Result<()> {
    if data.ladder.is_empty() {
        return Ok(());
    }
    let setup = data
        .ladder_setup
        .as_ref()
        .context("experiment B's ladder was run but its setup is missing")?;
    ensure!(
        setup.repeats >= harness_measure::stats::MIN_PAIRS,
        "experiment B's ladder has {} repeats, fewer than an interval needs",
        setup.repeats
    );
    let mut seen = BTreeSet::new();
    for l in &data.ladder {
        let r = &l.run;
        let what = format!(
            "experiment B ladder, {} {} repeat {}, {} tasks, bound {}",
            l.rung, r.channel, l.repeat, r.tasks, r.bound
        );
        let rung = rung(&l.rung).with_context(|| format!("{what}: unknown rung"))?;
        ensure!(
            BP_CHANNELS.contains(&r.channel.as_str()),
            "{what}: unknown channel"
        );
        ensure!(
            TASKS.contains(&r.tasks) && BOUNDS.contains(&r.bound) && l.repeat < setup.repeats,
            "{what}: not a setting of the ladder"
        );
        ensure!(
            seen.insert((
                l.rung.clone(),
                r.channel.clone(),
                l.repeat,
                r.tasks,
                r.bound
            )),
            "{what}: appears twice"
        );
        let total = (r.tasks * r.messages_per_task) as u64;
        ensure!(
            total > 0 && r.received == total,
            "{what}: received {} of {total} messages",
            r.received
        );
        ensure!(
            l.counted_at_end > 0 && l.counted_at_end <= r.received,
            "{what}: {} messages counted of {}",
            l.counted_at_end,
            r.received
        );
        ensure!(
            rung.sleeps || l.counted_at_end == r.received,
            "{what}: a joined run counts every message"
        );
        ensure!(r.wall_ns > 0, "{what}: wall time is zero");
        check_latencies(
            &format!("{what}, before send"),
            &r.before_send,
            l.counted_at_end,
        )?;
        check_latencies(
            &format!("{what}, enqueue to dequeue"),
            &r.enqueue_to_dequeue,
            l.counted_at_end,
        )?;
    }
    let expected = RUNGS.len() * BP_CHANNELS.len() * setup.repeats * TASKS.len() * BOUNDS.len();
    ensure!(
        seen.len() == expected,
        "experiment B's ladder has {} runs, expected {expected}",
        seen.len()
    );
    Ok(())
}

/// Instruction counts: known cases, once each, more work counting more.
fn check_instructions(data: &Data) -> Result<()> {
    let mut seen = BTreeSet::new();
    for c in &data.instructions {
        let what = format!("instruction count {}", c.name);
        case(&c.name).with_context(|| format!("{what}: unknown case"))?;
        ensure!(seen.insert(c.name.clone()), "{what}: appears twice");
        ensure!(
            // The largest payloads count 0 and 1 bursts (`counted::bursts`):
            // the difference is still one burst's work, set-up cancelled.
            c.large > c.small
                && c.instructions_large > c.instructions_small
                && c.per_op.is_finite()
                && c.per_op > 0.0,
            "{what}: {} instructions for {} bursts and {} for {} do not make a count per burst",
            c.instructions_small,
            c.small,
            c.instructions_large,
            c.large
        );
        let expected =
            (c.instructions_large - c.instructions_small) as f64 / (c.large - c.small) as f64;
        ensure!(
            (c.per_op - expected).abs() <= 1e-9 * expected,
            "{what}: {} per burst, but the counts give {expected}",
            c.per_op
        );
    }
    Ok(())
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
    l.percentiles.check(what)
}

/// Experiment A's sweep: every variant with each of its carries at every
/// size once, every burst checked, polls recorded by the async variants
/// alone, and a memcpy floor per size. The compared crates
/// (`Variant::COMPARED`) are all there or, in a file from before them, all
/// absent.
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
    let compared = data
        .points
        .iter()
        .any(|p| Variant::COMPARED.iter().any(|v| v.id() == p.variant));
    for variant in Variant::ALL {
        if Variant::COMPARED.contains(&variant) && !compared {
            continue;
        }
        for &carry in variant.carries() {
            for &bytes in variant.sizes() {
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
    // The compared channels are all there, or (a file from before them)
    // none is.
    let compared = data
        .runs
        .iter()
        .any(|r| BP_COMPARED.contains(&r.channel.as_str()));
    let channels: Vec<&str> = if compared {
        channel_latency::run::bp_all().collect()
    } else {
        BP_CHANNELS.to_vec()
    };
    let expected = TASKS.len() * BOUNDS.len() * channels.len();
    ensure!(
        data.runs.len() == expected,
        "experiment B has {} runs, expected {expected}",
        data.runs.len()
    );
    for tasks in TASKS {
        for bound in BOUNDS {
            for &channel in &channels {
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
