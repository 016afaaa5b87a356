//! Experiment A's sweep as measured: time per burst of every channel at
//! every payload size, by value, as a table and as a figure.
use anyhow::Result;
use harness_page::{
    render::blocks::Axis, render::blocks::Block, render::blocks::Cell, render::blocks::Figure,
    render::blocks::Series, render::blocks::Table, Book,
};

use super::{band, machine_of, published, runtime_a, Data};
use channel_latency::{Carry, Variant, BURST, CAPACITY, PAYLOAD_SIZES};

pub(super) fn table(book: &Book<Data>) -> Result<Vec<Block>> {
    let run = book.primary();
    let d = &run.data;
    let mut header: Vec<&str> = vec!["payload"];
    header.extend(Variant::ALL.iter().map(|v| v.label()));
    header.push("memcpy floor");
    let mut t = Table::new(
        format!(
            "Median time per burst of {BURST} sends and {BURST} receives of [u8; N], with criterion's 95 % interval on the median in brackets, on {}. {}. flume and async-channel, compared beside the published pairs, are measured at {} only (–: not measured).",
            machine_of(run),
            runtime_a(d),
            channel_latency::COMPARED_SIZES.map(super::size_label).join(", ")
        ),
        &header,
    );
    for bytes in PAYLOAD_SIZES {
        let mut row = vec![Cell::size(bytes as u64)];
        for v in Variant::ALL {
            // A file from before the compared crates has none of them.
            row.push(match d.median(v, Carry::Array, bytes) {
                Ok(e) => Cell::time(&e),
                Err(_) if Variant::COMPARED.contains(&v) => Cell::from("–"),
                Err(e) => return Err(e),
            });
        }
        row.push(Cell::time(&d.memcpy(bytes)?.median));
        t.push(row);
    }
    Ok(vec![Block::Table(t)])
}

pub(super) fn figure(book: &Book<Data>) -> Result<Vec<Block>> {
    let run = book.primary();
    let d = &run.data;
    let shown = [
        Variant::TokioMpsc,
        Variant::Crossbeam,
        Variant::KanalAsync,
        Variant::StdSyncChannel,
        Variant::FlumeSync,
        Variant::FlumeAsync,
        Variant::AsyncChannel,
        Variant::VecFloor,
    ];
    let mut series = Vec::new();
    for v in shown {
        if Variant::COMPARED.contains(&v) && d.point(v, Carry::Array, PAYLOAD_SIZES[0]).is_err() {
            continue;
        }
        let points = v
            .sizes()
            .iter()
            .map(|&b| Ok(band(b as f64, &d.median(v, Carry::Array, b)?, 1e3)))
            .collect::<Result<Vec<_>>>()?;
        series.push(Series::measured(v.label(), points));
    }
    series.push(Series::measured(
        "memcpy floor",
        d.memcpy
            .iter()
            .map(|m| band(m.bytes as f64, &m.timing.median, 1e3))
            .collect(),
    ));
    let published = published::payload(book)?;
    series.push(published.series("tokio mpsc, published (x86-64)", |r| r.tokio_x86_64_us));
    series.push(published.series("crossbeam, published (x86-64)", |r| r.crossbeam_x86_64_us));
    Ok(vec![Block::Figure(Figure {
        id: "latency-sweep".into(),
        title: "Time per burst vs payload size".into(),
        caption: format!(
            "Median time per burst ({BURST} sends, then {BURST} receives of [u8; N], capacity {CAPACITY}) on {}; bands are criterion's 95 % intervals on the median. {}. Dashed: published x86-64 numbers from {}.",
            machine_of(run),
            runtime_a(d),
            published.citation
        ),
        x: Axis::log("payload (bytes)"),
        y: Axis::log("µs per burst"),
        series,
        line_at: None,
    })])
}
