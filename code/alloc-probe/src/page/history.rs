//! tokio's channels at creation across tokio's releases: the fitted message
//! slots and fixed bytes at every release measured on a machine (the
//! committed lock's run and each `scripts/fresh alloc-probe --with
//! tokio@X` variant), and the releases where either changed.
use std::collections::BTreeMap;

use anyhow::Result;

use harness_core::fmt::bytes;
use harness_core::Unit;
use harness_page::{
    render::blocks::Axis, render::blocks::Block, render::blocks::Cell, render::blocks::Figure,
    render::blocks::Point, render::blocks::Series, render::blocks::Table, Book, Run,
};

use super::AllocData;
use alloc_probe::{creation_fit, Channel, SWEEP_CAPACITY};

/// The channels whose history is drawn: the two the published claims are about.
const TRACKED: [Channel; 2] = [Channel::TokioBounded, Channel::TokioUnbounded];

/// What one release's run says about creation: per tracked channel, the
/// fitted slots and fixed bytes (rounded: the fit is exact to the byte on
/// every release measured so far, and its largest miss is shown).
#[derive(Clone, Copy, PartialEq)]
struct AtCreation {
    slots: i64,
    fixed: i64,
}

struct Row<'a> {
    tokio: (u64, u64, u64),
    run: &'a Run<AllocData>,
    fits: [AtCreation; 2],
    largest_miss: f64,
}

pub(super) fn render(book: &Book<AllocData>) -> Result<Vec<Block>> {
    let variants = harness_page::releases::load::<super::AllocProbe>(&book.store)?;
    // Per machine, one run per tokio release; the committed run wins a tie.
    let mut machines: BTreeMap<&str, BTreeMap<(u64, u64, u64), &Run<AllocData>>> = BTreeMap::new();
    for run in variants.iter().chain(book.runs.iter()) {
        if let Some(v) = run.provenance.crates.get("tokio").and_then(|v| version(v)) {
            machines.entry(run.machine()).or_default().insert(v, run);
        }
    }
    let mut blocks = Vec::new();
    for (machine, runs) in machines {
        let rows: Vec<Row> = runs
            .into_iter()
            .map(|(tokio, run)| row(tokio, run))
            .collect();
        blocks.push(Block::Text(summary(machine, &rows)));
        if rows.len() > 1 {
            blocks.push(Block::Figure(figure(machine, &rows)));
        }
        blocks.push(Block::Table(table(machine, &rows)));
    }
    if blocks.is_empty() {
        blocks.push(Block::Text("No run recorded its tokio release.".into()));
    }
    Ok(blocks)
}

fn row(tokio: (u64, u64, u64), run: &Run<AllocData>) -> Row<'_> {
    let mut largest_miss: f64 = 0.0;
    let fits = TRACKED.map(|c| {
        let f = creation_fit(&run.data.sweep, c);
        largest_miss = largest_miss.max(f.max_residual);
        AtCreation {
            slots: f.slope.round() as i64,
            fixed: f.intercept.round() as i64,
        }
    });
    Row {
        tokio,
        run,
        fits,
        largest_miss,
    }
}

/// `1.37.0` as numbers; pre-releases and other tags are left out.
fn version(v: &str) -> Option<(u64, u64, u64)> {
    let mut parts = v.split('.').map(|p| p.parse::<u64>().ok());
    match (parts.next()?, parts.next()?, parts.next()?, parts.next()) {
        (Some(a), Some(b), Some(c), None) => Some((a, b, c)),
        _ => None,
    }
}

fn show((a, b, c): (u64, u64, u64)) -> String {
    format!("{a}.{b}.{c}")
}

/// What changed from `before` to `after`, in words, or nothing.
fn change(before: &Row, after: &Row) -> Vec<String> {
    let mut out = Vec::new();
    for (i, c) in TRACKED.iter().enumerate() {
        let (b, a) = (before.fits[i], after.fits[i]);
        if b.slots != a.slots {
            out.push(format!(
                "{}: {} → {} message slots",
                c.label(),
                b.slots,
                a.slots
            ));
        }
        if b.fixed != a.fixed {
            out.push(format!(
                "{}: fixed part {} → {}",
                c.label(),
                signed_bytes(b.fixed),
                signed_bytes(a.fixed)
            ));
        }
    }
    out
}

fn signed_bytes(n: i64) -> String {
    if n < 0 {
        format!("−{}", bytes(n.unsigned_abs()))
    } else {
        bytes(n as u64)
    }
}

fn summary(machine: &str, rows: &[Row]) -> String {
    let first = rows.first().map_or(String::new(), |r| show(r.tokio));
    let last = rows.last().map_or(String::new(), |r| show(r.tokio));
    let changes: Vec<String> = rows
        .windows(2)
        .filter_map(|w| {
            let c = change(&w[0], &w[1]);
            (!c.is_empty()).then(|| {
                format!(
                    "between {} and {} ({})",
                    show(w[0].tokio),
                    show(w[1].tokio),
                    c.join("; ")
                )
            })
        })
        .collect();
    let mut text = format!(
        "On {}, tokio's channels were measured at {} release{} of tokio, from {first} to {last}.",
        harness_page::render::escape_markdown(machine),
        rows.len(),
        if rows.len() == 1 { "" } else { "s" },
    );
    if rows.len() > 1 {
        if changes.is_empty() {
            text.push_str(" Their cost at creation is the same at every one of them.");
        } else {
            text.push_str(&format!(
                " Their cost at creation changed {}: {}. A change is placed between the two \
                 releases measured on either side of it; releases not in the table were not \
                 measured.",
                if changes.len() == 1 {
                    "once".to_string()
                } else {
                    format!("{} times", changes.len())
                },
                changes.join("; ")
            ));
        }
    } else {
        text.push_str(&format!(
            " `scripts/fresh alloc-probe --with tokio@VERSION` adds another release on {}.",
            harness_page::render::escape_markdown(machine)
        ));
    }
    text
}

fn figure(machine: &str, rows: &[Row]) -> Figure {
    // x: the minor release (every tokio measured is 1.x).
    let x = |r: &Row| r.tokio.1 as f64;
    let mut series = Vec::new();
    for (i, c) in TRACKED.iter().enumerate() {
        series.push(Series::measured(
            format!("{}: fixed part", c.label()),
            rows.iter()
                .map(|r| Point::new(x(r), r.fits[i].fixed as f64))
                .collect(),
        ));
    }
    // What the claims' own channel costs, at the two ends of the sweep.
    for size in [8, 1024] {
        series.push(Series::measured(
            format!("tokio mpsc, bounded: [u8; {size}], created"),
            rows.iter()
                .filter_map(|r| {
                    r.run
                        .data
                        .sweep
                        .iter()
                        .find(|p| p.channel == Channel::TokioBounded && p.msg_size == size)
                        .map(|p| Point::new(x(r), p.footprint.created as f64))
                })
                .collect(),
        ));
    }
    Figure {
        id: format!("history-{machine}"),
        title: "tokio's channels at creation, release by release".into(),
        caption: format!(
            "Live heap bytes right after creating a tokio channel, at every tokio 1.x release \
             measured on {} (x: the minor release). The fixed part is the fit's b: what a \
             channel holds besides its first block of message slots. Bounded channels have \
             capacity {SWEEP_CAPACITY}.",
            harness_page::render::escape(machine)
        ),
        x: Axis::linear("tokio 1.x release (minor)"),
        y: Axis::log("bytes at creation"),
        series,
        line_at: None,
    }
}

fn table(machine: &str, rows: &[Row]) -> Table {
    let mut header = vec!["tokio".to_string()];
    for c in TRACKED {
        header.push(format!("{}: message slots", c.label()));
        header.push(format!("{}: fixed bytes", c.label()));
    }
    header.push("largest miss of the fits".into());
    header.push("change from the release above".into());
    header.push("profile".into());
    let header: Vec<&str> = header.iter().map(String::as_str).collect();
    let mut t = Table::new(
        format!(
            "tokio's channels at creation fitted as a × `size_of::<T>()` + b over the sweep's \
             message sizes, at every tokio release measured on {} (the committed lock's run and \
             each `scripts/fresh alloc-probe --with tokio@VERSION` variant; other packages as \
             cargo resolved them around that release).",
            harness_page::render::escape_markdown(machine)
        ),
        &header,
    );
    for (i, r) in rows.iter().enumerate() {
        let mut cells = vec![Cell::from(show(r.tokio).as_str())];
        for f in r.fits {
            cells.push(Cell::count(f.slots.max(0) as u64));
            cells.push(Cell::Number(f.fixed as f64, Unit::Bytes));
        }
        cells.push(Cell::Number(r.largest_miss, Unit::Bytes));
        let changed = if i == 0 {
            Vec::new()
        } else {
            change(&rows[i - 1], r)
        };
        cells.push(Cell::from(if changed.is_empty() {
            "—".to_string()
        } else {
            changed.join("; ")
        }));
        cells.push(Cell::from(r.run.provenance.profile.to_string().as_str()));
        t.push(cells);
    }
    t
}
