//! The `releases` exhibit: each claim's verdict at every release measured,
//! one row per release, and what each published dataset says of the
//! releases that were current when its post came out.
use std::collections::BTreeMap;
use std::path::PathBuf;

use anyhow::Result;

use super::{gap_notes, load_variants, outcomes, replicate_runs, version_key, Variant};
use crate::chapter::{Book, Run};
use crate::page::Page;
use crate::render::blocks::{Align, Block, Cell, Table};
use crate::render::escape_markdown;
use harness_core::claims::Outcome;
use harness_core::results::published::Dataset;
use harness_core::results::Store;

/// The published datasets of a chapter (`published-*.json` beside the
/// committed results), in name order.
fn datasets(chapter: &str) -> Result<Vec<Dataset>> {
    let dir = Store::new(Store::committed()).chapter_dir(chapter);
    let mut paths: Vec<PathBuf> = match std::fs::read_dir(&dir) {
        Ok(entries) => entries
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| {
                p.file_name()
                    .and_then(|n| n.to_str())
                    .is_some_and(|n| n.starts_with("published-") && n.ends_with(".json"))
            })
            .collect(),
        Err(_) => Vec::new(),
    };
    paths.sort();
    paths.iter().map(|p| Dataset::load(p)).collect()
}

/// The built-in `releases` exhibit: each claim's verdict at every release
/// measured (the committed lock's and every variant in `releases/`), one row
/// per release, consecutive releases with the same verdicts merged into one
/// row, and the release that was current when each post was published.
pub fn exhibit<C: Page>(book: &Book<C::Data>) -> Result<Vec<Block>> {
    let variants = load_variants::<C>(&book.store)?;
    // The crates the variants differ in (tokio first); with no variant yet,
    // tokio (or the first crate measured).
    let mut varied: Vec<String> = Vec::new();
    for name in variants.iter().flat_map(|v| v.asked.keys()) {
        if !varied.contains(name) {
            varied.push(name.clone());
        }
    }
    varied.sort_by_key(|c| {
        (
            c != "tokio",
            <C::Experiment as harness_measure::Experiment>::MEASURED_CRATES
                .iter()
                .position(|m| m == c),
        )
    });
    if varied.is_empty() {
        let default = <C::Experiment as harness_measure::Experiment>::MEASURED_CRATES
            .iter()
            .find(|c| **c == "tokio")
            .or(<C::Experiment as harness_measure::Experiment>::MEASURED_CRATES.first());
        varied.extend(default.map(|c| c.to_string()));
    }
    // The first replicate run joins the table when a variant was measured
    // at its profile and no committed run was: the current release at the
    // variants' profile, like for like.
    let replicates = replicate_runs::<C>(&book.store)?;
    let committed: Vec<&Run<C::Data>> = book.runs.iter().filter(|r| !r.ephemeral).collect();
    let partners = replicates.iter().filter(|rep| {
        let like = |r: &&Run<C::Data>| {
            r.machine() == rep.machine() && r.provenance.profile == rep.provenance.profile
        };
        variants.iter().any(|v| like(&&v.run)) && !committed.iter().any(like)
    });
    let lock_label = |run: &Run<C::Data>| -> String {
        let at: Vec<String> = <C::Experiment as harness_measure::Experiment>::MEASURED_CRATES
            .iter()
            .filter_map(|c| Some(format!("{c} {}", run.provenance.crates.get(*c)?)))
            .collect();
        at.join(", ")
    };
    let mut rows: Vec<Row<'_, C::Data>> = Vec::new();
    // With no committed results the page runs on a smoke run made while
    // building it; its row says so, and the table is never empty.
    let shown: Vec<&Run<C::Data>> = if committed.is_empty() {
        book.runs.iter().collect()
    } else {
        committed.clone()
    };
    for run in shown {
        rows.push(Row::new(run, Column::Committed, None, String::new()));
    }
    for run in partners {
        rows.push(Row::new(run, Column::Replicate, None, String::new()));
    }
    // Variants grouped by the crate they vary (tokio first), oldest first.
    let mut by_crate: Vec<Row<'_, C::Data>> = Vec::new();
    for Variant { run, asked } in &variants {
        let Some(krate) = varied.iter().find(|c| asked.contains_key(*c)) else {
            continue;
        };
        let version = asked[krate].clone();
        let mut row = Row::new(run, Column::Variant, Some(krate.clone()), version);
        if asked.len() > 1 {
            row.also = asked
                .iter()
                .filter(|(c, _)| *c != krate)
                .map(|(c, v)| format!("{c} {v}"))
                .collect::<Vec<_>>()
                .join(", ");
        }
        by_crate.push(row);
    }
    by_crate.sort_by_key(|r| {
        (
            varied.iter().position(|c| Some(c) == r.krate.as_ref()),
            r.run.machine().to_string(),
            version_key(&r.first),
        )
    });
    rows.extend(by_crate);
    for row in &mut rows {
        row.outcomes = outcomes(row.run)?;
    }
    // Every run measured, before merging, for the notes below.
    let measured: Vec<&Run<C::Data>> = rows.iter().map(|r| r.run).collect();
    let rows = merge_alike(rows);
    let machines: std::collections::BTreeSet<&str> = rows.iter().map(|r| r.run.machine()).collect();
    let mut header = vec!["Release".to_string()];
    if machines.len() > 1 {
        header.push("Machine".into());
    }
    header.push("Profile".into());
    // Where a run's cores drifted apart past its gate budget, a verdict can
    // move with the distance rather than the release: shown, not guessed.
    let gated = rows.iter().any(|r| r.beyond.is_some());
    if gated {
        header.push("Timed beyond the gate".into());
    }
    header.extend(C::CLAIMS.iter().map(|c| format!("**{}**", c.id)));
    let table_rows: Vec<Vec<Cell>> = rows
        .iter()
        .map(|r| {
            let mut label = match (&r.krate, r.column) {
                (Some(k), _) if r.count > 1 => format!(
                    "{k} {} to {} ({} releases)",
                    escape_markdown(&r.first),
                    escape_markdown(&r.last),
                    r.count
                ),
                (Some(k), _) => format!("{k} {}", escape_markdown(&r.first)),
                (None, Column::Replicate) => format!(
                    "committed lock, replicate a ({})",
                    escape_markdown(&lock_label(r.run))
                ),
                (None, _) if r.run.ephemeral => format!(
                    "committed lock, measured while building this page ({})",
                    escape_markdown(&lock_label(r.run))
                ),
                (None, _) => format!("committed lock ({})", escape_markdown(&lock_label(r.run))),
            };
            if !r.also.is_empty() {
                label.push_str(&format!(" with {}", escape_markdown(&r.also)));
            }
            if r.run.stale {
                label.push_str(" (stale)");
            }
            let mut cells = vec![Cell::Text(label)];
            if machines.len() > 1 {
                cells.push(Cell::Text(escape_markdown(r.run.machine())));
            }
            cells.push(Cell::Text(r.run.provenance.profile.to_string()));
            if gated {
                cells.push(Cell::Text(match r.beyond {
                    Some((0, _)) => "none".into(),
                    Some((n, of)) => format!("{n} of {of}"),
                    None => "no gate".into(),
                }));
            }
            cells.extend(C::CLAIMS.iter().map(|claim| {
                Cell::Text(
                    r.outcomes
                        .get(claim.id)
                        .map_or("no verdict", |outcome| outcome.label())
                        .to_string(),
                )
            }));
            cells
        })
        .collect();
    let mut blocks = Vec::new();
    if !C::CLAIMS.is_empty() {
        let width = table_rows.first().map_or(0, Vec::len);
        blocks.push(Block::Table(Table {
            caption: format!(
                "Each claim's verdict at every release of {} this chapter was measured \
                 against, one row per release: the committed lock's, and every variant \
                 measured with scripts/fresh {} --with CRATE@VERSION (beside variants \
                 measured at the quick profile, the committed lock's quick replicate run, so \
                 that like is compared with like). Consecutive releases with the same \
                 verdicts share a row. A variant's other packages are what cargo resolves \
                 around the release asked for.{}",
                varied.join(", "),
                C::NAME,
                if gated {
                    " Timed beyond the gate: the run's timings that started or ended with \
                     the two cores farther apart than the machine's gate (a wait gave up, or \
                     the run's budget for waiting was spent); a verdict that differs only in a \
                     row with many may be the cores' distance rather than the release."
                } else {
                    ""
                }
            ),
            align: vec![Align::Left; width],
            header,
            rows: table_rows,
            settings: true,
        }));
    }
    let crates: Vec<&BTreeMap<String, String>> =
        measured.iter().map(|r| &r.provenance.crates).collect();
    let mut notes = gap_notes(
        <C::Experiment as harness_measure::Experiment>::RELEASE_GAPS,
        &crates,
    );
    for ds in datasets(C::NAME)? {
        if let Some(note) = dataset_note(C::NAME, &ds, &measured) {
            notes.push(note);
        }
    }
    if variants.is_empty() {
        notes.push(format!(
            "No other release has been measured on these machines yet: `scripts/fresh {} --with \
             {}@VERSION` adds one.",
            C::NAME,
            varied.first().map_or("CRATE", String::as_str)
        ));
    }
    for note in notes {
        blocks.push(Block::Text(note));
    }
    Ok(blocks)
}

/// Where a column of the releases table comes from, in the order columns
/// of one release are shown.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Column {
    /// The machine's run at the committed lock.
    Committed,
    /// The first replicate run at the committed lock, shown beside variants
    /// measured at its profile.
    Replicate,
    /// A run at other releases (`scripts/fresh --with`).
    Variant,
}

/// One row of the releases table: a run, or consecutive variants of one
/// crate with the same verdicts (`count` > 1, `first` to `last`).
struct Row<'a, D> {
    run: &'a Run<D>,
    column: Column,
    /// The crate the variant varies; `None` for the committed lock's runs.
    krate: Option<String>,
    first: String,
    last: String,
    count: usize,
    /// Other crates the variant asked for, as "kanal 0.1.0".
    also: String,
    outcomes: BTreeMap<String, Outcome>,
    /// Timings kept beyond the core gate, and timings, over the row's runs;
    /// `None` when a run had no gate (none given, or nothing timed).
    beyond: Option<(usize, usize)>,
}

impl<'a, D> Row<'a, D> {
    fn new(run: &'a Run<D>, column: Column, krate: Option<String>, version: String) -> Self {
        Row {
            run,
            column,
            krate,
            last: version.clone(),
            first: version,
            count: 1,
            also: String::new(),
            outcomes: BTreeMap::new(),
            beyond: run
                .provenance
                .cores_apart
                .as_ref()
                .map(|c| (c.beyond_gate, c.timings)),
        }
    }
}

/// Merges consecutive variant rows of one crate, machine and profile whose
/// verdicts are all the same (and none of them stale, asking for more than
/// one crate, or gated where the other is not): "tokio 1.12.0 to 1.29.1
/// (10 releases)".
fn merge_alike<D>(rows: Vec<Row<'_, D>>) -> Vec<Row<'_, D>> {
    let mut out: Vec<Row<'_, D>> = Vec::new();
    for row in rows {
        if let Some(prev) = out.last_mut() {
            let alike = prev.column == Column::Variant
                && row.column == Column::Variant
                && prev.krate == row.krate
                && prev.run.machine() == row.run.machine()
                && prev.run.provenance.profile == row.run.provenance.profile
                && !prev.run.stale
                && !row.run.stale
                && prev.also.is_empty()
                && row.also.is_empty()
                && prev.outcomes == row.outcomes
                && prev.beyond.is_some() == row.beyond.is_some();
            if alike {
                prev.last = row.last;
                prev.count += 1;
                // Both gated or both not (above): the counts add up.
                prev.beyond = prev
                    .beyond
                    .zip(row.beyond)
                    .map(|(a, b)| (a.0 + b.0, a.1 + b.1));
                continue;
            }
        }
        out.push(row);
    }
    out
}

/// When a post was published and which releases were current then, as
/// its dataset records, and whether a run here measured those releases.
/// `None` for a dataset that records neither.
pub(super) fn dataset_note<D>(chapter: &str, ds: &Dataset, runs: &[&Run<D>]) -> Option<String> {
    let then = &ds.source.releases_then;
    let how = ds.source.releases_how.as_deref().map(escape_markdown);
    let releases: Vec<String> = then
        .iter()
        .map(|(c, v)| format!("{} {}", escape_markdown(c), escape_markdown(v)))
        .collect();
    let mut note = match (&ds.source.published, then.is_empty()) {
        (None, _) if how.is_none() => return None,
        (Some(date), true) => format!(
            "{} was published on {}.",
            ds.citation(),
            escape_markdown(date)
        ),
        (Some(date), false) => format!(
            "{} was published on {}, when {} {} current.",
            ds.citation(),
            escape_markdown(date),
            releases.join(" and "),
            if releases.len() == 1 { "was" } else { "were" }
        ),
        (None, true) => format!(
            "{} has no date we could establish, so no release of its time can be named.",
            ds.citation()
        ),
        (None, false) => format!(
            "{} has no exact date; {} stands for the releases of its time.",
            ds.citation(),
            releases.join(" and ")
        ),
    };
    if let Some(how) = how {
        note.push_str(&format!(" How we know: {how}"));
        if !note.ends_with('.') {
            note.push('.');
        }
    }
    if then.is_empty() {
        return Some(note);
    }
    // The run that matches most of those releases, and what it left out.
    let matched = |run: &Run<D>| {
        then.iter()
            .filter(|(c, v)| run.provenance.crates.get(*c) == Some(*v))
            .count()
    };
    let best = runs.iter().map(|r| matched(r)).max().unwrap_or(0);
    if best == then.len() {
        note.push_str(" The chapter is measured at those releases in the table above.");
    } else if best > 0 {
        let run = runs.iter().find(|r| matched(r) == best)?;
        let (at, not): (Vec<_>, Vec<_>) = then
            .iter()
            .partition(|(c, v)| run.provenance.crates.get(*c) == Some(*v));
        let list = |v: &[(&String, &String)]| {
            v.iter()
                .map(|(c, v)| format!("{} {}", escape_markdown(c), escape_markdown(v)))
                .collect::<Vec<_>>()
                .join(" and ")
        };
        note.push_str(&format!(
            " The chapter is measured at {} (in the table above), not at {}: with the \
             workspace's requirements cargo resolves {} as the run's provenance records.",
            list(&at),
            list(&not),
            not.iter()
                .map(|(c, _)| escape_markdown(c))
                .collect::<Vec<_>>()
                .join(" and ")
        ));
    } else {
        note.push_str(&format!(
            " Not measured at that release on these machines yet: `scripts/fresh {chapter} \
             --with {}`.",
            then.iter()
                .map(|(c, v)| format!("{c}@{v}"))
                .collect::<Vec<_>>()
                .join(" --with ")
        ));
    }
    Some(note)
}
