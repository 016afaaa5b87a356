//! How far apart two of the machine's cores are right now, measured as the
//! round trip of one cache line between two spinning threads, and a gate
//! that holds every timing back until they are close.
//!
//! On a virtual machine the hypervisor chooses the host cores the guest's
//! vCPUs run on, and it moves them while the guest runs. The 2-core VM the
//! book was first measured on answered this ping-pong in 80–330 ns most of
//! the time and in about 400 ns for spells of seconds to minutes. Code that
//! hands work between threads on every operation (an actor behind a channel,
//! say) ran nearly twice as slowly in those spells, while code that stays on
//! one thread did not notice. Two runs that met different spells then
//! disagree about a ratio by far more than their intervals allow. Checking
//! the round trip before and after every timing records which spell each
//! one met; a gate (`machines.toml`, or `harness measure --core-gate`)
//! makes the timings wait for the close spell, so that every run measures
//! the same machine.
//!
//! The same VM also has hours in which the host keeps its vCPUs off their
//! cores for a fifth or more of their time (steal). A timing that lost that
//! much measured a machine with less than two cores: the same wrapper reads
//! the kernel's CPU counters around every timing and measures a stolen one
//! again, from the same budget.
//!
//! Neither check sees a host core that merely runs slower for a while (a
//! busy sibling thread on the host, a neighbour streaming memory through a
//! shared cache): the guest loses no time and its cores stay close, but
//! copies and arithmetic take longer. A fixed probe, timed beside the round
//! trip, records how fast the machine was around each timing, so that two
//! runs can be told apart by the speed of the machine they met.
use std::cell::RefCell;
use std::hint::black_box;
use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use anyhow::{bail, Context, Result};
use serde::{Deserialize, Serialize};

use crate::machine::CpuCounters;
use crate::timing::Statistic;

/// Round trips per batch and batches per check; a check reports the median
/// batch, so one interrupted batch does not move it.
const TRIPS: u64 = 4_000;
const BATCHES: usize = 7;
/// A check that runs longer than this gives up: the partner thread is not
/// getting a core of its own (the machine is busy, or has one core).
const CHECK_LIMIT: Duration = Duration::from_millis(250);
/// Pause between checks while waiting at the gate.
const RECHECK: Duration = Duration::from_millis(200);
/// After the gate gave up once, later timings wait only this long (until a
/// check passes again), so a machine stuck in a far spell costs one long
/// wait per run, not one per timing.
const SHORT_PATIENCE: Duration = Duration::from_secs(2);
/// The speed probe: bytes copied and dependent integer steps per batch,
/// and batches per probe (the fastest batch counts). About half a
/// millisecond in all.
const PROBE_BYTES: usize = 256 * 1024;
const PROBE_STEPS: u64 = 20_000;
const PROBE_BATCHES: usize = 15;
/// Times a timing is measured again when the cores drifted apart during it,
/// or the hypervisor stole `STOLEN` of its CPU time.
const RETRIES: usize = 2;

/// Environment variables through which `harness measure` hands the gate to
/// a chapter's process (and tests set it directly).
pub const GATE_ENV: &str = "BOOK_CORE_GATE_NS";
pub const PATIENCE_ENV: &str = "BOOK_CORE_GATE_WAIT_S";
/// How long a timing waits at the gate unless `PATIENCE_ENV` says otherwise.
pub const DEFAULT_PATIENCE: Duration = Duration::from_secs(60);
/// What is left of the run's budget (`chapter::run_budget`) for the chapter
/// about to measure, in seconds: `harness measure` shares one budget among
/// the chapters it runs.
pub const BUDGET_ENV: &str = "BOOK_CORE_GATE_BUDGET_S";

/// Reads a budget in seconds as `BUDGET_ENV` carries it.
pub fn parse_budget(value: &str) -> Result<Duration> {
    let v = value.trim();
    match v.parse::<f64>() {
        Ok(s) if s.is_finite() && s >= 0.0 => Ok(Duration::from_secs_f64(s)),
        _ => bail!("{v:?} is not a number of seconds (zero or more)"),
    }
}

/// Nanoseconds for one round trip of a cache line between this thread and a
/// partner, both spinning; with both busy, the OS puts them on different
/// cores. `None` on a one-core machine or when the partner could not get a
/// core in time.
pub fn round_trip_ns() -> Option<f64> {
    if std::thread::available_parallelism().map_or(1, |n| n.get()) < 2 {
        return None;
    }
    let line = Arc::new(AtomicU64::new(0));
    let stop = Arc::new(AtomicBool::new(false));
    let partner = {
        let (line, stop) = (Arc::clone(&line), Arc::clone(&stop));
        std::thread::spawn(move || {
            // Answers every odd value with the next even one.
            while !stop.load(Ordering::Relaxed) {
                let v = line.load(Ordering::Acquire);
                if v % 2 == 1 {
                    line.store(v + 1, Ordering::Release);
                } else {
                    std::hint::spin_loop();
                }
            }
        })
    };
    let started = Instant::now();
    let mut batches = Vec::with_capacity(BATCHES);
    let mut v = 0u64;
    'check: for _ in 0..BATCHES {
        let batch = Instant::now();
        for _ in 0..TRIPS {
            line.store(v + 1, Ordering::Release);
            let mut spins = 0u32;
            while line.load(Ordering::Acquire) != v + 2 {
                spins = spins.wrapping_add(1);
                if spins % 4096 == 0 && started.elapsed() > CHECK_LIMIT {
                    break 'check;
                }
                std::hint::spin_loop();
            }
            v += 2;
        }
        batches.push(batch.elapsed().as_nanos() as f64 / TRIPS as f64);
    }
    stop.store(true, Ordering::Relaxed);
    let _ = partner.join();
    (batches.len() == BATCHES).then(|| Statistic::Median.of(&mut batches))
}

/// Nanoseconds for a fixed piece of work on this thread: a copy of
/// `PROBE_BYTES` (a working set that stays in a core's own caches) and a
/// chain of dependent integer steps, the fastest of `PROBE_BATCHES`. Only
/// its changes mean anything: the same work, slower, on the same machine.
///
/// The fastest batch, not the median: on the book's virtual machine the
/// first batches after a pause run slow (a core waking, caches another
/// guest used), and a probe taken between timings always follows a pause.
/// The fastest batch is what the core can do at that moment.
pub fn speed_probe_ns() -> Option<f64> {
    thread_local! {
        static BUFFERS: RefCell<(Vec<u8>, Vec<u8>)> =
            RefCell::new(((0..PROBE_BYTES).map(|i| i as u8).collect(), vec![0; PROBE_BYTES]));
    }
    BUFFERS.with(|b| {
        let (from, to) = &mut *b.borrow_mut();
        let mut x = black_box(0x9e37_79b9_7f4a_7c15_u64);
        let mut batches = Vec::with_capacity(PROBE_BATCHES);
        for _ in 0..PROBE_BATCHES {
            let batch = Instant::now();
            to.copy_from_slice(black_box(&from[..]));
            black_box(&mut to[..]);
            for _ in 0..PROBE_STEPS {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
            }
            black_box(x);
            batches.push(batch.elapsed().as_nanos() as f64);
        }
        batches.into_iter().reduce(f64::min)
    })
}

/// Timings start only when a check finds the round trip at or below
/// `limit_ns`, waiting up to `patience` for it. The run's budget (see
/// `start_run`) caps the waiting: after that, timings go ahead and count as
/// beyond the gate when the cores are far, so a machine stuck apart cannot
/// stretch a quick run into a long one.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Gate {
    pub limit_ns: f64,
    pub patience: Duration,
}

/// Reads a gate value as given on the command line, in `machines.toml` or
/// in `GATE_ENV`: a round trip in nanoseconds, or `none`.
pub fn parse_limit(value: &str) -> Result<Option<f64>> {
    let v = value.trim();
    if v.is_empty() || v.eq_ignore_ascii_case("none") {
        return Ok(None);
    }
    match v.parse::<f64>() {
        Ok(ns) if ns.is_finite() && ns > 0.0 => Ok(Some(ns)),
        _ => bail!("{v:?} is not a round trip in nanoseconds (a positive number) or \"none\""),
    }
}

/// What `machines.toml` says about one machine.
#[derive(Clone, Debug, Default, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MachineSettings {
    /// The gate for this machine (see the module docs), in nanoseconds.
    pub core_gate_ns: Option<f64>,
}

/// The settings `machines_file` holds for `machine_id` (none if the file or
/// the entry is missing). A file that does not parse is an error naming it.
pub fn machine_settings(machines_file: &Path, machine_id: &str) -> Result<MachineSettings> {
    let text = match std::fs::read_to_string(machines_file) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Default::default()),
        Err(e) => {
            return Err(e).with_context(|| format!("cannot read {}", machines_file.display()))
        }
    };
    let mut all: std::collections::BTreeMap<String, MachineSettings> = toml::from_str(&text)
        .with_context(|| format!("{} is not a valid machines file", machines_file.display()))?;
    let settings = all.remove(machine_id).unwrap_or_default();
    if let Some(ns) = settings.core_gate_ns {
        if !(ns.is_finite() && ns > 0.0) {
            bail!(
                "{}: core_gate_ns for {machine_id} must be a positive number of nanoseconds",
                machines_file.display()
            );
        }
    }
    Ok(settings)
}

/// `code/machines.toml`: measuring conditions per machine id.
pub fn machines_file() -> std::path::PathBuf {
    crate::code_dir().join("machines.toml")
}

/// The gate this process measures under: `GATE_ENV` when set (that is how
/// `harness measure` passes on `--core-gate`), else this machine's entry in
/// `machines.toml`, else none.
pub fn gate_for(machine_id: &str) -> Result<Option<Gate>> {
    let limit = match std::env::var(GATE_ENV) {
        Ok(v) => parse_limit(&v).with_context(|| format!("{GATE_ENV}={v}"))?,
        Err(std::env::VarError::NotPresent) => {
            machine_settings(&machines_file(), machine_id)?.core_gate_ns
        }
        Err(e) => bail!("{GATE_ENV}: {e}"),
    };
    let patience = match std::env::var(PATIENCE_ENV) {
        Ok(v) => {
            let secs: f64 = v
                .trim()
                .parse()
                .ok()
                .filter(|s: &f64| s.is_finite() && *s >= 0.0)
                .with_context(|| format!("{PATIENCE_ENV}={v} is not a number of seconds"))?;
            Duration::from_secs_f64(secs)
        }
        Err(_) => DEFAULT_PATIENCE,
    };
    Ok(limit.map(|limit_ns| Gate { limit_ns, patience }))
}

/// What a run's checks found, kept in its provenance.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct CoresApart {
    /// The gate the timings waited for, in nanoseconds; `None` without one.
    pub gate_ns: Option<f64>,
    /// Timings kept.
    pub timings: usize,
    /// Checks just before and just after each kept timing, and what they found.
    pub checks: usize,
    pub min_ns: f64,
    pub median_ns: f64,
    pub max_ns: f64,
    /// Kept timings that started or ended with the cores beyond the gate
    /// (the wait gave up, or the retries ran out). Always 0 without a gate.
    pub beyond_gate: usize,
    /// Timings thrown away and measured again because the cores drifted
    /// beyond the gate while they ran.
    pub remeasured: usize,
    /// Seconds spent waiting at the gate.
    pub waited_s: f64,
    /// Seconds spent on timings that were thrown away (for either reason);
    /// `None` in files from before this was counted.
    #[serde(default)]
    pub remeasured_s: Option<f64>,
    /// The largest share of CPU time the hypervisor stole during one kept
    /// timing (`machine::CpuCounters`), and how many kept timings lost at
    /// least `STOLEN` of it. `None` off Linux and in files from before.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub steal_max: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stolen_timings: Option<usize>,
    /// Timings thrown away and measured again because they lost at least
    /// `STOLEN`; `None` where steal could not be read, and in files from
    /// before stolen timings were measured again.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub steal_remeasured: Option<usize>,
    /// The speed probe (`speed_probe_ns`) before and after each kept
    /// timing: how its times spread over the run. `None` where it could not
    /// run, and in files from before it was timed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub probe: Option<Spread>,
}

/// Smallest, median and largest of a run's checks, in nanoseconds.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Spread {
    pub min_ns: f64,
    pub median_ns: f64,
    pub max_ns: f64,
}

impl Spread {
    /// `None` for no values.
    pub fn of(values: &[f64]) -> Option<Spread> {
        let mut v = values.to_vec();
        (!v.is_empty()).then(|| Spread {
            min_ns: v.iter().copied().fold(f64::INFINITY, f64::min),
            max_ns: v.iter().copied().fold(0.0, f64::max),
            median_ns: Statistic::Median.of(&mut v),
        })
    }
}

/// A timing that surely lost this share of its CPU time to the hypervisor
/// (not counting a tick that may be rounding) counts as stolen: on two
/// cores, a fifth of one core's time.
pub const STOLEN: f64 = 0.1;

/// Steal is read for timings that span at least this many jiffies of CPU
/// time (summed over the cores; 0.1 s on two cores at 100 per second), so
/// that one tick is at most a twentieth of the window and `STOLEN` takes
/// two. Shorter timings add nothing to the record.
const STEAL_WINDOW_JIFFIES: u64 = 20;

impl CoresApart {
    /// The largest round trip over the smallest: how much the machine moved.
    pub fn spread(&self) -> f64 {
        self.max_ns / self.min_ns
    }
}

#[derive(Default)]
struct Log {
    gate: Option<Gate>,
    /// The most the run spends waiting at the gate and on timings thrown
    /// away; zero outside a run, so nothing is measured again there.
    budget: Duration,
    at_timings: Vec<f64>,
    timings: usize,
    beyond_gate: usize,
    remeasured: usize,
    steal_remeasured: usize,
    waited: Duration,
    /// Time of the timings thrown away.
    discarded: Duration,
    /// Steal during each kept timing whose counters could be read: the share
    /// read, and the least share surely stolen (`steal_share_at_least`).
    steal_at_timings: Vec<(f64, f64)>,
    /// The speed probe before and after each kept timing, where it ran.
    probes_at_timings: Vec<f64>,
    gave_up: bool,
}

impl Log {
    /// What the gate has cost the run so far, against its budget.
    fn spent(&self) -> Duration {
        self.waited + self.discarded
    }
}

static LOG: Mutex<Option<Log>> = Mutex::new(None);

fn with_log<T>(f: impl FnOnce(&mut Log) -> T) -> T {
    let mut guard = LOG.lock().unwrap_or_else(|e| e.into_inner());
    f(guard.get_or_insert_with(Log::default))
}

/// Starts a fresh record for one run under `gate`, which may spend up to
/// `budget` waiting at the gate and measuring timings again.
pub fn start_run(gate: Option<Gate>, budget: Duration) {
    *LOG.lock().unwrap_or_else(|e| e.into_inner()) = Some(Log {
        gate,
        budget,
        ..Log::default()
    });
}

/// The gate of the run under way; none outside a run.
pub fn current_gate() -> Option<Gate> {
    with_log(|l| l.gate)
}

/// What the run's checks found since `start_run`; `None` if no check could
/// be made (one core) or nothing was timed.
pub fn finish_run() -> Option<CoresApart> {
    let log = LOG.lock().unwrap_or_else(|e| e.into_inner()).take()?;
    let round_trip = Spread::of(&log.at_timings)?;
    let steal = &log.steal_at_timings;
    Some(CoresApart {
        gate_ns: log.gate.map(|g| g.limit_ns),
        timings: log.timings,
        checks: log.at_timings.len(),
        min_ns: round_trip.min_ns,
        max_ns: round_trip.max_ns,
        median_ns: round_trip.median_ns,
        beyond_gate: log.beyond_gate,
        remeasured: log.remeasured,
        waited_s: log.waited.as_secs_f64(),
        remeasured_s: Some(log.discarded.as_secs_f64()),
        steal_max: (!steal.is_empty()).then(|| steal.iter().map(|s| s.0).fold(0.0, f64::max)),
        stolen_timings: (!steal.is_empty())
            .then(|| steal.iter().filter(|(_, least)| *least >= STOLEN).count()),
        steal_remeasured: (!steal.is_empty()).then_some(log.steal_remeasured),
        probe: Spread::of(&log.probes_at_timings),
    })
}

/// Before a timing: one check, and under a gate, more until the round trip
/// is within it or the patience runs out. Returns the last check and
/// whether the timing starts within the gate (always, without one).
fn settle(gate: Option<Gate>, check: &mut impl FnMut() -> Option<f64>) -> (Option<f64>, bool) {
    let Some(gate) = gate else {
        return (check(), true);
    };
    let (gave_up, left) = with_log(|l| (l.gave_up, l.budget.saturating_sub(l.spent())));
    let patience = if gave_up {
        gate.patience.min(SHORT_PATIENCE)
    } else {
        gate.patience
    }
    .min(left);
    let started = Instant::now();
    loop {
        let ns = check();
        // A check that could not be made says nothing either way: go ahead.
        let within = ns.is_none_or(|ns| ns <= gate.limit_ns);
        let out_of_patience = started.elapsed() >= patience;
        if within || out_of_patience {
            with_log(|l| {
                l.waited += started.elapsed();
                l.gave_up = !within;
            });
            return (ns, within);
        }
        std::thread::sleep(RECHECK);
    }
}

/// Runs `timed` between checks of the cores, waiting at the gate first, and
/// measures it again (up to `RETRIES` times, and while the run's budget
/// lasts) when the cores drifted beyond the gate while it ran or the
/// hypervisor stole at least `STOLEN` of its CPU time. `check` is
/// `round_trip_ns`, `probe` is `speed_probe_ns` and `counters` is
/// `CpuCounters::read` outside tests. The probe only records: no timing
/// waits for it or is measured again because of it.
pub fn gated<T>(
    gate: Option<Gate>,
    mut check: impl FnMut() -> Option<f64>,
    mut probe: impl FnMut() -> Option<f64>,
    mut counters: impl FnMut() -> Option<CpuCounters>,
    mut timed: impl FnMut() -> Result<T>,
) -> Result<T> {
    let mut attempt = 0;
    loop {
        let (before, started_within) = settle(gate, &mut check);
        let probe_before = probe();
        let start = counters();
        let began = Instant::now();
        let out = timed()?;
        let took = began.elapsed();
        let steal = start.zip(counters()).and_then(|(start, end)| {
            Some((
                start.steal_share_over(&end, STEAL_WINDOW_JIFFIES)?,
                start.steal_share_at_least(&end, STEAL_WINDOW_JIFFIES)?,
            ))
        });
        let probe_after = probe();
        let after = check();
        let ended_within = match (gate, after) {
            (Some(g), Some(ns)) => ns <= g.limit_ns,
            _ => true,
        };
        let drifted = started_within && !ended_within;
        let stolen = steal.is_some_and(|(_, least)| least >= STOLEN);
        let affordable = with_log(|l| l.spent() + took <= l.budget);
        if (drifted || stolen) && attempt < RETRIES && affordable {
            attempt += 1;
            with_log(|l| {
                if drifted {
                    l.remeasured += 1;
                } else {
                    l.steal_remeasured += 1;
                }
                l.discarded += took;
            });
            continue;
        }
        with_log(|l| {
            l.timings += 1;
            l.at_timings.extend(before.into_iter().chain(after));
            l.steal_at_timings.extend(steal);
            l.probes_at_timings
                .extend(probe_before.into_iter().chain(probe_after));
            if !(started_within && ended_within) {
                l.beyond_gate += 1;
            }
        });
        return Ok(out);
    }
}

/// A gate a survey of round trips suggests: when they fall into a close
/// group and a far one (each at least 5 % of the checks, the far one
/// starting at least 12 % above the close one's top), the geometric middle
/// of that gap. `None` when the checks show no such gap.
pub fn suggest_gate(checks: &[f64]) -> Option<f64> {
    let mut v: Vec<f64> = checks.iter().copied().filter(|x| x.is_finite()).collect();
    v.sort_by(f64::total_cmp);
    let n = v.len();
    let least = (n / 20).max(3);
    if n < 2 * least {
        return None;
    }
    (least - 1..n - least)
        .map(|i| (v[i + 1] / v[i], i))
        .filter(|(ratio, _)| *ratio >= 1.12)
        .max_by(|a, b| a.0.total_cmp(&b.0))
        .map(|(_, i)| (v[i] * v[i + 1]).sqrt())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Serialises the tests that use the process-wide log.
    static SERIAL: Mutex<()> = Mutex::new(());

    /// A budget no test reaches.
    const HOUR: Duration = Duration::from_secs(3600);

    fn gate(limit_ns: f64, patience_ms: u64) -> Option<Gate> {
        Some(Gate {
            limit_ns,
            patience: Duration::from_millis(patience_ms),
        })
    }

    /// No speed probe: the machine's speed plays no part.
    fn unprobed() -> Option<f64> {
        None
    }

    /// No CPU counters: steal plays no part.
    fn unread() -> Option<CpuCounters> {
        None
    }

    /// CPU counters that advance by `total` jiffies per timing, of which the
    /// given shares are stolen in turn (the last one forever).
    fn stealing(total: u64, shares: &[f64]) -> impl FnMut() -> Option<CpuCounters> {
        let shares = shares.to_vec();
        let (mut now, mut reads) = (CpuCounters { total: 0, steal: 0 }, 0usize);
        move || {
            // Reads come in pairs around a timing: the second one advances.
            if reads % 2 == 1 {
                let share = shares[(reads / 2).min(shares.len() - 1)];
                now.total += total;
                now.steal += (share * total as f64).round() as u64;
            }
            reads += 1;
            Some(now)
        }
    }

    /// A check that returns the given round trips in turn, then the last forever.
    fn script(values: &[f64]) -> impl FnMut() -> Option<f64> {
        let values = values.to_vec();
        let mut i = 0;
        move || {
            let v = values[i.min(values.len() - 1)];
            i += 1;
            Some(v)
        }
    }

    #[test]
    fn a_real_check_measures_a_round_trip() {
        if std::thread::available_parallelism().map_or(1, |n| n.get()) < 2 {
            assert_eq!(round_trip_ns(), None);
            return;
        }
        // Either a plausible round trip (tens of ns to tens of µs), or none
        // when the test runner kept the other core busy.
        if let Some(ns) = round_trip_ns() {
            assert!((5.0..100_000.0).contains(&ns), "round trip {ns} ns");
        }
    }

    #[test]
    fn without_a_gate_timings_run_at_once_and_record_both_checks() {
        let _s = SERIAL.lock().unwrap();
        start_run(None, HOUR);
        let mut runs = 0;
        let out = gated(None, script(&[200.0, 410.0]), unprobed, unread, || {
            runs += 1;
            Ok(7)
        })
        .unwrap();
        assert_eq!((out, runs), (7, 1));
        let found = finish_run().unwrap();
        assert_eq!(found.gate_ns, None);
        assert_eq!((found.timings, found.checks), (1, 2));
        assert_eq!((found.min_ns, found.max_ns), (200.0, 410.0));
        assert_eq!((found.beyond_gate, found.remeasured), (0, 0));
        assert!((found.spread() - 2.05).abs() < 1e-9);
        // Nothing recorded since: nothing to report.
        assert_eq!(finish_run(), None);
    }

    #[test]
    fn a_real_probe_times_its_fixed_work() {
        let ns = speed_probe_ns().expect("the probe runs on any machine");
        // A quarter MiB copied and twenty thousand steps: microseconds, not
        // nothing (optimised away) and not seconds.
        assert!((1_000.0..100_000_000.0).contains(&ns), "probe {ns} ns");
    }

    #[test]
    fn each_timing_records_how_fast_the_machine_was_around_it() {
        let _s = SERIAL.lock().unwrap();
        start_run(None, HOUR);
        // Probes come before and after each timing; one could not run.
        let mut probes = [
            Some(100.0),
            Some(130.0),
            None,
            Some(120.0),
            Some(90.0),
            Some(300.0),
        ]
        .into_iter();
        for _ in 0..3 {
            gated(None, script(&[200.0]), || probes.next()?, unread, || Ok(())).unwrap();
        }
        let found = finish_run().unwrap();
        assert_eq!(found.timings, 3);
        let probe = found.probe.expect("five probes ran");
        assert_eq!(
            (probe.min_ns, probe.median_ns, probe.max_ns),
            (90.0, 120.0, 300.0)
        );
        // The round trips are not mixed in, nor the probes into them.
        assert_eq!(
            (found.min_ns, found.max_ns, found.checks),
            (200.0, 200.0, 6)
        );
        let text = serde_json::to_string(&found).unwrap();
        assert_eq!(serde_json::from_str::<CoresApart>(&text).unwrap(), found);

        // A timing measured again keeps only the probes of the attempt kept.
        start_run(gate(330.0, 1_000), HOUR);
        let mut probes = [10.0, 20.0, 30.0, 40.0].into_iter();
        let mut runs = 0;
        gated(
            gate(330.0, 1_000),
            script(&[300.0, 400.0, 300.0, 300.0]),
            || probes.next(),
            unread,
            || {
                runs += 1;
                Ok(())
            },
        )
        .unwrap();
        let found = finish_run().unwrap();
        assert_eq!((runs, found.remeasured), (2, 1));
        let probe = found.probe.unwrap();
        assert_eq!((probe.min_ns, probe.max_ns), (30.0, 40.0));

        // Without a probe the file records nothing, rather than a zero.
        start_run(None, HOUR);
        gated(None, script(&[200.0]), unprobed, unread, || Ok(())).unwrap();
        let found = finish_run().unwrap();
        assert_eq!(found.probe, None);
        let text = serde_json::to_string(&found).unwrap();
        assert!(!text.contains("probe"), "{text}");
        // And a file from before the probe reads as one without it.
        let mut old: serde_json::Value = serde_json::from_str(&text).unwrap();
        old.as_object_mut().unwrap().remove("probe");
        assert_eq!(
            serde_json::from_value::<CoresApart>(old).unwrap().probe,
            None
        );
    }

    #[test]
    fn each_timing_records_what_the_hypervisor_stole_during_it() {
        let _s = SERIAL.lock().unwrap();
        start_run(None, HOUR);
        for _ in 0..2 {
            // Long enough for the kernel's CPU counters to tick past the
            // window on any number of cores (0.2 s each).
            gated(
                None,
                script(&[200.0, 200.0]),
                unprobed,
                CpuCounters::read,
                || {
                    std::thread::sleep(Duration::from_millis(200));
                    Ok(())
                },
            )
            .unwrap();
        }
        let found = finish_run().unwrap();
        if CpuCounters::read().is_some() {
            let max = found.steal_max.expect("steal is read around every timing");
            assert!((0.0..=1.0).contains(&max), "steal share {max}");
            let stolen = found.stolen_timings.unwrap();
            assert!(stolen <= found.timings, "{stolen} of {}", found.timings);
        } else {
            assert_eq!((found.steal_max, found.stolen_timings), (None, None));
        }
        // An instant timing is too short for the counters: it adds nothing,
        // rather than a zero or a tick's worth of noise.
        start_run(None, HOUR);
        gated(
            None,
            script(&[200.0, 200.0]),
            unprobed,
            CpuCounters::read,
            || Ok(()),
        )
        .unwrap();
        let found = finish_run().unwrap();
        assert_eq!((found.steal_max, found.stolen_timings), (None, None));
    }

    #[test]
    fn the_gate_waits_for_close_cores_and_remeasures_a_timing_they_left() {
        let _s = SERIAL.lock().unwrap();
        start_run(gate(330.0, 10_000), HOUR);
        let mut runs = 0;
        // Far twice (wait), close (start), far after (measure again), close
        // before and after the second attempt.
        let check = script(&[400.0, 390.0, 250.0, 405.0, 240.0, 260.0]);
        gated(gate(330.0, 10_000), check, unprobed, unread, || {
            runs += 1;
            Ok(())
        })
        .unwrap();
        assert_eq!(runs, 2);
        let found = finish_run().unwrap();
        assert_eq!(found.gate_ns, Some(330.0));
        assert_eq!(
            (found.timings, found.remeasured, found.beyond_gate),
            (1, 1, 0)
        );
        // Only the kept timing's checks count.
        assert_eq!(
            (found.checks, found.min_ns, found.max_ns),
            (2, 240.0, 260.0)
        );
        assert!(found.waited_s >= 2.0 * RECHECK.as_secs_f64() * 0.9);
    }

    #[test]
    fn a_gate_that_is_never_met_gives_up_and_says_so() {
        let _s = SERIAL.lock().unwrap();
        start_run(gate(100.0, 300), HOUR);
        let mut runs = 0;
        for _ in 0..2 {
            gated(gate(100.0, 300), script(&[400.0]), unprobed, unread, || {
                runs += 1;
                Ok(())
            })
            .unwrap();
        }
        // Started beyond the gate: no retries, kept and counted.
        assert_eq!(runs, 2);
        let found = finish_run().unwrap();
        assert_eq!(
            (found.timings, found.beyond_gate, found.remeasured),
            (2, 2, 0)
        );
        assert!(
            found.waited_s >= 0.3 && found.waited_s < 5.0,
            "{}",
            found.waited_s
        );
    }

    #[test]
    fn a_run_stops_waiting_when_its_budget_is_spent() {
        let _s = SERIAL.lock().unwrap();
        let g = Some(Gate {
            limit_ns: 100.0,
            patience: Duration::from_secs(60),
        });
        start_run(g, Duration::from_millis(500));
        let started = Instant::now();
        for _ in 0..5 {
            gated(g, script(&[400.0]), unprobed, unread, || Ok(())).unwrap();
        }
        // Five timings under a gate never met: half a second of waiting in
        // all, not a minute each.
        let took = started.elapsed();
        assert!(took < Duration::from_secs(3), "{took:?}");
        let found = finish_run().unwrap();
        assert!(
            found.waited_s >= 0.5 && found.waited_s < 1.5,
            "{}",
            found.waited_s
        );
        assert_eq!((found.timings, found.beyond_gate), (5, 5));
    }

    #[test]
    fn measuring_again_stops_when_the_budget_is_spent() {
        let _s = SERIAL.lock().unwrap();
        let g = Some(Gate {
            limit_ns: 330.0,
            patience: Duration::from_secs(60),
        });
        start_run(g, Duration::from_millis(250));
        // Close before, far after, every time; each timing takes 100 ms.
        let mut flip = false;
        let mut check = move || {
            flip = !flip;
            Some(if flip { 200.0 } else { 450.0 })
        };
        let mut runs = 0;
        for _ in 0..3 {
            gated(g, &mut check, unprobed, unread, || {
                runs += 1;
                std::thread::sleep(Duration::from_millis(100));
                Ok(())
            })
            .unwrap();
        }
        // The first timing is thrown away twice (200 ms of the budget);
        // a third discard would pass 250 ms, so every later attempt is kept.
        assert_eq!(runs, 1 + RETRIES + 2);
        let found = finish_run().unwrap();
        assert_eq!(
            (found.timings, found.remeasured, found.beyond_gate),
            (3, RETRIES, 3)
        );
        let thrown_away = found.remeasured_s.unwrap();
        assert!((0.2..0.25).contains(&thrown_away), "{thrown_away}");
    }

    #[test]
    fn retries_run_out_and_the_last_attempt_is_kept() {
        let _s = SERIAL.lock().unwrap();
        start_run(gate(330.0, 1_000), HOUR);
        let mut runs = 0;
        // Close before, far after, every time.
        let mut flip = false;
        let check = move || {
            flip = !flip;
            Some(if flip { 200.0 } else { 450.0 })
        };
        gated(gate(330.0, 1_000), check, unprobed, unread, || {
            runs += 1;
            Ok(())
        })
        .unwrap();
        assert_eq!(runs, 1 + RETRIES);
        let found = finish_run().unwrap();
        assert_eq!(
            (found.timings, found.remeasured, found.beyond_gate),
            (1, RETRIES, 1)
        );
    }

    /// One timing under no gate, with `budget` and the given counters: how
    /// many attempts it took, and what the run recorded.
    fn one_timing(
        budget: Duration,
        counters: impl FnMut() -> Option<CpuCounters>,
    ) -> (usize, CoresApart) {
        start_run(None, budget);
        let mut runs = 0;
        gated(None, script(&[200.0]), unprobed, counters, || {
            runs += 1;
            Ok(())
        })
        .unwrap();
        (runs, finish_run().unwrap())
    }

    #[test]
    fn a_stolen_timing_is_measured_again_without_any_gate() {
        let _s = SERIAL.lock().unwrap();
        // 30 % stolen, then 2 %: the second attempt is kept.
        let (runs, found) = one_timing(HOUR, stealing(100, &[0.3, 0.02]));
        assert_eq!(runs, 2);
        assert_eq!(
            (found.timings, found.remeasured, found.steal_remeasured),
            (1, 0, Some(1))
        );
        assert_eq!(
            (found.stolen_timings, found.steal_max),
            (Some(0), Some(0.02))
        );
    }

    #[test]
    fn stolen_timings_are_kept_when_retries_or_budget_run_out() {
        let _s = SERIAL.lock().unwrap();
        // Stolen every time: measured RETRIES more times, then kept as stolen.
        let (runs, found) = one_timing(HOUR, stealing(100, &[0.25]));
        assert_eq!(runs, 1 + RETRIES);
        assert_eq!(
            (found.stolen_timings, found.steal_remeasured),
            (Some(1), Some(RETRIES))
        );
        // No budget (smoke runs, or no run at all): nothing measured again.
        let (runs, found) = one_timing(Duration::ZERO, stealing(100, &[0.25]));
        assert_eq!(runs, 1);
        assert_eq!(
            (found.stolen_timings, found.steal_remeasured),
            (Some(1), Some(0))
        );
        // Below the threshold, over a window too short to resolve it, or
        // (10 of 100 jiffies) at it only if a tick of rounding counts:
        // kept at once.
        for (jiffies, share) in [(100, 0.09), (10, 0.5), (100, 0.1)] {
            let (runs, _) = one_timing(HOUR, stealing(jiffies, &[share]));
            assert_eq!(runs, 1, "{jiffies} jiffies, {share} stolen");
        }
    }

    #[test]
    fn a_failed_timing_is_an_error_not_a_retry() {
        let _s = SERIAL.lock().unwrap();
        start_run(None, HOUR);
        let err = gated(
            None,
            script(&[200.0]),
            unprobed,
            unread,
            || -> Result<()> { bail!("boom") },
        )
        .unwrap_err();
        assert_eq!(err.to_string(), "boom");
        assert_eq!(finish_run(), None);
    }

    #[test]
    fn gate_values_parse_or_fail_clearly() {
        assert_eq!(parse_limit("330").unwrap(), Some(330.0));
        assert_eq!(parse_limit(" none ").unwrap(), None);
        assert_eq!(parse_limit("").unwrap(), None);
        for bad in ["-5", "0", "fast", "NaN", "inf"] {
            let err = parse_limit(bad).unwrap_err().to_string();
            assert!(err.contains("not a round trip"), "{bad}: {err}");
        }
    }

    #[test]
    fn budgets_parse_or_fail_clearly() {
        assert_eq!(
            parse_budget(" 12.5 ").unwrap(),
            Duration::from_millis(12_500)
        );
        assert_eq!(parse_budget("0").unwrap(), Duration::ZERO);
        for bad in ["-0.5", "soon", "inf", ""] {
            let err = parse_budget(bad).unwrap_err().to_string();
            assert!(err.contains("is not a number of seconds"), "{bad:?}: {err}");
        }
    }

    #[test]
    fn machines_files_name_themselves_when_wrong() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("machines.toml");
        // Missing file or entry: no settings.
        assert_eq!(
            machine_settings(&file, "m").unwrap(),
            MachineSettings::default()
        );
        std::fs::write(&file, "[m]\ncore_gate_ns = 330\n[other]\n").unwrap();
        assert_eq!(
            machine_settings(&file, "m").unwrap().core_gate_ns,
            Some(330.0)
        );
        assert_eq!(
            machine_settings(&file, "nobody").unwrap().core_gate_ns,
            None
        );
        for bad in [
            "[m]\ncore_gate = 330\n",
            "[m]\ncore_gate_ns = -1\n",
            "not toml [",
        ] {
            std::fs::write(&file, bad).unwrap();
            let err = format!("{:#}", machine_settings(&file, "m").unwrap_err());
            assert!(err.contains("machines.toml"), "{bad}: {err}");
        }
    }

    #[test]
    fn a_survey_with_two_groups_suggests_a_gate_between_them() {
        let mut checks: Vec<f64> = (0..60).map(|i| 80.0 + 4.0 * i as f64).collect(); // 80–316
        checks.extend((0..20).map(|i| 370.0 + i as f64)); // 370–389
        let g = suggest_gate(&checks).unwrap();
        assert!(g > 316.0 && g < 370.0, "{g}");
        // One group only, or too few far checks to call a group: no gate.
        assert_eq!(suggest_gate(&checks[..60]), None);
        let mut lonely = checks[..60].to_vec();
        lonely.push(900.0);
        assert_eq!(suggest_gate(&lonely), None);
        assert_eq!(suggest_gate(&[]), None);
    }
}
