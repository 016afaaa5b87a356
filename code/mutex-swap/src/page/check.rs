//! What a run's work must have done, checked on every results file: every
//! message counted, the rounds adding up, every point of the plan's shape
//! there once.
use anyhow::{bail, ensure, Context, Result};

use mutex_swap::experiment::Passes;
use mutex_swap::run::{is_decisive, plan_for, profile_name, Data, Experiment, Key, PROFILED_WAITS};
use mutex_swap::{Wait, HEAVY_WORK, LIGHT_WORK};

pub fn check(data: &Data) -> Result<()> {
    ensure!(data.worker_threads > 0, "worker_threads is zero");
    ensure!(data.messages_per_burst > 0, "messages_per_burst is zero");
    ensure!(data.shard_align_bytes > 0, "shard_align_bytes is zero");
    ensure!(!data.points.is_empty(), "no measured points");
    ensure!(data.repeats > 0, "repeats is zero");
    for rounds in [LIGHT_WORK, HEAVY_WORK] {
        let w = data
            .work_cost(rounds)
            .with_context(|| format!("no cost measured for {rounds} rounds of work"))?;
        ensure!(
            w.messages > 0,
            "the cost of {rounds} rounds of work hashed no messages"
        );
    }
    for m in &data.points {
        let what = format!(
            "{:?} point {} / {} / {} producers",
            m.experiment,
            m.design.name(),
            m.wait.name(),
            m.producers
        );
        ensure!(m.producers > 0, "{what}: zero producers");
        ensure!(
            [LIGHT_WORK, HEAVY_WORK].contains(&m.work_rounds),
            "{what}: unknown work level of {} rounds",
            m.work_rounds
        );
        ensure!(
            data.messages_per_burst % m.producers == 0,
            "{what}: {} messages do not split over the producers",
            data.messages_per_burst
        );
        let ps = &m.passes;
        check_bursts(&what, ps, data.messages_per_burst)?;
        ensure!(
            ps.passes_with_messages > 0 && ps.passes_with_messages <= ps.messages,
            "{what}: {} passes with messages for {} messages",
            ps.passes_with_messages,
            ps.messages
        );
        ensure!(
            ps.max_batch > 0 && ps.max_batch <= data.messages_per_burst,
            "{what}: largest batch {} is impossible",
            ps.max_batch
        );
        ensure!(
            ps.largest_batches >= ps.max_batch.max(ps.bursts) && ps.largest_batches <= ps.messages,
            "{what}: each burst's largest pass sums to {}, impossible with a largest batch of {} \
             over {} bursts of {} messages",
            ps.largest_batches,
            ps.max_batch,
            ps.bursts,
            ps.messages
        );
        ensure!(
            ps.consumer_cpu_ns > 0 && ps.wall_ns > 0,
            "{what}: zero consumer CPU or wall time"
        );
        ensure!(
            m.rounds.len() == m.timing.repeats.len(),
            "{what}: counts for {} rounds, timings for {}",
            m.rounds.len(),
            m.timing.repeats.len()
        );
        let merged = m
            .rounds
            .iter()
            .fold(Passes::default(), |all, round| all.merge(round));
        ensure!(
            merged == *ps,
            "{what}: the rounds' counts do not add up to the point's"
        );
    }
    check_profiles(data)?;
    check_shape(data)
}

/// The CPU profiles: one per profiled wait strategy, in order, each with
/// validated bursts and well-formed stacks.
fn check_profiles(data: &Data) -> Result<()> {
    let waits: Vec<Wait> = data.profiles.iter().map(|p| p.wait).collect();
    ensure!(
        waits == PROFILED_WAITS,
        "profiles of {waits:?}, expected {PROFILED_WAITS:?}"
    );
    for p in &data.profiles {
        let what = format!("the profile of {}", p.stacks.design);
        ensure!(
            p.stacks.design == profile_name(p.design, p.wait, p.producers),
            "{what} is named for another design, wait or producer count"
        );
        check_bursts(&what, &p.passes, data.messages_per_burst)?;
        p.stacks.check()?;
    }
    Ok(())
}

/// Every burst delivered every message: none lost, none counted twice.
fn check_bursts(what: &str, ps: &Passes, messages_per_burst: u64) -> Result<()> {
    ensure!(ps.bursts > 0, "{what}: no bursts counted");
    ensure!(
        ps.messages == ps.bursts * messages_per_burst,
        "{what}: {} messages over {} bursts, expected {messages_per_burst} per burst",
        ps.messages,
        ps.bursts,
    );
    Ok(())
}

/// Every point once, exactly the points the plan measures at the run's
/// producer counts (`run::plan_for`), and, when the run recorded its
/// schedule, exactly the recorded points, each with as many timings as the
/// record gives it (`check_record`).
fn check_shape(data: &Data) -> Result<()> {
    let mut seen: Vec<Key> = Vec::new();
    for m in &data.points {
        ensure!(!seen.contains(&m.key()), "point measured twice: {m:?}");
        seen.push(m.key());
    }
    let grid = data.producers(Experiment::Throughput);
    ensure!(!grid.is_empty(), "no throughput points");
    let wait_grid = data.producers(Experiment::Wait);
    ensure!(!wait_grid.is_empty(), "no wait-strategy points");
    let planned = plan_for(&grid, &wait_grid);
    let name = |(experiment, design, wait, n, work): Key| {
        format!(
            "the {experiment:?} experiment's point {} / {} / {n} producers / {work} work rounds",
            design.name(),
            wait.name()
        )
    };
    if let Some(&missing) = planned.iter().find(|k| !seen.contains(k)) {
        bail!("{} is missing", name(missing));
    }
    if let Some(&extra) = seen.iter().find(|k| !planned.contains(k)) {
        bail!("{} is not part of the plan", name(extra));
    }
    check_record(data, name)
}

/// The points against the schedule the run recorded (files measured before
/// runs recorded it have none, and only the plan's shape above to meet):
/// every recorded point measured and no other, each pooling one timing per
/// recorded round, the deciding ones FAN-4's (`run::is_decisive`) with
/// `decisive_repeats` rounds, the others `repeats`.
fn check_record(data: &Data, name: impl Fn(Key) -> String) -> Result<()> {
    let recorded = match data.schedules.as_slice() {
        [] => return Ok(()),
        [one] => one,
        more => bail!("{} schedules recorded, the run follows one", more.len()),
    };
    recorded.check()?;
    ensure!(
        recorded.points.len() == data.points.len(),
        "the schedule records {} points, the run measured {}",
        recorded.points.len(),
        data.points.len()
    );
    for m in &data.points {
        let key = m.key();
        let Some(point) = recorded.point(&key) else {
            bail!("{} is not in the recorded schedule", name(key));
        };
        ensure!(
            point.deciding == is_decisive(key),
            "{}: the recorded schedule {} it deciding, FAN-4's rule does not",
            name(key),
            if point.deciding {
                "calls"
            } else {
                "does not call"
            }
        );
        ensure!(
            m.timing.repeats.len() == point.all_timings(),
            "{}: {} timings pooled, the recorded schedule gives it {}",
            name(key),
            m.timing.repeats.len(),
            point.all_timings()
        );
        let rounds = if point.deciding {
            data.decisive_repeats
        } else {
            data.repeats
        };
        ensure!(
            point.all_timings() == rounds,
            "{}: {} rounds recorded, the run's rounds for it are {rounds}",
            name(key),
            point.all_timings()
        );
    }
    Ok(())
}
