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
//! committed lock moves on. The built-in `releases` exhibit ([`exhibit`],
//! in `releases/table.rs`) puts each claim's verdict at every release
//! measured side by side.
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use anyhow::{bail, ensure, Context, Result};

pub use harness_core::releases::{is_crate_name, is_version, ReleaseGap};

use crate::chapter::{Book, Run};
use crate::page::Page;
use crate::render::escape_markdown;
use harness_core::claims::Outcome;
use harness_core::profile::Profile;
use harness_core::results::fingerprint::{code_fingerprint, fingerprint, locked_versions};
use harness_core::results::{read_results, Release, Store};

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
    harness_core::registry::find(&chapter)
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
    // A short write: wait for a run measuring this chapter into the store.
    let _writer = harness_core::lock::wait(&store.root, &chapter)?;
    store.write(&results)
}

/// A release variant and what it asked for (`Release::crates`: the crates
/// and releases given to `--with`).
pub struct Variant<D> {
    pub run: Run<D>,
    pub asked: BTreeMap<String, String>,
}

/// Every release variant of chapter `C` in `store`, checked as any run is,
/// with the releases it asked for.
pub fn load_variants<C: Page>(store: &Store) -> Result<Vec<Variant<C::Data>>> {
    let mut out = Vec::new();
    for path in store.release_files(C::NAME)? {
        let mut file = read_results::<C::Data>(&path, C::NAME)?;
        let stale = !file.is_current()?;
        let Some(release) = file.release.take() else {
            bail!(
                "{} is in the releases folder but is not a release variant (no `release` \
                 record): measure it with scripts/fresh {} --with CRATE@VERSION",
                path.display(),
                C::NAME
            );
        };
        out.push(Variant {
            run: crate::load::checked_run::<C>(path, file, stale)?,
            asked: release.crates,
        });
    }
    let rejudged = out.iter().filter(|v| v.run.rejudged).count();
    if rejudged > 0 {
        eprintln!(
            "{}: {rejudged} release file(s) in {} were judged by older page code (or not at \
             all): run `harness judge {}`",
            C::NAME,
            store.releases_dir(C::NAME).display(),
            C::NAME
        );
    }
    Ok(out)
}

/// Every release variant of chapter `C` in `store`, checked as any run is.
pub fn load<C: Page>(store: &Store) -> Result<Vec<Run<C::Data>>> {
    Ok(load_variants::<C>(store)?
        .into_iter()
        .map(|v| v.run)
        .collect())
}

/// `1.37.0` as numbers for ordering (pre-release tags after the numbers).
pub fn version_key(v: &str) -> (Vec<u64>, String) {
    let core = v.split(['-', '+']).next().unwrap_or("");
    (
        core.split('.').filter_map(|p| p.parse().ok()).collect(),
        v.to_string(),
    )
}

/// The outcome each claim gets from `run` alone (its analysis), by claim id.
fn outcomes<D>(run: &Run<D>) -> Result<BTreeMap<String, Outcome>> {
    let mut out = BTreeMap::new();
    for v in &run.analysis.verdicts {
        out.entry(v.claim.clone()).or_insert(v.outcome);
    }
    Ok(out)
}

/// The crate a chapter's release variants are told apart by: tokio when
/// any variant varies it (or, with no variants yet, when the chapter
/// measures it), else the first crate varied or measured.
fn key_crate<C: Page>(variants: &[Variant<C::Data>]) -> Option<String> {
    let varied: Vec<String> = variants
        .iter()
        .flat_map(|v| v.asked.keys().cloned())
        .collect();
    let measured: Vec<String> = <C::Experiment as harness_measure::Experiment>::MEASURED_CRATES
        .iter()
        .map(|c| c.to_string())
        .collect();
    let pool = if varied.is_empty() { measured } else { varied };
    pool.iter()
        .find(|c| *c == "tokio")
        .or(pool.first())
        .cloned()
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
    /// The chapter's numbers are exact (it has no headline estimates: bytes
    /// counted, not times), so a second run of a release would give its
    /// verdicts again and a change is the releases'.
    pub exact: bool,
    pub claims: ClaimHistory,
}

/// The first replicate run of `C` (`results/replicates/a/`), when there is
/// one: a quick run at the committed lock, the current release's partner for
/// variants measured at the quick profile.
fn replicate_runs<C: Page>(store: &Store) -> Result<Vec<Run<C::Data>>> {
    if !store.history {
        return Ok(Vec::new());
    }
    let replicate = Store::new(crate::agreement::replicates_dir(&store.root).join("a"));
    let mut runs = Vec::new();
    for (path, file) in replicate.load_all::<C::Data>(C::NAME)? {
        let stale = !file.provenance.is_current(C::NAME)?;
        runs.push(crate::load::checked_run::<C>(path, file, stale)?);
    }
    Ok(runs)
}

/// Each claim's outcome at every release of the key crate measured on the
/// machine whose verdicts the page leads with, at the profile most releases
/// were measured at (the full one on a tie): the committed run, the release
/// variants and the first replicate run are the candidates, and the
/// committed run wins a release measured twice.
pub fn history<C: Page>(book: &Book<C::Data>) -> Result<History> {
    let variants = load_variants::<C>(&book.store)?;
    let Some(key) = key_crate::<C>(&variants) else {
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
        .chain(variants.iter().map(|v| &v.run))
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
    let profile = if releases_at(Profile::Quick) > releases_at(Profile::Full) {
        Profile::Quick
    } else {
        Profile::Full
    };
    let mut runs: Vec<(String, &Run<C::Data>)> = candidates
        .into_iter()
        .filter(|(_, r)| r.provenance.profile == profile)
        .collect();
    // A stable sort keeps the push order within a release: committed first.
    runs.sort_by_key(|(v, _)| version_key(v));
    runs.dedup_by(|b, a| a.0 == b.0);
    // A property of the chapter: read once, from the run whose headline
    // the page shows.
    let exact = book.primary().analysis.headline.is_empty();
    let mut claims = ClaimHistory::new();
    for (version, run) in runs {
        for (claim, outcome) in outcomes(run)? {
            claims
                .entry(claim)
                .or_default()
                .push((version.clone(), outcome));
        }
    }
    Ok(History {
        krate: key,
        profile: Some(profile),
        exact,
        claims,
    })
}

/// One claim's verdict across releases in words, from [`history`]: the
/// releases its current verdict holds for, and where that began. `None`
/// with fewer than two releases measured, or none that decided anything.
/// Unless the numbers are `exact`, each release is one run whose verdict
/// may move between runs of that release too, and the sentence says so
/// wherever the verdict differs between releases.
pub fn range_note(
    krate: &str,
    profile: Option<Profile>,
    exact: bool,
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
    let caveat = |what: &str| {
        if exact {
            String::new()
        } else {
            format!("; one run at each release, so {what}")
        }
    };
    // One release between others that agree: with one run each, say it is
    // the exception, not that the verdict changed twice.
    let odd: Vec<usize> = (0..at.len()).filter(|&i| at[i].1 != *now).collect();
    if let [i] = odd[..] {
        if i > 0 && !exact {
            return Some(format!(
                "{} at every {krate} release measured but {} ({}){} ({span})",
                now.label(),
                at[i].0,
                at[i].1.label(),
                caveat("a lone exception may be the run rather than the release")
            ));
        }
    }
    let (before, then) = &at[from - 1];
    let flips = at.windows(2).filter(|w| w[0].1 != w[1].1).count();
    Some(format!(
        "{} for {krate} {} and later; {} at {before}{}{} ({span})",
        now.label(),
        at[from].0,
        then.label(),
        if flips > 1 {
            format!("; it changed {flips} times")
        } else {
            String::new()
        },
        caveat("a change may be the runs' rather than the releases'")
    ))
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

mod table;
#[cfg(test)]
use table::dataset_note;
pub use table::exhibit;

#[cfg(test)]
mod tests;
