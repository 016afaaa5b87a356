//! The command line every chapter binary shares (`measure`, `render`,
//! `exhibits`, `check`, `export`, `headline`, and the hidden `count` that
//! `measure::counts` runs under callgrind): `fn main() -> ExitCode {
//! harness::chapter_main::<MyChapter>() }`.
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{bail, Context, Result};
use clap::{Parser, Subcommand};

use harness_core::analysis::Analysis;
use harness_core::profile::Profile;
use harness_core::results::{read_results, ResultsFile, Store};
use harness_measure::progress::Progress;
use harness_measure::Experiment;
use harness_page::load::{judged, measure_checked};
use harness_page::page::{current_analysis, judge, judged_by};
use harness_page::{load_book, ExhibitKind, Page};

pub use harness_page::exhibits::{exhibit, exhibits, tables};
pub use harness_page::headline::{Headline, HeadlineEstimate, HeadlineVerdict};

mod page;
#[cfg(test)]
use page::render_loaded;
pub use page::{findings, render_all, render_error, render_exhibit, Rendered};

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
        #[arg(long, default_value_t = 900, value_parser = clap::value_parser!(u64).range(1..))]
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
    /// Print the headline estimates and verdicts of one results file as JSON,
    /// from its analysis (judged again when other page code judged it).
    Headline { file: PathBuf },
    /// Judge results files again from their data, without measuring: print
    /// each one's analysis as JSON, or with --write store it in the file
    /// (only `analysis` changes; a schema-2 file becomes schema 3).
    Judge {
        #[arg(required = true)]
        files: Vec<PathBuf>,
        #[arg(long)]
        write: bool,
    },
    /// Print the verdicts, each claim's verdict map and the page's tables as
    /// plain text, from the committed (or given) results.
    Report {
        /// Only this machine's results (an id from `harness list`).
        #[arg(long)]
        machine: Option<String>,
        #[arg(long)]
        results: Option<PathBuf>,
    },
    /// Render every exhibit and the findings from one load of the results,
    /// as JSON (what `harness render` keeps per build; see `Rendered`).
    #[command(hide = true)]
    RenderAll {
        #[arg(long)]
        results: Option<PathBuf>,
    },
    /// Print every claim's verdict on every machine with results, as JSON
    /// (what the Findings page gathers from each chapter).
    Findings {
        #[arg(long)]
        results: Option<PathBuf>,
    },
    /// Run one counted case `n` times (what `counts::per_op` runs under
    /// callgrind; see `measure::counts`).
    #[command(hide = true)]
    Count { name: String, n: u64 },
}

/// The headline of one results file (see `Headline`), from its analysis:
/// the stored one, or the file judged again when other page code judged it.
pub fn headline_of<P: Page>(path: &Path) -> Result<Headline> {
    let file = check_file::<P>(path)?;
    let (analysis, _) = current_analysis::<P>(
        path,
        &file.provenance,
        &file.data,
        file.analysis.clone(),
        !file.checksum_matches()?,
    )?;
    Headline::of(&analysis)
}

/// Judges `path` again from its data (the judge stage without measuring):
/// with `write`, stores the analysis in the file, atomically, changing
/// nothing else (a schema-2 file is written as schema 3); without, returns
/// it for printing.
pub fn judge_file<P: Page>(path: &Path, write: bool) -> Result<Analysis> {
    let file = check_file::<P>(path)?;
    let analysis = judge::<P>(path, &file.provenance, &file.data)?;
    if write {
        let _writer = path
            .parent()
            .and_then(Path::parent)
            .map(|root| harness_core::lock::wait(root, P::NAME))
            .transpose()?;
        let file = file.with_analysis(analysis.clone())?;
        harness_core::results::write_atomically(path, &file.to_bytes()?)?;
    }
    Ok(analysis)
}

/// `fn main() -> ExitCode { harness::chapter_main::<MyExperiment, MyPage>() }`:
/// the chapter's command line, composed of its two halves. A chapter that
/// has not stated its `Page` is both: `chapter_main::<MyChapter, MyChapter>()`.
pub fn chapter_main<E: Experiment, C: Page<Experiment = E>>() -> ExitCode {
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
                    print!("{}", render_error(C::NAME, &exhibit, &format!("{e:#}")));
                    Err(e)
                }
            }
        }
        Some(Command::RenderAll { results }) => {
            let store = Store::new(results.unwrap_or_else(Store::default_root));
            render_all::<C>(&store).and_then(|r| {
                println!("{}", serde_json::to_string(&r)?);
                Ok(())
            })
        }
        Some(Command::Report { machine, results }) => {
            let store = Store::new(results.unwrap_or_else(Store::default_root));
            report::<C>(&store, machine.as_deref()).map(|text| print!("{text}"))
        }
        Some(Command::Findings { results }) => {
            let store = Store::new(results.unwrap_or_else(Store::default_root));
            findings::<C>(&store).and_then(|f| {
                println!("{}", serde_json::to_string(&f)?);
                Ok(())
            })
        }
        Some(Command::Export { dir }) => {
            export::<C>(&Store::new(Store::default_root()), &dir).map(|n| {
                eprintln!("{}: {n} files written to {}", C::NAME, dir.display());
            })
        }
        Some(Command::Exhibits) => exhibits::<C>().map(|all| {
            for e in all {
                println!("{}\t{:?}\t{}", e.name, e.kind, e.about);
            }
            for c in C::CLAIMS {
                println!("claim\t{}\t{}", c.id, c.statement);
            }
        }),
        Some(Command::Judge { files, write }) => files.iter().try_for_each(|f| {
            let analysis = judge_file::<C>(f, write)?;
            if write {
                println!(
                    "{}: judged ({} estimates, {} verdicts, {} in the headline)",
                    f.display(),
                    analysis.estimates.len(),
                    analysis.verdicts.len(),
                    analysis.headline.len()
                );
            } else {
                println!("{}", serde_json::to_string(&analysis)?);
            }
            Ok(())
        }),
        Some(Command::Count { name, n }) => {
            harness_measure::counts::run_case(E::NAME, E::COUNTED, &name, n)
        }
        Some(Command::Headline { file }) => headline_of::<C>(&file).and_then(|h| {
            println!("{}", serde_json::to_string_pretty(&h)?);
            Ok(())
        }),
        Some(Command::Check { files }) => files.iter().try_for_each(|f| {
            let file = check_file::<C>(f)?;
            check_analysis::<C>(f, &file)?;
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

/// A stored analysis that today's page code judged must be what judging the
/// data again gives: one that differs was edited, and is refused, naming
/// the file. (One judged by other page code is judged again wherever it is
/// read, so it is not refused.)
pub fn check_analysis<P: Page>(path: &Path, file: &ResultsFile<P::Data>) -> Result<()> {
    let Some(stored) = &file.analysis else {
        return Ok(());
    };
    if stored.judged_by != judged_by::<P>()? {
        return Ok(());
    }
    // Data edited after measurement is the checksum's to name (refused on
    // import unless accepted, then badged "edited"); an analysis of edited
    // data is judged again wherever the file is read.
    if !file.checksum_matches()? {
        return Ok(());
    }
    current_analysis::<P>(
        path,
        &file.provenance,
        &file.data,
        Some(stored.clone()),
        false,
    )?;
    Ok(())
}

/// Reads and fully validates a results file of chapter `C`: the schema and
/// every value in it (`results::read_results`), then the chapter's checks.
pub fn check_file<C: Page>(path: &Path) -> Result<ResultsFile<C::Data>> {
    let file: ResultsFile<C::Data> = read_results(path, C::NAME)?;
    C::check(&file.data)
        .with_context(|| format!("{} failed the chapter's checks", path.display()))?;
    Ok(file)
}

/// Measures and writes this machine's results file. Refuses to start when the
/// file it would replace is unreadable: a corrupt or foreign file is evidence
/// someone should look at, not something to overwrite silently.
pub fn measure<C: Page>(profile: Profile, store: &Store, step_timeout_s: u64) -> Result<PathBuf> {
    if step_timeout_s == 0 {
        bail!("--timeout 0 would stop the run before its first step: give at least 1 second");
    }
    harness_measure::process::die_with_parent()?;
    let store = &store.for_profile(profile);
    // One writer at a time: a second run of this chapter into this folder is
    // refused before it measures, naming the first.
    let _writer = harness_core::lock::take(&store.root, C::NAME)?;
    let target = store.results_path(C::NAME, &harness_measure::machine::detect().id);
    let host = harness_core::results::host::Host::detect();
    if target.exists() {
        let before = read_results::<serde_json::Value>(&target, C::NAME).with_context(|| {
            format!(
                "refusing to replace {}: move it away or delete it first",
                target.display()
            )
        })?;
        // Smoke runs are never published: their folder may mix hosts.
        if profile != Profile::Smoke {
            harness_core::results::host::may_replace(
                &target,
                &before.provenance.machine.id,
                before.host.as_ref(),
                &host,
            )?;
        }
    }
    let progress =
        Progress::new(C::NAME).with_watchdog(std::time::Duration::from_secs(step_timeout_s));
    let (file, progress) = measure_checked::<C>(profile, progress)?;
    progress.phase("judging");
    let mut file = judged::<C>(file, &target)?;
    file.host = Some(host);
    progress.finish();
    harness_measure::process::parent_still_ours()?;
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

/// Copies the machines' results files and writes the tables as CSV into `dir`.
pub fn export<C: Page>(store: &Store, dir: &Path) -> Result<usize> {
    std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    let book = load_book::<C>(store)?;
    let tables = tables::<C>(&book)?;
    let mut written = 0;
    for run in book.runs.iter().filter(|r| !r.ephemeral) {
        let name = run.path.file_name().context("results file has no name")?;
        // Read within the size limit again: a file swapped for a larger one
        // since it was loaded is not copied into the book as a download.
        harness_core::results::check_size(&run.path)?;
        std::fs::copy(&run.path, dir.join(name))?;
        written += 1;
    }
    for (name, table) in tables {
        std::fs::write(dir.join(name), harness_page::render::csv::table(&table)?)?;
        written += 1;
    }
    Ok(written)
}

/// The markdown for one exhibit: the built-in `provenance` card, or the chapter's own.
/// The chapter as plain text (see `render::plain`): which results, then the
/// verdicts with their maps, then every table of the page.
pub fn report<C: Page>(store: &Store, machine: Option<&str>) -> Result<String> {
    let mut book = load_book::<C>(store)?;
    if let Some(m) = machine {
        let have: Vec<String> = book.runs.iter().map(|r| r.machine().to_string()).collect();
        book.runs.retain(|r| r.machine() == m);
        if book.runs.is_empty() {
            bail!(
                "--machine {m:?}: chapter {} has results for {}",
                C::NAME,
                have.join(", ")
            );
        }
    }
    let mut out = format!("{}\n\n", C::NAME);
    for run in &book.runs {
        let p = &run.provenance;
        out.push_str(&format!(
            "results: {} ({}), profile {}, measured {}{}\n",
            run.machine(),
            run.arch(),
            p.profile,
            p.date,
            if run.ephemeral {
                ", a smoke run made now because none are committed"
            } else if run.stale {
                ", STALE: measured by earlier code (scripts/fresh to refresh)"
            } else {
                ""
            }
        ));
    }
    out.push('\n');
    // The verdicts as judged and stored (`Page::verdicts`), under the
    // chapter's verdict exhibits' names; then every table.
    let all = exhibits::<C>()?;
    let mut verdicts = String::new();
    let mut tables = String::new();
    if let Some(e) = all.iter().find(|e| e.kind == ExhibitKind::Verdicts) {
        let blocks = [harness_page::render::blocks::Block::Verdicts(C::verdicts(
            &book,
        )?)];
        verdicts.push_str(&harness_page::render::plain::blocks(
            e.name, e.about, &blocks,
        ));
    }
    for e in all
        .iter()
        .filter(|e| e.kind == ExhibitKind::Table && e.name != "provenance")
    {
        tables.push_str(&harness_page::render::plain::blocks(
            e.name,
            e.about,
            &(e.render)(&book)?,
        ));
    }
    out.push_str(&format!("# Verdicts\n\n{verdicts}# Tables\n\n{tables}"));
    Ok(out)
}

#[cfg(test)]
mod tests;
