//! Where the CPU time goes with each consumer: flame graphs of the std swap
//! with a busy-polling and a Notify consumer, and the figures the page
//! reads off them.
use anyhow::{Context, Result};
use harness_core::Unit;
use harness_measure::stacks::Stacks;
use harness_page::render::flame;
use harness_page::{render::blocks::Block, Book};

use mutex_swap::run::{Data, WaitProfile};
use mutex_swap::Wait;

use super::common::runtime_note;

/// The consumer thread's name (`experiment::Burster::new`), the root of
/// its stacks.
const CONSUMER_THREAD: &str = "consumer";

/// Share of a profile's samples taken on the consumer thread.
fn consumer_share(s: &Stacks) -> f64 {
    let on_consumer: u64 = s
        .folded
        .iter()
        .filter(|f| f.stack.split(';').next() == Some(CONSUMER_THREAD))
        .map(|f| f.count)
        .sum();
    on_consumer as f64 / s.samples.max(1) as f64
}

fn group_share(s: &Stacks, group: &str) -> f64 {
    flame::groups(s)
        .into_iter()
        .find(|(g, _)| *g == group)
        .map_or(0.0, |(_, share)| share)
}

pub fn render(book: &Book<Data>) -> Result<Vec<Block>> {
    let run = book.primary();
    let data = &run.data;
    let find = |wait: Wait| -> Result<&WaitProfile> {
        data.profiles
            .iter()
            .find(|p| p.wait == wait)
            .with_context(|| format!("no profile with the {} consumer", wait.label()))
    };
    let (busy, notify) = (find(Wait::BusyPoll)?, find(Wait::Notify)?);
    let caption = format!(
        "CPU profiles of the {design} at {producers} producers: bursts run back to back for \
         a fixed time with a busy-polling consumer (top) and a Notify consumer (bottom), \
         every thread sampled at up to {hz} samples per second of CPU time (the kernel \
         delivers at most one per scheduler tick and core, so fewer on some machines). A \
         frame's width is its share of the profile's samples, its colour its frame group; \
         hover a frame for its full name. Each thread's common trunk (the runtime starting \
         its worker loop) is drawn as one frame. {note}.",
        design = busy.design.label(),
        producers = busy.producers,
        hz = busy.stacks.hz,
        note = runtime_note(run)
    );
    let mut blocks = flame::exhibit(&[&busy.stacks, &notify.stacks], &caption)?;
    let share = |v: f64| Unit::Share.show(v);
    blocks.push(Block::Text(format!(
        "On {machine}, the consumer thread took **{busy_consumer}** of the busy-polling \
         profile's samples and **{notify_consumer}** of the Notify profile's. Futex frames \
         held {busy_futex} and {notify_futex} of the samples; tokio's scheduler \
         {busy_sched} and {notify_sched}. Over the profiled bursts the consumer used \
         {busy_core} of a core when busy polling and {notify_core} with Notify, and moved \
         {busy_batch} and {notify_batch} messages per pass.",
        machine = run.machine(),
        busy_consumer = share(consumer_share(&busy.stacks)),
        notify_consumer = share(consumer_share(&notify.stacks)),
        busy_futex = share(group_share(&busy.stacks, "futex")),
        notify_futex = share(group_share(&notify.stacks, "futex")),
        busy_sched = share(group_share(&busy.stacks, "scheduler")),
        notify_sched = share(group_share(&notify.stacks, "scheduler")),
        busy_core = share(busy.passes.consumer_core_share()),
        notify_core = share(notify.passes.consumer_core_share()),
        busy_batch = Unit::Plain.show(busy.passes.messages_per_pass()),
        notify_batch = Unit::Plain.show(notify.passes.messages_per_pass()),
    )));
    Ok(blocks)
}
