//! The chapter in a reader's words: the answer under the question, the
//! badge of FAN-4 (plain verdict, one number, which way it points) and the
//! summary list that ends the page, printed from the results and the
//! estimates the judge named (read by name).
use anyhow::Result;
use harness_core::claims::Reading;
use harness_core::{Estimate, Unit, Verdict};
use harness_page::render::reader::{self, Advice};
use harness_page::{render::blocks::Block, Book, Run};

use mutex_swap::run::{Data, Experiment, Measured};
use mutex_swap::{Design, Wait};

use super::claims;
use super::estimates::vs_notify_name;

/// The fair row's largest producer count: the swap's point there, the
/// headline estimate (one message per lock ÷ swap) and its name.
fn at_scale(run: &Run<Data>) -> Result<Option<(&Measured, Estimate, String)>> {
    let Some(swap) = claims::at_scale(&run.data) else {
        return Ok(None);
    };
    let name = claims::headline_name(swap.producers);
    Ok(Some((swap, run.analysis.estimate(&name)?, name)))
}

/// Busy-polling ÷ Notify burst time of the std swap at the largest count
/// the wait experiment measured, and the consumer's share of a core each way.
fn busy_cost(run: &Run<Data>) -> Result<Option<(u64, Estimate, f64, f64)>> {
    let d = &run.data;
    let Some(&p) = d.producers(Experiment::Wait).last() else {
        return Ok(None);
    };
    let point = |wait| {
        d.point(Experiment::Wait, Design::StdMutexSwap, wait, p)
            .ok()
    };
    let (Some(busy), Some(notify)) = (point(Wait::BusyPoll), point(Wait::Notify)) else {
        return Ok(None);
    };
    let r = run
        .analysis
        .estimate(&vs_notify_name(Design::StdMutexSwap, Wait::BusyPoll, p))?;
    Ok(Some((
        p,
        r,
        busy.passes.consumer_core_share(),
        notify.passes.consumer_core_share(),
    )))
}

/// The answer under the question.
pub(super) fn in_short(book: &Book<Data>) -> Result<Vec<Block>> {
    let run = book.primary();
    let mut sentences = Vec::new();
    if let Some((swap, r, name)) = at_scale(run)? {
        sentences.push(format!(
            "Swap a `Vec` behind std's `Mutex` and hold the lock for the swap alone: at {} \
             producers the consumer moved {} messages per pass, and taking one message per lock \
             instead took {} the swap's time per burst.",
            harness_core::fmt::thousands(swap.producers),
            Unit::Plain.show(swap.passes.messages_per_pass_without_largest()),
            reader::number(&name, &r, Unit::Ratio)
        ));
    }
    if let Some((p, r, busy, notify)) = busy_cost(run)? {
        sentences.push(format!(
            "Park an idle consumer on `Notify`, not in a loop that polls: at {} producers a \
             polling consumer made each burst take {} as long and kept {} of a core busy, \
             against {} for `Notify`.",
            harness_core::fmt::thousands(p),
            Unit::Ratio.show(r.point_ns),
            Unit::Share.show(busy),
            Unit::Share.show(notify)
        ));
    }
    Ok(vec![Block::Text(reader::answer(
        book.chapter,
        &sentences,
        &run.provenance.machine,
        None,
    ))])
}

/// FAN-4's badge here: the question this chapter asks of it, one number,
/// which way it points, and why it differs from fan-in's. `at_scale` is the
/// swap's point at the fair row's largest producer count and the ratio
/// judged there (the judge gives the badge as it gives the verdict).
pub(super) fn read(at_scale: Option<(&Measured, Estimate)>, v: Verdict) -> Verdict {
    let Some((swap, r)) = at_scale else {
        return v;
    };
    v.reads(Reading {
        number: Some(Unit::Ratio.show(r.point_ns)),
        direction: Some(format!(
            "{} messages per pass at {} producers; one message per lock took {} the swap's time",
            Unit::Plain.show(swap.passes.messages_per_pass_without_largest()),
            harness_core::fmt::thousands(swap.producers),
            Unit::Ratio.show(r.point_ns)
        )),
        question: Some(
            "with the lock alone and no socket, does the swap drain many messages per pass, and \
             is that why it is fast?"
                .into(),
        ),
        differs: Some(
            "The two verdicts differ because the questions do: behind a socket each pass waits \
             on a write, messages pile up meanwhile and a pass carries many; with the lock alone \
             a pass is quick and finds fewer, and whether they count as many depends on how the \
             consumer waits."
                .into(),
        ),
        ..Reading::default()
    })
}

/// The summary list that ends the page, and the rows of What to use.
pub(super) fn summary_list(book: &Book<Data>) -> Result<Vec<Block>> {
    let run = book.primary();
    let machine = reader::machine_class(&run.provenance.machine);
    let mut advice = Vec::new();
    if let Some((p, r, busy, _)) = busy_cost(run)? {
        advice.push(Advice {
            chapter: String::new(),
            situation: "A consumer waits for a shared buffer to fill".into(),
            reach_for: "`tokio::sync::Notify`, not a polling loop".into(),
            why: "a polling consumer takes a core and the lock from the producers".into(),
            evidence: format!(
                "polling made a burst take {} as long and used {} of a core, at {} producers",
                Unit::Ratio.show(r.point_ns),
                Unit::Share.show(busy),
                harness_core::fmt::thousands(p)
            ),
            machine: machine.clone(),
            claim: None,
        });
    }
    if let Some((swap, r, _)) = at_scale(run)? {
        advice.push(Advice {
            chapter: String::new(),
            situation: "Drain a buffer many producers push to".into(),
            reach_for: "a swap of the whole `Vec` under std's `Mutex`, work done after unlocking"
                .into(),
            why: "one lock per pass instead of one per message".into(),
            evidence: format!(
                "one message per lock took {} the swap's time; {} messages per pass",
                Unit::Ratio.show(r.point_ns),
                Unit::Plain.show(swap.passes.messages_per_pass_without_largest())
            ),
            machine,
            claim: Some("FAN-4".into()),
        });
    }
    Ok(vec![Block::Advice(advice)])
}
