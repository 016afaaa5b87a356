//! What `headline` prints for one results file (read from its analysis):
//! what `harness compare` and agreement line up between runs.
use anyhow::Result;
use serde::{Deserialize, Serialize};

use harness_core::values::Estimate;

use harness_core::analysis::Analysis;

use crate::chapter::{Book, Chapter, ExhibitKind};
use crate::render::blocks::Block;

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

/// The verdicts every verdict exhibit of a chapter that has not stated its
/// `Page` gives, over `book`: only its judge (`chapter::legacy_judge`) reads
/// them; everything else reads the stored analysis.
pub(crate) fn verdicts_of<C: Chapter>(
    book: &Book<C::Data>,
) -> Result<Vec<harness_core::claims::Verdict>> {
    let mut out = Vec::new();
    for e in C::EXHIBITS
        .iter()
        .filter(|e| e.kind == ExhibitKind::Verdicts)
    {
        for block in (e.render)(book)? {
            if let Block::Verdicts(vs) = block {
                out.extend(vs);
            }
        }
    }
    Ok(out)
}
