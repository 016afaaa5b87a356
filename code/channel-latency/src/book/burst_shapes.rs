//! The 8 B burst in a minimal reconstruction's shape beside the book's
//! (`crate::burst_shapes`): a table of both shapes for both channels, and
//! the row it adds to LAT-2's map.
use anyhow::Result;
use harness::{Block, Book, Cell, Condition, Estimate, Outcome, Table, Unit};

use super::claims::SWEEP_MIN_EFFECT;
use super::other_ways::NOT_IN_RUN;
use super::{machine_of, Data};
use crate::burst_shapes::{Shape, Shapes};
use crate::PAYLOAD_SIZES;

/// The axis and setting of LAT-2's row.
const AXIS: &str = "burst shape";
const SETTING: &str = "a minimal reconstruction's burst instead of the book's (a bare channel, every burst inside one block_on, no IO or time driver, one stack offset)";

/// What the book's shape does to tokio's time per burst next to the
/// minimal one, and crossbeam's as the control, in words.
pub(super) fn reading(tokio: &Estimate, crossbeam: &Estimate) -> &'static str {
    let line = 1.0 + SWEEP_MIN_EFFECT;
    let within = |e: &Estimate| Outcome::within(e, 1.0 / line, line);
    match within(tokio) {
        Outcome::Holds => {
            "the shape moves tokio's time by less than the minimum effect, so it does not explain a slower tokio"
        }
        Outcome::DoesNotHold if tokio.point_ns > 1.0 => match within(crossbeam) {
            Outcome::Holds => {
                "the book's shape slows tokio's burst by more than the minimum effect and crossbeam's not: the shape explains tokio's extra time"
            }
            _ => "the book's shape slows tokio's burst by more than the minimum effect, and crossbeam's is not clear of it",
        },
        Outcome::DoesNotHold => {
            "the book's shape speeds tokio's burst up by more than the minimum effect"
        }
        _ => "whether the shape moves tokio's time by the minimum effect is undecided",
    }
}

/// LAT-2's row for the burst's shape: the claim's rule with the 8 B ratio
/// timed in the minimal shape (the other sizes from the fair experiment),
/// and what the shape does to each channel.
pub(super) fn lat2_row(
    d: &Data,
    rule: fn(&[(usize, Estimate)]) -> (Outcome, String),
) -> Result<Condition> {
    let Some(s) = &d.shapes else {
        return Ok(Condition::new(
            AXIS,
            SETTING,
            Outcome::NotMeasured,
            NOT_IN_RUN,
        ));
    };
    let mut ratios = vec![(8, s.ratio(Shape::TokioMinimal, Shape::CrossbeamMinimal)?)];
    for &bytes in &PAYLOAD_SIZES[1..] {
        ratios.push((bytes, d.tokio_over_crossbeam(bytes)?));
    }
    let (outcome, figure) = rule(&ratios);
    let tokio = s.ratio(Shape::TokioBook, Shape::TokioMinimal)?;
    let crossbeam = s.ratio(Shape::CrossbeamBook, Shape::CrossbeamMinimal)?;
    let instructions = s
        .instructions_ratio(Shape::TokioBook, Shape::TokioMinimal)
        .map(|r| format!(", tokio's instructions {}", Unit::Ratio.show(r)))
        .unwrap_or_default();
    Ok(Condition::new(
        AXIS,
        SETTING,
        outcome,
        format!(
            "{figure} (8 B timed in the minimal shape, the other sizes head to head); the book's shape over the minimal one: tokio's time {}, crossbeam's {}{instructions}: {}",
            tokio.show(Unit::Ratio),
            crossbeam.show(Unit::Ratio),
            reading(&tokio, &crossbeam)
        ),
    ))
}

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
            crate::BURST,
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
