//! Criterion's chatter, out of the way while a chapter measures.
use std::path::{Path, PathBuf};

use crate::progress::Terminal;

/// While measuring, criterion's chatter goes where nobody trips over it:
/// file descriptor 1 (its reports) to /dev/null, descriptor 2 (its progress
/// and warnings) to a log file, and the book's own progress lines to a saved
/// copy of the real stderr, handed to the run's `Terminal`. Restored when
/// dropped; a panic in between gets the log's tail on the real stderr, so
/// its message is not lost. Unix only; elsewhere a no-op.
pub(super) struct QuietOutput {
    #[cfg(unix)]
    saved: Option<(i32, i32)>,
    #[cfg(unix)]
    log: PathBuf,
    #[cfg(unix)]
    terminal: Terminal,
}

impl QuietOutput {
    pub(super) fn new(log: &Path, terminal: &Terminal) -> Self {
        use std::io::Write;
        let _ = std::io::stdout().flush();
        let _ = std::io::stderr().flush();
        #[cfg(unix)]
        {
            use std::os::unix::io::AsRawFd;
            let null = std::fs::OpenOptions::new().write(true).open("/dev/null");
            let file = std::fs::File::create(log);
            let saved = match (null, file) {
                // SAFETY: dup/dup2 on the process's own descriptors; `null`
                // and `file` stay open until dup2 has copied them.
                (Ok(null), Ok(file)) => unsafe {
                    let (out, err) = (libc::dup(1), libc::dup(2));
                    if out >= 0 && err >= 0 {
                        terminal.divert(err);
                        libc::dup2(null.as_raw_fd(), 1);
                        libc::dup2(file.as_raw_fd(), 2);
                        Some((out, err))
                    } else {
                        None
                    }
                },
                _ => None,
            };
            QuietOutput {
                saved,
                log: log.to_path_buf(),
                terminal: terminal.clone(),
            }
        }
        #[cfg(not(unix))]
        {
            let _ = (log, terminal);
            QuietOutput {}
        }
    }
}

impl Drop for QuietOutput {
    fn drop(&mut self) {
        use std::io::Write;
        let _ = std::io::stdout().flush();
        let _ = std::io::stderr().flush();
        #[cfg(unix)]
        if let Some((out, err)) = self.saved {
            // SAFETY: restores the descriptors saved in `new`. The terminal
            // goes back to 2 before its copy is closed, so no line is
            // written to a closed (or reused) descriptor.
            unsafe {
                libc::dup2(out, 1);
                libc::dup2(err, 2);
                self.terminal.restore();
                libc::close(out);
                libc::close(err);
            }
            if std::thread::panicking() {
                if let Ok(text) = std::fs::read_to_string(&self.log) {
                    let tail: String = text
                        .chars()
                        .rev()
                        .take(4000)
                        .collect::<Vec<_>>()
                        .into_iter()
                        .rev()
                        .collect();
                    eprintln!("{tail}");
                }
            }
        }
    }
}
