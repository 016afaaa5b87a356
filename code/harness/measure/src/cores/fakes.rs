//! Stand-ins for the checks around a timing, so tests of the gate decide
//! what the cores, the probe and the kernel's counters report.
use std::time::Duration;

use super::gate::Gate;
use crate::machine::CpuCounters;

/// A budget no test reaches.
pub(super) const HOUR: Duration = Duration::from_secs(3600);

/// A gate at `limit_ns` that waits up to `patience_ms` for it.
pub(super) fn gate(limit_ns: f64, patience_ms: u64) -> Option<Gate> {
    Some(Gate {
        limit_ns,
        patience: Duration::from_millis(patience_ms),
    })
}

/// No speed probe: the machine's speed plays no part.
pub(super) fn unprobed() -> Option<f64> {
    None
}

/// No CPU counters: steal plays no part.
pub(super) fn unread() -> Option<CpuCounters> {
    None
}

/// CPU counters that advance by `total` jiffies per timing, of which the
/// given shares are stolen in turn (the last one forever).
pub(super) fn stealing(total: u64, shares: &[f64]) -> impl FnMut() -> Option<CpuCounters> {
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
pub(super) fn script(values: &[f64]) -> impl FnMut() -> Option<f64> {
    let values = values.to_vec();
    let mut i = 0;
    move || {
        let v = values[i.min(values.len() - 1)];
        i += 1;
        Some(v)
    }
}
