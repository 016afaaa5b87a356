//! The ladder exhibits: every step from the published bench to the fair
//! experiment at the method's worker counts, as a table and as a figure of
//! the two ratios the claims turn on.
use anyhow::Result;
use harness_core::Unit;
use harness_page::{
    render::blocks::Axis, render::blocks::Block, render::blocks::Cell, render::blocks::Figure,
    render::blocks::Point, render::blocks::Series, render::blocks::Table, Book,
};

use super::shared::on;
use super::views::{self, View};
use fan_in::published::ladder::Step;
use fan_in::published::rounds::LadderPoint;
use fan_in::run::FanInData;
use fan_in::Design;

/// The measured ladder point a step stands on for `design` (`None`: the
/// mpsc inbox on the book's rig, the sweep's own point).
fn point(d: &FanInData, design: Design, step: Step, w: usize) -> Option<&LadderPoint> {
    let measured = step.for_design(design);
    d.method
        .ladder
        .iter()
        .find(|p| p.design == design && p.step == measured && p.workers == w)
}

/// What reached the sink per iteration, as a share of what the producers
/// of one burst send: above one, bytes were sent again; below, the
/// iteration ended before the work did. The sweep's points were checked
/// byte for byte.
fn sink_share(p: Option<&LadderPoint>) -> Cell {
    Cell::ratio(p.map_or(1.0, |p| p.arrived_per_iteration / p.bytes_due() as f64))
}

/// Producers that had sent everything when the iteration ended, as a
/// share of them all.
fn finished_share(p: Option<&LadderPoint>) -> Cell {
    Cell::Number(
        p.map_or(1.0, |p| p.finished_per_iteration / p.workers as f64),
        Unit::Share,
    )
}

/// What each step's timed region holds: how many producers finished inside
/// it, and what reached the sink.
pub(super) fn work(book: &Book<FanInData>) -> Result<Vec<Block>> {
    book.table_per_run(|run| {
        let d = &run.data;
        let mut t = Table::new(
            format!(
                "What each step's timed region holds, on {}, per iteration: the \
                 share of producers that had sent every message when it ended, and the bytes \
                 that reached the sink over the bytes one burst's producers send (above 1×: \
                 bytes sent again; below: the iteration ended before the work). Every iteration \
                 checked: steps from 3 on by checksum at the sink, the steps before by the bytes \
                 the consumers' writes handed the kernel against those that arrived.",
                on(run)
            ),
            &[
                "Workers",
                "Step",
                "Correction",
                "std swap: producers finished",
                "tokio swap: producers finished",
                "std swap: sink ÷ burst",
                "tokio swap: sink ÷ burst",
                "mpsc: sink ÷ burst",
            ],
        )
        .left(&[2]);
        for &w in &d.method.workers {
            for step in Step::ALL {
                let (std, tokio, mpsc) = (
                    point(d, Design::StdMutexSwap, step, w),
                    point(d, Design::TokioMutexSwap, step, w),
                    point(d, Design::MpscUnbounded, step, w),
                );
                t.push(vec![
                    Cell::count(w as u64),
                    Cell::count(step.index() as u64),
                    Cell::from(step.label()),
                    finished_share(std),
                    finished_share(tokio),
                    sink_share(std),
                    sink_share(tokio),
                    sink_share(mpsc),
                ]);
            }
        }
        Ok(t)
    })
}

pub(super) fn table(book: &Book<FanInData>) -> Result<Vec<Block>> {
    book.table_per_run(|run| {
        let d = &run.data;
        let mut t = Table::new(
            format!(
                "From the published bench to the fair experiment, one correction at a time \
                 (each step keeps those above it), on {}. Times are criterion's \
                 mean per iteration with its 95 % interval (the estimate criterion prints; under \
                 the published stop point, steps 0 to 2, samples gather near two times and take \
                 twice the samples); steps 0 to 4 run on criterion's \
                 `to_async` like the published bench (tokio's default runtime, {} worker \
                 threads, unpinned), steps 5 and 6 on the book's rig ({}, threads pinned). A \
                 design a step does not change repeats its last measurement; mpsc from step 5 \
                 on is the sweep's own point.",
                on(run),
                d.worker_threads,
                d.runtime()
            ),
            &[
                "Workers",
                "Step",
                "Correction",
                "std Mutex swap",
                "tokio Mutex swap",
                "mpsc unbounded",
                "tokio ÷ std swap",
                "mpsc ÷ std swap",
            ],
        )
        .left(&[2]);
        for &w in &d.method.workers {
            for step in Step::ALL {
                let v = views::ladder(d, step);
                let time = |design| {
                    v.get(design, w).map_or(Cell::from("—"), |p| {
                        Cell::time(p.timing.estimate(views::LADDER_STAT))
                    })
                };
                let ratio = |a, b| {
                    v.ratio(a, b, w)
                        .map_or(Cell::from("—"), |r| Cell::times(&r))
                };
                t.push(vec![
                    Cell::count(w as u64),
                    Cell::count(step.index() as u64),
                    Cell::from(step.label()),
                    time(Design::StdMutexSwap),
                    time(Design::TokioMutexSwap),
                    time(Design::MpscUnbounded),
                    ratio(Design::TokioMutexSwap, Design::StdMutexSwap),
                    ratio(Design::MpscUnbounded, Design::StdMutexSwap),
                ]);
            }
        }
        Ok(t)
    })
}

/// One series per worker count: a ratio at every step.
fn ratio_series(d: &FanInData, a: Design, b: Design) -> Vec<Series> {
    let views: Vec<(Step, View<'_>)> = Step::ALL
        .iter()
        .map(|&s| (s, views::ladder(d, s)))
        .collect();
    d.method
        .workers
        .iter()
        .map(|&w| {
            let points = views
                .iter()
                .filter_map(|(s, v)| {
                    let r = v.ratio(a, b, w)?;
                    Some(Point::with_band(
                        s.index() as f64,
                        r.point_ns,
                        r.lower_ns,
                        r.upper_ns,
                    ))
                })
                .collect();
            Series::measured(
                format!("{w} worker{}", if w == 1 { "" } else { "s" }),
                points,
            )
        })
        .collect()
}

pub(super) fn figure(book: &Book<FanInData>) -> Result<Vec<Block>> {
    let mut blocks = Vec::new();
    for run in &book.runs {
        let d = &run.data;
        let steps: Vec<String> = Step::ALL
            .iter()
            .map(|s| format!("{} {}", s.index(), s.label()))
            .collect();
        for (id, title, a, b, claimed) in [
            (
                "tokio-std",
                "tokio Mutex swap ÷ std Mutex swap (FAN-3)",
                Design::TokioMutexSwap,
                Design::StdMutexSwap,
                Some(super::claims::FAN3_CLAIMED),
            ),
            (
                "mpsc-std",
                "mpsc unbounded ÷ std Mutex swap (FAN-1, FAN-2)",
                Design::MpscUnbounded,
                Design::StdMutexSwap,
                None,
            ),
        ] {
            let mut series = ratio_series(d, a, b);
            if let Some(claimed) = claimed {
                series.push(Series::published(
                    "claimed (FAN-3)",
                    Step::ALL
                        .iter()
                        .map(|s| Point::new(s.index() as f64, claimed))
                        .collect(),
                ));
            }
            blocks.push(Block::Figure(Figure {
                id: format!("fan-in-ladder-{id}-{}", run.machine()),
                title: format!("{title}, step by step"),
                caption: format!(
                    "{title} at each step of the ladder, one line per worker count, means \
                     with their 95 % intervals, on {}. Steps: {}.{}",
                    on(run),
                    steps.join("; "),
                    if claimed.is_some() {
                        " Dashed: the ratio the post claimed."
                    } else {
                        ""
                    }
                ),
                x: Axis::linear("step of the ladder (0: as published, 6: the fair experiment)"),
                y: Axis::log("ratio of mean times (×)"),
                series,
                line_at: None,
            }));
        }
    }
    Ok(blocks)
}
