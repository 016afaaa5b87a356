//! What a run's checks found: the tallies a `Gatekeeper` keeps while the
//! run measures, and the summary its provenance keeps.
use std::time::Duration;

pub use harness_core::results::cores::{CoresApart, Spread, STOLEN};

use super::gate::Gate;
use crate::statistic::Statistic;

/// Smallest, median and largest of `values`; `None` for no values.
pub fn spread_of(values: &[f64]) -> Option<Spread> {
    let mut v = values.to_vec();
    (!v.is_empty()).then(|| Spread {
        min_ns: v.iter().copied().fold(f64::INFINITY, f64::min),
        max_ns: v.iter().copied().fold(0.0, f64::max),
        median_ns: Statistic::Median.of(&mut v),
    })
}

/// The tallies of one run's gate, as its `Gatekeeper` keeps them.
#[derive(Default)]
pub(super) struct Log {
    pub(super) at_timings: Vec<f64>,
    pub(super) timings: usize,
    pub(super) beyond_gate: usize,
    pub(super) remeasured: usize,
    pub(super) steal_remeasured: usize,
    pub(super) waited: Duration,
    /// Time of the timings thrown away.
    pub(super) discarded: Duration,
    /// Steal during each kept timing whose counters could be read: the share
    /// read, and the least share surely stolen (`steal_share_at_least`).
    pub(super) steal_at_timings: Vec<(f64, f64)>,
    /// The speed probe before and after each kept timing, where it ran.
    pub(super) probes_at_timings: Vec<f64>,
    /// The last wait at the gate ran out of patience.
    pub(super) gave_up: bool,
}

impl Log {
    /// What the gate has cost the run so far, against its budget.
    pub(super) fn spent(&self) -> Duration {
        self.waited + self.discarded
    }

    /// What the checks found under `gate`; `None` if no check could be
    /// made (one core) or nothing was timed.
    pub(super) fn summary(&self, gate: Option<Gate>) -> Option<CoresApart> {
        let round_trip = spread_of(&self.at_timings)?;
        let steal = &self.steal_at_timings;
        Some(CoresApart {
            gate_ns: gate.map(|g| g.limit_ns),
            timings: self.timings,
            checks: self.at_timings.len(),
            min_ns: round_trip.min_ns,
            max_ns: round_trip.max_ns,
            median_ns: round_trip.median_ns,
            beyond_gate: self.beyond_gate,
            remeasured: self.remeasured,
            waited_s: self.waited.as_secs_f64(),
            remeasured_s: self.discarded.as_secs_f64(),
            steal_max: (!steal.is_empty()).then(|| steal.iter().map(|s| s.0).fold(0.0, f64::max)),
            stolen_timings: (!steal.is_empty())
                .then(|| steal.iter().filter(|(_, least)| *least >= STOLEN).count()),
            steal_remeasured: (!steal.is_empty()).then_some(self.steal_remeasured),
            probe: spread_of(&self.probes_at_timings),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::super::fakes::{gate, script, unprobed, unread, HOUR};
    use super::*;
    use crate::cores::Gatekeeper;
    use crate::machine::CpuCounters;

    #[test]
    fn without_a_gate_timings_run_at_once_and_record_both_checks() {
        let keeper = Gatekeeper::new(None, HOUR);
        let mut runs = 0;
        let out = keeper
            .gated(script(&[200.0, 410.0]), unprobed, unread, || {
                runs += 1;
                Ok(7)
            })
            .unwrap();
        assert_eq!((out, runs), (7, 1));
        let found = keeper.finish().unwrap();
        assert_eq!(found.gate_ns, None);
        assert_eq!((found.timings, found.checks), (1, 2));
        assert_eq!((found.min_ns, found.max_ns), (200.0, 410.0));
        assert_eq!((found.beyond_gate, found.remeasured), (0, 0));
        assert!((found.spread() - 2.05).abs() < 1e-9);
        // A run that timed nothing has nothing to report.
        assert_eq!(Gatekeeper::new(None, HOUR).finish(), None);
    }

    #[test]
    fn each_timing_records_how_fast_the_machine_was_around_it() {
        let keeper = Gatekeeper::new(None, HOUR);
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
            keeper
                .gated(script(&[200.0]), || probes.next()?, unread, || Ok(()))
                .unwrap();
        }
        let found = keeper.finish().unwrap();
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
        let keeper = Gatekeeper::new(gate(330.0, 1_000), HOUR);
        let mut probes = [10.0, 20.0, 30.0, 40.0].into_iter();
        let mut runs = 0;
        keeper
            .gated(
                script(&[300.0, 400.0, 300.0, 300.0]),
                || probes.next(),
                unread,
                || {
                    runs += 1;
                    Ok(())
                },
            )
            .unwrap();
        let found = keeper.finish().unwrap();
        assert_eq!((runs, found.remeasured), (2, 1));
        let probe = found.probe.unwrap();
        assert_eq!((probe.min_ns, probe.max_ns), (30.0, 40.0));

        // Without a probe the file records nothing, rather than a zero.
        let keeper = Gatekeeper::new(None, HOUR);
        keeper
            .gated(script(&[200.0]), unprobed, unread, || Ok(()))
            .unwrap();
        let found = keeper.finish().unwrap();
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
        let keeper = Gatekeeper::new(None, HOUR);
        for _ in 0..2 {
            // Long enough for the kernel's CPU counters to tick past the
            // window on any number of cores (0.2 s each).
            keeper
                .gated(script(&[200.0, 200.0]), unprobed, CpuCounters::read, || {
                    std::thread::sleep(Duration::from_millis(200));
                    Ok(())
                })
                .unwrap();
        }
        let found = keeper.finish().unwrap();
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
        let keeper = Gatekeeper::new(None, HOUR);
        keeper
            .gated(script(&[200.0, 200.0]), unprobed, CpuCounters::read, || {
                Ok(())
            })
            .unwrap();
        let found = keeper.finish().unwrap();
        assert_eq!((found.steal_max, found.stolen_timings), (None, None));
    }
}
