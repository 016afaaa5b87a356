//! `harness`: the book's command line. It runs chapter binaries (which live
//! beside it in the same target folder), imports results from other machines
//! and checks the built book.
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode, Stdio};
use std::time::{Duration, Instant};

use anyhow::{bail, Context, Result};
use clap::{Parser, Subcommand};
use wait_timeout::ChildExt;

use harness::chapter::Headline;
use harness::check;
use harness::machine::Machine;
use harness::profile::Profile;
use harness::registry::{self, ChapterInfo, CHAPTERS};
use harness::results::{read_results, write_atomically, Store};

#[derive(Parser)]
#[command(about = "Measure, render and check the book: async Rust's channels and locks, measured")]
struct Cli {
    /// Results folder (default: code/results, or $BOOK_RESULTS_DIR).
    #[arg(long, global = true)]
    results: Option<PathBuf>,
    #[command(subcommand)]
    command: Cmd,
}

#[derive(Subcommand)]
enum Cmd {
    /// Chapters, their results files and whether those are stale.
    List,
    /// Chapter names, one a line (for scripts).
    Chapters {
        /// Only chapters whose crate measures.
        #[arg(long)]
        written: bool,
    },
    /// Measure chapters (default: every written chapter) and write results atomically.
    Measure {
        chapters: Vec<String>,
        #[arg(long, default_value = "quick")]
        profile: Profile,
        /// Stop a chapter when one experiment step runs longer than this many
        /// seconds, naming the step; nothing is written for that chapter.
        #[arg(long, default_value_t = 900)]
        timeout: u64,
        /// Kill a chapter's whole run after this many seconds.
        #[arg(long, default_value_t = 7200)]
        chapter_timeout: u64,
        /// Only chapters whose results for this machine are missing or stale.
        #[arg(long)]
        stale: bool,
        /// Hold every timing until two cores answer each other within this
        /// many nanoseconds, or `none`; default: this machine's entry in
        /// code/machines.toml (see `harness cores`).
        #[arg(long, value_name = "NS|none")]
        core_gate: Option<String>,
    },
    /// Check the round trip between two cores for a while and print how it
    /// spread, with the gate for machines.toml it suggests (if any).
    Cores {
        /// How long to watch, in seconds.
        #[arg(long, default_value_t = 60)]
        seconds: u64,
    },
    /// Print one exhibit of a chapter as markdown (what cmdrun puts on the page);
    /// `method agreement` is the method page's.
    Render { chapter: String, exhibit: String },
    /// Validate results files from another machine and add them beside the others.
    Import { files: Vec<PathBuf> },
    /// Copy every chapter's raw results (JSON) and tables (CSV) into the built book.
    Export {
        #[arg(default_value = "book")]
        book: PathBuf,
    },
    /// Line up the headline estimates of two results folders (two runs of the
    /// same machine, say) and report how far apart each pair is. Exits 1 if a
    /// pair differs by more than `--within` percent.
    Compare {
        /// The earlier run's results folder.
        a: PathBuf,
        /// The later run's results folder.
        b: PathBuf,
        /// Chapters to compare (default: every written chapter).
        #[arg(long = "chapter")]
        chapters: Vec<String>,
        /// Largest difference, in percent of the earlier value, that counts as agreeing.
        #[arg(long, default_value_t = harness::agreement::WITHIN_PERCENT)]
        within: f64,
    },
    /// Check the built book: pages present, exhibits rendered, no errors, includes resolve.
    CheckBook {
        #[arg(default_value = "book")]
        book: PathBuf,
        #[arg(long, default_value = "src")]
        src: PathBuf,
    },
}

// The C library's `signal`, declared here rather than through the libc crate:
// a new dependency would change Cargo.lock, and with it every chapter's fingerprint.
#[cfg(unix)]
extern "C" {
    #[link_name = "signal"]
    fn c_signal(signum: i32, handler: usize) -> usize;
}

fn main() -> ExitCode {
    // Rust ignores SIGPIPE, so `harness list | head -3` would panic on the
    // first line printed after `head` left. End quietly on it instead, as
    // other command-line tools do.
    #[cfg(unix)]
    // SAFETY: restores the default action of SIGPIPE (13) before any thread starts.
    unsafe {
        c_signal(13, 0);
    }
    let cli = Cli::parse();
    let store = Store::new(cli.results.clone().unwrap_or_else(Store::default_root));
    let outcome = match cli.command {
        Cmd::List => list(&store),
        Cmd::Chapters { written } => {
            for c in CHAPTERS.iter().filter(|c| c.written || !written) {
                println!("{}", c.name);
            }
            Ok(ExitCode::SUCCESS)
        }
        Cmd::Measure {
            chapters,
            profile,
            timeout,
            chapter_timeout,
            stale,
            core_gate,
        } => measure(
            &store,
            &chapters,
            profile,
            stale,
            timeout,
            Duration::from_secs(chapter_timeout),
            core_gate.as_deref(),
        ),
        Cmd::Cores { seconds } => survey_cores(Duration::from_secs(seconds)),
        Cmd::Render { chapter, exhibit } => render(&store, &chapter, &exhibit),
        Cmd::Import { files } => import(&store, &files),
        Cmd::Export { book } => export(&store, &book),
        Cmd::CheckBook { book, src } => check_book(&book, &src),
        Cmd::Compare {
            a,
            b,
            chapters,
            within,
        } => compare(&a, &b, &chapters, within),
    };
    match outcome {
        Ok(code) => code,
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::FAILURE
        }
    }
}

/// The chapter binary, built into the same folder as this one.
fn binary(chapter: &ChapterInfo) -> Result<PathBuf> {
    if !chapter.written {
        bail!(
            "chapter {:?} has no experiments yet (its crate is not written)",
            chapter.name
        );
    }
    let exe = std::env::current_exe()?;
    let path = exe.with_file_name(chapter.name);
    if !path.exists() {
        bail!(
            "{} is not built; run `cargo build --release -p {}` in code/ (scripts/build does)",
            path.display(),
            chapter.name
        );
    }
    Ok(path)
}

fn list(store: &Store) -> Result<ExitCode> {
    for c in CHAPTERS {
        let state = if c.written { "" } else { " (not written yet)" };
        println!("{:<16} {}{state}", c.name, c.title);
        // The published results, then the replicate pair (the method page's).
        let replicates = harness::agreement::replicates_dir(&store.root);
        let folders = [
            ("", store.clone()),
            ("replicate a: ", Store::new(replicates.join("a"))),
            ("replicate b: ", Store::new(replicates.join("b"))),
        ];
        for (label, folder) in folders {
            for path in folder.machine_files(c.name)? {
                match read_results::<serde_json::Value>(&path, c.name) {
                    Ok(file) => {
                        let p = &file.provenance;
                        let fresh = if p.is_current(c.name)? {
                            "current"
                        } else {
                            "STALE"
                        };
                        println!(
                            "  {:<34} {:<6} {}  {fresh}",
                            format!("{label}{}", p.machine.id),
                            p.profile,
                            p.date
                        );
                    }
                    Err(e) => println!("  {label}UNREADABLE {e:#}"),
                }
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// Whether this machine's results for a chapter are missing or stale, and why.
fn staleness(store: &Store, chapter: &str) -> Result<Option<String>> {
    let path = store.results_path(chapter, &Machine::detect().id);
    if !path.exists() {
        return Ok(Some("no results for this machine".into()));
    }
    let file = read_results::<serde_json::Value>(&path, chapter)?;
    Ok((!file.provenance.is_current(chapter)?).then(|| {
        format!(
            "stale: code, lock file, toolchain or profile changed since {}",
            file.provenance.date
        )
    }))
}

fn measure(
    store: &Store,
    names: &[String],
    profile: Profile,
    only_stale: bool,
    step_timeout: u64,
    chapter_timeout: Duration,
    core_gate: Option<&str>,
) -> Result<ExitCode> {
    // A bad gate fails before anything is measured; a good one reaches each
    // chapter's process through the environment.
    let gate = core_gate
        .map(|g| harness::cores::parse_limit(g).context("--core-gate"))
        .transpose()?;
    // Resolve every name before measuring anything: a typo fails at once.
    let mut chapters: Vec<&ChapterInfo> = if names.is_empty() {
        registry::written().collect()
    } else {
        names
            .iter()
            .map(|n| registry::find(n))
            .collect::<Result<_>>()?
    };
    if only_stale {
        let mut keep = Vec::new();
        for c in chapters {
            match staleness(store, c.name)? {
                Some(why) => {
                    eprintln!("{}: {why}", c.name);
                    keep.push(c);
                }
                None => eprintln!("{}: current, skipped", c.name),
            }
        }
        chapters = keep;
    }
    let binaries: Vec<PathBuf> = chapters.iter().map(|c| binary(c)).collect::<Result<_>>()?;
    let mut summary = Vec::new();
    let mut stolen = Vec::new();
    let mut failed = 0;
    // One budget for waiting at the gate and measuring again, shared by the
    // chapters in turn: each gets what the ones before it left.
    let mut budget_left = harness::chapter::run_budget(profile);
    for (k, (chapter, bin)) in chapters.iter().zip(binaries).enumerate() {
        let started = Instant::now();
        let target = store.results_path(chapter.name, &Machine::detect().id);
        let before = read_results::<serde_json::Value>(&target, chapter.name).ok();
        let before_date = before.as_ref().map(|b| b.provenance.date.clone());
        eprintln!(
            "== [{}/{}] {} ({} profile, step timeout {} s)",
            k + 1,
            chapters.len(),
            chapter.name,
            profile,
            step_timeout
        );
        let mut command = Command::new(&bin);
        command.env(
            harness::cores::BUDGET_ENV,
            budget_left.as_secs_f64().to_string(),
        );
        if let Some(limit) = gate {
            command.env(
                harness::cores::GATE_ENV,
                limit.map_or("none".to_string(), |ns| ns.to_string()),
            );
        }
        let mut child = command
            .args(["measure", "--profile", profile.name(), "--timeout"])
            .arg(step_timeout.to_string())
            .arg("--results")
            .arg(&store.root)
            .stdin(Stdio::null())
            .spawn()
            .with_context(|| format!("cannot start {}", bin.display()))?;
        let outcome = match child.wait_timeout(chapter_timeout)? {
            Some(status) if status.success() => match before {
                Some(b) => format!(
                    "ok       replaced the {} run of {}",
                    b.provenance.profile, b.provenance.date
                ),
                None => "ok       new results file".into(),
            },
            Some(status) => {
                failed += 1;
                let why = if status.code() == Some(124) {
                    "TIMEOUT"
                } else {
                    "FAILED"
                };
                format!("{why:<8} ({status}); earlier results untouched")
            }
            None => {
                let _ = child.kill();
                let _ = child.wait();
                failed += 1;
                format!(
                    "KILLED   after {} s; earlier results untouched",
                    chapter_timeout.as_secs()
                )
            }
        };
        summary.push(format!(
            "{:<16} {:>7.1} s  {outcome}",
            chapter.name,
            started.elapsed().as_secs_f64()
        ));
        if let Ok(after) = read_results::<serde_json::Value>(&target, chapter.name) {
            if before_date.as_deref() != Some(after.provenance.date.as_str()) {
                // A run the hypervisor cut into is kept, but not quietly.
                let note = harness::chapter::steal_note(&after.provenance);
                if !note.is_empty() {
                    stolen.push(format!("{}: {}", chapter.name, note.trim()));
                }
                let spent = harness::chapter::budget_spent(&after.provenance);
                budget_left = budget_left.saturating_sub(spent);
            }
        }
    }
    eprintln!("\n== summary ({profile} profile)");
    for line in &summary {
        eprintln!("{line}");
    }
    if !stolen.is_empty() {
        eprintln!("measured while the host took CPU time away (compare these with care):");
        for s in stolen {
            eprintln!("  {s}");
        }
    }
    let stale: Vec<String> = registry::written()
        .filter_map(|c| {
            staleness(store, c.name)
                .ok()
                .flatten()
                .map(|why| format!("{}: {why}", c.name))
        })
        .collect();
    if !stale.is_empty() {
        eprintln!("still stale or missing on this machine:");
        for s in stale {
            eprintln!("  {s}");
        }
    }
    Ok(if failed == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}

fn render(store: &Store, chapter: &str, exhibit: &str) -> Result<ExitCode> {
    if chapter == "method" {
        // The method page's exhibits belong to the book, not to one chapter.
        if exhibit != "agreement" {
            bail!("unknown exhibit {exhibit:?} for the method page: expected agreement");
        }
        let chapters: Vec<&'static ChapterInfo> = registry::written().collect();
        print!(
            "{}",
            harness::agreement::exhibit(&store.root, &chapters, &headline)?
        );
        return Ok(ExitCode::SUCCESS);
    }
    let info = registry::find(chapter)?;
    let status = Command::new(binary(info)?)
        .args(["render", exhibit, "--results"])
        .arg(&store.root)
        .status()?;
    Ok(if status.success() {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}

fn import(store: &Store, files: &[PathBuf]) -> Result<ExitCode> {
    if files.is_empty() {
        bail!("name at least one results file to import");
    }
    // Validate everything first; copy only if every file passes.
    let mut accepted = Vec::new();
    for file in files {
        let text = std::fs::read_to_string(file)
            .with_context(|| format!("cannot read {}", file.display()))?;
        let value: serde_json::Value = serde_json::from_str(&text)
            .with_context(|| format!("{} is not valid JSON", file.display()))?;
        let chapter = value
            .get("chapter")
            .and_then(|c| c.as_str())
            .with_context(|| format!("{} names no chapter", file.display()))?;
        let info = registry::find(chapter).with_context(|| format!("in {}", file.display()))?;
        chapter_says(info, "check", file).context("rejected")?;
        let machine = value["provenance"]["machine"]["id"].as_str().unwrap_or("");
        if machine.is_empty()
            || harness::machine::slug(machine) != machine
            || machine.starts_with("published")
        {
            bail!(
                "{}: machine id {machine:?} is not a plain lower-case name",
                file.display()
            );
        }
        accepted.push((store.results_path(chapter, machine), text));
    }
    for (target, text) in accepted {
        let replaced = if target.exists() {
            " (replacing that machine's earlier file)"
        } else {
            ""
        };
        write_atomically(&target, text.as_bytes())?;
        println!("imported {}{replaced}", target.display());
    }
    Ok(ExitCode::SUCCESS)
}

fn export(store: &Store, book: &Path) -> Result<ExitCode> {
    for chapter in registry::written() {
        let status = Command::new(binary(chapter)?)
            .arg("export")
            .arg(book.join("results").join(chapter.name))
            .env("BOOK_RESULTS_DIR", &store.root)
            .status()?;
        if !status.success() {
            bail!("exporting {} failed", chapter.name);
        }
    }
    Ok(ExitCode::SUCCESS)
}

fn claims_of(info: &ChapterInfo) -> Result<Vec<String>> {
    let out = Command::new(binary(info)?).arg("exhibits").output()?;
    if !out.status.success() {
        bail!("{} exhibits failed", info.name);
    }
    Ok(String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|l| l.strip_prefix("claim\t"))
        .filter_map(|l| l.split('\t').next())
        .map(str::to_string)
        .collect())
}

fn check_book(book: &Path, src: &Path) -> Result<ExitCode> {
    let mut problems = check::check_includes(src)?;
    let mut pages = vec![
        ("introduction".to_string(), None),
        ("method".into(), None),
        ("reproduce".into(), None),
    ];
    pages.extend(CHAPTERS.iter().map(|c| (c.name.to_string(), Some(c))));
    for (page, chapter) in pages {
        let html_path = book.join(format!("{page}.html"));
        let Ok(html) = std::fs::read_to_string(&html_path) else {
            problems.push(format!(
                "{} is missing from the built book",
                html_path.display()
            ));
            continue;
        };
        let markdown = std::fs::read_to_string(src.join(format!("{page}.md"))).unwrap_or_default();
        let claims = match chapter {
            Some(c) if c.written => claims_of(c)?,
            _ => Vec::new(),
        };
        let label = format!("chapter {page} ({})", html_path.display());
        problems.extend(check::check_page(
            &label,
            &html,
            &check::exhibits_requested(&markdown),
            &claims,
        ));
    }
    if book.is_dir() {
        problems.extend(check::check_links(book)?);
    }
    if problems.is_empty() {
        println!("book check: every page present, every exhibit rendered, no errors");
        Ok(ExitCode::SUCCESS)
    } else {
        for p in &problems {
            eprintln!("book check: {p}");
        }
        Ok(ExitCode::FAILURE)
    }
}

/// The headline estimates and verdicts of one results file, from its
/// chapter's binary.
fn headline(info: &ChapterInfo, file: &Path) -> Result<Headline> {
    let out = chapter_says(info, "headline", file)?;
    serde_json::from_slice(&out)
        .with_context(|| format!("{}: headline output is not JSON", file.display()))
}

/// Runs `<chapter> <command> <file>` and returns what it printed; a failure
/// carries the file's name and the chapter's own error.
fn chapter_says(info: &ChapterInfo, command: &str, file: &Path) -> Result<Vec<u8>> {
    let output = Command::new(binary(info)?)
        .arg(command)
        .arg(file)
        .output()?;
    if !output.status.success() {
        bail!(
            "{}: {}",
            file.display(),
            String::from_utf8_lossy(&output.stderr).trim()
        );
    }
    Ok(output.stdout)
}

/// `harness cores`: a check every quarter second for `watch`, then the
/// spread and the gate it suggests.
fn survey_cores(watch: Duration) -> Result<ExitCode> {
    use harness::cores::{round_trip_ns, suggest_gate};
    let started = Instant::now();
    let mut checks = Vec::new();
    let mut failed = 0;
    eprintln!(
        "checking the round trip between two cores every 0.25 s for {} s",
        watch.as_secs()
    );
    while started.elapsed() < watch {
        match round_trip_ns() {
            Some(ns) => checks.push(ns),
            None => failed += 1,
        }
        std::thread::sleep(Duration::from_millis(250));
    }
    if checks.is_empty() {
        bail!(
            "no check succeeded ({failed} tried): this machine has one core, or \
             other work kept the second one busy"
        );
    }
    let mut sorted = checks.clone();
    sorted.sort_by(f64::total_cmp);
    let q = |p: f64| sorted[((sorted.len() - 1) as f64 * p).round() as usize];
    let s = harness::fmt::sig3;
    println!(
        "{} checks ({failed} could not run): min {} ns, 10 % {} ns, median {} ns, 90 % {} ns, max {} ns",
        checks.len(),
        s(q(0.0)),
        s(q(0.1)),
        s(q(0.5)),
        s(q(0.9)),
        s(q(1.0))
    );
    let id = Machine::detect().id;
    match suggest_gate(&checks) {
        Some(g) => {
            let close = checks.iter().filter(|&&c| c <= g).count();
            println!(
                "the checks fall into a close group and a far one; {close} of {} were \
                 within {} ns. To measure only in the close spells, add to code/machines.toml:\n\n\
                 [{id}]\ncore_gate_ns = {:.0}",
                checks.len(),
                s(g),
                g
            );
        }
        None => println!("no gap between a close and a far group: {id} needs no gate"),
    }
    Ok(ExitCode::SUCCESS)
}

fn describe_apart(c: Option<&harness::cores::CoresApart>) -> String {
    let Some(c) = c else {
        return "not recorded".into();
    };
    let s = harness::fmt::sig3;
    let gate = c.gate_ns.map_or("no gate".into(), |g| {
        format!("gate {} ns, {} beyond it", s(g), c.beyond_gate)
    });
    format!(
        "{}–{} ns (median {}; {gate})",
        s(c.min_ns),
        s(c.max_ns),
        s(c.median_ns)
    )
}

/// `median 35.0 µs (32.4 µs–45.8 µs)`, or `not recorded`.
fn describe_probe(p: Option<harness::cores::Spread>) -> String {
    p.map_or("not recorded".into(), |p| {
        let n = harness::fmt::nanos;
        format!(
            "median {} ({}–{})",
            n(p.median_ns),
            n(p.min_ns),
            n(p.max_ns)
        )
    })
}

fn compare(a: &Path, b: &Path, chapters: &[String], within: f64) -> Result<ExitCode> {
    use harness::agreement::{pair_folders, Tally};
    if !(within.is_finite() && within >= 0.0) {
        bail!("--within must be a percentage of zero or more, not {within}");
    }
    let infos: Vec<&'static ChapterInfo> = if chapters.is_empty() {
        registry::written().collect()
    } else {
        chapters
            .iter()
            .map(|c| registry::find(c))
            .collect::<Result<_>>()?
    };
    let pairs = pair_folders(a, b, &infos, &headline)?;
    println!(
        "{:<16} {:<64} {:>10} {:>10} {:>8}",
        "chapter", "estimate", "a", "b", "b vs a"
    );
    for p in &pairs {
        let chapter = p.chapter;
        for (only, name) in &p.only {
            println!("{chapter:<16} {name:<64} only in {only} (the data chose a different point)");
        }
        for e in &p.estimates {
            println!(
                "{chapter:<16} {:<64} {:>10} {:>10} {:>+7.1}%{}",
                e.name,
                harness::fmt::sig3(e.a.point_ns),
                harness::fmt::sig3(e.b.point_ns),
                e.change() * 100.0,
                match (e.agrees(within), e.overlap()) {
                    (true, true) => "",
                    (true, false) => "  (intervals disjoint)",
                    (false, true) => "  <- apart (intervals overlap)",
                    (false, false) => "  <- apart (intervals disjoint)",
                }
            );
        }
        let (ca, cb) = (
            p.a.as_ref().and_then(|p| p.cores_apart.clone()),
            p.b.as_ref().and_then(|p| p.cores_apart.clone()),
        );
        if ca.is_some() || cb.is_some() {
            println!(
                "{chapter:<16} round trip between two cores: a {}, b {}",
                describe_apart(ca.as_ref()),
                describe_apart(cb.as_ref())
            );
        }
        let (qa, qb) = (
            ca.as_ref().and_then(|c| c.probe),
            cb.as_ref().and_then(|c| c.probe),
        );
        if qa.is_some() || qb.is_some() {
            println!(
                "{chapter:<16} speed probe while measuring: a {}, b {}{}",
                describe_probe(qa),
                describe_probe(qb),
                match (qa, qb) {
                    (Some(a), Some(b)) => format!(
                        "; b's median {}",
                        harness::fmt::percent_delta(b.median_ns / a.median_ns - 1.0)
                    ),
                    _ => String::new(),
                }
            );
        }
        let (sa, sb) = (
            p.a.as_ref().and_then(|p| p.steal_share),
            p.b.as_ref().and_then(|p| p.steal_share),
        );
        if sa.is_some() || sb.is_some() {
            let show =
                |s: Option<f64>| s.map_or("not recorded".into(), |s| format!("{:.1} %", s * 100.0));
            println!(
                "{chapter:<16} hypervisor steal while measuring: a {}, b {}",
                show(sa),
                show(sb)
            );
        }
        for v in &p.verdicts {
            let on = if v.machine.is_empty() {
                String::new()
            } else {
                format!(" on {}", v.machine)
            };
            println!(
                "{chapter:<16} verdict {}{on}: {}{}",
                v.claim,
                if v.same() {
                    v.a.clone()
                } else {
                    format!("{} -> {}", v.a, v.b)
                },
                if v.same() { "" } else { "  <- changed" }
            );
        }
    }
    let t = Tally::of(&pairs, within);
    if t.compared == 0 && t.judged == 0 {
        bail!(
            "{} and {} share no headline estimates (same chapters, same machine files?)",
            a.display(),
            b.display()
        );
    }
    println!(
        "{} of {} headline estimates agree within {within} %",
        t.compared - t.apart,
        t.compared
    );
    println!(
        "{} of {} pairs of 95 % intervals overlap",
        t.compared - t.disjoint,
        t.compared
    );
    println!(
        "{} of {} verdicts are the same",
        t.judged - t.changed,
        t.judged
    );
    Ok(if t.apart == 0 && t.changed == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}
