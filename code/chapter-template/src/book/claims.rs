//! The claim this chapter judges, and the rule that decides it.
use anyhow::Result;

use harness::stats::{ratio as ratio_of, Statistic};
use harness::{Block, Book, Claim, Estimate, Outcome, Unit, Verdict};

use super::Data;

pub const CLAIMS: &[Claim] = &[Claim {
    id: "TPL-1",
    short: "a channel costs more than a Vec on one thread",
    statement: "Handing a batch through a channel on one thread costs more than through a `Vec`.",
    source: "[the template's own claim](https://example.com)",
    rule: "The bootstrapped interval of crossbeam ÷ vec (medians) lies wholly above 1.",
}];

/// crossbeam's median time per batch over the `Vec`'s, with its interval.
pub fn ratio(data: &Data) -> Estimate {
    ratio_of(&data.crossbeam, &data.vec, Statistic::Median)
}

pub fn verdicts(book: &Book<Data>) -> Result<Vec<Block>> {
    let verdicts = book
        .runs
        .iter()
        .map(|run| {
            let r = ratio(&run.data);
            Verdict::new(
                &CLAIMS[0],
                run.machine(),
                Outcome::at_least(&r, 1.0),
                format!("crossbeam ÷ vec = {}", r.show(Unit::Ratio)),
            )
        })
        .collect();
    Ok(vec![Block::Verdicts(verdicts)])
}
