//! The ratio the verdicts rest on: tokio's time per burst over crossbeam's,
//! per machine and payload size (each run's headline, as judged), beside
//! the published machines' ratios.
use anyhow::Result;
use harness_page::{
    render::blocks::Axis, render::blocks::Block, render::blocks::Cell, render::blocks::Figure,
    render::blocks::Series, render::blocks::Table, Book,
};

use super::{band, headline_name, machine_of, published, runtime_a, Data, Reads};
use channel_latency::{Carry, PAYLOAD_SIZES};

pub(super) fn figure(book: &Book<Data>) -> Result<Vec<Block>> {
    let mut series = Vec::new();
    for run in &book.runs {
        let points = PAYLOAD_SIZES
            .iter()
            .map(|&b| {
                Ok(band(
                    b as f64,
                    &run.analysis.estimate(&headline_name(b))?,
                    1.0,
                ))
            })
            .collect::<Result<Vec<_>>>()?;
        series.push(Series::measured(machine_of(run), points));
    }
    let published = published::payload(book)?;
    series.push(published.series("published x86-64 (Ryzen 9 9900X)", |r| r.x86_64_ratio()));
    series.push(published.series("published arm64 (Ampere A1)", |r| r.arm64_ratio()));
    let runtime = runtime_a(&book.primary().data);
    Ok(vec![Block::Figure(Figure {
        id: "latency-ratio".into(),
        // "Per machine" only once there is more than one machine to compare.
        title: if book.runs.len() > 1 {
            "tokio mpsc time / crossbeam time, per machine".into()
        } else {
            format!(
                "tokio mpsc time / crossbeam time on {}, beside the published machines",
                machine_of(book.primary())
            )
        },
        caption: format!(
            "Ratio of burst times, [u8; N] payload; solid lines are this book's machines, timed head to head, with bootstrapped 95 % bands, dashed lines the published machines ({}). {runtime}. Above the dashed line at 1, tokio is slower.",
            published.citation
        ),
        x: Axis::log("payload (bytes)"),
        y: Axis::linear("tokio / crossbeam"),
        series,
        line_at: Some(1.0),
    })])
}

pub(super) fn table(book: &Book<Data>) -> Result<Vec<Block>> {
    let published = published::payload(book)?;
    let primary = book.primary();
    let mut header = vec![
        "payload".to_string(),
        "published x86-64".into(),
        "published arm64".into(),
    ];
    header.extend(
        book.runs
            .iter()
            .map(|run| format!("{}, head to head", machine_of(run))),
    );
    header.push(format!("{}, timed alone", machine_of(primary)));
    let header: Vec<&str> = header.iter().map(String::as_str).collect();
    let mut t = Table::new(
        format!(
            "tokio/crossbeam ratio of burst times, [u8; N], with the 95 % interval in brackets. Head to head: the two channels' bursts alternate in one loop, and the cell is the geometric mean over windows of each window's ratio of medians, its interval drawn by windows; the verdicts rest on it. Timed alone: the sweep's ratio of each channel's median, its interval bootstrapped from both points' samples. Published ratios are computed from {}. {}.",
            published.citation,
            runtime_a(&primary.data)
        ),
        &header,
    );
    for bytes in PAYLOAD_SIZES {
        let row = published.rows.iter().find(|r| r.payload_bytes == bytes);
        let mut cells = vec![
            Cell::size(bytes as u64),
            row.map_or(Cell::from("–"), |r| Cell::ratio(r.x86_64_ratio())),
            row.map_or(Cell::from("–"), |r| Cell::ratio(r.arm64_ratio())),
        ];
        for run in &book.runs {
            cells.push(Cell::times(&run.analysis.estimate(&headline_name(bytes))?));
        }
        cells.push(Cell::times(&primary.data.alone_ratio(Carry::Array, bytes)?));
        t.push(cells);
    }
    Ok(vec![Block::Table(t)])
}
