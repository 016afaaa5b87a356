//! Published claims as data, and the verdicts the measurements give them.
use serde::Serialize;

use crate::values::Estimate;

/// One published claim, encoded once: what was said, where, and the rule
/// (with its tolerance) that decides it from measurements.
#[derive(Clone, Debug, Serialize)]
pub struct Claim {
    pub id: &'static str,
    /// The claim, paraphrased.
    pub statement: &'static str,
    /// Markdown link to the post that made it.
    pub source: &'static str,
    /// The test applied, tolerance included, shown beside the verdict.
    pub rule: &'static str,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Outcome {
    Holds,
    DoesNotHold,
    /// No machine with results can decide it (e.g. no arm64 results yet).
    NotMeasured,
    /// The measurements' spread is too wide to decide.
    Inconclusive,
}

impl Outcome {
    /// The outcome of a test on an interval (`Estimate::at_least`,
    /// `within`, `compare`): decided when the interval is clear of the
    /// line, inconclusive when it straddles it.
    pub fn decided(clear: Option<bool>) -> Outcome {
        match clear {
            Some(true) => Outcome::Holds,
            Some(false) => Outcome::DoesNotHold,
            None => Outcome::Inconclusive,
        }
    }

    /// Whether the whole interval of `e` lies at or above `threshold`:
    /// holds, does not hold (wholly below), or inconclusive (straddles it).
    pub fn at_least(e: &Estimate, threshold: f64) -> Outcome {
        Outcome::decided(e.at_least(threshold))
    }

    /// Whether the whole interval of `e` lies inside `lo..=hi`.
    pub fn within(e: &Estimate, lo: f64, hi: f64) -> Outcome {
        Outcome::decided(e.within(lo, hi))
    }

    /// Every part must hold: one that does not decides, then one undecided.
    pub fn all_of(parts: &[Outcome]) -> Outcome {
        if parts.contains(&Outcome::DoesNotHold) {
            Outcome::DoesNotHold
        } else if parts.contains(&Outcome::NotMeasured) {
            Outcome::NotMeasured
        } else if parts.contains(&Outcome::Inconclusive) {
            Outcome::Inconclusive
        } else {
            Outcome::Holds
        }
    }

    pub fn label(self) -> &'static str {
        match self {
            Outcome::Holds => "holds",
            Outcome::DoesNotHold => "does not hold",
            Outcome::NotMeasured => "not measured on these machines",
            Outcome::Inconclusive => "inconclusive",
        }
    }

    pub fn css(self) -> &'static str {
        match self {
            Outcome::Holds => "holds",
            Outcome::DoesNotHold => "fails",
            Outcome::NotMeasured => "unmeasured",
            Outcome::Inconclusive => "inconclusive",
        }
    }

    pub fn from_bool(holds: bool) -> Outcome {
        if holds {
            Outcome::Holds
        } else {
            Outcome::DoesNotHold
        }
    }
}

#[derive(Clone, Debug, Serialize)]
pub struct Verdict {
    pub claim: Claim,
    /// The machine whose results decided it; `None` when no machine could.
    pub machine: Option<String>,
    pub outcome: Outcome,
    /// The figures that decided it, as a short sentence.
    pub evidence: String,
}

impl Verdict {
    pub fn new(
        claim: &Claim,
        machine: &str,
        outcome: Outcome,
        evidence: impl Into<String>,
    ) -> Self {
        Verdict {
            claim: claim.clone(),
            machine: Some(machine.to_string()),
            outcome,
            evidence: evidence.into(),
        }
    }

    pub fn not_measured(claim: &Claim, why: impl Into<String>) -> Self {
        Verdict {
            claim: claim.clone(),
            machine: None,
            outcome: Outcome::NotMeasured,
            evidence: why.into(),
        }
    }
}
