//! Reaching a chapter: its binary beside this one, and what it says about a file.
use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{bail, Context, Result};

use harness::cli::Headline;
use harness::registry::ChapterInfo;

/// The chapter binary, built into the same folder as this one: found from
/// this binary's own path when it runs (cargo builds a workspace's binaries
/// into one folder; `fresh --with` copies them into one folder together),
/// never from a path compiled in. Only binaries and caches are found this
/// way: results and pages come from `harness::code_dir()`, so a symlinked
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

/// The headline estimates and verdicts of one results file, from its
/// chapter's binary.
pub(crate) fn headline(info: &ChapterInfo, file: &Path) -> Result<Headline> {
    let out = chapter_says(info, "headline", file)?;
    serde_json::from_slice(&out)
        .with_context(|| format!("{}: headline output is not JSON", file.display()))
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
