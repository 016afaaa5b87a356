//! The contended shape: the same work over spawned tasks, per worker count.
use anyhow::Result;
use harness_measure::stats::{ratio, Statistic};
use harness_page::{
    render::blocks::Axis, render::blocks::Block, render::blocks::Cell, render::blocks::Figure,
    render::blocks::Series, render::blocks::Table, Book,
};

use super::points::{mean_ms, plural, round, sizes, workers_of, Shape};
use mutex_cost::run::Data;
use mutex_cost::Variant;

pub(super) fn figure(book: &Book<Data>) -> Result<Vec<Block>> {
    let run = book.primary();
    let d = &run.data;
    let mut series = Vec::new();
    for w in workers_of(&d.contended) {
        let shape = Shape::Spawned { workers: w };
        for v in Variant::ALL {
            let points = sizes(&d.contended)
                .into_iter()
                .filter_map(|n| round(d, shape, v, n).ok().map(|r| mean_ms(n, r)))
                .collect();
            series.push(Series::measured(
                format!("{}, {w} worker{}", v.label(), plural(w)),
                points,
            ));
        }
    }
    let tasks = d.contended.first().map_or(0, |r| r.tasks);
    Ok(vec![Block::Figure(Figure {
        id: "mutex-cost-contended".into(),
        title: "Contended shape: the same work over spawned tasks".into(),
        caption: format!(
            "Time per round against futures per round, split over {tasks} spawned tasks on a multi-thread runtime with \
             {} worker threads ({} cores here); measured on {} (bands: criterion's 95 % interval of the mean). Counter \
             creation and the final read are outside the timed region.",
            workers_of(&d.contended).iter().map(|w| w.to_string()).collect::<Vec<_>>().join(" or "),
            d.cores,
            run.machine()
        ),
        x: Axis::log("futures per round"),
        y: Axis::log("time per round (ms)"),
        series,
        line_at: None,
    })])
}

pub(super) fn table(book: &Book<Data>) -> Result<Vec<Block>> {
    let run = book.primary();
    let d = &run.data;
    let tasks = d.contended.first().map_or(0, |r| r.tasks);
    let mut t = Table::new(
        format!(
            "Contended shape: {tasks} spawned tasks on a multi-thread runtime with the worker threads shown ({} cores \
             here); measured on {}; criterion mean and 95 % interval per round.",
            d.cores,
            run.machine()
        ),
        &["Workers", "Futures", "std Mutex", "tokio Mutex", "actor", "tokio ÷ std", "actor ÷ tokio", "actor ÷ std"],
    );
    for w in workers_of(&d.contended) {
        for n in sizes(&d.contended) {
            let get = |v| round(d, Shape::Spawned { workers: w }, v, n).map(|r| &r.timing);
            let (s, k, a) = (
                get(Variant::StdMutex)?,
                get(Variant::TokioMutex)?,
                get(Variant::Actor)?,
            );
            t.push(vec![
                Cell::count(w as u64),
                Cell::count(n as u64),
                Cell::time(&s.mean),
                Cell::time(&k.mean),
                Cell::time(&a.mean),
                Cell::times(&ratio(k, s, Statistic::Mean)),
                Cell::times(&ratio(a, k, Statistic::Mean)),
                Cell::times(&ratio(a, s, Statistic::Mean)),
            ]);
        }
    }
    Ok(vec![Block::Table(t)])
}
