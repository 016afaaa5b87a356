//! What a run's checks of the cores found, as its provenance keeps it (the
//! checks themselves are measuring's: `harness-measure`'s `cores`).
use serde::{Deserialize, Serialize};

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
    /// Seconds spent on timings that were thrown away (for either reason).
    pub remeasured_s: f64,
    /// The largest share of CPU time the hypervisor stole during one kept
    /// timing (`machine::CpuCounters`), and how many kept timings lost at
    /// least `STOLEN` of it. `None` off Linux.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub steal_max: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stolen_timings: Option<usize>,
    /// Timings thrown away and measured again because they lost at least
    /// `STOLEN`; `None` where steal could not be read.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub steal_remeasured: Option<usize>,
    /// The speed probe (`speed_probe_ns`) before and after each kept
    /// timing: how its times spread over the run. `None` where it could not
    /// run.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub probe: Option<Spread>,
}

impl CoresApart {
    /// The largest round trip over the smallest: how much the machine moved.
    pub fn spread(&self) -> f64 {
        self.max_ns / self.min_ns
    }
}

/// Smallest, median and largest of a run's checks, in nanoseconds.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Spread {
    pub min_ns: f64,
    pub median_ns: f64,
    pub max_ns: f64,
}

/// A timing that surely lost this share of its CPU time to the hypervisor
/// (not counting a tick that may be rounding) counts as stolen: on two
/// cores, a fifth of one core's time.
pub const STOLEN: f64 = 0.1;
