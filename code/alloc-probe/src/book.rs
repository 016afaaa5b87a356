//! The chapter as the book sees it: what a run records, the published claims
//! and the exhibits on the page.
use anyhow::{bail, ensure, Result};
use serde::{Deserialize, Serialize};

use harness::fmt::{bytes, bytes_h, thousands};
use harness::{
    Axis, Bar, BarChart, Block, Book, Chapter, Claim, Exhibit, ExhibitKind, Figure, Outcome, Point,
    Profile, Progress, Run, Series, Table, Verdict,
};

use crate::{Channel, GridPoint, ScenarioResult, GRID_CAPACITIES, GRID_SIZES, SCENARIOS};

pub struct AllocProbe;

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct AllocData {
    /// Bits in a pointer on the measuring machine (block sizes depend on it).
    pub pointer_width: u32,
    pub grid: Vec<GridPoint>,
    pub sweep: Vec<GridPoint>,
    pub scenarios: Vec<ScenarioResult>,
}

#[derive(Deserialize)]
struct PublishedRow {
    msg_size: usize,
    capacity: usize,
    heap_after_create: u64,
    heap_after_fill: u64,
}

const POST: &str = "[tokio mpsc memory use (agentgateway)](https://agentgateway.dev)";

const CLAIMS: &[Claim] = &[
    Claim {
        id: "ALLOC-1",
        statement: "A bounded tokio mpsc channel's capacity has no effect on its heap use at creation.",
        source: POST,
        rule: "Bytes at creation are identical at capacities 1, 16 and 1024 for every message size of the grid.",
    },
    Claim {
        id: "ALLOC-2",
        statement: "At creation it holds 32 × size_of::<T>() + 544 bytes on 64-bit targets.",
        source: POST,
        rule: "A least-squares fit of creation bytes over the message-size sweep gives slope 32 and intercept 544 exactly, with no residual. Decided on 64-bit machines only.",
    },
    Claim {
        id: "ALLOC-3",
        statement: "It does not grow until more than 32 messages are queued.",
        source: POST,
        rule: "At capacity 1024, bytes with 32 messages queued equal bytes at creation, and bytes with 33 queued are larger, for every message size.",
    },
    Claim {
        id: "ALLOC-4",
        statement: "futures-channel's mpsc allocates per queued message instead of a block up front.",
        source: POST,
        rule: "At creation futures-channel holds room for at most one message (slope of its creation fit, rounded, ≤ 1), and at capacity 1024 every queued message adds at least size_of::<T>() bytes, for every message size.",
    },
    Claim {
        id: "ALLOC-5",
        statement: "A tokio channel of a 24-byte message costs about 1312 bytes.",
        source: POST,
        rule: "Bytes per idle channel, averaged over 10,000 held at once, within 5 % of 1312.",
    },
    Claim {
        id: "ALLOC-6",
        statement: "A tokio channel of a ~250-byte request costs about 8 KB (the per-connection cost seen in hyper).",
        source: POST,
        rule: "Bytes per idle channel of a 250-byte message, averaged over 10,000, within 10 % of 8 KiB (8192 B).",
    },
];

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
    const EXHIBITS: &'static [Exhibit] = &[
        Exhibit {
            name: "grid",
            kind: ExhibitKind::Table,
            about: "tokio bounded grid beside the published table, with an exact-match column",
        },
        Exhibit {
            name: "channels",
            kind: ExhibitKind::Table,
            about: "every channel at every stage of the grid",
        },
        Exhibit {
            name: "fit",
            kind: ExhibitKind::Table,
            about: "creation cost fitted as a * size_of::<T>() + b per channel",
        },
        Exhibit {
            name: "creation-figure",
            kind: ExhibitKind::Figure,
            about: "bytes at creation vs message size, per channel (log-log)",
        },
        Exhibit {
            name: "scenarios",
            kind: ExhibitKind::Figure,
            about: "10,000 idle channels: total heap per channel type",
        },
        Exhibit {
            name: "verdicts",
            kind: ExhibitKind::Verdicts,
            about: "ALLOC-1 .. ALLOC-6",
        },
    ];
    const CLAIMS: &'static [Claim] = CLAIMS;

    fn measure(profile: Profile, progress: &Progress) -> Result<AllocData> {
        // Heap bytes are exact and repeatable; profiles differ only in how
        // many idle channels the scenarios hold (the per-channel cost is the same).
        let channels = profile.pick(1_000, 10_000, 10_000);
        progress.set_total((Channel::ALL.len() * 2 + 1) as u64);
        let _profiler = dhat::Profiler::builder().testing().build();
        let grid = crate::grid(|c| progress.step(format!("grid: {c}")))?;
        let sweep = crate::sweep(|c| progress.step(format!("size sweep: {c}")))?;
        progress.step(format!(
            "scenarios: {} idle channels each",
            thousands(channels as u64)
        ));
        let scenarios = crate::scenarios(channels);
        Ok(AllocData {
            pointer_width: usize::BITS,
            grid,
            sweep,
            scenarios,
        })
    }

    fn check(data: &AllocData) -> Result<()> {
        ensure!(
            data.pointer_width == 32 || data.pointer_width == 64,
            "pointer width {} is neither 32 nor 64",
            data.pointer_width
        );
        for channel in Channel::ALL {
            for &(size, _) in GRID_SIZES {
                for cap in GRID_CAPACITIES {
                    let p = data
                        .grid
                        .iter()
                        .find(|p| p.channel == channel && p.msg_size == size && p.capacity == cap)
                        .ok_or_else(|| {
                            anyhow::anyhow!(
                                "grid lacks {} at {size} B, capacity {cap}",
                                channel.label()
                            )
                        })?;
                    ensure!(
                        p.footprint.created > 0 && p.footprint.messages == cap as u64,
                        "grid point {} {size} B cap {cap} is not a complete run",
                        channel.label()
                    );
                }
            }
            ensure!(
                data.sweep.iter().filter(|p| p.channel == channel).count() >= 3,
                "the size sweep of {} has fewer than 3 points",
                channel.label()
            );
        }
        for s in SCENARIOS {
            ensure!(
                data.scenarios.iter().any(|r| r.scenario == s.name
                    && r.channel == Channel::TokioBounded
                    && r.channels > 0),
                "scenario {} has no tokio result",
                s.name
            );
        }
        Ok(())
    }

    fn render(exhibit: &str, book: &Book<AllocData>) -> Result<Vec<Block>> {
        match exhibit {
            "grid" => grid_table(book),
            "channels" => Ok(book.runs.iter().map(channels_table).collect()),
            "fit" => Ok(book.runs.iter().flat_map(fit_blocks).collect()),
            "creation-figure" => creation_figure(book),
            "scenarios" => Ok(book.runs.iter().flat_map(scenario_blocks).collect()),
            "verdicts" => Ok(vec![Block::Verdicts(
                book.runs.iter().flat_map(verdicts).collect(),
            )]),
            other => bail!("no exhibit {other:?}"),
        }
    }
}

fn point(data: &AllocData, channel: Channel, size: usize, cap: usize) -> Option<&GridPoint> {
    data.grid
        .iter()
        .find(|p| p.channel == channel && p.msg_size == size && p.capacity == cap)
}

fn machine_caption(run: &Run<AllocData>) -> String {
    format!(
        "{} ({}, {}-bit)",
        run.machine(),
        run.arch(),
        run.data.pointer_width
    )
}

fn grid_table(book: &Book<AllocData>) -> Result<Vec<Block>> {
    let published = book.published("tokio-grid")?;
    let rows: Vec<PublishedRow> = published.rows()?;
    let mut blocks = Vec::new();
    for run in &book.runs {
        let mut t = Table::new(
            format!(
                "`tokio::sync::mpsc::channel::<[u8; N]>(capacity)`: live heap bytes measured on {} beside the published table ({}).",
                machine_caption(run),
                published.citation()
            ),
            &[
                "message size",
                "capacity",
                "at creation",
                "published",
                "after filling",
                "published",
                "exact match",
            ],
        );
        for row in &rows {
            let Some(p) = point(&run.data, Channel::TokioBounded, row.msg_size, row.capacity)
            else {
                continue;
            };
            let same = p.footprint.created == row.heap_after_create
                && p.footprint.full == row.heap_after_fill;
            t.push(vec![
                bytes(row.msg_size as u64),
                row.capacity.to_string(),
                thousands(p.footprint.created),
                thousands(row.heap_after_create),
                thousands(p.footprint.full),
                thousands(row.heap_after_fill),
                if same { "yes".into() } else { "**no**".into() },
            ]);
        }
        let matched = t.rows.iter().filter(|r| r[6] == "yes").count();
        blocks.push(Block::Table(t));
        blocks.push(Block::Text(format!(
            "On {}, {matched} of {} rows match the published bytes exactly.",
            run.machine(),
            rows.len()
        )));
    }
    Ok(blocks)
}

fn opt(v: Option<u64>) -> String {
    v.map_or("–".into(), thousands)
}

fn channels_table(run: &Run<AllocData>) -> Block {
    let mut t = Table::new(
        format!(
            "Live heap bytes of each channel at each stage, on {}. \"–\": the capacity holds fewer than 33 messages.",
            machine_caption(run)
        ),
        &[
            "channel",
            "message",
            "capacity",
            "created",
            "32 queued",
            "33 queued",
            "full",
            "drained",
        ],
    );
    for p in &run.data.grid {
        let f = &p.footprint;
        t.push(vec![
            p.channel.label().into(),
            bytes(p.msg_size as u64),
            p.capacity.to_string(),
            thousands(f.created),
            opt(f.after_32),
            opt(f.after_33),
            thousands(f.full),
            thousands(f.drained),
        ]);
    }
    Block::Table(t)
}

fn fit_blocks(run: &Run<AllocData>) -> Vec<Block> {
    let mut t = Table::new(
        format!(
            "Creation bytes fitted as a × size_of::<T>() + b over message sizes of the sweep at capacity {}, on {}.",
            crate::SWEEP_CAPACITY,
            machine_caption(run)
        ),
        &["channel", "a: message slots at creation", "b: fixed bytes", "largest miss"],
    );
    for channel in Channel::ALL {
        let f = crate::creation_fit(&run.data.sweep, channel);
        t.push(vec![
            channel.label().into(),
            format!("{:.2}", f.slope),
            format!("{:.1}", f.intercept),
            bytes(f.max_residual.round() as u64),
        ]);
    }
    let tokio = crate::creation_fit(&run.data.sweep, Channel::TokioBounded);
    let mut text = format!(
        "On {}, a tokio channel is born holding **{} × size_of::<T>() + {} bytes** (largest miss {}): \
         the first block has room for {} messages whatever the capacity, and the rest is the shared state.",
        machine_caption(run),
        tokio.slope.round(),
        tokio.intercept.round(),
        bytes(tokio.max_residual.round() as u64),
        tokio.slope.round()
    );
    // Block size and blocks kept after a drain, from the capacity-1024 runs.
    let slots = tokio.slope.round() as u64;
    if let Some(p) = run.data.grid.iter().find(|p| {
        p.channel == Channel::TokioBounded && p.capacity == 1024 && p.footprint.after_33.is_some()
    }) {
        let f = p.footprint;
        let block = f.after_33.unwrap_or(f.created) - f.created;
        if block > 0 {
            text.push_str(&format!(
                " Each further block of `[u8; {}]` costs {} (its slots plus {} of bookkeeping). \
                 Filled to {} and drained, the channel keeps {} spare blocks for reuse and frees the rest.",
                p.msg_size,
                bytes(block),
                bytes(block - slots * p.msg_size as u64),
                p.capacity,
                (f.drained - f.created) / block
            ));
        }
    }
    vec![Block::Text(text), Block::Table(t)]
}

fn creation_figure(book: &Book<AllocData>) -> Result<Vec<Block>> {
    let published = book.published("tokio-grid")?;
    let rows: Vec<PublishedRow> = published.rows()?;
    let mut blocks = Vec::new();
    for run in &book.runs {
        let mut series: Vec<Series> = Channel::ALL
            .iter()
            .map(|&c| {
                Series::measured(
                    c.label(),
                    run.data
                        .sweep
                        .iter()
                        .filter(|p| p.channel == c)
                        .map(|p| Point::new(p.msg_size as f64, p.footprint.created as f64))
                        .collect(),
                )
            })
            .collect();
        let mut published_points: Vec<Point> = rows
            .iter()
            .filter(|r| r.capacity == crate::SWEEP_CAPACITY)
            .map(|r| Point::new(r.msg_size as f64, r.heap_after_create as f64))
            .collect();
        published_points.sort_by(|a, b| a.x.total_cmp(&b.x));
        let same = coinciding(&run.data.sweep);
        series.push(Series::published(
            "tokio mpsc, bounded (published)",
            published_points,
        ));
        blocks.push(Block::Figure(Figure {
            id: format!("creation-{}", run.machine()),
            title: format!("Heap at creation, capacity {}", crate::SWEEP_CAPACITY),
            caption: format!(
                "Live heap bytes right after creating one channel of <code>[u8; N]</code> with capacity {}, \
                 against N, on {}. Dashed: the published tokio figures. No runtime is involved: \
                 channels are created and filled with <code>try_send</code> on one thread.{same}",
                crate::SWEEP_CAPACITY,
                machine_caption(run)
            ),
            x: Axis::log("message size (bytes)"),
            y: Axis::log("bytes at creation"),
            series,
        }));
    }
    Ok(blocks)
}

/// `tick` wraps the message type for markdown; figures take it bare.
/// "Lines that coincide: a = b; c = d." for channels with identical sweeps,
/// so a reader knows why some colours seem missing.
fn coinciding(sweep: &[GridPoint]) -> String {
    let created = |c: Channel| -> Vec<u64> {
        sweep
            .iter()
            .filter(|p| p.channel == c)
            .map(|p| p.footprint.created)
            .collect()
    };
    let mut groups: Vec<Vec<Channel>> = Vec::new();
    for c in Channel::ALL {
        match groups.iter_mut().find(|g| created(g[0]) == created(c)) {
            Some(g) => g.push(c),
            None => groups.push(vec![c]),
        }
    }
    let same: Vec<String> = groups
        .iter()
        .filter(|g| g.len() > 1)
        .map(|g| g.iter().map(|c| c.label()).collect::<Vec<_>>().join(" = "))
        .collect();
    if same.is_empty() {
        String::new()
    } else {
        format!(" Lines that coincide exactly: {}.", same.join("; "))
    }
}

fn scenario_label(r: &ScenarioResult, tick: &str) -> String {
    let message = if r.boxed {
        format!("Box<[u8; {}]>", r.msg_size)
    } else {
        format!("[u8; {}]", r.msg_size)
    };
    format!("{}, {tick}{message}{tick}", r.channel.label())
}

fn scenario_blocks(run: &Run<AllocData>) -> Vec<Block> {
    let mut blocks = Vec::new();
    for s in SCENARIOS {
        let rows: Vec<&ScenarioResult> = run
            .data
            .scenarios
            .iter()
            .filter(|r| r.scenario == s.name)
            .collect();
        let Some(first) = rows.first() else { continue };
        let count = first.channels;
        blocks.push(Block::Bars(BarChart {
            id: format!("scenario-{}-{}", s.name, run.machine()),
            title: format!("{} idle channels: {}", thousands(count as u64), s.name),
            caption: format!(
                "Total live heap of {} idle channels ({}), on {}.",
                thousands(count as u64),
                s.about,
                machine_caption(run)
            ),
            value_axis: Axis::linear("total heap bytes"),
            bars: rows
                .iter()
                .map(|r| Bar {
                    label: scenario_label(r, ""),
                    value: r.total_bytes as f64,
                    group: if r.boxed {
                        "boxed message".into()
                    } else {
                        "message by value".into()
                    },
                })
                .collect(),
        }));
        let mut t = Table::new(
            format!("The same scenario in numbers: {}.", s.about),
            &["channel and message", "total", "per channel"],
        );
        for r in rows {
            t.push(vec![
                scenario_label(r, "`"),
                bytes_h(r.total_bytes as f64),
                bytes(r.per_channel().round() as u64),
            ]);
        }
        blocks.push(Block::Table(t));
    }
    blocks
}

fn claim(id: &str) -> &'static Claim {
    CLAIMS
        .iter()
        .find(|c| c.id == id)
        .expect("claim is defined")
}

fn verdicts(run: &Run<AllocData>) -> Vec<Verdict> {
    let d = &run.data;
    let m = run.machine();
    let mut out = Vec::new();

    // ALLOC-1: capacity does not change creation bytes.
    let mut worst = (0, 0u64, 0u64);
    let mut holds = true;
    for &(size, _) in GRID_SIZES {
        let created: Vec<u64> = GRID_CAPACITIES
            .iter()
            .filter_map(|&c| point(d, Channel::TokioBounded, size, c).map(|p| p.footprint.created))
            .collect();
        let (lo, hi) = (
            *created.iter().min().unwrap_or(&0),
            *created.iter().max().unwrap_or(&0),
        );
        if lo != hi {
            holds = false;
            worst = (size, lo, hi);
        }
    }
    out.push(Verdict::new(
        claim("ALLOC-1"),
        m,
        Outcome::from_bool(holds),
        if holds {
            "Creation bytes are the same at every capacity for every message size.".to_string()
        } else {
            format!(
                "At {} B messages creation ranges from {} to {}.",
                worst.0,
                bytes(worst.1),
                bytes(worst.2)
            )
        },
    ));

    // ALLOC-2: the published constants.
    let f = crate::creation_fit(&d.sweep, Channel::TokioBounded);
    let evidence = format!(
        "Fitted a = {:.2}, b = {:.1}, largest miss {}.",
        f.slope,
        f.intercept,
        bytes(f.max_residual.round() as u64)
    );
    out.push(if d.pointer_width != 64 {
        Verdict::not_measured(
            claim("ALLOC-2"),
            format!("{m} is {}-bit. {evidence}", d.pointer_width),
        )
    } else {
        let exact = f.slope == 32.0 && f.intercept == 544.0 && f.max_residual == 0.0;
        Verdict::new(claim("ALLOC-2"), m, Outcome::from_bool(exact), evidence)
    });

    // ALLOC-3: growth starts at message 33.
    let mut holds = true;
    let mut seen = Vec::new();
    for &(size, _) in GRID_SIZES {
        if let Some(p) = point(d, Channel::TokioBounded, size, 1024) {
            let f = p.footprint;
            let ok = f.after_32 == Some(f.created) && f.after_33.is_some_and(|b| b > f.created);
            holds &= ok;
            seen.push(format!(
                "{} B: {} → {} → {}",
                size,
                thousands(f.created),
                opt(f.after_32),
                opt(f.after_33)
            ));
        }
    }
    out.push(Verdict::new(
        claim("ALLOC-3"),
        m,
        Outcome::from_bool(holds && !seen.is_empty()),
        format!(
            "Bytes at creation → 32 queued → 33 queued: {}.",
            seen.join("; ")
        ),
    ));

    // ALLOC-4: futures-channel allocates per message.
    let slots = crate::creation_fit(&d.sweep, Channel::FuturesMpsc).slope;
    // Alignment padding of the stub node puts the fitted slope a hair above 1.
    let mut holds = slots.round() <= 1.0;
    let mut per_message = Vec::new();
    for &(size, _) in GRID_SIZES {
        if let Some(p) = point(d, Channel::FuturesMpsc, size, 1024) {
            let per = (p.footprint.full - p.footprint.created) as f64 / p.footprint.messages as f64;
            holds &= per >= size as f64;
            per_message.push(format!("{size} B → {per:.0} B"));
        }
    }
    out.push(Verdict::new(
        claim("ALLOC-4"),
        m,
        Outcome::from_bool(holds && !per_message.is_empty()),
        format!(
            "Message slots allocated at creation: {slots:.2} (tokio: {:.2}); heap added per queued message: {}.",
            crate::creation_fit(&d.sweep, Channel::TokioBounded).slope,
            per_message.join(", ")
        ),
    ));

    // ALLOC-5 and ALLOC-6: per-channel cost in the scenarios.
    for (id, scenario, target, tolerance) in [
        ("ALLOC-5", "health", 1312.0, 0.05),
        ("ALLOC-6", "requests", 8192.0, 0.10),
    ] {
        let r = d
            .scenarios
            .iter()
            .find(|r| r.scenario == scenario && r.channel == Channel::TokioBounded && !r.boxed);
        out.push(match r {
            None => Verdict::not_measured(claim(id), "no tokio result for this scenario"),
            Some(r) => {
                let per = r.per_channel();
                let off = per / target - 1.0;
                Verdict::new(
                    claim(id),
                    m,
                    Outcome::from_bool(off.abs() <= tolerance),
                    format!(
                        "{} per channel over {} channels ({} from the published figure).",
                        bytes(per.round() as u64),
                        thousands(r.channels as u64),
                        harness::fmt::percent_delta(off)
                    ),
                )
            }
        });
    }
    out
}
