//! `harness measure`: each chapter's binary in turn, under one budget and
//! timeouts, in a process that cannot outlive this one.
use std::path::PathBuf;
use std::process::{Command, ExitCode, Stdio};
use std::time::{Duration, Instant};

use anyhow::{Context, Result};
use wait_timeout::ChildExt;

use harness_core::profile::Profile;
use harness_core::registry::{self, ChapterInfo};
use harness_core::results::{read_results, Store};

use crate::chapters::binary;

/// Whether this machine's results for a chapter are missing or stale, and why.
pub(crate) fn staleness(store: &Store, chapter: &str) -> Result<Option<String>> {
    let path = store.results_path(chapter, &harness_measure::machine::detect().id);
    if !path.exists() {
        return Ok(Some("no results for this machine".into()));
    }
    let file = read_results::<serde_json::Value>(&path, chapter)?;
    Ok((!file.provenance.is_current(chapter)?).then(|| {
        format!(
            "stale: code, lock file, toolchain or profile changed since {}",
            file.provenance.date
        )
    }))
}

pub(crate) fn measure(
    store: &Store,
    names: &[String],
    profile: Profile,
    only_stale: bool,
    step_timeout: u64,
    chapter_timeout: Duration,
    core_gate: Option<&str>,
) -> Result<ExitCode> {
    // Killed alone, this process takes its chapter with it (see `process`).
    harness_measure::process::die_with_parent()?;
    let store = &store.for_profile(profile);
    if profile == Profile::Smoke {
        eprintln!(
            "smoke runs are never published: writing into {}",
            store.root.display()
        );
    }
    // A bad gate fails before anything is measured; a good one reaches each
    // chapter's process through the environment.
    let gate = core_gate
        .map(|g| harness_measure::cores::parse_limit(g).context("--core-gate"))
        .transpose()?;
    // Resolve every name before measuring anything: a typo fails at once.
    let mut chapters: Vec<&ChapterInfo> = registry::select(names)?;
    if only_stale {
        let mut keep = Vec::new();
        for c in chapters {
            match staleness(store, &c.name)? {
                Some(why) => {
                    eprintln!("{}: {why}", c.name);
                    keep.push(c);
                }
                None => eprintln!("{}: current, skipped", c.name),
            }
        }
        chapters = keep;
    }
    let binaries: Vec<PathBuf> = chapters.iter().map(|c| binary(c)).collect::<Result<_>>()?;
    let mut summary = Vec::new();
    let mut stolen = Vec::new();
    let mut failed = 0;
    // One budget for waiting at the gate and measuring again, shared by the
    // chapters in turn: each gets what the ones before it left.
    let mut budget_left = harness_measure::run::run_budget(profile);
    for (k, (chapter, bin)) in chapters.iter().zip(binaries).enumerate() {
        let started = Instant::now();
        let target = store.results_path(&chapter.name, &harness_measure::machine::detect().id);
        let before = read_results::<serde_json::Value>(&target, &chapter.name).ok();
        let before_date = before.as_ref().map(|b| b.provenance.date.clone());
        eprintln!(
            "== [{}/{}] {} ({} profile, step timeout {} s)",
            k + 1,
            chapters.len(),
            chapter.name,
            profile,
            step_timeout
        );
        // The chapter's temporary files in a folder of their own, tidied
        // when it ends (and, if this process is interrupted, by the next
        // run): criterion's log only if it holds text, no callgrind folders.
        let temp = crate::scratch::RunTemp::new(&std::env::temp_dir(), &chapter.name)?;
        let mut command = Command::new(&bin);
        command.env("TMPDIR", temp.path());
        command.env(
            harness_measure::process::PARENT_ENV,
            std::process::id().to_string(),
        );
        command.env(
            harness_measure::cores::BUDGET_ENV,
            budget_left.as_secs_f64().to_string(),
        );
        if let Some(limit) = gate {
            command.env(
                harness_measure::cores::GATE_ENV,
                limit.map_or("none".to_string(), |ns| ns.to_string()),
            );
        }
        let mut child = command
            .args(["measure", "--profile", profile.name(), "--timeout"])
            .arg(step_timeout.to_string())
            .arg("--results")
            .arg(&store.root)
            .stdin(Stdio::null())
            .spawn()
            .with_context(|| format!("cannot start {}", bin.display()))?;
        let outcome = match child.wait_timeout(chapter_timeout)? {
            Some(status) if status.success() => match before {
                Some(b) => format!(
                    "ok       replaced the {} run of {}",
                    b.provenance.profile, b.provenance.date
                ),
                None => "ok       new results file".into(),
            },
            Some(status) => {
                failed += 1;
                let why = if status.code() == Some(124) {
                    "TIMEOUT"
                } else {
                    "FAILED"
                };
                format!("{why:<8} ({status}); earlier results untouched")
            }
            None => {
                let _ = child.kill();
                let _ = child.wait();
                failed += 1;
                format!(
                    "KILLED   after {} s; earlier results untouched",
                    chapter_timeout.as_secs()
                )
            }
        };
        summary.push(format!(
            "{:<16} {:>7.1} s  {outcome}",
            chapter.name,
            started.elapsed().as_secs_f64()
        ));
        if let Ok(after) = read_results::<serde_json::Value>(&target, &chapter.name) {
            if before_date.as_deref() != Some(after.provenance.date.as_str()) {
                // A run the hypervisor cut into is kept, but not quietly.
                let note = harness_page::render::notes::steal_note(&after.provenance);
                if !note.is_empty() {
                    stolen.push(format!("{}: {}", chapter.name, note.trim()));
                }
                let spent = harness_measure::run::budget_spent(&after.provenance);
                budget_left = budget_left.saturating_sub(spent);
            }
        }
    }
    eprintln!("\n== summary ({profile} profile)");
    for line in &summary {
        eprintln!("{line}");
    }
    if !stolen.is_empty() {
        eprintln!("measured while the host took CPU time away (compare these with care):");
        for s in stolen {
            eprintln!("  {s}");
        }
    }
    let stale: Vec<String> = registry::chapters()?
        .iter()
        .filter_map(|c| {
            staleness(store, &c.name)
                .ok()
                .flatten()
                .map(|why| format!("{}: {why}", c.name))
        })
        .collect();
    if !stale.is_empty() {
        eprintln!("still stale or missing on this machine:");
        for s in stale {
            eprintln!("  {s}");
        }
    }
    Ok(if failed == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}
