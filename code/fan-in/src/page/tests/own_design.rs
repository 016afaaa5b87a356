//! The book's design against its targets: the targets table follows the
//! numbers.
use fan_in::{Design, CHUNK_BYTES, PER_WORKER, WRITE_BYTES};

use super::super::FanIn;
use super::common;

/// Every point at 1, 64 and 256 workers, timed by `time(design, workers)`
/// with a narrow interval (±1 %), the design's own chunk size.
fn synthetic(time: impl Fn(Design, usize) -> f64) -> fan_in::run::FanInData {
    fan_in::run::FanInData {
        chunk_bytes: CHUNK_BYTES,
        write_bytes: WRITE_BYTES,
        ..common::synthetic(&[1, 64, 256], PER_WORKER, |d, w| {
            harness_core::Estimate::around(time(d, w), 0.01)
        })
    }
}

/// The outcome column of the own-design targets table, target by target.
fn target_outcomes(data: fan_in::run::FanInData) -> Vec<String> {
    use harness::fixtures;
    use harness_page::{render::blocks::Block, render::blocks::Cell};
    let book = fixtures::book::<FanIn>(data);
    let blocks = fixtures::render::<FanIn>("own-design", &book);
    let [Block::Table(_), Block::Table(targets)] = blocks.as_slice() else {
        panic!("own-design is not two tables: {blocks:?}")
    };
    let outcome = targets.header.iter().position(|h| h == "Outcome").unwrap();
    targets
        .rows
        .iter()
        .map(|r| match &r[outcome] {
            Cell::Text(t) => t.clone(),
            other => panic!("outcome {other:?}"),
        })
        .collect()
}

#[test]
fn the_targets_table_follows_the_numbers() {
    // Floor 100, chunks `over` times it, the swap `speedup` times the chunks
    // (the other designs anywhere).
    let run = |over_at_256: f64, speedup_at_256: f64| {
        target_outcomes(synthetic(|design, w| {
            let (over, speedup) = if w == 256 {
                (over_at_256, speedup_at_256)
            } else {
                (1.1, 2.5)
            };
            match design {
                Design::Floor => 100.0,
                Design::WorkerChunks => 100.0 * over,
                Design::StdMutexSwap => 100.0 * over * speedup,
                _ => 1000.0,
            }
        }))
    };
    assert_eq!(run(1.1, 2.5), ["met", "met"]);
    // Twice the swap's speed from 256 up; at most 1.2x the floor from 64 up.
    assert_eq!(run(1.1, 1.8), ["not met", "met"]);
    assert_eq!(run(1.5, 2.5), ["met", "not met"]);
    // An interval across the line decides nothing.
    assert!(run(1.2, 2.0)[0].starts_with("undecided"));
    assert!(run(1.2, 2.0)[1].starts_with("undecided"));
}
