//! Progress on the terminal while a chapter measures: a bar on a terminal,
//! one line per step otherwise (CI logs, pipes).
use std::io::IsTerminal;
use std::sync::atomic::{AtomicI32, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

/// Where a `Progress` writes its lines and draws its bar: stderr (file
/// descriptor 2), or the copy of it `quiet::QuietOutput` saved while
/// criterion's output is diverted. Clones share the descriptor, so the bar
/// and the watchdog follow a diversion the `Progress` was handed.
#[derive(Clone, Debug)]
pub(crate) struct Terminal(Arc<AtomicI32>);

impl Terminal {
    fn stderr() -> Self {
        Terminal(Arc::new(AtomicI32::new(2)))
    }

    /// From now on, write to `fd`, which stays open until `restore`.
    pub(crate) fn divert(&self, fd: i32) {
        self.0.store(fd, Ordering::SeqCst);
    }

    /// From now on, write to stderr again.
    pub(crate) fn restore(&self) {
        self.0.store(2, Ordering::SeqCst);
    }

    /// Writes one line to the person running the book.
    fn say(&self, line: impl std::fmt::Display) {
        self.write(&format!("{line}\n"));
    }

    fn write(&self, text: &str) {
        #[cfg(unix)]
        {
            use std::io::Write;
            use std::os::unix::io::FromRawFd;
            // SAFETY: the descriptor stays open for the process's life (2) or
            // until `QuietOutput` has restored this terminal to 2 and closes
            // it; ManuallyDrop never closes it.
            let mut file = std::mem::ManuallyDrop::new(unsafe {
                std::fs::File::from_raw_fd(self.0.load(Ordering::SeqCst))
            });
            let _ = file.write_all(text.as_bytes());
            let _ = file.flush();
        }
        #[cfg(not(unix))]
        eprint!("{text}");
    }

    /// Moves the cursor `n` places (ANSI: A up, B down, C right, D left).
    fn cursor(&self, n: usize, direction: char) -> std::io::Result<()> {
        if n > 0 {
            self.write(&format!("\x1b[{n}{direction}"));
        }
        Ok(())
    }
}

/// The progress bar draws on the terminal with plain ANSI cursor moves.
impl indicatif::TermLike for Terminal {
    fn width(&self) -> u16 {
        100
    }
    fn move_cursor_up(&self, n: usize) -> std::io::Result<()> {
        self.cursor(n, 'A')
    }
    fn move_cursor_down(&self, n: usize) -> std::io::Result<()> {
        self.cursor(n, 'B')
    }
    fn move_cursor_right(&self, n: usize) -> std::io::Result<()> {
        self.cursor(n, 'C')
    }
    fn move_cursor_left(&self, n: usize) -> std::io::Result<()> {
        self.cursor(n, 'D')
    }
    fn write_line(&self, s: &str) -> std::io::Result<()> {
        self.write(&format!("{s}\n"));
        Ok(())
    }
    fn write_str(&self, s: &str) -> std::io::Result<()> {
        self.write(s);
        Ok(())
    }
    fn clear_line(&self) -> std::io::Result<()> {
        self.write("\r\x1b[2K");
        Ok(())
    }
    fn flush(&self) -> std::io::Result<()> {
        Ok(())
    }
}

pub struct Progress {
    chapter: String,
    bar: ProgressBar,
    started: Instant,
    lines: bool,
    terminal: Terminal,
    state: Mutex<(u64, u64)>,
    /// The step under way and when it began, watched by the watchdog; none
    /// until the run announces its first phase or step.
    current: Arc<Mutex<Option<(String, Instant)>>>,
}

impl Progress {
    pub fn new(chapter: &str) -> Self {
        let lines = !std::io::stderr().is_terminal();
        let terminal = Terminal::stderr();
        let bar = if lines {
            ProgressBar::with_draw_target(None, ProgressDrawTarget::hidden())
        } else {
            let bar = ProgressBar::with_draw_target(
                Some(0),
                ProgressDrawTarget::term_like(Box::new(terminal.clone())),
            );
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
            terminal,
            state: Mutex::new((0, 0)),
            current: Arc::new(Mutex::new(None)),
        }
    }

    /// Ends the process with exit code 124 if one step runs longer than
    /// `limit`, naming the step. Results are written only after the last step,
    /// so a killed run leaves the previous results file as it was.
    pub fn with_watchdog(self, limit: Duration) -> Self {
        let current = Arc::clone(&self.current);
        let chapter = self.chapter.clone();
        let terminal = self.terminal.clone();
        std::thread::spawn(move || loop {
            std::thread::sleep(Duration::from_millis(100).min(limit));
            // Copy the step's name only when it overran: the alloc-probe
            // chapter counts every live byte on the heap, and a copy made
            // every tick would land in the middle of its counts.
            let overran = {
                let current = current.lock().unwrap();
                current
                    .as_ref()
                    .filter(|(_, began)| began.elapsed() > limit)
                    .map(|(step, _)| step.clone())
            };
            if let Some(step) = overran {
                terminal.say(format_args!(
                    "\nerror: {chapter}: step \"{step}\" ran longer than {} s and was stopped; \
                     no results were written and earlier results are untouched",
                    limit.as_secs_f64()
                ));
                std::process::exit(124);
            }
        });
        self
    }

    /// The chapter this progress is reported for (its binary's name too).
    pub fn chapter(&self) -> &str {
        &self.chapter
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
        self.watch(what.to_string());
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
            self.terminal.say(format_args!(
                "[{} {}/{} {} elapsed{left}] {what}",
                self.chapter,
                done + 1,
                total.max(done + 1),
                fmt_duration(elapsed)
            ));
        }
    }

    /// Starts the watchdog's clock on work that is not a counted step (the
    /// run's start-up). Time before the first phase or step is not watched:
    /// it is the harness's own bounded sampling of the machine, which a short
    /// `--timeout` must not mistake for a hung benchmark.
    pub fn phase(&self, what: &str) {
        self.watch(what.to_string());
    }

    fn watch(&self, what: String) {
        *self.current.lock().unwrap() = Some((what, Instant::now()));
    }

    /// A line for the person watching (not counted as a step).
    pub fn note(&self, what: impl std::fmt::Display) {
        if self.lines {
            self.terminal.say(format_args!("[{}] {what}", self.chapter));
        } else {
            self.bar.println(format!("{what}"));
        }
    }

    pub fn finish(&self) {
        self.bar.finish_and_clear();
    }

    pub fn elapsed(&self) -> Duration {
        self.started.elapsed()
    }

    /// Where this progress writes (see `quiet::QuietOutput`).
    pub(crate) fn terminal(&self) -> &Terminal {
        &self.terminal
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
