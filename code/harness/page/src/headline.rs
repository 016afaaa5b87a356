//! What `headline` prints for one results file (read from its analysis):
//! what `harness compare` and agreement line up between runs.
use anyhow::Result;
use serde::{Deserialize, Serialize};

use harness_core::values::Estimate;

use harness_core::analysis::Analysis;

/// What `headline` prints for one results file: the estimates the verdicts
/// rest on, and the verdicts themselves.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Headline {
    pub estimates: Vec<HeadlineEstimate>,
    pub verdicts: Vec<HeadlineVerdict>,
}

/// One headline estimate.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct HeadlineEstimate {
    pub name: String,
    pub estimate: Estimate,
}

/// One claim's outcome on one machine (`machine` empty when none decided it).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct HeadlineVerdict {
    pub claim: String,
    pub machine: String,
    pub outcome: String,
}

impl Headline {
    /// The headline of one run, read from its analysis: the headline's
    /// estimates by name, and every verdict the run was given.
    pub fn of(analysis: &Analysis) -> Result<Headline> {
        Ok(Headline {
            estimates: analysis
                .headline_estimates()?
                .into_iter()
                .map(|(name, estimate)| HeadlineEstimate { name, estimate })
                .collect(),
            verdicts: analysis
                .verdicts
                .iter()
                .map(|v| HeadlineVerdict {
                    claim: v.claim.clone(),
                    machine: v.machine.clone().unwrap_or_default(),
                    outcome: v.outcome.label().to_string(),
                })
                .collect(),
        })
    }
}
