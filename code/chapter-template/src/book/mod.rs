//! The chapter as the page shows it: its claim, its exhibits and the checks
//! on stored results. Everything here reads results and nothing here
//! measures: it is left out of the results' fingerprint, so a change to a
//! caption or a rule makes no result stale (`crate::run` holds what does).
mod claims;
mod exhibits;
mod reader;

use anyhow::{ensure, Result};

use harness::{Exhibit, ExhibitKind};

use crate::run::Data;

pub use claims::CLAIMS;

pub const EXHIBITS: &[Exhibit<Data>] = &[
    Exhibit {
        name: "in-short",
        kind: ExhibitKind::Text,
        about: "the answer in plain words, with its number",
        render: reader::in_short,
    },
    Exhibit {
        name: "summary-list",
        kind: ExhibitKind::Text,
        about: "what to use, with its number and verdict (gathered by the What to use page)",
        render: reader::summary_list,
    },
    Exhibit {
        name: "timings",
        kind: ExhibitKind::Table,
        about: "each variant's time per batch",
        render: exhibits::timings,
    },
    Exhibit {
        name: "figure",
        kind: ExhibitKind::Figure,
        about: "time per batch, per variant",
        render: exhibits::figure,
    },
    Exhibit {
        name: "verdicts",
        kind: ExhibitKind::Verdicts,
        about: "TPL-1",
        render: claims::verdicts,
    },
];

/// What a results file must show before it is rendered.
pub fn check(data: &Data) -> Result<()> {
    ensure!(
        data.batch == crate::BATCH,
        "a batch of {} messages, where every variant moves {}: not this chapter's work",
        data.batch,
        crate::BATCH
    );
    Ok(())
}

/// The estimate the verdict rests on, for the precision exhibit.
pub fn headline(data: &Data) -> Vec<(String, harness::Estimate)> {
    vec![("crossbeam ÷ vec".into(), claims::ratio(data))]
}
