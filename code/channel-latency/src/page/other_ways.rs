//! Experiment A the other ways: the published seed's readings, the ladder
//! from the seed to the fair ratio, and the runtime settings a reproducer
//! could choose differently. [`ROWS`] names each way once; the tables here
//! and the verdict maps of LAT-1..LAT-4 both read it.
use anyhow::Result;
use harness_core::{Estimate, Unit};
use harness_measure::stats::Statistic;
use harness_page::{render::blocks::Block, render::blocks::Cell, render::blocks::Table, Book};

use super::{machine_of, published, size_label, Data, Reads};
use channel_latency::methods::{MethodPoint, METHODS};
use channel_latency::{Carry, PAYLOAD_SIZES};

/// Where a row of experiment A's maps gets its tokio/crossbeam ratio.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Source {
    /// A method's windows (`methods::METHODS`), ratio of medians.
    Method(&'static str),
    /// The fair head-to-head timing, with this statistic per window.
    HeadToHead(Statistic),
    /// The sweep's criterion points, each channel timed alone.
    Alone,
}

/// One way of measuring experiment A, as the maps and tables name it.
#[derive(Clone, Copy, Debug)]
pub(super) struct Row {
    pub axis: &'static str,
    pub setting: &'static str,
    pub source: Source,
    pub as_published: bool,
    pub fair: bool,
}

const fn row(axis: &'static str, setting: &'static str, source: Source) -> Row {
    Row {
        axis,
        setting,
        source,
        as_published: false,
        fair: false,
    }
}

const fn seed(id: &'static str, setting: &'static str) -> Row {
    Row {
        as_published: true,
        ..row("seed", setting, Source::Method(id))
    }
}

/// Every row of experiment A's maps: the seed's four readings, the ladder
/// from the first of them to the fair ratio, then what a reproducer could
/// have chosen differently.
pub(super) const ROWS: [Row; 12] = [
    seed(
        "seed-to-async-multi",
        "the seed read as criterion to_async on a multi-thread runtime",
    ),
    seed(
        "seed-to-async-current",
        "the seed read as criterion to_async on a current-thread runtime",
    ),
    seed(
        "seed-block-on-multi",
        "the seed read as block_on per burst on a multi-thread runtime",
    ),
    seed(
        "seed-block-on-current",
        "the seed read as block_on per burst on a current-thread runtime",
    ),
    row(
        "ladder",
        "the channel built before timing",
        Source::Method("reused-to-async-multi"),
    ),
    row(
        "ladder",
        "each burst timed alone on a current-thread runtime",
        Source::Method("per-burst-current"),
    ),
    Row {
        fair: true,
        ..row(
            "ladder",
            "stack offsets rotated, head to head (the fair experiment)",
            Source::HeadToHead(Statistic::Median),
        )
    },
    row(
        "statistic",
        "the mean instead of the median",
        Source::HeadToHead(Statistic::Mean),
    ),
    row(
        "timing",
        "each channel timed alone by criterion (the sweep)",
        Source::Alone,
    ),
    row(
        "runtime",
        "a multi-thread runtime, burst polled by block_on",
        Source::Method("multi-block-on"),
    ),
    row(
        "runtime",
        "a spawned burst on a multi-thread runtime with one worker",
        Source::Method("multi-one-spawned"),
    ),
    row(
        "runtime",
        "a spawned burst on a multi-thread runtime with a worker per core",
        Source::Method("multi-spawned"),
    ),
];

/// Every row, in map order.
pub(super) fn rows() -> impl Iterator<Item = Row> {
    ROWS.into_iter()
}

/// What a page says where a run predates a row's measurement.
pub(super) const NOT_IN_RUN: &str =
    "not in this run: re-measure with scripts/fresh channel-latency";

/// Experiment A the other ways, read from a run's data.
pub(super) trait OtherWays {
    fn method_point(&self, id: &str, bytes: usize) -> Option<&MethodPoint>;
    fn ratio_by(&self, source: Source, bytes: usize) -> Result<Option<Estimate>>;
}

impl OtherWays for Data {
    /// A method's point, or `None` in a run from before the methods.
    fn method_point(&self, id: &str, bytes: usize) -> Option<&MethodPoint> {
        self.methods
            .iter()
            .find(|p| p.method == id && p.bytes == bytes)
    }

    /// tokio's time per burst over crossbeam's at `bytes` as `source`
    /// measures it; `Ok(None)` when this run has no such measurement.
    fn ratio_by(&self, source: Source, bytes: usize) -> Result<Option<Estimate>> {
        match source {
            Source::Method(id) => self
                .method_point(id, bytes)
                .map(|p| p.ratio(Statistic::Median))
                .transpose(),
            Source::HeadToHead(statistic) => {
                let h = self.head_to_head(bytes)?;
                harness_measure::stats::paired_ratio(&h.tokio, &h.crossbeam, statistic).map(Some)
            }
            Source::Alone => self.alone_ratio(Carry::Array, bytes).map(Some),
        }
    }
}

fn ratio_cell(d: &Data, source: Source, bytes: usize) -> Result<Cell> {
    Ok(match d.ratio_by(source, bytes)? {
        Some(r) => Cell::times(&r),
        None => Cell::from("–"),
    })
}

/// A "not in this run" line for a run without the methods.
fn missing(book: &Book<Data>) -> Option<Block> {
    let run = book.primary();
    run.data.methods.is_empty().then(|| {
        Block::not_in_run(
            "channel-latency",
            &machine_of(run),
            "Experiment A's other ways",
        )
    })
}

/// How the methods were timed, for captions (a sentence, or nothing).
fn how(d: &Data) -> String {
    match &d.methods_setup {
        Some(s) => format!(
            " Each way: tokio against crossbeam timed the same way, head to head, {} windows of {} samples of each channel; the seed's readings time several bursts per sample, as criterion's loop does, the others one. Multi-thread runtimes have {} workers unless the row says one.",
            s.windows, s.pairs, s.cores
        ),
        None => String::new(),
    }
}

/// A table of tokio/crossbeam ratios per size, one column per row.
fn ratio_table(book: &Book<Data>, caption: String, rows: &[Row]) -> Result<Vec<Block>> {
    let d = &book.primary().data;
    let published = published::payload(book)?;
    let mut header = vec!["payload".to_string(), "published x86-64".to_string()];
    header.extend(rows.iter().map(|r| r.setting.to_string()));
    let header: Vec<&str> = header.iter().map(String::as_str).collect();
    let mut t = Table::new(caption, &header);
    for bytes in PAYLOAD_SIZES {
        let mut cells = vec![
            Cell::size(bytes as u64),
            published
                .rows
                .iter()
                .find(|r| r.payload_bytes == bytes)
                .map_or(Cell::from("–"), |r| Cell::ratio(r.x86_64_ratio())),
        ];
        for r in rows {
            cells.push(ratio_cell(d, r.source, bytes)?);
        }
        t.push(cells);
    }
    let mut out: Vec<Block> = missing(book).into_iter().collect();
    out.push(Block::Table(t));
    Ok(out)
}

/// The seed's four readings and the ladder from the first to the fair ratio.
pub(super) fn seed_and_ladder(book: &Book<Data>) -> Result<Vec<Block>> {
    let run = book.primary();
    let rows: Vec<Row> = rows()
        .filter(|r| r.axis == "seed" || r.axis == "ladder")
        .collect();
    ratio_table(
        book,
        format!(
            "tokio/crossbeam ratio of time per burst, [u8; N], on {}, with the 95 % interval in brackets: the published seed read four ways (the channel made and dropped inside each timed burst), then the ladder from the first reading to the fair ratio, each column changing one thing from the one before it.{} Published ratios from {}.",
            machine_of(run),
            how(&run.data),
            published::payload(book)?.citation
        ),
        &rows,
    )
}

/// The fair ratio beside the same experiment with one choice made differently.
pub(super) fn sensitivity(book: &Book<Data>) -> Result<Vec<Block>> {
    let run = book.primary();
    let rows: Vec<Row> = rows()
        .filter(|r| r.fair || !(r.axis == "seed" || r.axis == "ladder"))
        .collect();
    ratio_table(
        book,
        format!(
            "tokio/crossbeam ratio of time per burst, [u8; N], on {}: the fair experiment (a current-thread runtime, head to head), then the same with one choice made differently: the statistic, timing each channel alone, or tokio's runtime.{}",
            machine_of(run),
            how(&run.data)
        ),
        &rows,
    )
}

/// Page faults per burst, every method, at three sizes.
pub(super) fn faults(book: &Book<Data>) -> Result<Vec<Block>> {
    let run = book.primary();
    let d = &run.data;
    if let Some(m) = missing(book) {
        return Ok(vec![m]);
    }
    let sizes = [8, 1024, 32768];
    let mut header = vec!["way of measuring".to_string()];
    for b in sizes {
        header.push(format!("tokio, {}", size_label(b)));
        header.push(format!("crossbeam, {}", size_label(b)));
    }
    let header: Vec<&str> = header.iter().map(String::as_str).collect();
    let mut t = Table::new(
        format!(
            "Minor page faults per burst on {}, counted by the process (getrusage) over a few untimed bursts after each way's first window. A fault means the burst touched memory the kernel had to map again: freshly allocated, or handed back to it since the last burst.",
            machine_of(run)
        ),
        &header,
    )
    .left(&[0]);
    for m in METHODS {
        let mut cells = vec![Cell::Text(
            rows()
                .find(|r| r.source == Source::Method(m.id))
                .map_or(m.label, |r| r.setting)
                .to_string(),
        )];
        for b in sizes {
            let p = d.method_point(m.id, b);
            for f in [
                p.and_then(|p| p.tokio_faults_per_burst),
                p.and_then(|p| p.crossbeam_faults_per_burst),
            ] {
                cells.push(f.map_or(Cell::from("–"), |f| Cell::Number(f, Unit::Plain)));
            }
        }
        t.push(cells);
    }
    Ok(vec![Block::Table(t)])
}

#[cfg(test)]
mod tests {
    use super::*;
    use channel_latency::methods::method;

    #[test]
    fn every_method_is_a_row_and_one_row_is_fair() {
        for m in METHODS {
            assert!(
                rows().any(|r| r.source == Source::Method(m.id)),
                "{} is on no map",
                m.id
            );
        }
        for r in rows() {
            if let Source::Method(id) = r.source {
                assert!(method(id).is_some(), "{id}");
            }
        }
        assert_eq!(rows().filter(|r| r.fair).count(), 1);
        assert_eq!(rows().filter(|r| r.as_published).count(), 4);
    }
}
