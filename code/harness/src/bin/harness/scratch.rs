//! A chapter process's temporary files, in a folder of their own. A measuring
//! chapter leaves things in the temporary folder: criterion's log (kept for
//! whoever wants to read it, but empty unless criterion warned) and, while it
//! counts instructions, callgrind's folders (removed when the count ends, but
//! not when a signal ends the process first). `harness measure` starts each
//! chapter with `TMPDIR` set to a folder named after its own pid, tidies it
//! when the chapter ends, and tidies the folders of runs whose harness has
//! ended (an interrupt stops the harness too) before it starts another.
use std::fs;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};

const PREFIX: &str = "book-run-";

/// A chapter process's temporary folder; tidied on drop (see the module).
pub(crate) struct RunTemp {
    dir: PathBuf,
}

impl RunTemp {
    /// Tidies what ended runs left in `parent`, then makes this run's folder
    /// there: `book-run-<pid>-<chapter>-XXXXXX`.
    pub(crate) fn new(parent: &Path, chapter: &str) -> Result<RunTemp> {
        sweep_ended(parent);
        let dir = tempfile::Builder::new()
            .prefix(&format!("{PREFIX}{}-{chapter}-", std::process::id()))
            .tempdir_in(parent)
            .with_context(|| {
                format!(
                    "cannot create a temporary folder for {chapter} in {}",
                    parent.display()
                )
            })?
            .keep();
        Ok(RunTemp { dir })
    }

    pub(crate) fn path(&self) -> &Path {
        &self.dir
    }
}

impl Drop for RunTemp {
    fn drop(&mut self) {
        tidy(&self.dir);
    }
}

/// Removes from `dir` callgrind's folders and empty files, then `dir`
/// itself if nothing is left (a criterion log with text stays, and so does
/// the folder that holds it).
fn tidy(dir: &Path) {
    if let Ok(entries) = fs::read_dir(dir) {
        for entry in entries.flatten() {
            let path = entry.path();
            let name = entry.file_name();
            let Ok(kind) = entry.file_type() else {
                continue;
            };
            if kind.is_dir() && name.to_string_lossy().starts_with("book-callgrind-") {
                let _ = fs::remove_dir_all(&path);
            } else if kind.is_file() && entry.metadata().is_ok_and(|m| m.len() == 0) {
                let _ = fs::remove_file(&path);
            }
        }
    }
    let _ = fs::remove_dir(dir);
}

/// Tidies every `book-run-<pid>-*` folder in `parent` whose process has
/// ended.
fn sweep_ended(parent: &Path) {
    let Ok(entries) = fs::read_dir(parent) else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(pid) = name
            .to_str()
            .and_then(|n| n.strip_prefix(PREFIX))
            .and_then(|rest| rest.split('-').next())
            .and_then(|p| p.parse::<i32>().ok())
        else {
            continue;
        };
        if !alive(pid) && entry.file_type().is_ok_and(|t| t.is_dir()) {
            tidy(&entry.path());
        }
    }
}

/// Whether process `pid` exists (signal 0 checks without sending).
fn alive(pid: i32) -> bool {
    if pid <= 0 {
        return false;
    }
    // SAFETY: kill with signal 0 sends nothing; it only checks the pid.
    let rc = unsafe { libc::kill(pid, 0) };
    rc == 0 || std::io::Error::last_os_error().raw_os_error() == Some(libc::EPERM)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_run_leaves_only_a_log_with_text() {
        let parent = tempfile::tempdir().unwrap();
        let quiet = RunTemp::new(parent.path(), "quiet").unwrap();
        let dir = quiet.path().to_path_buf();
        assert!(dir
            .file_name()
            .unwrap()
            .to_string_lossy()
            .starts_with(&format!("book-run-{}-quiet-", std::process::id())));
        fs::write(dir.join("book-quiet-criterion-1.log"), "").unwrap();
        fs::create_dir_all(dir.join("book-callgrind-x")).unwrap();
        fs::write(dir.join("book-callgrind-x/callgrind.out"), "events: Ir").unwrap();
        drop(quiet);
        assert!(!dir.exists(), "an empty log and callgrind's folder stay");

        let warned = RunTemp::new(parent.path(), "warned").unwrap();
        let log = warned.path().join("book-warned-criterion-1.log");
        fs::write(&log, "Warning: unable to complete 10 samples").unwrap();
        drop(warned);
        assert!(log.exists(), "a log with text was removed");
    }

    #[test]
    fn what_an_ended_run_left_is_tidied_and_a_live_runs_is_not() {
        let parent = tempfile::tempdir().unwrap();
        // pid 0 is never a process's, so the run that left this has ended.
        let ended = parent.path().join("book-run-0-alloc-probe-abc");
        fs::create_dir_all(ended.join("book-callgrind-y")).unwrap();
        fs::write(ended.join("book-alloc-probe-criterion-2.log"), "").unwrap();
        // This process's own, as a live run's.
        let live = parent
            .path()
            .join(format!("book-run-{}-fan-in-def", std::process::id()));
        fs::create_dir_all(live.join("book-callgrind-z")).unwrap();
        let _next = RunTemp::new(parent.path(), "next").unwrap();
        assert!(!ended.exists());
        assert!(live.join("book-callgrind-z").exists());
    }
}
