//! The book's harness: the only code that knows about results files,
//! provenance, freshness, markdown and SVG. Chapter crates implement
//! [`Chapter`] and call [`chapter_main`]; the `harness` binary dispatches
//! to them and checks the built book.
//!
//! - [`measure`]: what runs while a chapter measures (fingerprinted: a change
//!   there marks every chapter's results stale).
//! - [`results`]: the results file, its validation, provenance and freshness.
//! - [`render`]: markdown, SVG, CSV and the provenance card (never stales anything).
//! - [`chapter`], [`cli`]: the contract a chapter implements and its command line.
//! - [`values`], [`claims`]: typed numbers and the claims they judge.
pub mod agreement;
pub mod chapter;
pub mod check;
pub mod claims;
pub mod cli;
pub mod fixtures;
pub mod grid;
pub mod measure;
pub mod process;
pub mod registry;
pub mod releases;
pub mod render;
pub mod results;
pub mod values;

pub use chapter::{load_book, Book, Chapter, Exhibit, ExhibitKind, Run};
pub use claims::{Claim, Condition, Finding, Outcome, Verdict};
pub use cli::chapter_main;
pub use measure::counts::{Counted, PerOp};
pub use measure::profile::Profile;
pub use measure::progress::Progress;
pub use measure::{cores, counts, machine, profile, progress, stacks, stats, timing, Lab};
pub use render::blocks::{Axis, Bar, BarChart, Block, Cell, Figure, Point, Scale, Series, Table};
pub use render::fmt;
pub use results::{fingerprint, published};
pub use values::{Estimate, Unit};

use std::path::PathBuf;

/// The workspace folder `code/`. `BOOK_CODE_DIR` overrides it (tests).
pub fn code_dir() -> PathBuf {
    std::env::var_os("BOOK_CODE_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            PathBuf::from(env!("CARGO_MANIFEST_DIR"))
                .parent()
                .expect("harness lives in code/")
                .to_path_buf()
        })
}
