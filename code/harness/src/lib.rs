//! The book's harness, top layer: the command line every chapter binary
//! shares ([`chapter_main`], [`cli`]) and the fixtures chapters' tests use
//! ([`fixtures`]). The `harness` binary (the book's commands and the checks
//! of the built HTML) sits on top of it.
//!
//! The harness is four crates, each using only the ones below it:
//!
//! - `harness-core`: the data and its rules (values, claims, the registry,
//!   the results file, its validation and fingerprint);
//! - `harness-measure`: what runs while a chapter measures (every chapter's
//!   fingerprint covers it);
//! - `harness-page`: the page (the chapter contract's page half, rendering,
//!   verdicts, releases, agreement);
//! - `harness` (this crate): the command line on top.
//!
//! The re-exports below keep the paths chapters have always used
//! (`harness::timing::Timing`, `harness::render::...`) for now.
pub mod cli;
pub mod conformance;
pub mod fixtures;

pub use cli::chapter_main;

pub use harness_core::{
    claims, code_dir, code_dir_above, find_code_dir, fmt, grid, lock, registry, results, values,
};
pub use harness_core::{profile, results::fingerprint, results::published};
pub use harness_core::{Claim, Condition, Estimate, Finding, Outcome, Profile, Unit, Verdict};
pub use harness_measure::{cores, counts, process, progress, schedule, stacks, stats};
pub use harness_measure::{Counted, Experiment, Lab, PerOp, Progress};
pub use harness_page::render::blocks::{
    Axis, Bar, BarChart, Block, Cell, Figure, Point, Scale, Series, Table,
};
pub use harness_page::{agreement, chapter, parameters, releases, render};
pub use harness_page::{load_book, Book, Exhibit, ExhibitKind, Judge, Judged, Page, Run};

/// Criterion's timings, with the statistics drawn from them.
pub mod timing {
    pub use harness_measure::stats::{bootstrap, paired_ratio, ratio, ratio_of_sums, MIN_PAIRS};
    pub use harness_measure::timing::*;
}

/// The machine a run happens on: [`machine::detect`] and what it records.
pub mod machine {
    pub use harness_measure::machine::*;
}

/// What runs while a chapter measures (`harness-measure`), with the run of
/// a chapter held to its own checks ([`measure::measure_in_memory`]).
pub mod measure {
    pub use harness_core::profile;
    pub use harness_measure::lab::Lab;
    pub use harness_measure::run::{budget_spent, criterion_log, run_budget};
    pub use harness_measure::{cores, counts, machine, progress, schedule, stacks, stats, timing};
    pub use harness_page::load::measure_checked as measure_in_memory;
}
