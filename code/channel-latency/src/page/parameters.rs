//! How the experiments were run: the set-up of every profile and of each
//! run beside the schedules the runs recorded (the harness's parameters
//! exhibit), the published runs' set-up beside ours, and what each
//! results file's sampling bought.
use anyhow::Result;
use harness_core::{Profile, Unit};
use harness_page::parameters::{Parameters, Setting};
use harness_page::{render::blocks::Block, render::blocks::Cell, render::blocks::Table, Book, Run};

use super::{machine_of, published, runtime_a, runtime_b, Data};
use channel_latency::{
    backpressure_messages, head_to_head, Carry, Variant, BOUNDS, BURST, CAPACITY, PAYLOAD_SIZES,
    TASKS,
};

/// The instruction counts of a profile, in words.
fn counted(p: Profile) -> String {
    let cases = channel_latency::counted::cases_for(p);
    let mut sizes: Vec<String> = Vec::new();
    for c in &cases {
        let s = format!(
            "{}{}",
            Unit::Size.show(c.bytes as f64),
            if c.carry == "boxed" { " boxed" } else { "" }
        );
        if !sizes.contains(&s) {
            sizes.push(s);
        }
    }
    let mut compared: Vec<String> = Vec::new();
    for c in cases
        .iter()
        .filter(|c| Variant::COMPARED.iter().any(|v| v.id() == c.channel))
    {
        let s = Unit::Size.show(c.bytes as f64);
        if !compared.contains(&s) {
            compared.push(s);
        }
    }
    let mut text = format!("tokio and crossbeam at {}", sizes.join(", "));
    if !compared.is_empty() {
        text.push_str(&format!(
            "; flume (both ends) and async-channel at {}",
            compared.join(", ")
        ));
    }
    text
}

impl Parameters for super::ChannelLatency {
    const ABOUT: &'static str = "Experiment A times bursts through one channel on one thread \
                                 (the sweep by criterion, the head-to-head windows and the other \
                                 ways by hand); experiment B pushes producer tasks against a \
                                 bounded channel.";

    fn per_profile(p: Profile) -> Vec<Setting> {
        let (_, pairs) = channel_latency::methods::windows(p);
        vec![
            Setting::new(
                "A: one burst",
                format!("{BURST} sends, then {BURST} receives, capacity {CAPACITY}"),
            ),
            Setting::new(
                "A: payload sizes",
                PAYLOAD_SIZES.map(|b| b.to_string()).join(", ") + " B",
            ),
            Setting::new(
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
                    channel_latency::COMPARED_SIZES
                        .map(|b| b.to_string())
                        .join(", ")
                        + " B"
                ),
            ),
            Setting::new(
                "A: head to head, bursts of each channel per window",
                Cell::count(head_to_head::PAIRS as u64),
            ),
            Setting::new(
                "A: the other ways, samples of each channel per window",
                format!(
                    "{pairs}; a seed sample is {} bursts up to 4 KiB, 1 above",
                    channel_latency::methods::sample_bursts(8)
                ),
            ),
            Setting::new("A: instructions counted (callgrind)", counted(p)),
            Setting::new(
                "B: messages per point",
                Cell::count(backpressure_messages(p) as u64),
            ),
            Setting::new(
                "B: messages per task",
                TASKS
                    .map(|t| {
                        format!(
                            "{} with {t} tasks",
                            harness_core::fmt::thousands((backpressure_messages(p) / t) as u64)
                        )
                    })
                    .join(", "),
            ),
            Setting::new(
                "B: tasks and bounds",
                format!(
                    "{} tasks x bounds {}",
                    TASKS.map(|t| t.to_string()).join(", "),
                    BOUNDS.map(|b| b.to_string()).join(", ")
                ),
            ),
            Setting::new(
                "B: the ladder, per run",
                format!(
                    "{} messages; sleeping runs pause {} ms",
                    harness_core::fmt::thousands(
                        channel_latency::backpressure_ladder::messages(p) as u64
                    ),
                    channel_latency::backpressure_ladder::pause(p).as_millis()
                ),
            ),
        ]
    }

    fn per_run(run: &Run<Data>) -> Vec<Setting> {
        let d = &run.data;
        vec![
            Setting::new("A: runtime", runtime_a(d)),
            Setting::new("B: runtime", runtime_b(d)),
            Setting::new(
                "A: the other ways, worker threads per core runtime",
                d.methods_setup
                    .as_ref()
                    .map_or(Cell::from("not in this run"), |m| {
                        Cell::count(m.cores as u64)
                    }),
            ),
        ]
    }
}

/// The published runs' set-up beside this book's: what the posts say they
/// ran, where the harness's parameters exhibit has no column for it.
pub(super) fn published_setup(book: &Book<Data>) -> Result<Vec<Block>> {
    let payload = published::payload(book)?;
    let bp = published::backpressure(book)?;
    let mut t = Table::new(
        "The published runs' set-up beside this book's (the parameters table above gives ours per profile).",
        &["", "published", "this book"],
    )
    .left(&[1, 2])
    .settings();
    let grid = TASKS
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
    let row = |what: &str, published: String, ours: &str| {
        vec![Cell::from(what), Cell::Text(published), Cell::from(ours)]
    };
    t.push(row(
        "A: criterion per point",
        payload.description,
        "the sweep's schedule: rounds, samples, warm-up and measurement",
    ));
    t.push(row(
        "A: tokio against crossbeam, head to head",
        "–".into(),
        "the head-to-head schedule: windows of bursts of each channel, alternating",
    ));
    t.push(row(
        "A: the other ways (seed, ladder, runtimes)",
        "criterion (runtime and driver not published)".into(),
        "the other ways' schedule, head to head",
    ));
    t.push(row(
        "B: messages per point",
        bp.description,
        "B: messages per point",
    ));
    t.push(row("B: tasks and bounds", grid, "B: tasks and bounds"));
    t.push(row(
        "B: the ladder",
        "one run of 100,000 messages per task; a 1 s pause".into(),
        "the ladder's schedule and B: the ladder, per run",
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
