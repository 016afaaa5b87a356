//! The chapter as the page shows it: its claim and the rule that judges it
//! (`claims`), its exhibits and the checks on stored results. Everything
//! here reads results and nothing here measures: it lives in the binary
//! only, out of the library the results' fingerprint covers, so a change to
//! a caption or a rule makes no result stale (`harness judge` judges the
//! committed data again).
mod claims;
mod exhibits;
mod reader;
#[cfg(test)]
mod tests;

use anyhow::{ensure, Result};

use chapter_template::run::Data;
use harness_core::Claim;
use harness_page::{Exhibit, ExhibitKind, Judge, Judged};

/// The page of the chapter; its experiment is `chapter_template::run::Template`.
pub struct Template;

impl harness_page::Page for Template {
    type Data = Data;
    type Experiment = chapter_template::run::Template;
    const CLAIMS: &'static [Claim] = claims::CLAIMS;
    const EXHIBITS: &'static [Exhibit<Data>] = EXHIBITS;

    fn check(data: &Data) -> Result<()> {
        check(data)
    }

    fn judge(run: &Judged<Data>, j: &mut Judge) -> Result<()> {
        claims::judge(run, j)
    }
}

const EXHIBITS: &[Exhibit<Data>] = &[
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

/// What a results file must show before it is judged or rendered.
fn check(data: &Data) -> Result<()> {
    ensure!(
        data.batch == chapter_template::BATCH,
        "a batch of {} messages, where every variant moves {}: not this chapter's work",
        data.batch,
        chapter_template::BATCH
    );
    Ok(())
}
