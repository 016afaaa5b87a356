//! The chapter's table and figure.
use anyhow::Result;

use harness_page::{
    render::blocks::Axis, render::blocks::Block, render::blocks::Cell, render::blocks::Figure,
    render::blocks::Point, render::blocks::Series, render::blocks::Table, Book,
};

use chapter_template::run::Data;

pub fn timings(book: &Book<Data>) -> Result<Vec<Block>> {
    let mut t = Table::new(
        "Median time per batch of messages, with its 95 % interval.",
        &["machine", "variant", "time per batch"],
    )
    .left(&[1]);
    for run in &book.runs {
        for (name, timing) in [("vec", &run.data.vec), ("crossbeam", &run.data.crossbeam)] {
            t.push(vec![
                Cell::from(run.machine()),
                Cell::from(name),
                Cell::time(&timing.median),
            ]);
        }
    }
    Ok(vec![Block::Table(t)])
}

pub fn figure(book: &Book<Data>) -> Result<Vec<Block>> {
    let run = book.primary();
    let point = |x: f64, e: &harness_core::Estimate| {
        Point::with_band(x, e.point_ns, e.lower_ns, e.upper_ns)
    };
    Ok(vec![Block::Figure(Figure {
        id: "template-timings".into(),
        title: "Time per batch".into(),
        caption: format!(
            "Median time per batch on {}, with 95 % intervals.",
            run.machine()
        ),
        x: Axis::linear("variant (1 = vec, 2 = crossbeam)"),
        y: Axis::log("time per batch (ns)"),
        series: vec![
            Series::measured("vec", vec![point(1.0, &run.data.vec.median)]),
            Series::measured("crossbeam", vec![point(2.0, &run.data.crossbeam.median)]),
        ],
        line_at: None,
    })])
}
