//! How the experiments were run: the parameters of every profile beside the
//! published run's, and what each results file's sampling bought.
use anyhow::Result;
use harness::{Block, Book, Cell, Profile, Table, Unit};

use super::{machine_of, published, runtime_a, runtime_b, Data};
use crate::{
    backpressure_messages, head_to_head, head_to_head_windows, sweep_repeats, sweep_sampling,
    Carry, Variant, BOUNDS, BURST, CAPACITY, PAYLOAD_SIZES, TASKS,
};

const PROFILES: [Profile; 3] = [Profile::Smoke, Profile::Quick, Profile::Full];

/// One row: what it is, a cell per profile, and the published run's.
fn row(
    what: impl Into<String>,
    per_profile: impl Fn(Profile) -> Cell,
    published: String,
) -> Vec<Cell> {
    let mut row = vec![Cell::Text(what.into())];
    row.extend(PROFILES.map(per_profile));
    row.push(Cell::Text(published));
    row
}

/// A row whose value is the same in every profile, shown once.
fn same(what: &str, value: String) -> Vec<Cell> {
    vec![
        Cell::from(what),
        Cell::Text(value),
        Cell::from("same"),
        Cell::from("same"),
        Cell::from("same"),
    ]
}

pub(super) fn parameters(book: &Book<Data>) -> Result<Vec<Block>> {
    let run = book.primary();
    let d = &run.data;
    let payload = published::payload(book)?;
    let bp = published::backpressure(book)?;
    let mut t = Table::new(
        format!(
            "Parameters per profile. Experiment A: {}. Experiment B: {} on {}.",
            runtime_a(d),
            runtime_b(d),
            machine_of(run)
        ),
        &["", "smoke", "quick", "full", "published"],
    )
    .left(&[1, 2, 3, 4])
    .settings();
    t.push(same(
        "A: one burst",
        format!("{BURST} sends, then {BURST} receives, capacity {CAPACITY}"),
    ));
    t.push(same(
        "A: payload sizes",
        PAYLOAD_SIZES.map(|b| b.to_string()).join(", ") + " B",
    ));
    t.push(same(
        "A: channels and payload kinds",
        format!(
            "{}: [u8; N]; {}: also Box<[u8; N]>; {} at {} only",
            Variant::ALL.map(|v| v.label()).join(", "),
            Variant::ALL
                .iter()
                .filter(|v| v.carries().contains(&Carry::Boxed))
                .map(|v| v.label())
                .collect::<Vec<_>>()
                .join(" and "),
            Variant::COMPARED.map(|v| v.label()).join(", "),
            crate::COMPARED_SIZES.map(|b| b.to_string()).join(", ") + " B"
        ),
    ));
    t.push(row(
        "A: criterion per point",
        |p| {
            let s = sweep_sampling(p);
            Cell::Text(format!(
                "{} × ({} samples, {} ms warm-up, {} ms measuring), interleaved",
                sweep_repeats(p),
                s.samples,
                s.warm_up.as_millis(),
                s.measurement.as_millis()
            ))
        },
        payload.description,
    ));
    t.push(row(
        "A: tokio against crossbeam, head to head",
        |p| {
            Cell::Text(format!(
                "{} windows × {} bursts of each channel, alternating",
                head_to_head_windows(p),
                head_to_head::PAIRS
            ))
        },
        "–".into(),
    ));
    t.push(row(
        "A: the other ways (seed, ladder, runtimes), head to head",
        |p| {
            let (windows, pairs) = crate::methods::windows(p);
            Cell::Text(format!(
                "{windows} windows × {pairs} samples of each channel; a seed sample is {} bursts up to 4 KiB, 1 above",
                crate::methods::sample_bursts(8)
            ))
        },
        "criterion (runtime and driver not published)".into(),
    ));
    t.push(row(
        "A: instructions counted (callgrind)",
        |p| {
            let cases = crate::counted::cases_for(p);
            let mut sizes: Vec<String> = Vec::new();
            for c in cases {
                let s = format!(
                    "{}{}",
                    harness::Unit::Size.show(c.bytes as f64),
                    if c.carry == "boxed" { " boxed" } else { "" }
                );
                if !sizes.contains(&s) {
                    sizes.push(s);
                }
            }
            let compared: Vec<String> = crate::counted::cases_for(p)
                .iter()
                .filter(|c| crate::Variant::COMPARED.iter().any(|v| v.id() == c.channel))
                .map(|c| harness::Unit::Size.show(c.bytes as f64))
                .fold(Vec::new(), |mut acc, s| {
                    if !acc.contains(&s) {
                        acc.push(s);
                    }
                    acc
                });
            let mut text = format!("tokio and crossbeam at {}", sizes.join(", "));
            if !compared.is_empty() {
                text.push_str(&format!(
                    "; flume (both ends) and async-channel at {}",
                    compared.join(", ")
                ));
            }
            Cell::Text(text)
        },
        "–".into(),
    ));
    t.push(row(
        "B: messages per point",
        |p| Cell::count(backpressure_messages(p) as u64),
        bp.description,
    ));
    for tasks in TASKS {
        t.push(row(
            format!("B: messages per task, {tasks} tasks"),
            |p| Cell::count((backpressure_messages(p) / tasks) as u64),
            "see above".into(),
        ));
    }
    let published_grid = TASKS
        .iter()
        .map(|&tasks| {
            let bounds: Vec<String> = bp
                .rows
                .iter()
                .filter(|r| r.tasks == tasks)
                .map(|r| r.bound.to_string())
                .collect();
            let bounds = if bounds.is_empty() {
                "none".to_string()
            } else {
                bounds.join(", ")
            };
            format!("{tasks} tasks: {bounds}")
        })
        .collect::<Vec<_>>()
        .join("; ");
    let mut grid = same(
        "B: tasks and bounds",
        format!(
            "{} tasks x bounds {}",
            TASKS.map(|t| t.to_string()).join(", "),
            BOUNDS.map(|b| b.to_string()).join(", ")
        ),
    );
    grid[4] = Cell::Text(published_grid);
    t.push(grid);
    t.push(row(
        "B: the ladder, per rung, channel and setting",
        |p| {
            Cell::Text(format!(
                "{} runs of {} messages; sleeping runs pause {} ms",
                crate::backpressure_ladder::REPEATS,
                harness::fmt::thousands(crate::backpressure_ladder::messages(p) as u64),
                crate::backpressure_ladder::pause(p).as_millis()
            ))
        },
        "one run of 100,000 messages per task; a 1 s pause".into(),
    ));
    Ok(vec![Block::Table(t)])
}

pub(super) fn sampling(book: &Book<Data>) -> Result<Vec<Block>> {
    let mut t = Table::new(
        format!(
            "What each results file's sampling bought in experiment A: the half-width of criterion's 95 % interval on the median, relative to the median, over all {} points; and the whole run's wall time. The published run: {}.",
            Variant::points_per_pass() + PAYLOAD_SIZES.len(),
            published::payload(book)?.description
        ),
        &[
            "machine",
            "profile",
            "criterion per point",
            "median half-width",
            "90th percentile",
            "widest",
            "wall time (A and B)",
        ],
    )
    .left(&[0, 1, 2])
    .settings();
    for run in &book.runs {
        let d = &run.data;
        let mut widths: Vec<f64> = d
            .points
            .iter()
            .map(|p| &p.timing)
            .chain(d.memcpy.iter().map(|m| &m.timing))
            .map(|t| t.median.relative_half_width())
            .collect();
        widths.sort_by(f64::total_cmp);
        let at = |q: f64| {
            Cell::Number(
                widths[((widths.len() - 1) as f64 * q).round() as usize],
                Unit::Share,
            )
        };
        t.push(vec![
            Cell::Text(machine_of(run)),
            Cell::Text(run.provenance.profile.to_string()),
            Cell::Text(format!(
                "{} × ({} samples, {} ms warm-up, {} ms measuring)",
                d.sweep.repeats, d.sweep.samples, d.sweep.warm_up_ms, d.sweep.measurement_ms
            )),
            at(0.5),
            at(0.9),
            at(1.0),
            Cell::nanos(run.provenance.wall_time_s * 1e9),
        ]);
    }
    Ok(vec![Block::Table(t)])
}
