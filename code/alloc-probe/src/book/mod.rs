//! The chapter as the page shows it: the published claims, the rules that
//! judge them and the exhibits. Everything here reads results and nothing
//! here measures: it is left out of the results' fingerprint, so a change
//! to a caption or a rule makes no result stale (`crate::run` holds what
//! does).
mod check;
mod claims;
mod counts;
mod creation;
mod fit;
mod history;
mod reader;
mod scenarios;
mod tables;

use anyhow::{anyhow, Result};
use serde::Deserialize;

use harness::fmt::bytes;
use harness::{Book, Exhibit, ExhibitKind, Run};

use crate::run::AllocData;
use crate::{Channel, GridPoint};

pub use check::check;
pub use claims::CLAIMS;

pub const EXHIBITS: &[Exhibit<AllocData>] = &[
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
        render: claims::render,
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
) -> Result<(harness::published::Dataset, Vec<PublishedRow>)> {
    let published = book.published("tokio-grid")?;
    let rows = published.rows()?;
    Ok((published, rows))
}

/// The grid point of `channel` at `size`-byte messages and `capacity`.
fn point(data: &AllocData, channel: Channel, size: usize, capacity: usize) -> Result<&GridPoint> {
    harness::grid::find(&data.grid, "the grid", (channel, size, capacity), |p| {
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
