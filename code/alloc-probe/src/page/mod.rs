//! The chapter as the page shows it: the published claims, the rules that
//! judge them (`claims`, judged once per run and stored: `judge`) and the
//! exhibits. Everything here reads results and nothing here measures: it is
//! the binary's alone, out of the library the results' fingerprint covers,
//! so a change to a caption or a rule makes no result stale
//! (`alloc_probe::run` holds what does).
mod check;
mod claims;
mod counts;
mod creation;
mod fit;
mod history;
mod reader;
mod scenarios;
mod tables;
#[cfg(test)]
mod tests;

use anyhow::{anyhow, Result};
use serde::Deserialize;

use harness_core::fmt::bytes;
use harness_core::Claim;
use harness_page::{render::blocks::Block, Book, Exhibit, ExhibitKind, Judge, Judged, Page, Run};

use alloc_probe::run::AllocData;
use alloc_probe::{Channel, GridPoint};

/// The page of the chapter; its experiment is `alloc_probe::run::AllocProbe`.
/// Its figures are exact counts: it names no estimate and its headline is
/// empty.
pub struct AllocProbe;

impl Page for AllocProbe {
    type Data = AllocData;
    type Experiment = alloc_probe::run::AllocProbe;
    const CLAIMS: &'static [Claim] = claims::CLAIMS;
    const EXHIBITS: &'static [Exhibit<AllocData>] = EXHIBITS;

    fn check(data: &AllocData) -> Result<()> {
        check::check(data)
    }

    /// Every claim's verdict on the run, decided from its counts, in the
    /// reader's words (`reader::read`).
    fn judge(run: &Judged<AllocData>, j: &mut Judge) -> Result<()> {
        for v in claims::verdicts(run.data, run.machine())? {
            j.verdict(reader::read(run.data, v), &[]);
        }
        Ok(())
    }
}

/// The verdicts exhibit: every run's verdicts as judged.
fn verdicts(book: &Book<AllocData>) -> Result<Vec<Block>> {
    Ok(vec![Block::Verdicts(AllocProbe::verdicts(book)?)])
}

const EXHIBITS: &[Exhibit<AllocData>] = &[
    Exhibit {
        name: "in-short",
        kind: ExhibitKind::Text,
        about: "the answer in plain words, its numbers beside the post's",
        render: reader::in_short,
    },
    Exhibit {
        name: "summary-list",
        kind: ExhibitKind::Text,
        about: "what to use, each with its number and verdict (gathered by the What to use page)",
        render: reader::summary_list,
    },
    Exhibit {
        name: "grid",
        kind: ExhibitKind::Table,
        about: "tokio bounded grid beside the published table, with an exact-match column",
        render: tables::grid,
    },
    Exhibit {
        name: "channels",
        kind: ExhibitKind::Table,
        about: "every channel at every stage of the grid",
        render: tables::channels,
    },
    Exhibit {
        name: "fit",
        kind: ExhibitKind::Table,
        about: "creation cost fitted as a * size_of::<T>() + b per channel",
        render: fit::render,
    },
    Exhibit {
        name: "history",
        kind: ExhibitKind::Figure,
        about:
            "tokio's channels at creation at every tokio release measured, and where that changed",
        render: history::render,
    },
    Exhibit {
        name: "creation-figure",
        kind: ExhibitKind::Figure,
        about: "bytes at creation vs message size, per channel (log-log)",
        render: creation::render,
    },
    Exhibit {
        name: "create-instructions",
        kind: ExhibitKind::Table,
        about: "instructions to create and drop each channel (callgrind), with tokio's ratios",
        render: counts::render,
    },
    Exhibit {
        name: "scenarios",
        kind: ExhibitKind::Figure,
        about: "10,000 idle channels: total heap per channel type",
        render: scenarios::render,
    },
    Exhibit {
        name: "verdicts",
        kind: ExhibitKind::Verdicts,
        about: "ALLOC-1 .. ALLOC-6",
        render: verdicts,
    },
];

/// One row of the published tokio table.
#[derive(Deserialize)]
struct PublishedRow {
    msg_size: usize,
    capacity: usize,
    heap_after_create: u64,
    heap_after_fill: u64,
}

fn published_rows(
    book: &Book<AllocData>,
) -> Result<(harness_core::results::published::Dataset, Vec<PublishedRow>)> {
    let published = book.published("tokio-grid")?;
    let rows = published.rows()?;
    Ok((published, rows))
}

/// The grid point of `channel` at `size`-byte messages and `capacity`.
fn point(data: &AllocData, channel: Channel, size: usize, capacity: usize) -> Result<&GridPoint> {
    harness_core::grid::find(&data.grid, "the grid", (channel, size, capacity), |p| {
        (p.channel, p.msg_size, p.capacity)
    })
}

/// How an error names a grid point: channel, message size and capacity.
fn point_name(p: &GridPoint) -> String {
    format!(
        "{}, {} messages, capacity {}",
        p.channel.label(),
        bytes(p.msg_size as u64),
        p.capacity
    )
}

/// `later - earlier` for two stages of one point's footprint, or an error
/// naming the point and both values when `later` holds fewer bytes: a
/// wrapped subtraction would print as a plausible byte count.
fn bytes_between(
    p: &GridPoint,
    (later_stage, later): (&str, u64),
    (earlier_stage, earlier): (&str, u64),
) -> Result<u64> {
    later.checked_sub(earlier).ok_or_else(|| {
        anyhow!(
            "{}: {later_stage} ({}) is below {earlier_stage} ({})",
            point_name(p),
            bytes(later),
            bytes(earlier)
        )
    })
}

fn machine_caption(run: &Run<AllocData>) -> String {
    format!(
        "{} ({}, {}-bit)",
        run.machine(),
        run.arch(),
        run.data.pointer_width
    )
}
