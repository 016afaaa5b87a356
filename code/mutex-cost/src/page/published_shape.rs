//! The published shape (join_all inside criterion's to_async): the
//! reproduction beside the published numbers, and the scale sweep.
use anyhow::Result;
use harness_core::fmt;
use harness_measure::stats::{ratio, Statistic};
use harness_page::{
    render::blocks::Axis, render::blocks::Block, render::blocks::Cell, render::blocks::Figure,
    render::blocks::Point, render::blocks::Series, render::blocks::Table, Book,
};

use super::points::{
    join_all_runtime, mean_ms, published_at, reproduction_size, round, sizes, PublishedRow, Shape,
};
use mutex_cost::run::Data;
use mutex_cost::{Variant, PUBLISHED_FUTURES};

pub(super) fn reproduction(book: &Book<Data>) -> Result<Vec<Block>> {
    let run = book.primary();
    let d = &run.data;
    let published = book.published("mutex")?;
    let prows: Vec<PublishedRow> = published.rows()?;
    let n = reproduction_size(d);
    let mut t = Table::new(
        format!(
            "The published shape: join_all of {} futures inside criterion's to_async, {} (the futures themselves are \
             polled on criterion's thread by block_on). Measured on {}; criterion mean with its 95 % interval. \
             Published: {}, criterion point estimate and interval.",
            fmt::thousands(n as u64),
            join_all_runtime(d),
            run.machine(),
            published.citation()
        ),
        &["Variant", "Measured", "÷ std Mutex (measured)", "Published", "÷ std Mutex (published)"],
    );
    let std = round(d, Shape::JoinAll, Variant::StdMutex, n)?;
    let pub_std = published_at(&prows, Variant::StdMutex.name(), n);
    for v in Variant::ALL {
        let m = round(d, Shape::JoinAll, v, n)?;
        let p = published_at(&prows, v.name(), n);
        t.push(vec![
            v.label().into(),
            Cell::time(&m.timing.mean),
            if v == Variant::StdMutex {
                "baseline".into()
            } else {
                Cell::times(&ratio(&m.timing, &std.timing, Statistic::Mean))
            },
            match p {
                Some(p) => p.time()?,
                None => "not published".into(),
            },
            match (p, pub_std) {
                (Some(p), Some(s)) => Cell::ratio(p.point_ms / s.point_ms),
                _ => "–".into(),
            },
        ]);
    }
    let mut blocks = vec![Block::Table(t)];
    if n != PUBLISHED_FUTURES {
        blocks.push(Block::Text(format!(
            "This run measured at most {} futures, so the published rows have nothing to stand beside.",
            fmt::thousands(n as u64)
        )));
    }
    Ok(blocks)
}

pub(super) fn sweep(book: &Book<Data>) -> Result<Vec<Block>> {
    let run = book.primary();
    let d = &run.data;
    let mut series: Vec<Series> = Variant::ALL
        .iter()
        .map(|&v| {
            let points = sizes(&d.join_all)
                .into_iter()
                .filter_map(|n| round(d, Shape::JoinAll, v, n).ok().map(|r| mean_ms(n, r)))
                .collect();
            Series::measured(format!("{}, measured", v.label()), points)
        })
        .collect();
    let mut cites = Vec::new();
    for (name, label) in [("mutex", "published"), ("actor", "published, earlier post")] {
        let ds = book.published(name)?;
        cites.push(ds.citation());
        for r in ds.rows::<PublishedRow>()? {
            let p = match (r.lower_ms, r.upper_ms) {
                (Some(lo), Some(hi)) => Point::with_band(r.futures as f64, r.point_ms, lo, hi),
                _ => Point::new(r.futures as f64, r.point_ms),
            };
            let who = match r.variant.as_str() {
                "tokio_mutex" | "mutex" => "tokio Mutex",
                "std_mutex" => "std Mutex",
                _ => "actor",
            };
            series.push(Series::published(format!("{who}, {label}"), vec![p]));
        }
    }
    Ok(vec![Block::Figure(Figure {
        id: "mutex-cost-sweep".into(),
        title: "Published shape: one task polls every future (join_all)".into(),
        caption: format!(
            "Time per round against futures per round, {}; measured on {} (bands: criterion's 95 % interval of the \
             mean). Dashed marks: the published numbers, from {}.",
            join_all_runtime(d),
            run.machine(),
            cites.join(" and ")
        ),
        x: Axis::log("futures per round"),
        y: Axis::log("time per round (ms)"),
        series,
        line_at: None,
    })])
}

pub(super) fn sweep_table(book: &Book<Data>) -> Result<Vec<Block>> {
    let run = book.primary();
    let d = &run.data;
    let mut t = Table::new(
        format!(
            "Published shape (join_all in criterion's to_async), {}; measured on {}; criterion mean and 95 % interval \
             per round; ratios with 95 % intervals bootstrapped from both runs' samples.",
            join_all_runtime(d),
            run.machine()
        ),
        &["Futures", "std Mutex", "tokio Mutex", "actor", "tokio ÷ std", "actor ÷ std"],
    );
    for n in sizes(&d.join_all) {
        let get = |v| round(d, Shape::JoinAll, v, n).map(|r| &r.timing);
        let (s, k, a) = (
            get(Variant::StdMutex)?,
            get(Variant::TokioMutex)?,
            get(Variant::Actor)?,
        );
        t.push(vec![
            Cell::count(n as u64),
            Cell::time(&s.mean),
            Cell::time(&k.mean),
            Cell::time(&a.mean),
            Cell::times(&ratio(k, s, Statistic::Mean)),
            Cell::times(&ratio(a, s, Statistic::Mean)),
        ]);
    }
    Ok(vec![Block::Table(t)])
}
