//! The claim this chapter judges, and the rule that decides it: the judge
//! stage names the estimate the rule reads, gives the claim its verdict on
//! one run and lists the headline. The page only reads what was judged.
use anyhow::Result;

use chapter_template::run::Data;
use harness_core::{Claim, Outcome, Unit, Verdict};
use harness_measure::stats::Statistic;
use harness_page::{render::blocks::Block, Book, Judge, Judged, Page};

pub const CLAIMS: &[Claim] = &[Claim {
    id: "TPL-1",
    short: "a channel costs more than a Vec on one thread",
    statement: "Handing a batch through a channel on one thread costs more than through a `Vec`.",
    source: "[the template's own claim](https://example.com)",
    rule: "The bootstrapped interval of crossbeam ÷ vec (medians) lies wholly above 1.",
}];

/// The estimate the verdict rests on: crossbeam's median time per batch
/// over the `Vec`'s, with its interval. Its name is the headline's label
/// (precision, `harness compare`) and marks the answer's number.
pub const RATIO: &str = "crossbeam ÷ vec";

/// Judges one run: the ratio, named; TPL-1's verdict; the headline.
pub fn judge(run: &Judged<Data>, j: &mut Judge) -> Result<()> {
    let d = run.data;
    let r = j.ratio(RATIO, &d.crossbeam, &d.vec, Statistic::Median)?;
    j.headline(RATIO);
    let v = Verdict::new(
        &CLAIMS[0],
        run.machine(),
        Outcome::at_least(&r, 1.0),
        format!("crossbeam ÷ vec = {}", r.show(Unit::Ratio)),
    );
    j.verdict(v, &[RATIO]);
    Ok(())
}

/// Every run's verdict, as judged.
pub fn verdicts(book: &Book<Data>) -> Result<Vec<Block>> {
    Ok(vec![Block::Verdicts(super::Template::verdicts(book)?)])
}
