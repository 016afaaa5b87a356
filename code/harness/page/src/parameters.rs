//! The parameters exhibit the harness draws for a chapter that schedules
//! its timings through `harness_measure::schedule`: the chapter's set-up
//! (named values with units, [`Parameters`]), and each schedule (rounds,
//! extra rounds and where they go, rigs, sampling) per profile from the
//! code and per run from its record, with the points each run timed.
//!
//! A chapter shows it by listing [`exhibit`] among its exhibits (its page
//! asks for it as `parameters`); a chapter that keeps an exhibit of its own
//! under that name does not list it, so the two never meet.
use anyhow::{bail, Result};
use serde_json::Value;

use harness_core::escape::escape;
use harness_core::profile::Profile;
use harness_measure::schedule::{RecordedPoint, RecordedSchedule};
use harness_measure::Experiment;

use crate::chapter::{Book, Exhibit, ExhibitKind, Run};
use crate::page::Page;
use crate::render::blocks::{Block, Cell, Table};

/// One named value of a chapter's set-up: a setting from its code, or a
/// value its run detected or measured, in a cell that carries its unit.
/// The name is the chapter's words (markdown allowed); text from a results
/// file in `value` is the chapter's to escape.
#[derive(Clone, Debug, PartialEq)]
pub struct Setting {
    pub name: String,
    pub value: Cell,
}

impl Setting {
    pub fn new(name: impl Into<String>, value: impl Into<Cell>) -> Self {
        Setting {
            name: name.into(),
            value: value.into(),
        }
    }
}

/// What a chapter adds to the built-in parameters exhibit: its set-up,
/// beside the schedules its experiment gives (`Experiment::schedules`).
/// Implemented by the chapter's page (the binary's), so its words can
/// change without touching what the fingerprint covers.
pub trait Parameters: Page {
    /// The first words of the caption of the table of profiles.
    const ABOUT: &'static str = "";
    /// The set-up of `profile`, from the code: the same names, in the same
    /// order, for every profile.
    fn per_profile(_profile: Profile) -> Vec<Setting> {
        Vec::new()
    }
    /// The set-up `run` was measured with (detected, measured): the same
    /// names, in the same order, for every run.
    fn per_run(_run: &Run<Self::Data>) -> Vec<Setting> {
        Vec::new()
    }
}

/// The exhibit, for a chapter's list of exhibits.
pub const fn exhibit<C: Parameters>() -> Exhibit<C::Data> {
    Exhibit {
        name: "parameters",
        kind: ExhibitKind::Table,
        about: "the set-up and the schedule of timings per profile, and each run's as it \
                recorded them, with every point it timed",
        render: render::<C>,
    }
}

/// The exhibit's tables: profiles (from the code), runs (as recorded),
/// then the points of each distinct recorded schedule.
pub fn render<C: Parameters>(book: &Book<C::Data>) -> Result<Vec<Block>> {
    let mut blocks = vec![Block::Table(profiles::<C>()?)];
    if book.runs.is_empty() {
        return Ok(blocks);
    }
    let recorded: Vec<Vec<RecordedSchedule>> = book
        .runs
        .iter()
        .map(|run| {
            <C::Experiment as Experiment>::schedules(run.provenance.profile, Some(&run.data))
        })
        .collect();
    blocks.push(Block::Table(runs::<C>(book, &recorded)?));
    // One table of points per schedule the runs recorded alike.
    let mut shown: Vec<(&RecordedSchedule, Vec<&str>)> = Vec::new();
    for (run, schedules) in book.runs.iter().zip(&recorded) {
        for s in schedules {
            match shown.iter_mut().find(|(t, _)| *t == s) {
                Some((_, machines)) => machines.push(run.machine()),
                None => shown.push((s, vec![run.machine()])),
            }
        }
    }
    for (s, machines) in shown {
        blocks.push(Block::Table(points(s, &machines)));
    }
    Ok(blocks)
}

fn profiles<C: Parameters>() -> Result<Table> {
    let header: Vec<String> = std::iter::once("Setting".to_string())
        .chain(Profile::ALL.iter().map(|p| p.to_string()))
        .collect();
    let columns: Vec<Vec<Setting>> = Profile::ALL
        .iter()
        .map(|&p| {
            let mut col = C::per_profile(p);
            col.extend(schedule_rows(
                &<C::Experiment as Experiment>::schedules(p, None),
                None,
            ));
            col
        })
        .collect();
    let caption = format!(
        "{}Per profile, from the code (smoke runs only in tests): the set-up, and the schedule \
         of timings (every timing is one run of one point: by criterion, or by the chapter's \
         own clock where the sampling says \"by hand\").",
        lead(C::ABOUT)
    );
    table(&caption, &header, &columns)
}

fn runs<C: Parameters>(book: &Book<C::Data>, recorded: &[Vec<RecordedSchedule>]) -> Result<Table> {
    let header: Vec<String> = std::iter::once("Setting".to_string())
        .chain(
            book.runs
                .iter()
                .map(|r| format!("{} ({})", escape(r.machine()), r.provenance.profile)),
        )
        .collect();
    let columns: Vec<Vec<Setting>> = book
        .runs
        .iter()
        .zip(recorded)
        .map(|(run, schedules)| {
            let mut col = C::per_run(run);
            col.extend(schedule_rows(schedules, Some(escape)));
            col
        })
        .collect();
    table(
        "Per machine: the set-up each run was measured with, as detected or measured, and the \
         schedule it followed, as its results file records it (a file older than the record \
         shows the code's plan for its profile).",
        &header,
        &columns,
    )
}

/// A table of settings, one column per profile or run: every column must
/// name the same settings in the same order.
fn table(caption: &str, header: &[String], columns: &[Vec<Setting>]) -> Result<Table> {
    let names: Vec<&str> = columns
        .first()
        .map(|c| c.iter().map(|s| s.name.as_str()).collect())
        .unwrap_or_default();
    for (c, col) in columns.iter().enumerate() {
        let these: Vec<&str> = col.iter().map(|s| s.name.as_str()).collect();
        if these != names {
            bail!(
                "the parameters exhibit's column {:?} lists the settings {these:?}, the first \
                 column {names:?}: every column must list the same, in the same order",
                header[c + 1]
            );
        }
    }
    let header: Vec<&str> = header.iter().map(String::as_str).collect();
    let mut t = Table::new(caption, &header).settings();
    for (i, name) in names.iter().enumerate() {
        let mut row = vec![Cell::from(*name)];
        row.extend(columns.iter().map(|col| col[i].value.clone()));
        t.push(row);
    }
    Ok(t)
}

/// The rows a list of schedules adds to a column: named by the schedule
/// when there are several (`escape` for names read from a results file).
fn schedule_rows(
    schedules: &[RecordedSchedule],
    escape: Option<fn(&str) -> String>,
) -> Vec<Setting> {
    let mut rows = Vec::new();
    for s in schedules {
        let prefix = if schedules.len() > 1 {
            let name = escape.map_or_else(|| s.name.clone(), |e| e(&s.name));
            format!("{name}: ")
        } else {
            String::new()
        };
        let row = |what: &str, value: Cell| Setting::new(format!("{prefix}{what}"), value);
        rows.push(row("Points", Cell::count(s.points.len() as u64)));
        rows.push(row("Rounds", Cell::count(s.rounds as u64)));
        rows.push(row("Extra rounds", Cell::from(extras(s))));
        rows.push(row("Rig", Cell::from(s.rig.describe())));
        rows.push(row(
            "Criterion samples per timing",
            same(
                &s.points,
                |p| p.samples.map(|v| v as f64),
                |v| Cell::count(v as u64),
            ),
        ));
        rows.push(row(
            "Warm-up",
            same(&s.points, |p| p.warm_up_ns.map(|v| v as f64), Cell::nanos),
        ));
        rows.push(row(
            "Measurement",
            same(
                &s.points,
                |p| p.measurement_ns.map(|v| v as f64),
                Cell::nanos,
            ),
        ));
        rows.push(row("Timings", Cell::count(s.steps as u64)));
    }
    rows
}

/// "21 more for 16 deciding points, after the regular rounds (24 in
/// all)", one sentence per kind of extra rounds; "none".
fn extras(s: &RecordedSchedule) -> String {
    if s.extras.is_empty() {
        return "none".into();
    }
    s.extras
        .iter()
        .map(|e| {
            let points = if e.points == 1 {
                "1 deciding point".to_string()
            } else {
                format!("{} deciding points", e.points)
            };
            let all = match e.place {
                harness_measure::schedule::Place::AtEnd => {
                    format!(" ({} in all)", s.rounds + e.rounds)
                }
                _ => String::new(),
            };
            format!(
                "{} more for {points}, {}{all}",
                e.rounds,
                e.place.describe()
            )
        })
        .collect::<Vec<_>>()
        .join("; ")
}

/// One value if every point has the same, else the range as words; "by
/// hand" when no point was timed by criterion, and ", the rest by hand"
/// after the value or range of those that were, when some were not.
fn same(
    points: &[RecordedPoint],
    of: impl Fn(&RecordedPoint) -> Option<f64>,
    cell: fn(f64) -> Cell,
) -> Cell {
    let values: Vec<f64> = points.iter().filter_map(of).collect();
    if points.is_empty() {
        return Cell::from("no points");
    }
    if values.is_empty() {
        return Cell::from(BY_HAND);
    }
    let (lo, hi) = values
        .iter()
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), &v| {
            (lo.min(v), hi.max(v))
        });
    let rest = if values.len() < points.len() {
        format!(", the rest {BY_HAND}")
    } else {
        String::new()
    };
    if lo == hi && rest.is_empty() {
        cell(lo)
    } else if lo == hi {
        Cell::from(format!("{}{rest}", cell(lo).markdown()))
    } else {
        Cell::from(format!(
            "{} to {}{rest}",
            cell(lo).markdown(),
            cell(hi).markdown()
        ))
    }
}

/// What a point timed without criterion shows for criterion's sampling.
const BY_HAND: &str = "by hand";

/// A point's sampling cell: the value, or "by hand" (no criterion).
fn sampled<T: Copy>(v: Option<T>, cell: impl Fn(T) -> Cell) -> Cell {
    v.map_or_else(|| Cell::from(BY_HAND), cell)
}

/// Every point of one recorded schedule, in the order of its first timing.
fn points(s: &RecordedSchedule, machines: &[&str]) -> Table {
    let fields: Vec<String> = s.fields.iter().map(|f| capitalised(&escape(f))).collect();
    let mut header: Vec<&str> = fields.iter().map(String::as_str).collect();
    header.extend([
        "Samples",
        "Warm-up",
        "Measurement",
        "Rounds",
        "Extra rounds",
        "Deciding",
    ]);
    let machines: Vec<String> = machines.iter().map(|m| escape(m)).collect();
    // Words read from the left, numbers from the right.
    let words: Vec<usize> = (0..fields.len())
        .filter(|&i| !s.points.iter().all(|p| p.key[i].is_u64()))
        .collect();
    let mut t = Table::new(
        format!(
            "Every point of the schedule {:?} as {} timed it, in the order of its first timing: \
             criterion's samples, warm-up and measurement for each timing (\"by hand\": the \
             chapter's own clock, no criterion), the rounds it was \
             timed in and the extra rounds of a point a claim is decided on.",
            escape(&s.name),
            machines.join(", ")
        ),
        &header,
    )
    .left(&words)
    .settings();
    for p in &s.points {
        let mut row: Vec<Cell> = p.key.iter().map(key_cell).collect();
        row.extend([
            sampled(p.samples, |v| Cell::count(v as u64)),
            sampled(p.warm_up_ns, |v| Cell::nanos(v as f64)),
            sampled(p.measurement_ns, |v| Cell::nanos(v as f64)),
            Cell::count(p.timings as u64),
            Cell::count(p.extra_timings as u64),
            Cell::from(if p.deciding { "yes" } else { "" }),
        ]);
        t.push(row);
    }
    t
}

/// A key's field as a cell: a whole number as a count, anything else as
/// escaped words.
fn key_cell(v: &Value) -> Cell {
    match v {
        Value::Number(n) if n.as_u64().is_some() => Cell::count(n.as_u64().unwrap_or(0)),
        Value::String(s) => Cell::from(escape(s)),
        other => Cell::from(escape(&other.to_string())),
    }
}

fn capitalised(s: &str) -> String {
    let mut c = s.chars();
    c.next()
        .map(|f| f.to_uppercase().chain(c).collect())
        .unwrap_or_default()
}

/// A chapter's words ahead of a caption, as a sentence of their own.
fn lead(about: &str) -> String {
    if about.is_empty() {
        String::new()
    } else {
        format!("{} ", about.trim_end())
    }
}

#[cfg(test)]
mod tests;
