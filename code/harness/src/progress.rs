//! Progress on the terminal while a chapter measures: a bar on a terminal,
//! one line per step otherwise (CI logs, pipes).
use std::io::IsTerminal;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

pub struct Progress {
    chapter: String,
    bar: ProgressBar,
    started: Instant,
    lines: bool,
    state: Mutex<(u64, u64)>,
    /// The step under way and when it began, watched by the watchdog.
    current: Arc<Mutex<(String, Instant)>>,
}

impl Progress {
    pub fn new(chapter: &str) -> Self {
        let lines = !std::io::stderr().is_terminal();
        let bar = if lines {
            ProgressBar::with_draw_target(None, ProgressDrawTarget::hidden())
        } else {
            let bar = ProgressBar::new(0);
            bar.set_style(
                ProgressStyle::with_template(
                    "{prefix:.bold} [{bar:30}] {pos}/{len} {elapsed_precise} (~{eta} left) {msg}",
                )
                .expect("valid template")
                .progress_chars("=> "),
            );
            bar
        };
        bar.set_prefix(chapter.to_string());
        Progress {
            chapter: chapter.to_string(),
            bar,
            started: Instant::now(),
            lines,
            state: Mutex::new((0, 0)),
            current: Arc::new(Mutex::new(("start-up".into(), Instant::now()))),
        }
    }

    /// Ends the process with exit code 124 if one step runs longer than
    /// `limit`, naming the step. Results are written only after the last step,
    /// so a killed run leaves the previous results file as it was.
    pub fn with_watchdog(self, limit: Duration) -> Self {
        let current = Arc::clone(&self.current);
        let chapter = self.chapter.clone();
        std::thread::spawn(move || loop {
            std::thread::sleep(Duration::from_millis(100).min(limit));
            let (step, since) = current.lock().unwrap().clone();
            if since.elapsed() > limit {
                eprintln!(
                    "\nerror: {chapter}: step \"{step}\" ran longer than {} s and was stopped; \
                     no results were written and earlier results are untouched",
                    limit.as_secs_f64()
                );
                std::process::exit(124);
            }
        });
        self
    }

    /// A progress reporter that prints nothing (tests, in-memory smoke runs).
    pub fn hidden(chapter: &str) -> Self {
        let p = Progress::new(chapter);
        p.bar.set_draw_target(ProgressDrawTarget::hidden());
        Progress { lines: false, ..p }
    }

    /// How many steps the run will take (add to it if it grows).
    pub fn set_total(&self, total: u64) {
        self.state.lock().unwrap().1 = total;
        self.bar.set_length(total);
    }

    /// Announces the next step (an experiment point) and counts the previous one done.
    pub fn step(&self, what: impl std::fmt::Display) {
        let mut state = self.state.lock().unwrap();
        let (done, total) = *state;
        state.0 += 1;
        drop(state);
        self.bar.set_position(done);
        self.bar.set_message(what.to_string());
        *self.current.lock().unwrap() = (what.to_string(), Instant::now());
        fault_injection(&what.to_string());
        if self.lines {
            let elapsed = self.started.elapsed();
            let left = if done > 0 && total > done {
                let per = elapsed.as_secs_f64() / done as f64;
                format!(
                    ", ~{} left",
                    fmt_duration(Duration::from_secs_f64(per * (total - done) as f64))
                )
            } else {
                String::new()
            };
            eprintln!(
                "[{} {}/{} {} elapsed{left}] {what}",
                self.chapter,
                done + 1,
                total.max(done + 1),
                fmt_duration(elapsed)
            );
        }
    }

    pub fn finish(&self) {
        self.bar.finish_and_clear();
    }

    pub fn elapsed(&self) -> Duration {
        self.started.elapsed()
    }
}

/// `BOOK_FAULT_HANG=<text>` makes the step whose label contains `<text>` hang,
/// so tests can prove that a hung experiment is stopped and named.
fn fault_injection(step: &str) {
    if let Some(pattern) = std::env::var_os("BOOK_FAULT_HANG") {
        if !pattern.is_empty() && step.contains(pattern.to_string_lossy().as_ref()) {
            loop {
                std::thread::sleep(Duration::from_secs(3600));
            }
        }
    }
}

pub fn fmt_duration(d: Duration) -> String {
    let s = d.as_secs();
    format!("{}:{:02}", s / 60, s % 60)
}
