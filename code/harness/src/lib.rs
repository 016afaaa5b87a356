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
pub mod conformance;
pub mod fixtures;
pub mod grid;
pub mod lock;
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

use std::path::{Path, PathBuf};

/// The workspace folder `code/` of the checkout this command runs in:
/// `BOOK_CODE_DIR` when set, else the nearest folder at or above the current
/// directory that holds `code/chapters.toml` (cargo runs from `code/`,
/// mdbook-cmdrun from `src/`, the scripts set `BOOK_CODE_DIR`). Found when
/// the command runs, never compiled in: a copied or moved checkout reads and
/// writes its own results, whatever binary it runs and wherever `target/`
/// lives. Outside any checkout the command ends with an error saying so.
pub fn code_dir() -> PathBuf {
    find_code_dir().unwrap_or_else(|e| {
        eprintln!("error: {e:#}");
        std::process::exit(2)
    })
}

/// [`code_dir`], or why there is none.
pub fn find_code_dir() -> anyhow::Result<PathBuf> {
    if let Some(dir) = std::env::var_os("BOOK_CODE_DIR").filter(|v| !v.is_empty()) {
        let dir = PathBuf::from(dir);
        anyhow::ensure!(
            dir.join("chapters.toml").is_file(),
            "BOOK_CODE_DIR is {}, which holds no chapters.toml: point it at the code/ folder \
             of a checkout of the book",
            dir.display()
        );
        return Ok(dir);
    }
    let here = std::env::current_dir()
        .map_err(|e| anyhow::anyhow!("cannot tell the current directory: {e}"))?;
    code_dir_above(&here).ok_or_else(|| {
        anyhow::anyhow!(
            "{} is not inside a checkout of the book (no folder at or above it holds \
             code/chapters.toml): run the command from the checkout, or set BOOK_CODE_DIR to \
             its code/ folder",
            here.display()
        )
    })
}

/// `D/code` for the nearest folder `D` at or above `start` that holds
/// `code/chapters.toml`.
pub fn code_dir_above(start: &Path) -> Option<PathBuf> {
    start
        .ancestors()
        .map(|dir| dir.join("code"))
        .find(|code| code.join("chapters.toml").is_file())
}

#[cfg(test)]
mod tests {
    use super::code_dir_above;

    #[test]
    fn the_checkout_is_found_above_where_the_command_runs() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("copy-of-the-book");
        std::fs::create_dir_all(root.join("code/alloc-probe/src")).unwrap();
        std::fs::create_dir_all(root.join("src")).unwrap();
        std::fs::write(root.join("code/chapters.toml"), "").unwrap();
        let code = Some(root.join("code"));
        // From the root (the scripts), src/ (mdbook-cmdrun), code/ (cargo run)
        // and a crate (cargo test).
        for from in ["", "src", "code", "code/alloc-probe/src"] {
            assert_eq!(code_dir_above(&root.join(from)), code, "from {from:?}");
        }
        assert_eq!(code_dir_above(dir.path()), None);
    }
}
