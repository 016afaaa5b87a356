//! `harness`: the book's command line. It runs chapter binaries (which live
//! beside it in the same target folder), imports results from other machines
//! and checks the built book.
mod book;
mod chapters;
mod check;
mod compare;
mod import;
mod measure;
mod new_chapter;
mod scratch;
mod status;
mod sync;

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use clap::{Parser, Subcommand};

use harness_core::profile::Profile;
use harness_core::results::Store;

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
    /// The chapter registry (code/chapters.toml): names one a line, or the
    /// whole entries as JSON (for scripts and the browser checks).
    Chapters {
        #[arg(long, conflicts_with_all = ["get", "where_", "sync"])]
        json: bool,
        /// Print one setting of one chapter, its default filled in.
        #[arg(long, num_args = 2, value_names = ["NAME", "FIELD"], conflicts_with_all = ["where_", "sync"])]
        get: Option<Vec<String>>,
        /// Print the chapters whose true/false setting FIELD is true.
        #[arg(long = "where", value_name = "FIELD", conflicts_with = "sync")]
        where_: Option<String>,
        /// Rewrite the chapter lists of src/SUMMARY.md, README.md and
        /// src/introduction.md (between their markers) from the registry.
        #[arg(long)]
        sync: bool,
        /// With --sync: write nothing, exit 1 naming each file that differs.
        #[arg(long, requires = "sync")]
        check: bool,
    },
    /// Start a chapter from code/chapter-template, renamed throughout:
    /// code/NAME, src/NAME.md, the workspace member and the registry entry,
    /// then the generated chapter lists.
    NewChapter(new_chapter::Args),
    /// Measure chapters (default: every chapter) and write results atomically.
    Measure {
        chapters: Vec<String>,
        #[arg(long, default_value = "quick")]
        profile: Profile,
        /// Stop a chapter when one experiment step runs longer than this many
        /// seconds, naming the step; nothing is written for that chapter.
        #[arg(long, default_value_t = 900, value_parser = clap::value_parser!(u64).range(1..))]
        timeout: u64,
        /// Kill a chapter's whole run after this many seconds.
        #[arg(long, default_value_t = 7200, value_parser = clap::value_parser!(u64).range(1..))]
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
    Import {
        files: Vec<PathBuf>,
        /// Import a file whose numbers no longer match its checksum (edited
        /// after measuring); the page then marks it "edited".
        #[arg(long)]
        accept_edited: bool,
        /// Replace a machine's file although the host that measured it is
        /// not known or differs (see `results::host`).
        #[arg(long)]
        same_host: bool,
    },
    /// Write the checksum of published datasets (`code/results/<chapter>/
    /// published-*.json`) into them, after checking their numbers against
    /// their source: an edit afterwards stops the build until sealed again.
    SealPublished { files: Vec<PathBuf> },
    /// Rewrite schema-1 or schema-2 results files as schema 3, in place
    /// (atomically), judged by their chapter. The numbers are kept as
    /// measured; the fingerprint too, so the page calls them stale until the
    /// chapter is measured again.
    Convert { files: Vec<PathBuf> },
    /// Judge chapters' results files (default: every chapter; every
    /// machine's file and the release variants) again from their data,
    /// without measuring: list the files whose stored analysis is not what
    /// judging gives now, or with --write store it (only `analysis` changes).
    Judge {
        chapters: Vec<String>,
        #[arg(long)]
        write: bool,
    },
    /// Mark a results file measured in a workspace copy with other releases
    /// of the measured crates as a release variant, and write it into the
    /// chapter's `releases/` folder (what `scripts/fresh --with` runs).
    #[command(hide = true)]
    AdoptRelease {
        file: PathBuf,
        /// The workspace copy that measured it.
        #[arg(long)]
        code: PathBuf,
        /// Each release asked for, CRATE@VERSION.
        #[arg(long = "with", required = true)]
        with: Vec<String>,
    },
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
        /// Chapters to compare (default: every chapter).
        #[arg(long = "chapter")]
        chapters: Vec<String>,
        /// Largest difference, in percent of the earlier value, that counts as agreeing.
        #[arg(long, default_value_t = harness_page::agreement::WITHIN_PERCENT)]
        within: f64,
    },
    /// Print chapters (default: every chapter) as plain text for a terminal:
    /// this machine's verdicts, verdict maps and tables (`<chapter> report`).
    Report {
        chapters: Vec<String>,
        /// Another machine's results instead of this one's.
        #[arg(long)]
        machine: Option<String>,
        /// The profile of the run to report: `smoke` reads the folder smoke
        /// runs are written to (never the committed results), as `measure
        /// --profile smoke` wrote it.
        #[arg(long, default_value = "quick")]
        profile: Profile,
    },
    /// Check the built book: pages present, exhibits rendered, no errors, includes resolve.
    CheckBook {
        #[arg(default_value = "book")]
        book: PathBuf,
        #[arg(long, default_value = "src")]
        src: PathBuf,
    },
}

fn main() -> ExitCode {
    // Rust ignores SIGPIPE, so `harness list | head -3` would panic on the
    // first line printed after `head` left. End quietly on it instead, as
    // other command-line tools do.
    #[cfg(unix)]
    // SAFETY: restores the default action of SIGPIPE before any thread starts.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
    let cli = Cli::parse();
    let store = Store::new(cli.results.clone().unwrap_or_else(Store::default_root));
    let outcome = match cli.command {
        Cmd::List => status::list(&store),
        Cmd::Chapters {
            json,
            get,
            where_,
            sync,
            check,
        } => sync::chapters(match (get, where_) {
            (Some(g), _) => sync::Ask::Get {
                name: g[0].clone(),
                field: g[1].clone(),
            },
            (_, Some(field)) => sync::Ask::Where { field },
            _ if sync => sync::Ask::Sync { check },
            _ if json => sync::Ask::Json,
            _ => sync::Ask::Names,
        }),
        Cmd::NewChapter(args) => new_chapter::new_chapter(&args),
        Cmd::Measure {
            chapters,
            profile,
            timeout,
            chapter_timeout,
            stale,
            core_gate,
        } => measure::measure(
            &store,
            &chapters,
            profile,
            stale,
            timeout,
            Duration::from_secs(chapter_timeout),
            core_gate.as_deref(),
        ),
        Cmd::Cores { seconds } => compare::survey_cores(Duration::from_secs(seconds)),
        Cmd::Render { chapter, exhibit } => book::render(&store, &chapter, &exhibit),
        Cmd::Import {
            files,
            accept_edited,
            same_host,
        } => import::import(&store, &files, accept_edited, same_host),
        Cmd::SealPublished { files } => import::seal_published(&files),
        Cmd::Convert { files } => import::convert(&files),
        Cmd::Judge { chapters, write } => harness_core::registry::select(&chapters)
            .and_then(|infos| chapters::judge(&store, &infos, write)),
        Cmd::AdoptRelease { file, code, with } => with
            .iter()
            .map(|w| harness_page::releases::parse_with(w))
            .collect::<anyhow::Result<std::collections::BTreeMap<_, _>>>()
            .and_then(|asked| harness_page::releases::adopt(&store, &file, &asked, &code))
            .map(|path| {
                eprintln!("release variant written to {}", path.display());
                ExitCode::SUCCESS
            }),
        Cmd::Export { book } => book::export(&store, &book),
        Cmd::CheckBook { book, src } => book::check_book(&book, &src),
        Cmd::Report {
            chapters,
            machine,
            profile,
        } => book::report(&store.for_profile(profile), &chapters, machine.as_deref()),
        Cmd::Compare {
            a,
            b,
            chapters,
            within,
        } => compare::compare(&a, &b, &chapters, within),
    };
    match outcome {
        Ok(code) => code,
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::FAILURE
        }
    }
}
