//! The chapter as the book sees it: what a run records, the published claims
//! and the exhibits on the page.
mod check;
mod claims;
mod counts;
mod creation;
mod fit;
mod history;
mod measure;
mod scenarios;
mod tables;

use anyhow::{anyhow, Result};
use serde::{Deserialize, Serialize};

use harness::fmt::bytes;
use harness::{Book, Chapter, Claim, Exhibit, ExhibitKind, Lab, Run};

use crate::{Channel, GridPoint, ScenarioResult};

pub use claims::CLAIMS;
pub use counts::{CreationCount, COUNTED};

pub struct AllocProbe;

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct AllocData {
    /// Bits in a pointer on the measuring machine (block sizes depend on it).
    pub pointer_width: u32,
    pub grid: Vec<GridPoint>,
    pub sweep: Vec<GridPoint>,
    pub scenarios: Vec<ScenarioResult>,
    /// Instructions to create and drop each channel, counted by callgrind.
    pub creation_counts: Vec<CreationCount>,
}

impl Chapter for AllocProbe {
    type Data = AllocData;
    const NAME: &'static str = "alloc-probe";
    const MEASURED_CRATES: &'static [&'static str] = &[
        "tokio",
        "futures-channel",
        "crossbeam-channel",
        "kanal",
        "flume",
        "dhat",
    ];
    const CLAIMS: &'static [Claim] = CLAIMS;
    const COUNTED: &'static [harness::Counted] = COUNTED;
    const EXHIBITS: &'static [Exhibit<AllocData>] = &[
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
            about: "tokio's channels at creation at every tokio release measured, and where that changed",
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

    fn measure(lab: &Lab) -> Result<AllocData> {
        measure::measure(lab)
    }

    fn check(data: &AllocData) -> Result<()> {
        check::check(data)
    }
}

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
            "{}, {} messages, capacity {}: {later_stage} ({}) is below {earlier_stage} ({})",
            p.channel.label(),
            bytes(p.msg_size as u64),
            p.capacity,
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
