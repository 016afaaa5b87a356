//! What `headline` prints for one results file, and the verdicts a
//! chapter's verdict exhibits give: what `harness compare`, agreement and
//! releases line up between runs.
use anyhow::Result;
use serde::{Deserialize, Serialize};

use harness_core::values::Estimate;

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

/// The verdicts every verdict exhibit of the chapter gives, over `book`.
pub fn verdicts_of<C: Chapter>(book: &Book<C::Data>) -> Result<Vec<harness_core::claims::Verdict>> {
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
