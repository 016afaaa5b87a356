//! What judging a run gives (schema 3's `analysis`): the named estimates the
//! verdicts and the headline read, every claim's verdict on the run with the
//! texts the page shows, the headline as a list of names, and which page
//! code judged. It is computed from `data` alone (harness-page's `judge`
//! stage), so it needs no checksum: a reader that doubts it judges again.
use std::collections::BTreeMap;

use anyhow::{bail, ensure, Result};
use serde::{Deserialize, Serialize};

use crate::claims::{Claim, Condition, Outcome, Reading, Verdict};
use crate::values::Estimate;

/// One named estimate: a point with its 95 % interval, the unit it is in
/// (`ratio`, `ns`, `share`, ... as `Unit::csv_name` names it; empty for a
/// plain number) and how it was drawn (`paired_ratio median`, ...).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Named {
    pub point: f64,
    pub lower: f64,
    pub upper: f64,
    pub unit: String,
    pub method: String,
}

impl Named {
    pub fn new(e: Estimate, unit: impl Into<String>, method: impl Into<String>) -> Named {
        Named {
            point: e.point_ns,
            lower: e.lower_ns,
            upper: e.upper_ns,
            unit: unit.into(),
            method: method.into(),
        }
    }

    /// The estimate (validated: finite, `lower <= point <= upper`).
    pub fn estimate(&self) -> Result<Estimate> {
        Estimate::new(self.point, self.lower, self.upper)
    }
}

/// One claim's verdict on one run, as judged: today's `Verdict` with the
/// claim by its id (re-linked to the chapter's claims on reading) and the
/// names of the estimates it rests on.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StoredVerdict {
    pub claim: String,
    pub machine: Option<String>,
    pub outcome: Outcome,
    pub evidence: String,
    pub conditions: Vec<Condition>,
    pub qualifier: Option<String>,
    pub reading: Reading,
    /// The estimates (names in `Analysis::estimates`) the outcome rests on.
    #[serde(default)]
    pub estimates: Vec<String>,
}

impl StoredVerdict {
    pub fn of(v: &Verdict, estimates: Vec<String>) -> StoredVerdict {
        StoredVerdict {
            claim: v.claim.id.to_string(),
            machine: v.machine.clone(),
            outcome: v.outcome,
            evidence: v.evidence.clone(),
            conditions: v.conditions.clone(),
            qualifier: v.qualifier.clone(),
            reading: v.reading.clone(),
            estimates,
        }
    }

    /// The verdict as the page shows it, its claim found in `claims`.
    pub fn verdict(&self, claims: &[Claim]) -> Result<Verdict> {
        let Some(claim) = claims.iter().find(|c| c.id == self.claim) else {
            bail!(
                "a verdict on claim {:?}, which the chapter does not make (its claims: {})",
                self.claim,
                claims.iter().map(|c| c.id).collect::<Vec<_>>().join(", ")
            );
        };
        Ok(Verdict {
            claim: claim.clone(),
            machine: self.machine.clone(),
            outcome: self.outcome,
            evidence: self.evidence.clone(),
            conditions: self.conditions.clone(),
            qualifier: self.qualifier.clone(),
            reading: self.reading.clone(),
        })
    }
}

/// A run's analysis (see the module).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Analysis {
    /// Hash of the page code that judged (harness-page's `judged_by`): a
    /// file judged by other code is judged again when read.
    pub judged_by: String,
    pub estimates: BTreeMap<String, Named>,
    pub verdicts: Vec<StoredVerdict>,
    /// Names in `estimates`: what `precision`, agreement and `harness
    /// compare` line up. Empty for a chapter whose figures are exact counts.
    pub headline: Vec<String>,
}

impl Analysis {
    /// The estimate named `name`.
    pub fn estimate(&self, name: &str) -> Result<Estimate> {
        match self.estimates.get(name) {
            Some(n) => n.estimate(),
            None => bail!("no estimate named {name:?} in the analysis"),
        }
    }

    /// The headline's estimates, in its order, with their names.
    pub fn headline_estimates(&self) -> Result<Vec<(String, Estimate)>> {
        self.headline
            .iter()
            .map(|n| Ok((n.clone(), self.estimate(n)?)))
            .collect()
    }

    /// The stored verdicts as the page shows them.
    pub fn verdicts(&self, claims: &[Claim]) -> Result<Vec<Verdict>> {
        self.verdicts.iter().map(|v| v.verdict(claims)).collect()
    }

    /// Every name referenced exists, every interval holds its point and is
    /// finite, `judged_by` is set. The error names the field:
    /// `analysis.headline[2]: "x" is not an estimate of the analysis`.
    /// (Outcomes are checked as the file is read: an unknown one is no
    /// `Outcome`.)
    pub fn validate(&self) -> Result<()> {
        ensure!(
            !self.judged_by.is_empty(),
            "analysis.judged_by: empty (which page code judged?)"
        );
        for (name, n) in &self.estimates {
            ensure!(
                !name.is_empty(),
                "analysis.estimates: an estimate with no name"
            );
            if let Err(e) = n.estimate() {
                bail!("analysis.estimates[{name:?}]: {e}");
            }
        }
        let known = |field: &str, name: &str| -> Result<()> {
            ensure!(
                self.estimates.contains_key(name),
                "{field}: {name:?} is not an estimate of the analysis"
            );
            Ok(())
        };
        for (i, n) in self.headline.iter().enumerate() {
            known(&format!("analysis.headline[{i}]"), n)?;
        }
        for (i, v) in self.verdicts.iter().enumerate() {
            ensure!(!v.claim.is_empty(), "analysis.verdicts[{i}].claim: empty");
            for (j, n) in v.estimates.iter().enumerate() {
                known(&format!("analysis.verdicts[{i}].estimates[{j}]"), n)?;
            }
            for (j, c) in v.conditions.iter().enumerate() {
                for (k, n) in c.estimates.iter().enumerate() {
                    known(
                        &format!("analysis.verdicts[{i}].conditions[{j}].estimates[{k}]"),
                        n,
                    )?;
                }
            }
        }
        Ok(())
    }

    /// How this (stored) analysis differs from `fresh`, what judging the
    /// data gives now, in words: each claim whose verdict differs, with
    /// both outcomes, then each estimate whose interval differs, with both.
    /// Empty when they are the same.
    pub fn differences(&self, fresh: &Analysis) -> Vec<String> {
        let mut out = Vec::new();
        let outcome = |v: &StoredVerdict| {
            let mut s = v.outcome.label().to_string();
            if let Some(q) = &v.qualifier {
                s.push_str(&format!(" ({q})"));
            }
            s
        };
        let at = |v: &StoredVerdict| match &v.machine {
            Some(m) => format!("claim {} on {m}", v.claim),
            None => format!("claim {}", v.claim),
        };
        for (i, stored) in self.verdicts.iter().enumerate() {
            match fresh
                .verdicts
                .iter()
                .find(|f| f.claim == stored.claim && f.machine == stored.machine)
            {
                None => out.push(format!(
                    "{}: stored \"{}\", but judging the data gives no verdict on it",
                    at(stored),
                    outcome(stored)
                )),
                Some(f) if f.outcome != stored.outcome || f.qualifier != stored.qualifier => out
                    .push(format!(
                        "{}: stored \"{}\", judging the data gives \"{}\"",
                        at(stored),
                        outcome(stored),
                        outcome(f)
                    )),
                Some(f) if f != stored => out.push(format!(
                    "{}: stored verdict {i} says \"{}\", judging the data gives \"{}\" (the \
                     same outcome, \"{}\", with other evidence or conditions)",
                    at(stored),
                    stored.evidence,
                    f.evidence,
                    outcome(f)
                )),
                Some(_) => {}
            }
        }
        for f in &fresh.verdicts {
            if !self
                .verdicts
                .iter()
                .any(|s| s.claim == f.claim && s.machine == f.machine)
            {
                out.push(format!(
                    "{}: no stored verdict, judging the data gives \"{}\"",
                    at(f),
                    outcome(f)
                ));
            }
        }
        let show = |n: &Named| format!("{} [{} – {}] {}", n.point, n.lower, n.upper, n.unit);
        for (name, stored) in &self.estimates {
            match fresh.estimates.get(name) {
                None => out.push(format!(
                    "estimate {name:?}: stored {}, but judging the data gives none",
                    show(stored)
                )),
                Some(f) if f != stored => out.push(format!(
                    "estimate {name:?}: stored {}, judging the data gives {}",
                    show(stored),
                    show(f)
                )),
                Some(_) => {}
            }
        }
        for (name, f) in &fresh.estimates {
            if !self.estimates.contains_key(name) {
                out.push(format!(
                    "estimate {name:?}: none stored, judging the data gives {}",
                    show(f)
                ));
            }
        }
        if self.headline != fresh.headline {
            out.push(format!(
                "headline: stored {:?}, judging the data gives {:?}",
                self.headline, fresh.headline
            ));
        }
        if out.is_empty() && self != fresh {
            out.push("the analysis differs from what judging the data gives".into());
        }
        out
    }

    /// [`Analysis::validate`], and every verdict judged on `machine` (the
    /// file's `provenance.machine.id`): a file renamed to another machine
    /// would otherwise show that machine's id in its tables and this one's
    /// in its verdicts.
    pub fn validate_on(&self, machine: &str) -> Result<()> {
        self.validate()?;
        for (i, v) in self.verdicts.iter().enumerate() {
            if let Some(m) = &v.machine {
                ensure!(
                    m == machine,
                    "analysis.verdicts[{i}].machine is {m:?}, but the file was measured on \
                     {machine:?} (provenance.machine.id): the two must name one machine"
                );
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn analysis() -> Analysis {
        let mut a = Analysis {
            judged_by: "abc".into(),
            ..Analysis::default()
        };
        a.estimates.insert(
            "a ÷ b".into(),
            Named::new(
                Estimate::new(2.0, 1.5, 2.5).unwrap(),
                "ratio",
                "ratio median",
            ),
        );
        a.headline.push("a ÷ b".into());
        let claim = Claim::for_test("C-1", "a is faster");
        let v = Verdict::new(&claim, "m", Outcome::Holds, "2×");
        a.verdicts.push(StoredVerdict::of(&v, vec!["a ÷ b".into()]));
        a
    }

    #[test]
    fn a_valid_analysis_passes_and_reads_back() {
        let a = analysis();
        a.validate().unwrap();
        let text = serde_json::to_string(&a).unwrap();
        let back: Analysis = serde_json::from_str(&text).unwrap();
        assert_eq!(back, a);
        assert_eq!(back.headline_estimates().unwrap()[0].1.point_ns, 2.0);
        let claims = [Claim::for_test("C-1", "a is faster")];
        assert_eq!(back.verdicts(&claims).unwrap()[0].claim.id, "C-1");
        let err = back.verdicts(&[]).unwrap_err().to_string();
        assert!(err.contains("\"C-1\""), "{err}");
    }

    #[test]
    fn a_verdict_judged_on_another_machine_is_named() {
        let a = analysis();
        a.validate_on("m").unwrap();
        let err = a.validate_on("other-host").unwrap_err().to_string();
        assert!(
            err.contains("analysis.verdicts[0].machine")
                && err.contains("\"m\"")
                && err.contains("\"other-host\""),
            "{err}"
        );
    }

    #[test]
    fn a_missing_name_or_a_bad_interval_is_named_by_its_field() {
        let mut a = analysis();
        a.headline.push("gone".into());
        let err = a.validate().unwrap_err().to_string();
        assert!(
            err.contains("analysis.headline[1]") && err.contains("\"gone\""),
            "{err}"
        );

        let mut a = analysis();
        a.verdicts[0].estimates.push("gone".into());
        let err = a.validate().unwrap_err().to_string();
        assert!(err.contains("analysis.verdicts[0].estimates[1]"), "{err}");

        let mut a = analysis();
        a.estimates.get_mut("a ÷ b").unwrap().lower = 2.2;
        let err = a.validate().unwrap_err().to_string();
        assert!(
            err.contains("analysis.estimates[\"a ÷ b\"]") && err.contains("does not contain"),
            "{err}"
        );
    }

    #[test]
    fn an_unknown_outcome_is_refused() {
        let text = serde_json::to_string(&analysis())
            .unwrap()
            .replace("\"holds\"", "\"mostly\"");
        let err = serde_json::from_str::<Analysis>(&text)
            .unwrap_err()
            .to_string();
        assert!(err.contains("mostly"), "{err}");
    }
}
