//! How long the lock is held: the std swap against draining under the lock
//! and against one message per lock, with light and heavy consumer work.
use anyhow::Result;
use harness_core::Unit;
use harness_page::{render::blocks::Block, render::blocks::Cell, render::blocks::Table, Book};

use mutex_swap::run::{Data, Experiment, Measured};
use mutex_swap::{Design, Wait, HEAVY_WORK, LIGHT_WORK};

use super::common::{runtime_note, work_kind};
use super::estimates::{lock_hold_swap, vs_swap_name};

pub fn render(book: &Book<Data>) -> Result<Vec<Block>> {
    let run = book.primary();
    let data = &run.data;
    let mut t = Table::new(
        format!(
            "One std Mutex inbox, three critical sections: the consumer swaps and works outside \
             the lock; works on the batch while holding the lock; or takes one message per lock \
             acquisition. Consumer work per message light or heavy (its cost alone in the next \
             column). Burst time (mean, 95% interval), the consumer's mean messages per \
             non-empty pass, and each variant's burst time against the swap's (95% interval \
             bootstrapped from both runs' samples). Notify consumer. {}.",
            runtime_note(run)
        ),
        &[
            "Consumer work",
            "Work alone per message",
            "Producers",
            "Swap, work outside the lock",
            "Work under the lock",
            "One message per lock",
            "Messages per pass, swap",
            "Messages per pass, under lock",
            "Under lock vs swap",
            "One per lock vs swap",
        ],
    )
    .left(&[0]);
    for rounds in [LIGHT_WORK, HEAVY_WORK] {
        for p in data.producers(Experiment::LockHold) {
            // With light work, the swap is the throughput experiment's point.
            let swap = lock_hold_swap(data, p, rounds)?;
            let locked = data.point_with(
                Experiment::LockHold,
                Design::StdMutexDrainLocked,
                Wait::Notify,
                p,
                rounds,
            )?;
            let pop_one = data
                .point_with(
                    Experiment::LockHold,
                    Design::StdMutexPopOne,
                    Wait::Notify,
                    p,
                    rounds,
                )
                .ok();
            let vs_swap = |m: &Measured| -> Result<Cell> {
                Ok(Cell::times(&run.analysis.estimate(&vs_swap_name(m))?))
            };
            t.push(vec![
                Cell::from(work_kind(rounds)),
                data.work_cost(rounds)
                    .map_or(Cell::from("not measured"), |w| {
                        Cell::nanos(w.ns_per_message())
                    }),
                Cell::count(p),
                Cell::time(&swap.timing.mean),
                Cell::time(&locked.timing.mean),
                pop_one.map_or(Cell::from("not measured"), |m| Cell::time(&m.timing.mean)),
                Cell::Number(swap.passes.messages_per_pass(), Unit::Plain),
                Cell::Number(locked.passes.messages_per_pass(), Unit::Plain),
                vs_swap(locked)?,
                pop_one.map_or(Ok(Cell::from("—")), vs_swap)?,
            ]);
        }
    }
    Ok(vec![Block::Table(t)])
}
