//! Measuring processes that cannot outlive the process that started them.
//! `harness measure` starts each chapter with its own pid in
//! `BOOK_PARENT_PID`; a chapter asks the kernel to end it when that parent
//! ends (`PR_SET_PDEATHSIG`), and writes results only while its parent is
//! still the one that started it. The harness asks the same of itself, so a
//! signal to `scripts/fresh` alone ends the whole chain and writes nothing.
use anyhow::{bail, Result};

/// The variable that carries the starting process's pid to a chapter.
pub const PARENT_ENV: &str = "BOOK_PARENT_PID";

/// Ends this process with SIGTERM when its parent ends; fails at once if
/// the parent is already gone (the signal would never come).
pub fn die_with_parent() -> Result<()> {
    #[cfg(target_os = "linux")]
    {
        let before = std::os::unix::process::parent_id();
        // SAFETY: prctl with PR_SET_PDEATHSIG takes a signal number and
        // changes only this process's own attributes.
        let rc = unsafe { libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGTERM) };
        if rc != 0 {
            bail!(
                "cannot ask to end with the parent process: {}",
                std::io::Error::last_os_error()
            );
        }
        // The parent may have ended before the request took effect.
        if std::os::unix::process::parent_id() != before {
            bail!("the process that started this one has ended; stopping");
        }
    }
    parent_still_ours()
}

/// Whether the parent is still the one named by `BOOK_PARENT_PID` (always
/// true when it is unset: a chapter run by hand has no harness above it).
pub fn parent_still_ours() -> Result<()> {
    let Ok(expected) = std::env::var(PARENT_ENV) else {
        return Ok(());
    };
    #[cfg(unix)]
    {
        let now = std::os::unix::process::parent_id();
        if expected.parse::<u32>().ok() != Some(now) {
            bail!(
                "the harness that started this run (pid {expected}) has ended; \
                 not writing results for it"
            );
        }
    }
    Ok(())
}
