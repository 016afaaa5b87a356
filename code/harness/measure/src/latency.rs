//! Latency distributions as results files store them: the summary of an HDR
//! histogram (mean, p50, p90, p99, p99.9, max, in nanoseconds), computed in
//! one place for every chapter that records latencies (channel-latency's
//! experiment B, mutex-cost's heartbeat).
use anyhow::{ensure, Result};
use hdrhistogram::Histogram;
use serde::{Deserialize, Serialize};

/// A histogram that records 1 ns to `highest_ns` at three significant
/// digits (channel-latency: one hour, 3_600_000_000_000; mutex-cost's
/// heartbeat: one minute, 60_000_000_000).
pub fn histogram(highest_ns: u64) -> Histogram<u64> {
    Histogram::new_with_bounds(1, highest_ns, 3).expect("valid histogram bounds")
}

/// The summary of a latency distribution, ns. The field names are the ones
/// results files already hold: embed it with `#[serde(flatten)]` and a
/// file's JSON does not change.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Percentiles {
    pub mean_ns: f64,
    pub p50_ns: u64,
    pub p90_ns: u64,
    pub p99_ns: u64,
    pub p999_ns: u64,
    pub max_ns: u64,
}

impl Percentiles {
    pub fn of(h: &Histogram<u64>) -> Percentiles {
        Percentiles {
            mean_ns: h.mean(),
            p50_ns: h.value_at_quantile(0.50),
            p90_ns: h.value_at_quantile(0.90),
            p99_ns: h.value_at_quantile(0.99),
            p999_ns: h.value_at_quantile(0.999),
            max_ns: h.max(),
        }
    }

    /// What any recorded distribution satisfies: a latency above zero,
    /// percentiles in order, and a mean not above the maximum (the
    /// histogram's mean is of bucket midpoints, so it may pass the max by
    /// its 0.1 % precision).
    pub fn check(&self, what: &str) -> Result<()> {
        ensure!(
            self.mean_ns > 0.0 && self.p50_ns > 0,
            "{what}: latency is zero"
        );
        ensure!(
            self.p50_ns <= self.p90_ns
                && self.p90_ns <= self.p99_ns
                && self.p99_ns <= self.p999_ns
                && self.p999_ns <= self.max_ns,
            "{what}: percentiles are not in order (p50 {} p90 {} p99 {} p99.9 {} max {})",
            self.p50_ns,
            self.p90_ns,
            self.p99_ns,
            self.p999_ns,
            self.max_ns
        );
        ensure!(
            self.mean_ns <= self.max_ns as f64 * 1.001,
            "{what}: mean {} ns exceeds max {} ns",
            self.mean_ns,
            self.max_ns
        );
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_histogram_is_summarised_and_checked() {
        let mut h = histogram(3_600_000_000_000);
        for ns in 1..=1000 {
            h.record(ns).unwrap();
        }
        let p = Percentiles::of(&h);
        assert_eq!((p.p50_ns, p.p90_ns, p.p99_ns), (500, 900, 990));
        assert_eq!((p.p999_ns, p.max_ns), (999, 1000));
        assert!((p.mean_ns - 500.5).abs() < 0.5, "{}", p.mean_ns);
        p.check("uniform").unwrap();
    }

    #[test]
    fn nonsense_is_refused() {
        let good = Percentiles {
            mean_ns: 10.0,
            p50_ns: 5,
            p90_ns: 9,
            p99_ns: 20,
            p999_ns: 30,
            max_ns: 40,
        };
        good.check("good").unwrap();
        let bad = |p: Percentiles| p.check("x").unwrap_err().to_string();
        assert!(bad(Percentiles { p50_ns: 0, ..good }).contains("zero"));
        assert!(bad(Percentiles { p90_ns: 25, ..good }).contains("not in order"));
        assert!(bad(Percentiles {
            mean_ns: 50.0,
            ..good
        })
        .contains("exceeds max"));
    }

    #[test]
    fn the_json_keeps_the_field_names_results_files_hold() {
        #[derive(Serialize, Deserialize)]
        struct Latencies {
            count: u64,
            #[serde(flatten)]
            p: Percentiles,
        }
        let mut h = histogram(60_000_000_000);
        h.record(7).unwrap();
        let json = serde_json::to_value(Latencies {
            count: 1,
            p: Percentiles::of(&h),
        })
        .unwrap();
        let mut keys: Vec<&str> = json
            .as_object()
            .unwrap()
            .keys()
            .map(|k| k.as_str())
            .collect();
        keys.sort_unstable();
        assert_eq!(
            keys,
            ["count", "max_ns", "mean_ns", "p50_ns", "p90_ns", "p999_ns", "p99_ns"]
        );
        let back: Latencies = serde_json::from_value(json).unwrap();
        assert_eq!(back.p, Percentiles::of(&h));
    }
}
