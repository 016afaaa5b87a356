//! One writer at a time per chapter and results folder. A process that
//! writes a chapter's results (a measuring run, an adopted release variant)
//! holds an advisory lock (`flock`) on `<results>/<chapter>/.writer.lock`
//! and writes into that file who it is: pid, start time and command line.
//! A second writer is refused (or waits, for a short write) with that line,
//! so two runs never measure and replace one file at once. The kernel drops
//! the lock when its process ends, however it ends; the file stays (it is
//! ignored by git), since removing it would let a third process lock a
//! file the second one no longer sees.
use std::fs::{File, OpenOptions};
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};

/// `flock(2)` on the whole file: `Ok(true)` when taken, `Ok(false)` when
/// another open file holds it and `wait` is false. (std's `File::lock`
/// needs Rust 1.89; the workspace supports 1.85.)
#[cfg(unix)]
fn flock(file: &File, wait: bool) -> std::io::Result<bool> {
    use std::os::fd::AsRawFd;
    let op = if wait {
        libc::LOCK_EX
    } else {
        libc::LOCK_EX | libc::LOCK_NB
    };
    loop {
        // SAFETY: flock takes a descriptor this process holds open and
        // changes nothing but the lock on it.
        if unsafe { libc::flock(file.as_raw_fd(), op) } == 0 {
            return Ok(true);
        }
        let e = std::io::Error::last_os_error();
        match e.raw_os_error() {
            Some(libc::EINTR) => continue,
            Some(libc::EWOULDBLOCK) if !wait => return Ok(false),
            _ => return Err(e),
        }
    }
}

/// Elsewhere no lock is taken: the measuring runs are Linux's.
#[cfg(not(unix))]
fn flock(_file: &File, _wait: bool) -> std::io::Result<bool> {
    Ok(true)
}

/// The lock's file name inside a chapter's results folder.
pub const FILE: &str = ".writer.lock";

/// A held writer lock; dropping it (or ending the process) releases it.
#[derive(Debug)]
pub struct Writer {
    _file: File,
    pub path: PathBuf,
}

/// Takes the writer lock of `chapter` in the results folder `root`, or
/// fails at once naming the process that holds it.
pub fn take(root: &Path, chapter: &str) -> Result<Writer> {
    let (mut file, path) = open(root, chapter)?;
    let taken = flock(&file, false).with_context(|| format!("cannot lock {}", path.display()))?;
    anyhow::ensure!(
        taken,
        "{chapter}: another run is writing its results into {}: {}; wait for it to end \
         (or stop it) and run again",
        root.display(),
        holder(&mut file, &path)
    );
    claim(file, path)
}

/// Takes the writer lock of `chapter` in `root`, waiting for the process
/// that holds it (named on stderr) to let it go.
pub fn wait(root: &Path, chapter: &str) -> Result<Writer> {
    let (mut file, path) = open(root, chapter)?;
    let cannot = || format!("cannot lock {}", path.display());
    if !flock(&file, false).with_context(cannot)? {
        eprintln!(
            "{chapter}: waiting for another run writing into {} to end: {}",
            root.display(),
            holder(&mut file, &path)
        );
        flock(&file, true).with_context(cannot)?;
    }
    claim(file, path)
}

fn open(root: &Path, chapter: &str) -> Result<(File, PathBuf)> {
    let dir = root.join(chapter);
    std::fs::create_dir_all(&dir).with_context(|| format!("cannot create {}", dir.display()))?;
    let path = dir.join(FILE);
    let file = OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .open(&path)
        .with_context(|| format!("cannot open {}", path.display()))?;
    Ok((file, path))
}

/// Writes who holds the lock into its file, for whoever comes second.
fn claim(mut file: File, path: PathBuf) -> Result<Writer> {
    let command: Vec<String> = std::env::args().collect();
    let line = format!(
        "pid {}, started {}: {}\n",
        std::process::id(),
        humantime::format_rfc3339_seconds(std::time::SystemTime::now()),
        command.join(" ")
    );
    file.set_len(0)
        .and_then(|()| file.seek(SeekFrom::Start(0)))
        .and_then(|_| file.write_all(line.as_bytes()))
        .with_context(|| format!("cannot write {}", path.display()))?;
    Ok(Writer { _file: file, path })
}

/// The holder's line, as it wrote it (markup-free: it goes to a terminal).
fn holder(file: &mut File, path: &Path) -> String {
    let mut text = String::new();
    let _ = file.read_to_string(&mut text);
    let line: String = text
        .lines()
        .next()
        .unwrap_or("")
        .chars()
        .filter(|c| !c.is_control())
        .take(500)
        .collect();
    if line.is_empty() {
        format!("a process holds {}", path.display())
    } else {
        format!("{line} (it holds {})", path.display())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_second_writer_is_refused_naming_the_first_until_the_first_ends() {
        let dir = tempfile::tempdir().unwrap();
        let first = take(dir.path(), "alloc-probe").unwrap();
        // flock is per open file: a second open in this process is refused as
        // another process would be.
        let e = format!("{:#}", take(dir.path(), "alloc-probe").unwrap_err());
        let me = format!("pid {}, started ", std::process::id());
        assert!(
            e.contains("alloc-probe: another run is writing its results into"),
            "{e}"
        );
        assert!(e.contains(&me), "{e}");
        assert!(e.contains(&first.path.display().to_string()), "{e}");
        // Another chapter, or the same one in another folder, is not held.
        let other = take(dir.path(), "fan-in").unwrap();
        let elsewhere = tempfile::tempdir().unwrap();
        take(elsewhere.path(), "alloc-probe").unwrap();
        drop(first);
        let again = take(dir.path(), "alloc-probe").unwrap();
        drop((other, again));
        let text = std::fs::read_to_string(dir.path().join("alloc-probe").join(FILE)).unwrap();
        assert!(
            text.starts_with(&me) && text.ends_with('\n') && text.lines().count() == 1,
            "{text}"
        );
    }
}
