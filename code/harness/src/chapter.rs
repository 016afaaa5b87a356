//! The contract between a chapter crate and the harness, and the command line
//! every chapter binary shares (`measure`, `render`, `exhibits`, `check`).
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

use anyhow::{bail, Context, Result};
use clap::{Parser, Subcommand};
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

use crate::claims::Claim;
use crate::exhibit::Block;
use crate::fingerprint::{fingerprint, locked_versions};
use crate::machine::{busy_cores, load_average, rustc_version, CpuCounters, Machine};
use crate::profile::Profile;
use crate::progress::Progress;
use crate::published::Dataset;
use crate::render;
use crate::results::{read_results, Provenance, ResultsFile, Store};

/// What kind of thing an exhibit puts on the page (checked in the built HTML).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ExhibitKind {
    Table,
    Figure,
    Verdicts,
    Text,
}

#[derive(Clone, Copy, Debug)]
pub struct Exhibit {
    pub name: &'static str,
    pub kind: ExhibitKind,
    pub about: &'static str,
}

/// A chapter of the book: its experiments, its claims and its exhibits.
pub trait Chapter {
    /// Everything one run measures. Stored as the `data` of a results file.
    type Data: Serialize + DeserializeOwned;

    /// The chapter's name: its crate, its results folder, its page.
    const NAME: &'static str;
    /// Crates whose versions decide the numbers (recorded from Cargo.lock).
    const MEASURED_CRATES: &'static [&'static str];
    const EXHIBITS: &'static [Exhibit];
    const CLAIMS: &'static [Claim];

    /// Runs every experiment of the profile, validating the work as it goes.
    /// An experiment that fails validation returns an error: nothing is written.
    fn measure(profile: Profile, progress: &Progress) -> Result<Self::Data>;

    /// Sanity checks on data read from a file (import, load): shapes, counts,
    /// positive times. Return an error naming what is wrong.
    fn check(data: &Self::Data) -> Result<()>;

    fn render(exhibit: &str, book: &Book<Self::Data>) -> Result<Vec<Block>>;

    /// The estimates the chapter's verdicts rest on, named, for the built-in
    /// `precision` exhibit. Chapters whose numbers are exact return none.
    fn headline(_data: &Self::Data) -> Vec<(String, crate::timing::Estimate)> {
        Vec::new()
    }
}

/// One machine's results as the page sees them.
pub struct Run<D> {
    pub path: PathBuf,
    pub provenance: Provenance,
    pub data: D,
    /// The chapter's code, lock file, toolchain or profile changed since.
    pub stale: bool,
    /// Measured on the fly with the smoke profile because no results existed.
    pub ephemeral: bool,
}

impl<D> Run<D> {
    pub fn machine(&self) -> &str {
        &self.provenance.machine.id
    }

    pub fn arch(&self) -> &str {
        &self.provenance.machine.arch
    }
}

/// Every machine's results for one chapter, plus its published datasets.
pub struct Book<D> {
    pub chapter: &'static str,
    pub runs: Vec<Run<D>>,
    pub store: Store,
}

impl<D> Book<D> {
    /// `code/results/<chapter>/published-<name>.json`: reference data lives
    /// with the committed results even when measurements are read elsewhere.
    pub fn published(&self, name: &str) -> Result<Dataset> {
        Dataset::load(
            &Store::new(crate::code_dir().join("results"))
                .chapter_dir(self.chapter)
                .join(format!("published-{name}.json")),
        )
    }

    /// The run of this machine if there is one, else the first (for single-machine exhibits).
    pub fn primary(&self) -> &Run<D> {
        let here = Machine::detect().id;
        self.runs
            .iter()
            .find(|r| r.machine() == here)
            .unwrap_or(&self.runs[0])
    }
}

#[derive(Parser)]
#[command(about = "Measure and render one chapter of the book")]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(Subcommand)]
enum Command {
    /// Run the chapter's experiments and write this machine's results file.
    Measure {
        #[arg(long, default_value = "quick")]
        profile: Profile,
        /// Results folder (default: code/results, or $BOOK_RESULTS_DIR).
        #[arg(long)]
        results: Option<PathBuf>,
        /// Stop the run if one experiment step takes longer than this many seconds.
        #[arg(long, default_value_t = 900)]
        timeout: u64,
    },
    /// Print one exhibit as markdown (tables, inline SVG, verdicts).
    Render {
        exhibit: String,
        #[arg(long)]
        results: Option<PathBuf>,
    },
    /// Write the raw results (JSON) and every table (CSV) into a folder, for
    /// download from the built book.
    Export { dir: PathBuf },
    /// List the chapter's exhibits, their kinds and its claims.
    Exhibits,
    /// Validate a results file (schema, chapter, provenance, sane values).
    Check { files: Vec<PathBuf> },
    /// Print the headline estimates and verdicts of one results file as JSON
    /// (what `harness compare` lines up between two runs).
    Headline { file: PathBuf },
}

/// What `headline` prints for one results file: the estimates the verdicts
/// rest on, and the verdicts themselves.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Headline {
    pub estimates: Vec<HeadlineEstimate>,
    pub verdicts: Vec<HeadlineVerdict>,
}

/// One headline estimate.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct HeadlineEstimate {
    pub name: String,
    pub estimate: crate::timing::Estimate,
}

/// One claim's outcome on one machine (`machine` empty when none decided it).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct HeadlineVerdict {
    pub claim: String,
    pub machine: String,
    pub outcome: String,
}

/// The headline of one results file (see `Headline`).
pub fn headline_of<C: Chapter>(path: &Path) -> Result<Headline> {
    let file = check_file::<C>(path)?;
    let estimates = C::headline(&file.data)
        .into_iter()
        .map(|(name, estimate)| HeadlineEstimate { name, estimate })
        .collect();
    let book = Book {
        chapter: C::NAME,
        runs: vec![Run {
            path: path.to_path_buf(),
            stale: false,
            ephemeral: false,
            provenance: file.provenance,
            data: file.data,
        }],
        store: Store::new(
            path.parent()
                .and_then(Path::parent)
                .map_or_else(|| PathBuf::from("."), Path::to_path_buf),
        ),
    };
    let mut verdicts = Vec::new();
    for e in C::EXHIBITS
        .iter()
        .filter(|e| e.kind == ExhibitKind::Verdicts)
    {
        for block in C::render(e.name, &book)? {
            if let Block::Verdicts(vs) = block {
                verdicts.extend(vs.into_iter().map(|v| HeadlineVerdict {
                    claim: v.claim.id.to_string(),
                    machine: v.machine.unwrap_or_default(),
                    outcome: v.outcome.label().to_string(),
                }));
            }
        }
    }
    Ok(Headline {
        estimates,
        verdicts,
    })
}

/// `fn main() -> ExitCode { harness::chapter_main::<MyChapter>() }`
pub fn chapter_main<C: Chapter>() -> ExitCode {
    let cli = Cli::parse();
    let outcome = match cli.command {
        None => measure::<C>(Profile::Quick, &Store::new(Store::default_root()), 900).map(|_| ()),
        Some(Command::Measure {
            profile,
            results,
            timeout,
        }) => {
            let store = Store::new(results.unwrap_or_else(Store::default_root));
            measure::<C>(profile, &store, timeout).map(|_| ())
        }
        Some(Command::Render { exhibit, results }) => {
            let store = Store::new(results.unwrap_or_else(Store::default_root));
            match render_exhibit::<C>(&exhibit, &store) {
                Ok(markdown) => {
                    print!("{markdown}");
                    Ok(())
                }
                Err(e) => {
                    // cmdrun shows stdout in the page; scripts/build looks for this.
                    println!(
                        "\n**render error** in chapter `{}`, exhibit `{exhibit}`: {e:#}\n",
                        C::NAME
                    );
                    Err(e)
                }
            }
        }
        Some(Command::Export { dir }) => {
            export::<C>(&Store::new(Store::default_root()), &dir).map(|n| {
                eprintln!("{}: {n} files written to {}", C::NAME, dir.display());
            })
        }
        Some(Command::Exhibits) => {
            for e in C::EXHIBITS {
                println!("{}\t{:?}\t{}", e.name, e.kind, e.about);
            }
            for c in C::CLAIMS {
                println!("claim\t{}\t{}", c.id, c.statement);
            }
            Ok(())
        }
        Some(Command::Headline { file }) => headline_of::<C>(&file).and_then(|h| {
            println!("{}", serde_json::to_string_pretty(&h)?);
            Ok(())
        }),
        Some(Command::Check { files }) => files.iter().try_for_each(|f| {
            let file = check_file::<C>(f)?;
            println!(
                "ok: {} ({} results from {}, {} profile)",
                f.display(),
                C::NAME,
                file.provenance.machine.id,
                file.provenance.profile
            );
            Ok(())
        }),
    };
    match outcome {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::FAILURE
        }
    }
}

/// Reads and fully validates a results file of chapter `C`.
pub fn check_file<C: Chapter>(path: &Path) -> Result<ResultsFile<C::Data>> {
    let file: ResultsFile<C::Data> = read_results(path, C::NAME)?;
    let p = &file.provenance;
    if p.machine.id.is_empty() || p.machine.arch.is_empty() || p.machine.cores == 0 {
        bail!(
            "{}: provenance names no machine, architecture or cores",
            path.display()
        );
    }
    if p.rustc.is_empty() || p.fingerprint.is_empty() || p.date.is_empty() {
        bail!(
            "{}: provenance lacks rustc, fingerprint or date",
            path.display()
        );
    }
    if !(p.wall_time_s.is_finite() && p.wall_time_s >= 0.0) {
        bail!(
            "{}: wall time {} is not a duration",
            path.display(),
            p.wall_time_s
        );
    }
    C::check(&file.data)
        .with_context(|| format!("{} failed the chapter's checks", path.display()))?;
    Ok(file)
}

fn provenance<C: Chapter>(
    profile: Profile,
    started: Instant,
    load: Option<f64>,
    busy: Option<f64>,
    cores_apart: Option<crate::cores::CoresApart>,
    steal_share: Option<f64>,
) -> Result<Provenance> {
    let code = crate::code_dir();
    Ok(Provenance {
        machine: Machine::detect(),
        rustc: rustc_version().to_string(),
        crates: locked_versions(&code, C::MEASURED_CRATES)?,
        fingerprint: fingerprint(&code, C::NAME, profile)?,
        profile,
        date: humantime::format_rfc3339_seconds(std::time::SystemTime::now()).to_string(),
        wall_time_s: started.elapsed().as_secs_f64(),
        load_average_at_start: load,
        busy_cores_at_start: busy,
        cores_apart,
        steal_share,
    })
}

/// While measuring, criterion's chatter goes where nobody trips over it:
/// file descriptor 1 (its reports) to /dev/null, descriptor 2 (its progress
/// and warnings) to a log file, and the book's own progress lines to the
/// saved terminal (see `progress::say`). Restored when dropped; a panic in
/// between gets the log's tail on the real stderr, so its message is not
/// lost. Unix only; elsewhere a no-op.
struct QuietOutput {
    #[cfg(unix)]
    saved: Option<(i32, i32)>,
    #[cfg(unix)]
    log: PathBuf,
}

impl QuietOutput {
    fn new(log: &Path) -> Self {
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
                        crate::progress::set_terminal(err);
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
            }
        }
        #[cfg(not(unix))]
        QuietOutput {}
    }
}

impl Drop for QuietOutput {
    fn drop(&mut self) {
        use std::io::Write;
        let _ = std::io::stdout().flush();
        let _ = std::io::stderr().flush();
        #[cfg(unix)]
        if let Some((out, err)) = self.saved {
            // SAFETY: restores the descriptors saved in `new`.
            unsafe {
                libc::dup2(out, 1);
                libc::dup2(err, 2);
                libc::close(out);
                libc::close(err);
            }
            crate::progress::set_terminal(2);
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

/// Where criterion's own output goes while `chapter` measures.
pub fn criterion_log(chapter: &str) -> PathBuf {
    std::env::temp_dir().join(format!("book-{chapter}-criterion.log"))
}

/// Measures, validates and builds the results file, without writing it.
pub fn measure_in_memory<C: Chapter>(
    profile: Profile,
    progress: &Progress,
) -> Result<ResultsFile<C::Data>> {
    let load = load_average();
    // A second of sampling /proc/stat, before the clock starts: the load
    // average alone would still count the chapter a fresh run measured just
    // before this one.
    let busy = busy_cores(std::time::Duration::from_secs(1));
    let started = Instant::now();
    progress.phase("start-up");
    // criterion reports every benchmark on stdout and its progress and
    // warnings on stderr. While measuring, the book's progress lines are what
    // a person watches, so criterion's chatter goes to a log file.
    let log = criterion_log(C::NAME);
    progress.note(format_args!(
        "criterion's own output goes to {}",
        log.display()
    ));
    let gate = gate_for(profile)?;
    let budget = retake_budget(profile)?;
    if let Some(g) = gate {
        progress.note(format_args!(
            "each timing waits (up to {} s, {} s in all) until two cores answer each other \
             within {} ns",
            g.patience.as_secs(),
            budget.as_secs(),
            g.limit_ns
        ));
    }
    crate::cores::start_run(gate, budget);
    let counters = CpuCounters::read();
    let data = {
        let _quiet = QuietOutput::new(&log);
        C::measure(profile, progress)?
    };
    let steal_share = counters
        .zip(CpuCounters::read())
        .and_then(|(start, end)| start.steal_share_until(&end));
    let cores_apart = crate::cores::finish_run();
    C::check(&data).context("the run's own results failed the chapter's checks")?;
    Ok(ResultsFile::new(
        C::NAME,
        provenance::<C>(profile, started, load, busy, cores_apart, steal_share)?,
        data,
    ))
}

/// The gate this run's timings wait at (see `cores`): `cores::GATE_ENV` when
/// set (how `harness measure --core-gate` passes it on), else this machine's
/// entry in `machines.toml` for the quick and full profiles. Smoke runs only
/// exercise the code, so they do not wait unless told to.
fn gate_for(profile: Profile) -> Result<Option<crate::cores::Gate>> {
    if profile == Profile::Smoke && std::env::var_os(crate::cores::GATE_ENV).is_none() {
        return Ok(None);
    }
    crate::cores::gate_for(&Machine::detect().id)
}

/// The most one run spends waiting at the gate and on timings it throws
/// away (cores that drifted apart, or a hypervisor that stole a tenth of the
/// time), over all the chapters it measures. Far spells of the book's
/// machine lasted from seconds to a few minutes, so a quick run can sit one
/// out; the cap keeps a machine stuck apart from stretching a quick run past
/// ten minutes or a full one past an hour. Smoke runs only exercise the
/// code: they measure nothing again.
pub fn run_budget(profile: Profile) -> std::time::Duration {
    std::time::Duration::from_secs(profile.pick(0, 150, 900))
}

/// What this chapter's run may spend: what `harness measure` left of the
/// run's budget (`cores::BUDGET_ENV`), or the whole budget when the chapter
/// runs on its own. Never more than the profile's budget.
fn retake_budget(profile: Profile) -> Result<std::time::Duration> {
    let env = crate::cores::BUDGET_ENV;
    let given = match std::env::var(env) {
        Ok(v) => Some(v),
        Err(std::env::VarError::NotPresent) => None,
        Err(e) => bail!("{env}: {e}"),
    };
    budget_given(profile, given.as_deref())
        .with_context(|| format!("{env}={}", given.unwrap_or_default()))
}

fn budget_given(profile: Profile, given: Option<&str>) -> Result<std::time::Duration> {
    let whole = run_budget(profile);
    Ok(match given {
        Some(v) => crate::cores::parse_budget(v)?.min(whole),
        None => whole,
    })
}

/// What a finished run spent of the budget: its waits at the gate and the
/// timings it threw away, as its provenance records them.
pub fn budget_spent(p: &Provenance) -> std::time::Duration {
    p.cores_apart
        .as_ref()
        .map_or(std::time::Duration::ZERO, |c| {
            std::time::Duration::from_secs_f64(
                (c.waited_s + c.remeasured_s.unwrap_or(0.0)).max(0.0),
            )
        })
}

/// Measures and writes this machine's results file. Refuses to start when the
/// file it would replace is unreadable: a corrupt or foreign file is evidence
/// someone should look at, not something to overwrite silently.
pub fn measure<C: Chapter>(
    profile: Profile,
    store: &Store,
    step_timeout_s: u64,
) -> Result<PathBuf> {
    let target = store.results_path(C::NAME, &Machine::detect().id);
    if target.exists() {
        read_results::<serde_json::Value>(&target, C::NAME).with_context(|| {
            format!(
                "refusing to replace {}: move it away or delete it first",
                target.display()
            )
        })?;
    }
    let progress =
        Progress::new(C::NAME).with_watchdog(std::time::Duration::from_secs(step_timeout_s));
    let file = measure_in_memory::<C>(profile, &progress)?;
    progress.finish();
    let path = store.write(&file)?;
    eprintln!(
        "{}: {} profile took {:.1} s; wrote {}",
        C::NAME,
        profile,
        file.provenance.wall_time_s,
        path.display()
    );
    Ok(path)
}

/// Loads every machine's results, marking stale ones. With none at all, measures
/// the smoke profile once (cached under target/, never under src/ or results/).
pub fn load_book<C: Chapter>(store: &Store) -> Result<Book<C::Data>> {
    let code = crate::code_dir();
    let mut runs = Vec::new();
    for (path, file) in store.load_all::<C::Data>(C::NAME)? {
        C::check(&file.data)
            .with_context(|| format!("{} failed the chapter's checks", path.display()))?;
        runs.push(Run {
            stale: !file.provenance.is_current(C::NAME)?,
            provenance: file.provenance,
            data: file.data,
            path,
            ephemeral: false,
        });
    }
    if runs.is_empty() {
        let cache = Store::new(code.join("target").join("smoke-results"));
        let path = cache.results_path(C::NAME, &Machine::detect().id);
        let fresh = fingerprint(&code, C::NAME, Profile::Smoke)?;
        let cached = read_results::<C::Data>(&path, C::NAME)
            .ok()
            .filter(|f| f.provenance.fingerprint == fresh);
        let file = match cached {
            Some(f) => f,
            None if std::env::var_os("BOOK_NO_MEASURE").is_some() => bail!(
                "no results for chapter {} in {} and BOOK_NO_MEASURE is set: \
                 commit results measured with scripts/fresh",
                C::NAME,
                store.chapter_dir(C::NAME).display()
            ),
            None => {
                eprintln!(
                    "{}: no results for any machine; measuring the smoke profile",
                    C::NAME
                );
                let file = measure_in_memory::<C>(Profile::Smoke, &Progress::new(C::NAME))?;
                cache.write(&file)?;
                file
            }
        };
        runs.push(Run {
            path,
            provenance: file.provenance,
            data: file.data,
            stale: false,
            ephemeral: true,
        });
    }
    Ok(Book {
        chapter: C::NAME,
        runs,
        store: store.clone(),
    })
}

/// Exhibits every chapter has without declaring them.
pub const BUILT_IN: [&str; 2] = ["provenance", "precision"];

/// Largest 95 % half-width, as a fraction of the estimate, that the full
/// profile promises for every headline estimate.
pub const PRECISION_TARGET: f64 = 0.05;

/// Within the target; a NaN width (a zero estimate) is not.
fn precise(e: &crate::timing::Estimate) -> bool {
    e.relative_half_width() <= PRECISION_TARGET
}

/// What the machine was doing when the run started, in a sentence. The busy
/// share measured just before the clock started is the better witness; the
/// one-minute load average is all that older files carry.
fn load_note(p: &Provenance) -> String {
    let cores = p.machine.cores;
    match (p.busy_cores_at_start, p.load_average_at_start) {
        (Some(busy), _) if busy > cores as f64 * BUSY_SHARE => format!(
            "The machine was busy when the run started: other work kept {busy:.2} of {cores} \
             cores busy in the second before measuring, so {WIDER}. "
        ),
        (Some(busy), load) => {
            let mut note = format!(
                "In the second before measuring, other work kept {busy:.2} of {cores} cores busy"
            );
            if let Some(load) = load.filter(|l| *l > cores as f64 * LOAD_SHARE) {
                note.push_str(&format!(
                    " (the one-minute load average, {load:.2}, still counted work that had \
                     just finished)"
                ));
            }
            note.push_str(". ");
            note
        }
        (None, Some(load)) if load > cores as f64 * LOAD_SHARE => format!(
            "The machine was busy when the run started (load {load:.2} on {cores} cores): \
             {WIDER}. "
        ),
        (None, Some(load)) => format!("Load at start {load:.2} on {cores} cores. "),
        (None, None) => String::new(),
    }
}

/// How far apart the cores were while the run measured, in a sentence, when
/// it matters: timings kept beyond the gate, or (without a gate) round trips
/// that moved by more than `MOVED`. Files made before the checks existed say
/// nothing.
fn cores_note(p: &Provenance) -> String {
    const LINK: &str = "(see [cores that move](method.md#cores-that-move))";
    let Some(c) = &p.cores_apart else {
        return String::new();
    };
    match c.gate_ns {
        Some(gate) if c.beyond_gate > 0 => format!(
            "{} of {} timings ran while two cores took longer than the gate of {} ns to \
             answer each other (up to {} ns), so figures that hand work between threads \
             may read slower than the rest of the run {LINK}. ",
            c.beyond_gate,
            c.timings,
            crate::fmt::sig3(gate),
            crate::fmt::sig3(c.max_ns)
        ),
        Some(gate) => format!(
            "Every timing started and ended with two cores answering each other within the \
             gate of {} ns ({}–{} ns) {LINK}. ",
            crate::fmt::sig3(gate),
            crate::fmt::sig3(c.min_ns),
            crate::fmt::sig3(c.max_ns)
        ),
        None if c.spread() > MOVED => format!(
            "The round trip between two cores moved between {} and {} ns while the run \
             measured, and no gate held the timings to one of those spells, so figures that \
             hand work between threads mix them {LINK}. ",
            crate::fmt::sig3(c.min_ns),
            crate::fmt::sig3(c.max_ns)
        ),
        None => String::new(),
    }
}

/// How much of the run the hypervisor took away, in a sentence, when it
/// matters: timings that lost at least `cores::STOLEN` of their CPU time, or
/// a whole run that lost at least `STEAL_SHARE`. `harness measure` repeats
/// it under its summary.
pub fn steal_note(p: &Provenance) -> String {
    const EFFECT: &str = "so figures that spread work over several threads may read as if the \
                          machine had fewer cores";
    let over_run = p.steal_share.map_or(String::new(), |s| {
        format!("; {:.1} % over the whole run", s * 100.0)
    });
    match (&p.cores_apart, p.steal_share) {
        (Some(c), _) if c.stolen_timings.is_some_and(|n| n > 0) => format!(
            "{} of {} timings lost at least {:.0} % of their CPU time to the hypervisor \
             (steal, up to {:.0} % in one{over_run}{}), {EFFECT}. ",
            c.stolen_timings.unwrap_or(0),
            c.timings,
            crate::cores::STOLEN * 100.0,
            c.steal_max.unwrap_or(0.0) * 100.0,
            match c.steal_remeasured {
                Some(n) if n > 0 => format!("; kept after {n} stolen attempts were measured again"),
                _ => String::new(),
            }
        ),
        (_, Some(share)) if share >= STEAL_SHARE => format!(
            "While the run measured, the hypervisor kept this machine's virtual cores off \
             their host cores for {:.1} % of their time (steal), {EFFECT}. ",
            share * 100.0
        ),
        _ => String::new(),
    }
}

/// The share of CPU time stolen by the hypervisor that is worth a sentence.
const STEAL_SHARE: f64 = 0.05;

/// Round trips whose largest is more than this multiple of the smallest
/// moved enough to mention.
const MOVED: f64 = 1.5;

/// What a busy start means for the figures that follow.
const WIDER: &str = "margins may be wider than a quiet machine would give";

/// Above this share of the cores in use by other work, a run's margins are
/// called out as possibly wider than a quiet machine's.
const BUSY_SHARE: f64 = 0.25;

/// The same for the one-minute load average, which counts runnable threads
/// rather than CPU time and so reads higher on the same machine.
const LOAD_SHARE: f64 = 0.5;

/// How precise each headline estimate is, per machine, and whether the run
/// was made on a busy machine: what a reader needs before trusting a verdict.
fn precision<C: Chapter>(book: &Book<C::Data>) -> Vec<Block> {
    let mut blocks = Vec::new();
    for run in &book.runs {
        let p = &run.provenance;
        let estimates = C::headline(&run.data);
        let mut text = format!("**{}** ({} profile). ", run.machine(), p.profile);
        text.push_str(&load_note(p));
        text.push_str(&cores_note(p));
        text.push_str(&steal_note(p));
        if estimates.is_empty() {
            text.push_str("This chapter's figures are exact counts: they have no spread.");
            blocks.push(Block::Text(text));
            continue;
        }
        let wide: Vec<&(String, crate::timing::Estimate)> =
            estimates.iter().filter(|(_, e)| !precise(e)).collect();
        text.push_str(&format!(
            "{} of {} headline estimates have a 95 % interval within ±{:.0} % of their value.",
            estimates.len() - wide.len(),
            estimates.len(),
            PRECISION_TARGET * 100.0
        ));
        if !wide.is_empty() && p.profile == Profile::Full {
            text.push_str(" The full profile promises all of them; the others are listed below.");
        }
        text.push_str(
            " These intervals describe this run alone: a run repeated later on the same \
             machine can land further away than they suggest (see \
             [how to compare two runs](method.md#noise-and-precision), and \
             [two runs of every chapter, lined up](method.md#two-runs-one-after-the-other)).",
        );
        blocks.push(Block::Text(text));
        let mut t = crate::exhibit::Table::new(
            format!(
                "Headline estimates on {} and their 95 % intervals.",
                run.machine()
            ),
            &[
                "estimate",
                "value",
                "interval",
                "± of value",
                "precise enough",
            ],
        );
        for (name, e) in &estimates {
            let ok = precise(e);
            t.push(vec![
                name.clone(),
                crate::fmt::sig3(e.point_ns),
                format!(
                    "{} – {}",
                    crate::fmt::sig3(e.lower_ns),
                    crate::fmt::sig3(e.upper_ns)
                ),
                format!("{:.1} %", e.relative_half_width() * 100.0),
                if ok { "yes".into() } else { "**no**".into() },
            ]);
        }
        blocks.push(Block::Table(t));
    }
    blocks
}

/// Every table the chapter's exhibits show, named `<exhibit>.csv`
/// (`<exhibit>-2.csv`, ... when an exhibit shows several).
pub fn tables<C: Chapter>(book: &Book<C::Data>) -> Result<Vec<(String, crate::exhibit::Table)>> {
    let mut out = Vec::new();
    for e in C::EXHIBITS {
        let found: Vec<_> = C::render(e.name, book)?
            .into_iter()
            .filter_map(|b| match b {
                Block::Table(t) => Some(t),
                _ => None,
            })
            .collect();
        for (i, t) in found.into_iter().enumerate() {
            let name = if i == 0 {
                format!("{}.csv", e.name)
            } else {
                format!("{}-{}.csv", e.name, i + 1)
            };
            out.push((name, t));
        }
    }
    Ok(out)
}

/// Copies the machines' results files and writes the tables as CSV into `dir`.
pub fn export<C: Chapter>(store: &Store, dir: &Path) -> Result<usize> {
    std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    let book = load_book::<C>(store)?;
    let mut written = 0;
    for run in book.runs.iter().filter(|r| !r.ephemeral) {
        let name = run.path.file_name().context("results file has no name")?;
        std::fs::copy(&run.path, dir.join(name))?;
        written += 1;
    }
    for (name, table) in tables::<C>(&book)? {
        std::fs::write(dir.join(name), render::csv(&table))?;
        written += 1;
    }
    Ok(written)
}

/// The markdown for one exhibit: the built-in `provenance` card, or the chapter's own.
pub fn render_exhibit<C: Chapter>(exhibit: &str, store: &Store) -> Result<String> {
    let known = C::EXHIBITS.iter().any(|e| e.name == exhibit);
    if !BUILT_IN.contains(&exhibit) && !known {
        let names: Vec<_> = C::EXHIBITS.iter().map(|e| e.name).collect();
        bail!(
            "unknown exhibit {exhibit:?} for chapter {}: expected provenance, precision or one of {}",
            C::NAME,
            names.join(", ")
        );
    }
    let book = load_book::<C>(store)?;
    if exhibit == "provenance" {
        let csv: Vec<String> = tables::<C>(&book)?.into_iter().map(|(n, _)| n).collect();
        let mut md = render::exhibit_markdown(C::NAME, exhibit, &book, &[]);
        md.push_str(&render::downloads(C::NAME, &book, &csv));
        return Ok(md);
    }
    let blocks = if exhibit == "precision" {
        precision::<C>(&book)
    } else {
        C::render(exhibit, &book)?
    };
    Ok(render::exhibit_markdown(C::NAME, exhibit, &book, &blocks))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn provenance(busy: Option<f64>, load: Option<f64>) -> Provenance {
        let mut machine = Machine::detect();
        machine.cores = 2;
        Provenance {
            machine,
            rustc: "rustc 1.0".into(),
            crates: Default::default(),
            fingerprint: "abc".into(),
            profile: Profile::Full,
            date: "2026-01-01T00:00:00Z".into(),
            wall_time_s: 1.0,
            load_average_at_start: load,
            busy_cores_at_start: busy,
            cores_apart: None,
            steal_share: None,
        }
    }

    fn apart(gate_ns: Option<f64>, min_ns: f64, max_ns: f64, beyond: usize) -> Provenance {
        let mut p = provenance(Some(0.0), Some(0.0));
        p.cores_apart = Some(crate::cores::CoresApart {
            gate_ns,
            timings: 40,
            checks: 80,
            min_ns,
            median_ns: min_ns,
            max_ns,
            beyond_gate: beyond,
            ..Default::default()
        });
        p
    }

    #[test]
    fn a_run_measures_within_what_the_runs_before_it_left_of_the_budget() {
        let secs = |d: std::time::Duration| d.as_secs_f64();
        // On its own, a chapter has the profile's whole budget.
        assert_eq!(secs(budget_given(Profile::Quick, None).unwrap()), 150.0);
        assert_eq!(secs(budget_given(Profile::Full, None).unwrap()), 900.0);
        assert_eq!(secs(budget_given(Profile::Smoke, None).unwrap()), 0.0);
        // Under `harness measure`, what is left, never more than the whole.
        assert_eq!(
            secs(budget_given(Profile::Quick, Some("42.5")).unwrap()),
            42.5
        );
        assert_eq!(secs(budget_given(Profile::Quick, Some("0")).unwrap()), 0.0);
        assert_eq!(
            secs(budget_given(Profile::Quick, Some("4000")).unwrap()),
            150.0
        );
        assert_eq!(secs(budget_given(Profile::Smoke, Some("60")).unwrap()), 0.0);
        for bad in ["soon", "-1", "NaN", ""] {
            let err = budget_given(Profile::Quick, Some(bad))
                .unwrap_err()
                .to_string();
            assert!(err.contains("is not a number of seconds"), "{bad:?}: {err}");
        }
        // What a run spent is its waits plus the timings it threw away.
        assert_eq!(
            budget_spent(&provenance(None, None)),
            std::time::Duration::ZERO
        );
        let mut p = apart(Some(335.0), 50.0, 420.0, 2);
        let c = p.cores_apart.as_mut().unwrap();
        c.waited_s = 27.75;
        c.remeasured_s = Some(2.25);
        assert_eq!(secs(budget_spent(&p)), 30.0);
        p.cores_apart.as_mut().unwrap().remeasured_s = None;
        assert_eq!(secs(budget_spent(&p)), 27.75);
    }

    #[test]
    fn the_cores_note_speaks_when_the_cores_moved_or_the_gate_gave_up() {
        // Older files, and a run whose cores stayed put: nothing to say.
        assert_eq!(cores_note(&provenance(None, None)), "");
        assert_eq!(cores_note(&apart(None, 200.0, 280.0, 0)), "");
        let note = cores_note(&apart(None, 80.0, 410.0, 0));
        assert!(note.contains("moved between 80.0 and 410 ns"), "{note}");
        assert!(note.contains("method.md#cores-that-move"), "{note}");
        let note = cores_note(&apart(Some(330.0), 90.0, 320.0, 0));
        assert!(note.starts_with("Every timing started and ended"), "{note}");
        assert!(note.contains("gate of 330 ns (90.0–320 ns)"), "{note}");
        let note = cores_note(&apart(Some(330.0), 90.0, 420.0, 3));
        assert!(note.starts_with("3 of 40 timings ran while"), "{note}");
        assert!(note.contains("(up to 420 ns)"), "{note}");
        // Every wording reads as one sentence, without stray runs of spaces.
        for p in [
            apart(None, 80.0, 410.0, 0),
            apart(Some(330.0), 90.0, 320.0, 0),
            apart(Some(330.0), 90.0, 420.0, 3),
        ] {
            let note = cores_note(&p);
            assert!(!note.contains("  "), "{note:?}");
        }
        for p in [
            provenance(Some(0.04), Some(2.03)),
            provenance(Some(1.2), None),
        ] {
            let note = load_note(&p);
            assert!(!note.contains("  "), "{note:?}");
        }
    }

    #[test]
    fn the_load_note_trusts_the_busy_sample_over_the_load_average() {
        // The previous chapter just ended: high load average, idle machine.
        let note = load_note(&provenance(Some(0.04), Some(2.03)));
        assert!(note.starts_with("In the second before measuring, other work kept 0.04 of 2"));
        assert!(note.contains("load average, 2.03, still counted"), "{note}");
        assert!(!note.contains("busy when"), "{note}");

        let note = load_note(&provenance(Some(0.04), Some(0.3)));
        assert!(!note.contains("load average"), "{note}");

        let note = load_note(&provenance(Some(1.2), Some(0.3)));
        assert!(note.starts_with("The machine was busy"), "{note}");
        assert!(note.contains("1.20 of 2 cores"), "{note}");
    }

    #[test]
    fn steal_is_mentioned_only_when_it_took_a_real_share() {
        let with = |share| {
            let mut p = provenance(Some(0.0), Some(0.0));
            p.steal_share = share;
            steal_note(&p)
        };
        assert!(
            with(Some(0.123)).contains("off their host cores for 12.3 % of their time"),
            "{}",
            with(Some(0.123))
        );
        assert!(with(Some(STEAL_SHARE)).contains("5.0 %"));
        assert_eq!(with(Some(0.049)), "");
        assert_eq!(with(Some(0.0)), "");
        assert_eq!(with(None), "");

        // Timings that lost a real share speak even when the run's average is low.
        let mut p = apart(None, 60.0, 70.0, 0);
        p.steal_share = Some(0.012);
        let c = p.cores_apart.as_mut().unwrap();
        c.steal_max = Some(0.46);
        c.stolen_timings = Some(3);
        let timings = c.timings;
        let note = steal_note(&p);
        assert!(
            note.starts_with(&format!(
                "3 of {timings} timings lost at least 10 % of their CPU time"
            )) && note.contains("up to 46 % in one; 1.2 % over the whole run")
                && note.contains("as if the machine had fewer cores"),
            "{note}"
        );
        // Retakes that did not clear it are named.
        p.cores_apart.as_mut().unwrap().steal_remeasured = Some(4);
        let note = steal_note(&p);
        assert!(
            note.contains(
                "1.2 % over the whole run; kept after 4 stolen attempts were measured again)"
            ),
            "{note}"
        );
        // None stolen: back to the run's average, which is too low to mention.
        p.cores_apart.as_mut().unwrap().stolen_timings = Some(0);
        assert_eq!(steal_note(&p), "");
    }

    #[test]
    fn older_files_fall_back_to_the_load_average() {
        assert!(load_note(&provenance(None, Some(2.0)))
            .contains("busy when the run started (load 2.00"));
        assert_eq!(
            load_note(&provenance(None, Some(0.5))),
            "Load at start 0.50 on 2 cores. "
        );
        assert_eq!(load_note(&provenance(None, None)), "");
    }
}
