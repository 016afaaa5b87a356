//! The 8 B burst in a minimal reconstruction's shape beside the book's
//! (`channel_latency::burst_shapes`): a table of both shapes for both
//! channels (the row it adds to LAT-2's map is the claim's, in `claims`).
use anyhow::Result;
use harness_core::Unit;
use harness_page::{render::blocks::Block, render::blocks::Cell, render::blocks::Table, Book};

use super::{machine_of, Data};
use channel_latency::burst_shapes::{Shape, Shapes};

/// A row of the table: one figure per shape and the book's over the minimal.
fn row(what: &str, minimal: Cell, book: Cell, over: Cell) -> Vec<Cell> {
    vec![Cell::from(what), minimal, book, over]
}

fn instructions_cell(s: &Shapes, shape: Shape) -> Cell {
    match s.of(shape).ok().and_then(|t| t.instructions.as_ref()) {
        Some(p) => Cell::Number(p.per_op, Unit::Plain),
        None => Cell::from("–"),
    }
}

fn ratio_cell(r: Option<f64>) -> Cell {
    r.map_or(Cell::from("–"), Cell::ratio)
}

pub(super) fn table(book: &Book<Data>) -> Result<Vec<Block>> {
    let run = book.primary();
    let Some(s) = &run.data.shapes else {
        return Ok(vec![Block::not_in_run(
            "channel-latency",
            &machine_of(run),
            "The burst's two shapes",
        )]);
    };
    let mut t = Table::new(
        format!(
            "The 8 B burst ({} sends, then as many receives) on {} in two shapes: the minimal reconstruction (a bare channel of [u8; 8]; tokio on a current-thread runtime without the IO and time drivers, every burst awaited inside one block_on) and the book's (the payload built from a stock; tokio on a current-thread runtime with both drivers, one block_on per burst; each burst at its own stack offset). The four take turns in {} windows of {} timed bursts each; a time is the median per burst with its 95 % interval, a ratio of times pairs the shapes window by window. Instructions per burst counted by callgrind, the clock's own calls included.",
            channel_latency::BURST,
            machine_of(run),
            s.windows,
            s.bursts_per_window
        ),
        &["", "minimal reconstruction", "the book's shape", "book's ÷ minimal"],
    )
    .left(&[0]);
    let time = |shape| -> Result<Cell> { Ok(Cell::time(&s.of(shape)?.timing.median)) };
    t.push(row(
        "tokio mpsc, time per burst",
        time(Shape::TokioMinimal)?,
        time(Shape::TokioBook)?,
        Cell::times(&s.ratio(Shape::TokioBook, Shape::TokioMinimal)?),
    ));
    t.push(row(
        "crossbeam-channel, time per burst",
        time(Shape::CrossbeamMinimal)?,
        time(Shape::CrossbeamBook)?,
        Cell::times(&s.ratio(Shape::CrossbeamBook, Shape::CrossbeamMinimal)?),
    ));
    t.push(row(
        "tokio ÷ crossbeam, time",
        Cell::times(&s.ratio(Shape::TokioMinimal, Shape::CrossbeamMinimal)?),
        Cell::times(&s.ratio(Shape::TokioBook, Shape::CrossbeamBook)?),
        Cell::from("–"),
    ));
    t.push(row(
        "tokio mpsc, instructions per burst",
        instructions_cell(s, Shape::TokioMinimal),
        instructions_cell(s, Shape::TokioBook),
        ratio_cell(s.instructions_ratio(Shape::TokioBook, Shape::TokioMinimal)),
    ));
    t.push(row(
        "crossbeam-channel, instructions per burst",
        instructions_cell(s, Shape::CrossbeamMinimal),
        instructions_cell(s, Shape::CrossbeamBook),
        ratio_cell(s.instructions_ratio(Shape::CrossbeamBook, Shape::CrossbeamMinimal)),
    ));
    t.push(row(
        "tokio ÷ crossbeam, instructions",
        ratio_cell(s.instructions_ratio(Shape::TokioMinimal, Shape::CrossbeamMinimal)),
        ratio_cell(s.instructions_ratio(Shape::TokioBook, Shape::CrossbeamBook)),
        Cell::from("–"),
    ));
    Ok(vec![Block::Table(t)])
}
