//! One run's gate: holds each timing back until the cores are close,
//! measures a timing again when they drifted apart during it or the
//! hypervisor stole its time, and keeps the tallies the run's provenance
//! records. The run's `Lab` owns it; every timing goes through it.
use std::sync::Mutex;
use std::time::{Duration, Instant};

use anyhow::Result;

use super::gate::Gate;
use super::record::{CoresApart, Log, STOLEN};
use crate::machine::CpuCounters;

/// Pause between checks while waiting at the gate.
const RECHECK: Duration = Duration::from_millis(200);
/// After the gate gave up once, later timings wait only this long (until a
/// check passes again), so a machine stuck in a far spell costs one long
/// wait per run, not one per timing.
const SHORT_PATIENCE: Duration = Duration::from_secs(2);
/// Times a timing is measured again when the cores drifted apart during it,
/// or the hypervisor stole `STOLEN` of its CPU time.
const RETRIES: usize = 2;
/// Steal is read for timings that span at least this many jiffies of CPU
/// time (summed over the cores; 0.1 s on two cores at 100 per second), so
/// that one tick is at most a twentieth of the window and `STOLEN` takes
/// two. Shorter timings add nothing to the record.
const STEAL_WINDOW_JIFFIES: u64 = 20;

/// The gate of one run and what it recorded. Timings from several threads
/// may go through one gatekeeper: each takes its lock only to read or add
/// to the tallies, never while it waits or times.
pub struct Gatekeeper {
    gate: Option<Gate>,
    /// The most the run spends waiting at the gate and on timings thrown
    /// away; zero outside a run, so nothing is measured again there.
    budget: Duration,
    log: Mutex<Log>,
}

impl Default for Gatekeeper {
    /// Outside a run: no gate, and no budget to measure anything again.
    fn default() -> Self {
        Gatekeeper::new(None, Duration::ZERO)
    }
}

impl Gatekeeper {
    /// A fresh record for one run under `gate`, which may spend up to
    /// `budget` waiting at the gate and measuring timings again.
    pub fn new(gate: Option<Gate>, budget: Duration) -> Self {
        Gatekeeper {
            gate,
            budget,
            log: Mutex::new(Log::default()),
        }
    }

    /// The gate this run's timings wait at.
    pub fn gate(&self) -> Option<Gate> {
        self.gate
    }

    fn with_log<T>(&self, f: impl FnOnce(&mut Log) -> T) -> T {
        f(&mut self.log.lock().unwrap_or_else(|e| e.into_inner()))
    }

    /// What the run's checks found; `None` if no check could be made (one
    /// core) or nothing was timed.
    pub fn finish(self) -> Option<CoresApart> {
        let log = self.log.into_inner().unwrap_or_else(|e| e.into_inner());
        log.summary(self.gate)
    }

    /// Before a timing: one check, and under a gate, more until the round
    /// trip is within it or the patience runs out. Returns the last check
    /// and whether the timing starts within the gate (always, without one).
    fn settle(&self, check: &mut impl FnMut() -> Option<f64>) -> (Option<f64>, bool) {
        let Some(gate) = self.gate else {
            return (check(), true);
        };
        let (gave_up, left) = self.with_log(|l| (l.gave_up, self.budget.saturating_sub(l.spent())));
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
                self.with_log(|l| {
                    l.waited += started.elapsed();
                    l.gave_up = !within;
                });
                return (ns, within);
            }
            std::thread::sleep(RECHECK);
        }
    }

    /// Runs `timed` between checks of the cores, waiting at the gate first,
    /// and measures it again (up to `RETRIES` times, and while the run's
    /// budget lasts) when the cores drifted beyond the gate while it ran or
    /// the hypervisor stole at least `STOLEN` of its CPU time. `check` is
    /// `round_trip_ns`, `probe` is `speed_probe_ns` and `counters` is
    /// `CpuCounters::read` outside tests. The probe only records: no timing
    /// waits for it or is measured again because of it.
    pub fn gated<T>(
        &self,
        mut check: impl FnMut() -> Option<f64>,
        mut probe: impl FnMut() -> Option<f64>,
        mut counters: impl FnMut() -> Option<CpuCounters>,
        mut timed: impl FnMut() -> Result<T>,
    ) -> Result<T> {
        let mut attempt = 0;
        loop {
            let (before, started_within) = self.settle(&mut check);
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
            let ended_within = match (self.gate, after) {
                (Some(g), Some(ns)) => ns <= g.limit_ns,
                _ => true,
            };
            let drifted = started_within && !ended_within;
            let stolen = steal.is_some_and(|(_, least)| least >= STOLEN);
            let affordable = self.with_log(|l| l.spent() + took <= self.budget);
            if (drifted || stolen) && attempt < RETRIES && affordable {
                attempt += 1;
                self.with_log(|l| {
                    if drifted {
                        l.remeasured += 1;
                    } else {
                        l.steal_remeasured += 1;
                    }
                    l.discarded += took;
                });
                continue;
            }
            self.with_log(|l| {
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
}
#[cfg(test)]
mod tests {
    use super::super::fakes::{gate, script, stealing, unprobed, unread, HOUR};
    use super::*;
    use anyhow::bail;

    #[test]
    fn the_gate_waits_for_close_cores_and_remeasures_a_timing_they_left() {
        let keeper = Gatekeeper::new(gate(330.0, 10_000), HOUR);
        let mut runs = 0;
        // Far twice (wait), close (start), far after (measure again), close
        // before and after the second attempt.
        let check = script(&[400.0, 390.0, 250.0, 405.0, 240.0, 260.0]);
        keeper
            .gated(check, unprobed, unread, || {
                runs += 1;
                Ok(())
            })
            .unwrap();
        assert_eq!(runs, 2);
        let found = keeper.finish().unwrap();
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
        let keeper = Gatekeeper::new(gate(100.0, 300), HOUR);
        let mut runs = 0;
        for _ in 0..2 {
            keeper
                .gated(script(&[400.0]), unprobed, unread, || {
                    runs += 1;
                    Ok(())
                })
                .unwrap();
        }
        // Started beyond the gate: no retries, kept and counted.
        assert_eq!(runs, 2);
        let found = keeper.finish().unwrap();
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
        let g = Some(Gate {
            limit_ns: 100.0,
            patience: Duration::from_secs(60),
        });
        let keeper = Gatekeeper::new(g, Duration::from_millis(500));
        let started = Instant::now();
        for _ in 0..5 {
            keeper
                .gated(script(&[400.0]), unprobed, unread, || Ok(()))
                .unwrap();
        }
        // Five timings under a gate never met: half a second of waiting in
        // all, not a minute each.
        let took = started.elapsed();
        assert!(took < Duration::from_secs(3), "{took:?}");
        let found = keeper.finish().unwrap();
        assert!(
            found.waited_s >= 0.5 && found.waited_s < 1.5,
            "{}",
            found.waited_s
        );
        assert_eq!((found.timings, found.beyond_gate), (5, 5));
    }

    #[test]
    fn measuring_again_stops_when_the_budget_is_spent() {
        let g = Some(Gate {
            limit_ns: 330.0,
            patience: Duration::from_secs(60),
        });
        let keeper = Gatekeeper::new(g, Duration::from_millis(250));
        // Close before, far after, every time; each timing takes 100 ms.
        let mut flip = false;
        let mut check = move || {
            flip = !flip;
            Some(if flip { 200.0 } else { 450.0 })
        };
        let mut runs = 0;
        for _ in 0..3 {
            keeper
                .gated(&mut check, unprobed, unread, || {
                    runs += 1;
                    std::thread::sleep(Duration::from_millis(100));
                    Ok(())
                })
                .unwrap();
        }
        // The first timing is thrown away twice (200 ms of the budget);
        // a third discard would pass 250 ms, so every later attempt is kept.
        assert_eq!(runs, 1 + RETRIES + 2);
        let found = keeper.finish().unwrap();
        assert_eq!(
            (found.timings, found.remeasured, found.beyond_gate),
            (3, RETRIES, 3)
        );
        let thrown_away = found.remeasured_s;
        assert!((0.2..0.25).contains(&thrown_away), "{thrown_away}");
    }

    #[test]
    fn retries_run_out_and_the_last_attempt_is_kept() {
        let keeper = Gatekeeper::new(gate(330.0, 1_000), HOUR);
        let mut runs = 0;
        // Close before, far after, every time.
        let mut flip = false;
        let check = move || {
            flip = !flip;
            Some(if flip { 200.0 } else { 450.0 })
        };
        keeper
            .gated(check, unprobed, unread, || {
                runs += 1;
                Ok(())
            })
            .unwrap();
        assert_eq!(runs, 1 + RETRIES);
        let found = keeper.finish().unwrap();
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
        let keeper = Gatekeeper::new(None, budget);
        let mut runs = 0;
        keeper
            .gated(script(&[200.0]), unprobed, counters, || {
                runs += 1;
                Ok(())
            })
            .unwrap();
        (runs, keeper.finish().unwrap())
    }

    #[test]
    fn a_stolen_timing_is_measured_again_without_any_gate() {
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
        let keeper = Gatekeeper::new(None, HOUR);
        let err = keeper
            .gated(script(&[200.0]), unprobed, unread, || -> Result<()> {
                bail!("boom")
            })
            .unwrap_err();
        assert_eq!(err.to_string(), "boom");
        assert_eq!(keeper.finish(), None);
    }

    #[test]
    fn two_runs_keep_records_of_their_own() {
        // Two labs measuring side by side (the tests of one process, say):
        // neither run's gate nor tallies leak into the other's.
        let gated = Gatekeeper::new(gate(330.0, 1_000), HOUR);
        let free = Gatekeeper::default();
        assert_eq!(free.gate(), None);
        gated
            .gated(script(&[250.0]), unprobed, unread, || Ok(()))
            .unwrap();
        free.gated(script(&[900.0]), unprobed, unread, || Ok(()))
            .unwrap();
        let (gated, free) = (gated.finish().unwrap(), free.finish().unwrap());
        assert_eq!((gated.gate_ns, gated.max_ns), (Some(330.0), 250.0));
        assert_eq!(
            (free.gate_ns, free.max_ns, free.beyond_gate),
            (None, 900.0, 0)
        );
    }
}
