//! The conformance suite every chapter's tests and the template call: what
//! any chapter must do, checked through its binary's command line, the way
//! the book build and the scripts use it.
//!
//! ```ignore
//! // code/<chapter>/tests/conformance.rs
//! #[test]
//! fn conforms() {
//!     harness::conformance::check(env!("CARGO_BIN_EXE_fan-in"), &["/points/0/bursts"]);
//! }
//! ```
//!
//! It reads the smoke run in `$BOOK_SMOKE_RESULTS` when that is set
//! (`scripts/test` measures one), else measures one into a temporary
//! folder, copies it into a folder of its own (nothing it edits touches the
//! shared run) and checks, reporting every failure at once:
//!
//! - every exhibit the chapter lists, the built-in ones among them, renders
//!   non-empty markdown with no render-error marker, and `render-all`
//!   succeeds (`exhibits`);
//! - every headline estimate is finite with lower <= point <= upper
//!   (`headline`);
//! - judging the run twice gives the same analysis; the analysis stored in
//!   the run is what judging its data gives; `check` refuses the run with its
//!   analysis edited by hand (`judge`);
//! - the answer names a headline estimate and shows each point it marks;
//!   every headline estimate is shown on the page: on the answer, or in the
//!   Findings or an exhibit other than `precision` (`answer`);
//! - the CSV export's measured cells are numbers (`export`);
//! - `check` passes the run and refuses it with any one of the chapter's work
//!   counts off by one; an edited data number marks the run edited (`refusals`);
//! - markup in the machine's description or id, or in a claim's text, never
//!   reaches the page raw (`hostile`);
//! - every `{{#include file:anchor}}` of the chapter's page shows code, and
//!   the page renders no exhibit the chapter does not list (`page`).
//!
//! Every step runs the binary under a time limit in a process group of its
//! own; a step over its limit is killed with its children and named.
use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use anyhow::Result;

mod answer;
mod checks;
mod page;
mod step;
mod subject;
#[cfg(test)]
mod tests;

pub use step::{run_step, StepOutput};
use subject::Subject;
pub use subject::{Suite, BUILT_IN, RENDER_ERROR};

/// Runs the whole suite on the chapter binary `bin` and panics with every
/// failure when one check fails. `work_counts` are JSON pointers into the
/// results file's `data` (`/points/0/bursts`) to counts of the work the
/// chapter validates: off by one, each must make `check` refuse the file.
pub fn check(bin: impl AsRef<Path>, work_counts: &[&str]) {
    let suite = Suite::new(bin.as_ref()).work_counts(work_counts);
    let failures = suite.run();
    if !failures.is_empty() {
        let text: Vec<String> = failures
            .iter()
            .map(|f| format!("- {}: {}", f.check, f.message))
            .collect();
        panic!(
            "chapter {} fails {} of the harness's conformance checks:\n{}",
            suite.chapter,
            failures.len(),
            text.join("\n")
        );
    }
}

/// Runs `f` on a thread of its own and panics, naming `what`, when it takes
/// longer than `limit` (a lock or channel bug would otherwise hang the
/// suite) or when it panics. The in-process guard of chapter tests: a
/// thread cannot be killed, so the test fails and the process takes the
/// thread with it when the test binary ends. The suite's own steps are
/// processes, killed with their children (see [`run_step`]).
pub fn within<T: Send + 'static>(
    limit: Duration,
    what: &str,
    f: impl FnOnce() -> T + Send + 'static,
) -> T {
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(f());
    });
    match rx.recv_timeout(limit) {
        Ok(v) => v,
        Err(std::sync::mpsc::RecvTimeoutError::Timeout) => {
            panic!("{what} did not finish within {limit:?}: something it waits on hangs")
        }
        Err(std::sync::mpsc::RecvTimeoutError::Disconnected) => panic!("{what} panicked"),
    }
}

/// One check that failed, and why.
#[derive(Debug, Clone)]
pub struct Failure {
    pub check: &'static str,
    pub message: String,
}

impl Suite {
    /// The checks, by name.
    #[allow(clippy::type_complexity)]
    fn checks(&self) -> [(&'static str, fn(&Subject) -> Result<()>); 8] {
        [
            ("exhibits", checks::exhibits),
            ("headline", checks::headline),
            ("judge", checks::judge),
            ("answer", answer::answer),
            ("export", checks::export),
            ("refusals", checks::refusals),
            ("hostile", checks::hostile),
            ("page", page::page),
        ]
    }

    /// Every check, each failure with its check's name (none: the chapter
    /// conforms), in the checks' order. A smoke run that cannot be had is
    /// the one failure. The checks run side by side, as many at a time as
    /// the machine has cores: each runs the binary in processes of its own,
    /// renders only read the run, and what a check writes goes into folders
    /// of its own name under the scratch space.
    pub fn run(&self) -> Vec<Failure> {
        let subject = match Subject::prepare(self) {
            Ok(s) => s,
            Err(e) => {
                return vec![Failure {
                    check: "smoke run",
                    message: format!("{e:#}"),
                }]
            }
        };
        let checks = self.checks();
        let next = AtomicUsize::new(0);
        let workers = std::thread::available_parallelism()
            .map_or(1, |n| n.get())
            .min(checks.len());
        let mut outcomes: Vec<(usize, Option<Failure>)> = std::thread::scope(|scope| {
            let handles: Vec<_> = (0..workers)
                .map(|_| {
                    scope.spawn(|| {
                        let mut done = Vec::new();
                        loop {
                            let i = next.fetch_add(1, Ordering::Relaxed);
                            let Some((check, f)) = checks.get(i) else {
                                break done;
                            };
                            let failure = f(&subject).err().map(|e| Failure {
                                check,
                                message: format!("{e:#}"),
                            });
                            done.push((i, failure));
                        }
                    })
                })
                .collect();
            handles
                .into_iter()
                .flat_map(|h| {
                    h.join()
                        .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
                })
                .collect()
        });
        outcomes.sort_by_key(|(i, _)| *i);
        outcomes.into_iter().filter_map(|(_, f)| f).collect()
    }
}
