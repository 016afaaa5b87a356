//! One step of the suite: the chapter binary run with a time limit, in a
//! process group of its own, so that a step over its limit is killed with
//! every process it started, and the suite says which step hung.
use std::ffi::OsStr;
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Duration;

use anyhow::{bail, Context, Result};
use wait_timeout::ChildExt;

/// What a step printed and how it ended.
#[derive(Debug)]
pub struct StepOutput {
    pub what: String,
    pub code: Option<i32>,
    pub stdout: String,
    pub stderr: String,
}

impl StepOutput {
    pub fn succeeded(&self) -> bool {
        self.code == Some(0)
    }

    /// The step's standard output, or an error naming the step and its
    /// standard error when it failed.
    pub fn success(self) -> Result<StepOutput> {
        if !self.succeeded() {
            bail!(
                "{} failed ({}): {}",
                self.what,
                self.code
                    .map_or_else(|| "killed by a signal".to_string(), |c| format!("exit {c}")),
                tail(&self.stderr)
            );
        }
        Ok(self)
    }
}

/// The last lines of `text`, for an error message.
pub(crate) fn tail(text: &str) -> String {
    let lines: Vec<&str> = text.lines().collect();
    lines[lines.len().saturating_sub(12)..].join("\n")
}

/// Runs `bin args` with `env` added, for at most `limit`. Output goes to
/// files (a pipe nobody reads while waiting would stall a chatty step). Over
/// the limit, the step's whole process group is killed and the step named.
/// Whatever the step leaves running in its group is killed when it ends.
pub fn run_step(
    what: &str,
    bin: &Path,
    args: &[&OsStr],
    env: &[(&str, &OsStr)],
    limit: Duration,
) -> Result<StepOutput> {
    let out = tempfile::tempfile().context("a temporary file")?;
    let err = tempfile::tempfile().context("a temporary file")?;
    let mut cmd = Command::new(bin);
    cmd.args(args)
        .stdin(Stdio::null())
        .stdout(out.try_clone()?)
        .stderr(err.try_clone()?)
        .process_group(0);
    for (k, v) in env {
        cmd.env(k, v);
    }
    // A binary written a moment ago may still be open for writing in a
    // process another thread just forked ("text file busy"): try again.
    let mut tries = 0;
    let mut child = loop {
        match cmd.spawn() {
            Err(e) if e.raw_os_error() == Some(libc::ETXTBSY) && tries < 50 => {
                tries += 1;
                std::thread::sleep(Duration::from_millis(20));
            }
            spawned => {
                break spawned.with_context(|| format!("{what}: cannot start {}", bin.display()))?
            }
        }
    };
    let group = child.id() as libc::pid_t;
    let status = child.wait_timeout(limit).context("waiting for a step")?;
    // The group dies either way: a finished step leaves nothing behind.
    // SAFETY: kill(2) on a process group this function created.
    unsafe { libc::kill(-group, libc::SIGKILL) };
    let Some(status) = status else {
        let _ = child.wait();
        bail!(
            "{what} did not finish within {} s: it and every process it started were killed \
             ({} {})",
            limit.as_secs_f64(),
            bin.display(),
            args.iter()
                .map(|a| a.to_string_lossy())
                .collect::<Vec<_>>()
                .join(" ")
        );
    };
    let read = |mut f: std::fs::File| -> Result<String> {
        use std::io::{Read, Seek};
        f.rewind()?;
        let mut bytes = Vec::new();
        f.read_to_end(&mut bytes)?;
        Ok(String::from_utf8_lossy(&bytes).into_owned())
    };
    Ok(StepOutput {
        what: what.to_string(),
        code: status.code(),
        stdout: read(out)?,
        stderr: read(err)?,
    })
}
