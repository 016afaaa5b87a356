//! Reaching a chapter: its binary beside this one, and what it says about a file.
use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{bail, Context, Result};

use harness::cli::Headline;
use harness_core::analysis::Analysis;
use harness_core::registry::ChapterInfo;

/// The chapter binary, built into the same folder as this one: found from
/// this binary's own path when it runs (cargo builds a workspace's binaries
/// into one folder; `fresh --with` copies them into one folder together),
/// never from a path compiled in. Only binaries and caches are found this
/// way: results and pages come from `harness_core::code_dir()`, so a symlinked
/// `target/` never gets results written next to it.
pub(crate) fn binary(chapter: &ChapterInfo) -> Result<PathBuf> {
    let exe = std::env::current_exe()?;
    let path = exe.with_file_name(&chapter.name);
    if !path.exists() {
        bail!(
            "{} is not built; run `cargo build --release -p {}` in code/ (scripts/build does)",
            path.display(),
            chapter.name
        );
    }
    Ok(path)
}

/// The headline estimates and verdicts of one results file, as its
/// chapter's binary gives them (`<chapter> headline FILE`): the file judged
/// again from its data, and refused when its stored analysis, judged by
/// today's page code, is not what the data gives (`page::current_analysis`).
/// Nothing is written.
pub(crate) fn headline(info: &ChapterInfo, file: &Path) -> Result<Headline> {
    let out = chapter_says(info, "headline", file)?;
    serde_json::from_slice(&out)
        .with_context(|| format!("{}: headline output is not JSON", file.display()))
}

/// What the chapter's binary judges `file` to be now (nothing written).
pub(crate) fn judged(info: &ChapterInfo, file: &Path) -> Result<Analysis> {
    let out = chapter_says(info, "judge", file)?;
    serde_json::from_slice(&out)
        .with_context(|| format!("{}: judge output is not JSON", file.display()))
}

/// Has the chapter's binary judge `file` again and store the analysis in it.
pub(crate) fn chapter_judges(info: &ChapterInfo, file: &Path) -> Result<Vec<u8>> {
    let output = Command::new(binary(info)?)
        .args(["judge", "--write"])
        .arg(file)
        .output()?;
    if !output.status.success() {
        let err = String::from_utf8_lossy(&output.stderr);
        let err = err.trim();
        bail!("{}", err.strip_prefix("error: ").unwrap_or(err));
    }
    Ok(output.stdout)
}

/// `harness judge`: each chapter's results files (every machine's and the
/// release variants) judged again from their data by the chapter's binary.
/// Without `write`, says which files' stored analysis is not what judging
/// gives now; with it, stores the new analysis in each (only `analysis`
/// changes, schema-2 files become schema 3).
pub(crate) fn judge(
    store: &harness_core::results::Store,
    chapters: &[&ChapterInfo],
    write: bool,
) -> Result<std::process::ExitCode> {
    let mut differ = 0;
    for info in chapters {
        let mut files = store.machine_files(&info.name)?;
        files.extend(store.release_files(&info.name)?);
        for file in &files {
            if write {
                let out = chapter_judges(info, file)?;
                print!("{}", String::from_utf8_lossy(&out));
                continue;
            }
            let fresh = judged(info, file)?;
            let text = harness_core::results::read_limited(file)?;
            let value: serde_json::Value = serde_json::from_str(&text)?;
            let stored: Option<Analysis> = value
                .get("analysis")
                .map(|a| serde_json::from_value(a.clone()))
                .transpose()
                .with_context(|| format!("{}: at `analysis`", file.display()))?;
            let state = match stored {
                None => "has no analysis (schema 2 or not judged)",
                Some(a) if a == fresh => "current",
                Some(a) if a.judged_by != fresh.judged_by => "judged by older page code",
                Some(_) => "differs from judging its data now (edited?)",
            };
            if state != "current" {
                differ += 1;
            }
            println!("{}: {state}", file.display());
        }
    }
    if differ > 0 && !write {
        eprintln!("{differ} file(s) to judge again: add --write to store what judging gives now");
    }
    Ok(std::process::ExitCode::SUCCESS)
}

/// Runs `<chapter> <command> <file>` and returns what it printed; a failure
/// carries the file's name and the chapter's own error.
pub(crate) fn chapter_says(info: &ChapterInfo, command: &str, file: &Path) -> Result<Vec<u8>> {
    let output = Command::new(binary(info)?)
        .arg(command)
        .arg(file)
        .output()?;
    if !output.status.success() {
        // The chapter's own error already names the file.
        let err = String::from_utf8_lossy(&output.stderr);
        let err = err.trim();
        bail!("{}", err.strip_prefix("error: ").unwrap_or(err));
    }
    Ok(output.stdout)
}
