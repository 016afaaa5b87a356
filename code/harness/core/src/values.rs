//! The book's numbers as typed values: an estimate with its interval, and the
//! unit it is in. Computing code hands these on; only the last step (a
//! markdown cell, a CSV row, a figure's tooltip) turns them into text, and
//! every such step reads the same value.
use anyhow::{ensure, Result};
use serde::{Deserialize, Serialize};

use crate::fmt;

/// A point estimate with its 95 % interval. Despite the field names (kept
/// from the results files), the unit is whatever the figure is in: nanoseconds
/// for a timing, a plain number for a ratio. Built through [`Estimate::new`]
/// or read from a file, it is finite and ordered: `lower ≤ point ≤ upper`.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(try_from = "RawEstimate")]
pub struct Estimate {
    pub point_ns: f64,
    pub lower_ns: f64,
    pub upper_ns: f64,
}

#[derive(Deserialize)]
struct RawEstimate {
    point_ns: f64,
    lower_ns: f64,
    upper_ns: f64,
}

impl TryFrom<RawEstimate> for Estimate {
    type Error = anyhow::Error;

    fn try_from(r: RawEstimate) -> Result<Self> {
        Estimate::new(r.point_ns, r.lower_ns, r.upper_ns)
    }
}

impl Estimate {
    /// Refuses an estimate that is not finite or whose interval does not
    /// contain its point.
    pub fn new(point: f64, lower: f64, upper: f64) -> Result<Estimate> {
        ensure!(
            point.is_finite() && lower.is_finite() && upper.is_finite(),
            "estimate {point} [{lower}, {upper}] is not finite"
        );
        ensure!(
            lower <= point && point <= upper,
            "interval [{lower}, {upper}] does not contain its estimate {point}"
        );
        Ok(Estimate {
            point_ns: point,
            lower_ns: lower,
            upper_ns: upper,
        })
    }

    /// An estimate with an interval of ± `spread` (a fraction) around it:
    /// for test fixtures and synthetic data.
    pub fn around(point: f64, spread: f64) -> Estimate {
        Estimate {
            point_ns: point,
            lower_ns: point * (1.0 - spread),
            upper_ns: point * (1.0 + spread),
        }
    }

    /// Half-width of the interval as a fraction of the point estimate.
    pub fn relative_half_width(&self) -> f64 {
        (self.upper_ns - self.lower_ns) / 2.0 / self.point_ns
    }

    /// The same estimate with every figure multiplied by `k` (a unit change).
    pub fn scaled(&self, k: f64) -> Estimate {
        Estimate {
            point_ns: self.point_ns * k,
            lower_ns: self.lower_ns * k,
            upper_ns: self.upper_ns * k,
        }
    }

    /// Does `self` lie above `other` (Some(true)), below it (Some(false)),
    /// or do the intervals overlap (None)?
    pub fn compare(&self, other: &Estimate) -> Option<bool> {
        if self.lower_ns > other.upper_ns {
            Some(true)
        } else if self.upper_ns < other.lower_ns {
            Some(false)
        } else {
            None
        }
    }

    /// Is the whole interval at least `threshold` (Some(true)), wholly below
    /// it (Some(false)), or does it straddle it (None)?
    pub fn at_least(&self, threshold: f64) -> Option<bool> {
        if self.lower_ns >= threshold {
            Some(true)
        } else if self.upper_ns < threshold {
            Some(false)
        } else {
            None
        }
    }

    /// Is the whole interval inside `lo..=hi` (Some(true)), wholly outside
    /// it (Some(false)), or partly both (None)?
    pub fn within(&self, lo: f64, hi: f64) -> Option<bool> {
        if self.lower_ns >= lo && self.upper_ns <= hi {
            Some(true)
        } else if self.upper_ns < lo || self.lower_ns > hi {
            Some(false)
        } else {
            None
        }
    }

    /// The book's one notation for an estimate: `1.23 ms [1.20 – 1.26]`,
    /// `12.3× [11.0 – 13.9]`.
    pub fn show(&self, unit: Unit) -> String {
        format!(
            "{} [{} – {}]",
            unit.show(self.point_ns),
            unit.show_bare(self.lower_ns),
            unit.show_bare(self.upper_ns)
        )
    }
}

/// What a number counts, which decides how it reads and which unit its CSV
/// column names.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Unit {
    /// A duration in nanoseconds, shown in the unit that reads best.
    Nanos,
    /// A dimensionless ratio, shown with `×`.
    Ratio,
    /// Exact bytes, with thousands separators.
    Bytes,
    /// A size in bytes, in the binary unit that reads best (`8 B`, `1 KiB`,
    /// `81.5 MiB`); the CSV keeps the exact bytes.
    Size,
    /// A fraction, shown as a percentage.
    Share,
    /// A plain count or other dimensionless number.
    Plain,
}

impl Unit {
    /// The number with its unit: `812 ns`, `2.31×`, `33,312 B`, `12.5 %`.
    pub fn show(self, v: f64) -> String {
        match self {
            Unit::Nanos => fmt::nanos(v),
            Unit::Ratio => fmt::ratio(v),
            Unit::Bytes => fmt::bytes(v.round().max(0.0) as u64),
            Unit::Size => fmt::size(v),
            Unit::Share => format!("{} %", fmt::sig3(v * 100.0)),
            Unit::Plain => fmt::sig3(v),
        }
    }

    /// An interval bound: durations keep their unit, the rest drop it.
    fn show_bare(self, v: f64) -> String {
        match self {
            Unit::Nanos | Unit::Bytes | Unit::Size => self.show(v),
            Unit::Share => fmt::sig3(v * 100.0),
            Unit::Ratio | Unit::Plain => fmt::sig3(v),
        }
    }

    /// The unit a CSV column states: numbers there are raw (`ns`, not µs).
    pub fn csv_name(self) -> &'static str {
        match self {
            Unit::Nanos => "ns",
            Unit::Ratio => "ratio",
            Unit::Bytes | Unit::Size => "bytes",
            Unit::Share => "fraction",
            Unit::Plain => "",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_estimate_is_finite_and_contains_its_point() {
        assert!(Estimate::new(2.0, 1.0, 3.0).is_ok());
        for (p, l, u) in [(2.0, 2.5, 3.0), (2.0, 1.0, 1.5), (f64::NAN, 1.0, 3.0)] {
            let err = Estimate::new(p, l, u).unwrap_err().to_string();
            assert!(
                err.contains("does not contain") || err.contains("not finite"),
                "{err}"
            );
        }
        let text = r#"{"point_ns": 5.0, "lower_ns": 6.0, "upper_ns": 7.0}"#;
        let err = serde_json::from_str::<Estimate>(text).unwrap_err();
        assert!(err.to_string().contains("does not contain its estimate 5"));
    }

    #[test]
    fn one_notation_for_every_unit() {
        let e = Estimate::new(1_234_000.0, 1_200_000.0, 1_260_000.0).unwrap();
        assert_eq!(e.show(Unit::Nanos), "1.23 ms [1.20 ms – 1.26 ms]");
        let r = Estimate::new(12.3, 11.0, 13.9).unwrap();
        assert_eq!(r.show(Unit::Ratio), "12.3× [11.0 – 13.9]");
        assert_eq!(Unit::Bytes.show(33312.0), "33,312 B");
        assert_eq!(Unit::Share.show(0.125), "12.5 %");
        assert_eq!(Unit::Size.show(8.0), "8 B");
        assert_eq!(Unit::Size.show(32768.0), "32 KiB");
        assert_eq!(Unit::Size.show(85_440_000.0), "81.5 MiB");
    }
}
