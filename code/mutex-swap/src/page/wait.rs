//! How the consumer waits: every swap design (and one message per lock)
//! with every wait strategy, and what a busy-polling consumer costs the
//! producers. The ratios are the judge's, read by name.
use anyhow::{Context, Result};
use harness_core::{Estimate, Unit};
use harness_page::{render::blocks::Block, render::blocks::Cell, render::blocks::Table, Book};

use mutex_swap::run::{Data, Experiment};
use mutex_swap::{Design, Wait};

use super::common::{million_per_s, runtime_note};
use super::estimates::vs_notify_name;

pub fn tables(book: &Book<Data>) -> Result<Vec<Block>> {
    let run = book.primary();
    let data = &run.data;
    let mut blocks = Vec::new();
    for p in data.producers(Experiment::Wait) {
        let mut t = Table::new(
            format!(
                "{p} producers: burst time (mean, 95% interval), the consumer's CPU time per \
                 burst and as a share of one core over the burst, passes, and the slowdown \
                 against the same design with the Notify consumer. {}.",
                runtime_note(run)
            ),
            &[
                "Design",
                "Consumer waits by",
                "Burst time",
                "Throughput (million messages/s)",
                "Consumer CPU per burst",
                "Consumer share of a core",
                "Messages per pass",
                "Empty passes per burst",
                "Burst time vs Notify",
            ],
        )
        .left(&[1]);
        for design in Design::WAITED {
            data.point(Experiment::Wait, design, Wait::Notify, p)?;
            for wait in Wait::ALL {
                let m = data.point(Experiment::Wait, design, wait, p)?;
                t.push(vec![
                    Cell::from(design.label()),
                    wait.label().into(),
                    Cell::time(&m.timing.mean),
                    Cell::Number(
                        million_per_s(data.messages_per_burst, m.timing.mean.point_ns),
                        Unit::Plain,
                    ),
                    Cell::nanos(m.passes.consumer_cpu_per_burst_ns()),
                    Cell::Number(m.passes.consumer_core_share(), Unit::Share),
                    Cell::Number(m.passes.messages_per_pass(), Unit::Plain),
                    Cell::Number(m.passes.empty_passes_per_burst(), Unit::Plain),
                    if wait == Wait::Notify {
                        "—".into()
                    } else {
                        Cell::times(&run.analysis.estimate(&vs_notify_name(design, wait, p))?)
                    },
                ]);
            }
        }
        blocks.push(Block::Table(t));
    }
    Ok(blocks)
}

pub fn busy_cost(book: &Book<Data>) -> Result<Vec<Block>> {
    let run = book.primary();
    let data = &run.data;
    let mut text = String::new();
    for p in data.producers(Experiment::Wait) {
        let busy_vs_notify = |design: Design| -> Result<Estimate> {
            data.point(Experiment::Wait, design, Wait::BusyPoll, p)?;
            data.point(Experiment::Wait, design, Wait::Notify, p)?;
            run.analysis
                .estimate(&vs_notify_name(design, Wait::BusyPoll, p))
        };
        let mut worst: Option<(Design, Estimate)> = None;
        let mut parts = Vec::new();
        for design in Design::SWAPS {
            let r = busy_vs_notify(design)?;
            parts.push(format!(
                "{} {}",
                design.label(),
                Unit::Ratio.show(r.point_ns)
            ));
            if worst.is_none_or(|(_, w)| r.point_ns > w.point_ns) {
                worst = Some((design, r));
            }
        }
        let std_busy = data.point(Experiment::Wait, Design::StdMutexSwap, Wait::BusyPoll, p)?;
        let std_notify = data.point(Experiment::Wait, Design::StdMutexSwap, Wait::Notify, p)?;
        let std_ratio = busy_vs_notify(Design::StdMutexSwap)?;
        let (worst_design, worst_ratio) = worst.context("no designs")?;
        text.push_str(&format!(
            "On {machine} ({workers} worker threads for the producers), with {p} producers, a \
             busy-polling consumer made the std Mutex swap's burst take **{r}** as long as \
             with a Notify consumer (bootstrapped 95% interval in brackets), while using \
             {busy_share} of a core against {notify_share} for Notify. Across designs the \
             busy/Notify ratio was: {parts}; the largest was {wd} at {wr}.\n\n",
            machine = run.machine(),
            workers = data.worker_threads,
            r = std_ratio.show(Unit::Ratio),
            busy_share = Unit::Share.show(std_busy.passes.consumer_core_share()),
            notify_share = Unit::Share.show(std_notify.passes.consumer_core_share()),
            parts = parts.join(", "),
            wd = worst_design.label(),
            wr = Unit::Ratio.show(worst_ratio.point_ns),
        ));
    }
    Ok(vec![Block::Text(text.trim_end().to_string())])
}
