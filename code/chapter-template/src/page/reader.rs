//! The chapter in a reader's words: the answer under the question and the
//! summary list that ends the page (gathered by the What to use page), both
//! printed from the results.
use anyhow::Result;

use harness_core::Unit;
use harness_page::render::reader::{self, Advice};
use harness_page::{render::blocks::Block, Book};

use chapter_template::run::Data;

// The headline estimate the answer's number is marked with.
use super::claims::RATIO as HEADLINE;

/// The answer under the question.
pub fn in_short(book: &Book<Data>) -> Result<Vec<Block>> {
    let run = book.primary();
    let r = run.analysis.estimate(HEADLINE)?;
    let sentence = format!(
        "On one thread, hand a batch over in a `Vec`: crossbeam-channel took {} the `Vec`'s \
         time per batch of {} messages.",
        reader::number(HEADLINE, &r, Unit::Ratio),
        harness_core::fmt::thousands(run.data.batch)
    );
    Ok(vec![Block::Text(reader::answer(
        book.chapter,
        &[sentence],
        &run.provenance.machine,
        None,
    ))])
}

/// The summary list that ends the page.
pub fn summary_list(book: &Book<Data>) -> Result<Vec<Block>> {
    let run = book.primary();
    Ok(vec![Block::Advice(vec![Advice {
        chapter: String::new(),
        situation: "Hand a batch to code on the same thread".into(),
        reach_for: "a `Vec`, not a channel".into(),
        why: "a channel pays for synchronisation nobody needs here".into(),
        evidence: format!(
            "crossbeam-channel took {} the `Vec`'s time per batch",
            Unit::Ratio.show(run.analysis.estimate(HEADLINE)?.point_ns)
        ),
        machine: reader::machine_class(&run.provenance.machine),
        claim: Some("TPL-1".into()),
    }])])
}
