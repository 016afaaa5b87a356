//! Claims over time: a chapter measured against other releases of the crates
//! it measures, and its verdicts per release.
//!
//! `scripts/fresh <chapter> --with tokio@1.37.0` copies `code/` into
//! `code/target/releases/`, resolves the asked-for releases there with
//! `cargo update --precise` (the committed lock is never touched), builds
//! and measures in that copy into a scratch folder, and hands the file to
//! [`adopt`] (`harness adopt-release`). `adopt` checks that the copy
//! measured exactly the releases asked for, marks the file as a release
//! variant ([`Release`]) and writes it to `<chapter>/releases/`, never in
//! place of the machine's own run. A variant is stale only when the
//! chapter's code changes ([`fingerprint::code_fingerprint`]), not when the
//! committed lock moves on. The built-in `releases` exhibit ([`exhibit`])
//! puts each claim's verdict at every release measured side by side.
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use anyhow::{bail, ensure, Context, Result};

use crate::chapter::{Book, Chapter, Run};
use crate::claims::{Outcome, Verdict};
use crate::fingerprint::{code_fingerprint, fingerprint, locked_versions};
use crate::measure::profile::Profile;
use crate::published::Dataset;
use crate::render::blocks::{Align, Block, Cell, Table};
use crate::render::escape_markdown;
use crate::results::{read_results, Release, Store};

/// A crate's name as the registry allows it: ASCII letters, digits, `-`, `_`.
pub fn is_crate_name(s: &str) -> bool {
    !s.is_empty()
        && s.len() <= 64
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
}

/// A full version (`1.37.0`, `0.1.0-pre8`): three numbers, then an
/// optional pre-release or build tag of letters, digits, `.`, `-`, `+`.
pub fn is_version(s: &str) -> bool {
    let core = s.split(['-', '+']).next().unwrap_or("");
    let parts: Vec<&str> = core.split('.').collect();
    s.len() <= 64
        && parts.len() == 3
        && parts
            .iter()
            .all(|p| !p.is_empty() && p.chars().all(|c| c.is_ascii_digit()))
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || ".-+".contains(c))
}

/// `tokio@1.37.0` as (`tokio`, `1.37.0`), or an error naming the argument.
pub fn parse_with(arg: &str) -> Result<(String, String)> {
    match arg.split_once('@') {
        Some((name, version)) if is_crate_name(name) && is_version(version) => {
            Ok((name.to_string(), version.to_string()))
        }
        _ => bail!("--with {arg:?}: expected CRATE@VERSION with a full version, e.g. tokio@1.37.0"),
    }
}

/// Marks the results file `file`, measured in the workspace copy `ws` with
/// the releases `asked` resolved, as a release variant and writes it into
/// `store`'s `<chapter>/releases/`. Refuses, writing nothing, a file the
/// copy's code did not make or one that measured other releases than asked.
pub fn adopt(
    store: &Store,
    file: &Path,
    asked: &BTreeMap<String, String>,
    ws: &Path,
) -> Result<PathBuf> {
    ensure!(
        !asked.is_empty(),
        "no release asked for (--with CRATE@VERSION)"
    );
    let text =
        std::fs::read_to_string(file).with_context(|| format!("cannot read {}", file.display()))?;
    let chapter = serde_json::from_str::<serde_json::Value>(&text)
        .ok()
        .and_then(|v| v.get("chapter")?.as_str().map(str::to_string))
        .with_context(|| format!("{} names no chapter", file.display()))?;
    crate::registry::find(&chapter)
        .with_context(|| format!("{}: chapter {chapter:?}", file.display()))?;
    let mut results = read_results::<serde_json::Value>(file, &chapter)?;
    let profile = results.provenance.profile;
    ensure!(
        !(profile == Profile::Smoke && store.is_committed()),
        "{} is a smoke run, which is never published: measure the release with the quick or \
         full profile",
        file.display()
    );
    let names: Vec<&str> = asked.keys().map(String::as_str).collect();
    let locked = locked_versions(ws, &names)?;
    for (name, version) in asked {
        let in_lock = &locked[name];
        ensure!(
            in_lock == version,
            "{name} {version} was asked for, but the workspace copy {} locks {name} {in_lock}: \
             nothing written",
            ws.display()
        );
        if let Some(measured) = results.provenance.crates.get(name) {
            ensure!(
                measured == version,
                "{name} {version} was asked for, but {} measured {name} {measured}: nothing \
                 written",
                file.display()
            );
        }
    }
    ensure!(
        results.provenance.fingerprint == fingerprint(ws, &chapter, profile)?,
        "{} was not measured by the code in {} (its fingerprint differs): nothing written",
        file.display(),
        ws.display()
    );
    results.release = Some(Release {
        crates: asked.clone(),
        code_fingerprint: code_fingerprint(ws, &chapter, profile)?,
    });
    store.write(&results)
}

/// Every release variant of chapter `C` in `store`, checked as any run is.
pub fn load<C: Chapter>(store: &Store) -> Result<Vec<Run<C::Data>>> {
    let mut runs = Vec::new();
    for path in store.release_files(C::NAME)? {
        let file = read_results::<C::Data>(&path, C::NAME)?;
        if file.release.is_none() {
            bail!(
                "{} is in the releases folder but is not a release variant (no `release` \
                 record): measure it with scripts/fresh {} --with CRATE@VERSION",
                path.display(),
                C::NAME
            );
        }
        let stale = !file.is_current()?;
        runs.push(Run::checked::<C>(path, file, stale)?);
    }
    Ok(runs)
}

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

/// `1.37.0` as numbers for ordering (pre-release tags after the numbers).
pub fn version_key(v: &str) -> (Vec<u64>, String) {
    let core = v.split(['-', '+']).next().unwrap_or("");
    (
        core.split('.').filter_map(|p| p.parse().ok()).collect(),
        v.to_string(),
    )
}

/// The outcome each claim of `C` gets from `run` alone, by claim id.
fn outcomes<C: Chapter>(
    book: &Book<C::Data>,
    run: &Run<C::Data>,
) -> Result<BTreeMap<String, Outcome>> {
    let single = Book {
        chapter: C::NAME,
        runs: vec![run.copy()?],
        store: book.store.clone(),
    };
    let (verdicts, _) = crate::measure::stats::remembering(run.derived.clone(), || {
        crate::cli::verdicts_of::<C>(&single)
    });
    let mut out = BTreeMap::new();
    for v in verdicts? {
        let Verdict { claim, outcome, .. } = v;
        out.entry(claim.id.to_string()).or_insert(outcome);
    }
    Ok(out)
}

/// The crate a chapter's release variants are told apart by: tokio when
/// any variant varies it (or, with no variants yet, when the chapter
/// measures it), else the first crate varied or measured.
fn key_crate<C: Chapter>(variants: &[Run<C::Data>]) -> Result<Option<String>> {
    let mut varied: Vec<String> = Vec::new();
    for run in variants {
        let file = read_results::<serde_json::Value>(&run.path, C::NAME)?;
        varied.extend(file.release.into_iter().flat_map(|r| r.crates.into_keys()));
    }
    let measured: Vec<String> = C::MEASURED_CRATES.iter().map(|c| c.to_string()).collect();
    let pool = if varied.is_empty() { measured } else { varied };
    Ok(pool
        .iter()
        .find(|c| *c == "tokio")
        .or(pool.first())
        .cloned())
}

/// By claim id, the claim's outcome at each release measured, oldest first.
pub type ClaimHistory = BTreeMap<String, Vec<(String, Outcome)>>;

/// Each claim's verdict release by release, on one machine and at one
/// profile: a claim's verdict at an old release measured at the quick
/// profile is compared with the current release at the quick profile too (the
/// first replicate run), never with the full run's map, which has more rows.
#[derive(Clone, Debug, Default)]
pub struct History {
    /// The crate whose releases are compared ("tokio").
    pub krate: String,
    /// The profile every run compared was measured at.
    pub profile: Option<Profile>,
    pub claims: ClaimHistory,
}

/// The first replicate run of `C` (`results/replicates/a/`), when there is
/// one: a quick run at the committed lock, the current release's partner for
/// variants measured at the quick profile.
fn replicate_runs<C: Chapter>(store: &Store) -> Result<Vec<Run<C::Data>>> {
    let replicate = Store::new(crate::agreement::replicates_dir(&store.root).join("a"));
    let mut runs = Vec::new();
    for (path, file) in replicate.load_all::<C::Data>(C::NAME)? {
        let stale = !file.provenance.is_current(C::NAME)?;
        runs.push(Run::checked::<C>(path, file, stale)?);
    }
    Ok(runs)
}

/// Each claim's outcome at every release of the key crate measured on the
/// machine whose verdicts the page leads with, at the profile most releases
/// were measured at (the full one on a tie): the committed run, the release
/// variants and the first replicate run are the candidates, and the
/// committed run wins a release measured twice.
pub fn history<C: Chapter>(book: &Book<C::Data>) -> Result<History> {
    let variants = load::<C>(&book.store)?;
    let Some(key) = key_crate::<C>(&variants)? else {
        return Ok(History::default());
    };
    let committed: Vec<&Run<C::Data>> = book.runs.iter().filter(|r| !r.ephemeral).collect();
    let Some(machine) = committed.first().map(|_| book.primary().machine()) else {
        return Ok(History {
            krate: key,
            ..History::default()
        });
    };
    let replicates = replicate_runs::<C>(&book.store)?;
    let candidates: Vec<(String, &Run<C::Data>)> = committed
        .into_iter()
        .chain(variants.iter())
        .chain(replicates.iter())
        .filter(|r| r.machine() == machine && !r.stale)
        .filter_map(|r| Some((r.provenance.crates.get(&key)?.clone(), r)))
        .collect();
    let releases_at = |p: Profile| -> usize {
        let mut v: Vec<&String> = candidates
            .iter()
            .filter(|(_, r)| r.provenance.profile == p)
            .map(|(v, _)| v)
            .collect();
        v.sort();
        v.dedup();
        v.len()
    };
    let Some(profile) = [Profile::Full, Profile::Quick]
        .into_iter()
        .max_by_key(|&p| (releases_at(p), p == Profile::Full))
    else {
        unreachable!("two profiles to choose from")
    };
    let mut runs: Vec<(String, &Run<C::Data>)> = candidates
        .into_iter()
        .filter(|(_, r)| r.provenance.profile == profile)
        .collect();
    // A stable sort keeps the push order within a release: committed first.
    runs.sort_by_key(|(v, _)| version_key(v));
    runs.dedup_by(|b, a| a.0 == b.0);
    let mut claims = ClaimHistory::new();
    for (version, run) in runs {
        for (claim, outcome) in outcomes::<C>(book, run)? {
            claims
                .entry(claim)
                .or_default()
                .push((version.clone(), outcome));
        }
    }
    Ok(History {
        krate: key,
        profile: Some(profile),
        claims,
    })
}

/// One claim's verdict across releases in words, from [`history`]: the
/// releases its current verdict holds for, and where that began. `None`
/// with fewer than two releases measured, or none that decided anything.
pub fn range_note(
    krate: &str,
    profile: Option<Profile>,
    at: &[(String, Outcome)],
) -> Option<String> {
    if at.len() < 2 || at.iter().all(|(_, o)| *o == Outcome::NotMeasured) {
        return None;
    }
    let (newest, now) = at.last()?;
    let from = at.iter().rposition(|(_, o)| o != now).map_or(0, |i| i + 1);
    let first = &at[0].0;
    let at_profile = match profile {
        Some(p) if p != Profile::Full => format!(" at the {p} profile"),
        _ => String::new(),
    };
    let span = format!(
        "{} releases measured{at_profile}, {first} to {newest}",
        at.len()
    );
    if from == 0 {
        let every = match now {
            Outcome::DoesNotHold => format!("does not hold at any {krate} release measured"),
            other => format!("{} at every {krate} release measured", other.label()),
        };
        return Some(format!("{every} ({span})"));
    }
    let (before, then) = &at[from - 1];
    let flips = at.windows(2).filter(|w| w[0].1 != w[1].1).count();
    Some(format!(
        "{} for {krate} {} and later; {} at {before}{} ({span})",
        now.label(),
        at[from].0,
        then.label(),
        if flips > 1 {
            format!("; it changed {flips} times")
        } else {
            String::new()
        }
    ))
}

/// Something a chapter measures only from one release of a crate on, and
/// what a run at an older release shows instead.
#[derive(Clone, Copy, Debug)]
pub struct ReleaseGap {
    pub krate: &'static str,
    /// The first release that has what is needed (`1.47.0`).
    pub since: &'static str,
    /// What an older release lacks, and what stands in its place: the end
    /// of a sentence that starts "at tokio 1.36.0, ".
    pub lacks: &'static str,
}

/// One sentence per gap that a measured release falls into, naming them.
pub fn gap_notes(gaps: &[ReleaseGap], measured: &[&BTreeMap<String, String>]) -> Vec<String> {
    let mut notes = Vec::new();
    for gap in gaps {
        let mut older: Vec<&str> = measured
            .iter()
            .filter_map(|crates| crates.get(gap.krate))
            .map(String::as_str)
            .filter(|v| version_key(v) < version_key(gap.since))
            .collect();
        older.sort_by_key(|v| version_key(v));
        older.dedup();
        if older.is_empty() {
            continue;
        }
        let list = older
            .iter()
            .map(|v| format!("{} {}", gap.krate, escape_markdown(v)))
            .collect::<Vec<_>>()
            .join(", ");
        notes.push(format!(
            "Before {} {} (measured here at {list}): {}",
            gap.krate,
            escape_markdown(gap.since),
            gap.lacks
        ));
    }
    notes
}

/// The built-in `releases` exhibit: each claim's verdict at every release
/// measured (the committed lock's and every variant in `releases/`), one row
/// per release, consecutive releases with the same verdicts merged into one
/// row, and the release that was current when each post was published.
pub fn exhibit<C: Chapter>(book: &Book<C::Data>) -> Result<Vec<Block>> {
    let variants = load::<C>(&book.store)?;
    // What each variant asked for, and the crates the variants differ in
    // (tokio first); with no variant yet, tokio (or the first crate measured).
    let mut asked: Vec<BTreeMap<String, String>> = Vec::new();
    for run in &variants {
        let file = read_results::<serde_json::Value>(&run.path, C::NAME)?;
        asked.push(file.release.map(|r| r.crates).unwrap_or_default());
    }
    let mut varied: Vec<String> = Vec::new();
    for name in asked.iter().flat_map(|a| a.keys()) {
        if !varied.contains(name) {
            varied.push(name.clone());
        }
    }
    varied.sort_by_key(|c| (c != "tokio", C::MEASURED_CRATES.iter().position(|m| m == c)));
    if varied.is_empty() {
        let default = C::MEASURED_CRATES
            .iter()
            .find(|c| **c == "tokio")
            .or(C::MEASURED_CRATES.first());
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
        variants.iter().any(|v| like(&v)) && !committed.iter().any(like)
    });
    let lock_label = |run: &Run<C::Data>| -> String {
        let at: Vec<String> = C::MEASURED_CRATES
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
    for (run, asked) in variants.iter().zip(&asked) {
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
        row.outcomes = outcomes::<C>(book, row.run)?;
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
                 around the release asked for.",
                varied.join(", "),
                C::NAME
            ),
            align: vec![Align::Left; width],
            header,
            rows: table_rows,
            settings: true,
        }));
    }
    let crates: Vec<&BTreeMap<String, String>> =
        measured.iter().map(|r| &r.provenance.crates).collect();
    let mut notes = gap_notes(C::RELEASE_GAPS, &crates);
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
        }
    }
}

/// Merges consecutive variant rows of one crate, machine and profile whose
/// verdicts are all the same (and none of them stale or asking for more
/// than one crate): "tokio 1.12.0 to 1.29.1 (10 releases)".
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
                && prev.outcomes == row.outcomes;
            if alike {
                prev.last = row.last;
                prev.count += 1;
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
fn dataset_note<D>(chapter: &str, ds: &Dataset, runs: &[&Run<D>]) -> Option<String> {
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

#[cfg(test)]
mod tests;
