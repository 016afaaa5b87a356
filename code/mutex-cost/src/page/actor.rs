//! The actor against each mutex at the earlier post's size, in both shapes.
use anyhow::Result;
use harness_core::fmt;
use harness_measure::stats::{ratio, Statistic};
use harness_page::{
    render::blocks::Axis, render::blocks::Bar, render::blocks::BarChart, render::blocks::Block,
    render::blocks::Cell, render::blocks::Table, Book,
};

use super::points::{plural, published_at, round, PublishedRow, Shape};
use mutex_cost::run::Data;
use mutex_cost::{Variant, ACTOR_CLAIM_FUTURES};

/// The mutexes the actor is compared with, in the order the page lists them.
const MUTEXES: [Variant; 2] = [Variant::TokioMutex, Variant::StdMutex];

pub(super) fn table(book: &Book<Data>) -> Result<Vec<Block>> {
    let run = book.primary();
    let d = &run.data;
    let ds = book.published("actor")?;
    let prows: Vec<PublishedRow> = ds.rows()?;
    let n = ACTOR_CLAIM_FUTURES;
    let mut t = Table::new(
        format!(
            "Actor (mpsc requests, oneshot replies) against each mutex on the same work, {} futures; the shape, \
             runtime and worker threads are given per row; measured on {}, criterion means with 95 % intervals. Published: {}, point estimates only.",
            fmt::thousands(n as u64),
            run.machine(),
            ds.citation()
        ),
        &["Source", "Shape and runtime", "Mutex", "Mutex time", "Actor time", "Actor ÷ mutex"],
    )
    .left(&[1, 2]);
    if let (Some(m), Some(a)) = (
        published_at(&prows, "mutex", n),
        published_at(&prows, "actor", n),
    ) {
        t.push(vec![
            "published".into(),
            "join_all, actor spawned on the default runtime".into(),
            "tokio Mutex".into(),
            m.time()?,
            a.time()?,
            Cell::ratio(a.point_ms / m.point_ms),
        ]);
    }
    for shape in Shape::all(d) {
        let Ok(actor) = round(d, shape, Variant::Actor, n) else {
            continue;
        };
        let name = match shape {
            Shape::JoinAll => "join_all".to_string(),
            Shape::Spawned { .. } => format!("{} spawned tasks", d.contended[0].tasks),
        };
        for v in MUTEXES {
            let m = round(d, shape, v, n)?;
            t.push(vec![
                "measured".into(),
                format!("{name}, {}", m.runtime.describe()).into(),
                v.label().into(),
                Cell::time(&m.timing.mean),
                Cell::time(&actor.timing.mean),
                Cell::times(&ratio(&actor.timing, &m.timing, Statistic::Mean)),
            ]);
        }
    }
    Ok(vec![Block::Table(t)])
}

pub(super) fn chart(book: &Book<Data>) -> Result<Vec<Block>> {
    let run = book.primary();
    let d = &run.data;
    let n = ACTOR_CLAIM_FUTURES;
    let ds = book.published("actor")?;
    let prows: Vec<PublishedRow> = ds.rows()?;
    let mut bars = Vec::new();
    if let (Some(m), Some(a)) = (
        published_at(&prows, "mutex", n),
        published_at(&prows, "actor", n),
    ) {
        bars.push(Bar {
            label: "published: actor ÷ tokio Mutex".into(),
            value: a.point_ms / m.point_ms,
            group: "published (earlier post)".into(),
        });
    }
    for shape in Shape::all(d) {
        let Ok(actor) = round(d, shape, Variant::Actor, n) else {
            continue;
        };
        let name = match shape {
            Shape::JoinAll => "join_all".to_string(),
            Shape::Spawned { workers } => format!("spawned, {workers} worker{}", plural(workers)),
        };
        for v in MUTEXES {
            let m = round(d, shape, v, n)?;
            bars.push(Bar {
                label: format!("{name}: actor ÷ {}", v.label()),
                value: actor.timing.mean.point_ns / m.timing.mean.point_ns,
                group: format!("measured, {name}"),
            });
        }
    }
    Ok(vec![Block::Bars(BarChart {
        id: "mutex-cost-actor".into(),
        title: "How much longer the actor takes than each mutex".into(),
        caption: format!(
            "Actor time ÷ mutex time for the same {} futures (criterion means; intervals in the table above): the \
             join_all shape runs on a multi-thread runtime with {} worker threads, the spawned shape with the worker \
             threads shown; measured on {}. Published: {}.",
            fmt::thousands(n as u64),
            d.cores,
            run.machine(),
            ds.citation()
        ),
        value_axis: Axis::log("actor time ÷ mutex time"),
        bars,
    })])
}
