//! The variations exhibit: the method choices a careful reproducer could
//! make differently, each beside the fair experiment at the same counts;
//! and the counted swaps that explain the consumer's placement.
use anyhow::Result;
use harness_core::Unit;
use harness_measure::timing::Statistic;
use harness_page::{render::blocks::Block, render::blocks::Cell, render::blocks::Table, Book};

use super::shared::on;
use super::views::{self, View};
use fan_in::method::Variation;
use fan_in::published::ladder::Step;
use fan_in::run::FanInData;
use fan_in::Design;

const DESIGNS: [Design; 4] = [
    Design::StdMutexSwap,
    Design::TokioMutexSwap,
    Design::MpscUnbounded,
    Design::MpscRecvMany,
];

pub(super) fn table(book: &Book<FanInData>) -> Result<Vec<Block>> {
    book.table_per_run(|run| {
        let d = &run.data;
        let mut t = Table::new(
            format!(
                "The fair experiment and the choices a careful reproducer could make \
                 differently, each changing one thing, on {}: time per burst into \
                 the loopback TCP sink (criterion's median with its 95 % interval), threads \
                 pinned. A dash: not measured under that choice (one write per message at the \
                 published count would take seconds a burst; the channels' consumers are tasks \
                 whatever the swap's does).",
                on(run)
            ),
            &[
                "Workers",
                "Condition",
                "std Mutex swap",
                "tokio Mutex swap",
                "mpsc unbounded",
                "mpsc recv_many",
                "tokio ÷ std swap",
            ],
        )
        .left(&[1]);
        let mut rows: Vec<View<'_>> = vec![views::fair(d, Statistic::Median)];
        rows.push(views::ladder(d, Step::BookRig));
        rows.extend(Variation::ALL.iter().map(|&x| views::variation(d, x)));
        for &w in &d.method.workers {
            for v in &rows {
                if DESIGNS.iter().all(|&x| v.get(x, w).is_none()) {
                    continue;
                }
                let mut row = vec![Cell::count(w as u64), Cell::from(condition(v))];
                for design in DESIGNS {
                    row.push(v.get(design, w).map_or(Cell::from("—"), |p| {
                        Cell::time(p.timing.estimate(Statistic::Median))
                    }));
                }
                row.push(
                    v.ratio(Design::TokioMutexSwap, Design::StdMutexSwap, w)
                        .map_or(Cell::from("—"), |r| Cell::times(&r)),
                );
                t.push(row);
            }
        }
        Ok(t)
    })
}

/// The ladder's step 5 is the consumer-placement variation at a worker per
/// core: named for what it varies here.
fn condition(v: &View<'_>) -> String {
    if v.axis == "ladder" {
        "swap consumer on the block_on thread, sharing a core with a worker".into()
    } else {
        v.setting.clone()
    }
}

pub(super) fn counted(book: &Book<FanInData>) -> Result<Vec<Block>> {
    book.table_per_run(|run| {
        let d = &run.data;
        let first = &d.method.counted[0];
        let mut t = Table::new(
            format!(
                "The two swaps with their locks counted, into the loopback TCP sink, {} bursts \
                 each, on {}, threads pinned. Per burst: the median time; \
                 how often the consumer held the lock, and how often it found it taken; how long \
                 such a wait lasted (mean); the share of the producers' pushes that found the \
                 lock taken; the locks that made their task yield because it had spent tokio's \
                 cooperative budget; the voluntary context switches of the whole process \
                 (threads put to sleep until the OS woke them).",
                first.bursts.len(),
                on(run)
            ),
            &[
                "Runtime",
                "Consumer",
                "Workers",
                "Messages per worker",
                "Design",
                "Time per burst",
                "Consumer turns",
                "Consumer waits",
                "Mean wait",
                "Pushes that waited",
                "Budget yields",
                "Context switches",
            ],
        )
        .left(&[0, 1, 4]);
        for c in &d.method.counted {
            let n = c.bursts.len().max(1) as f64;
            let mut times: Vec<f64> = c.bursts.iter().map(|(t, _)| *t).collect();
            let median = Statistic::Median.of(&mut times);
            let sum = |f: fn(&fan_in::cause::Counts) -> u64| {
                c.bursts.iter().map(|(_, k)| f(k) as f64).sum::<f64>()
            };
            let waits = sum(|k| k.consumer_waits);
            let switches: Option<f64> = c
                .bursts
                .iter()
                .map(|(_, k)| k.context_switches.map(|x| x as f64))
                .sum();
            t.push(vec![
                Cell::from(c.threads.label()),
                Cell::from(c.consumer.label()),
                Cell::count(c.workers as u64),
                Cell::count(c.per_worker as u64),
                Cell::from(c.design.label()),
                Cell::nanos(median),
                Cell::Number(sum(|k| k.consumer_turns) / n, Unit::Plain),
                Cell::Number(waits / n, Unit::Plain),
                if waits > 0.0 {
                    Cell::nanos(sum(|k| k.consumer_wait_ns) / waits)
                } else {
                    Cell::from("—")
                },
                Cell::Number(
                    sum(|k| k.pushes_waited) / sum(|k| k.pushes).max(1.0),
                    Unit::Share,
                ),
                match c
                    .bursts
                    .iter()
                    .map(|(_, k)| k.budget_yields)
                    .sum::<Option<u64>>()
                {
                    Some(y) => Cell::Number(y as f64 / n, Unit::Plain),
                    None => Cell::from("—"),
                },
                switches.map_or(Cell::from("—"), |s| Cell::Number(s / n, Unit::Plain)),
            ]);
        }
        Ok(t)
    })
}
