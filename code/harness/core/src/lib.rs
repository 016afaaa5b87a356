//! The book's data and its rules: typed numbers and the claims they judge,
//! the chapter registry, the results file (its schema, validation,
//! provenance and freshness fingerprint), profiles and the machine a run
//! happened on. No I/O of measuring and no markdown.
//!
//! **Core does no arithmetic on measured numbers.** Pooling, percentiles,
//! bootstraps and the fallback interval of a ratio live in `harness-measure`,
//! which every chapter's fingerprint covers; core is not hashed, so a change
//! here must never move a measured number. What core holds is data types,
//! validation, formatting and the fingerprint algorithm itself.
//!
//! - [`values`], [`claims`]: typed numbers and the claims they judge.
//! - [`results`]: the results file, its validation, provenance and freshness.
//! - [`registry`]: the chapters of the book (`code/chapters.toml`).
//! - [`fmt`], [`escape`]: how numbers and outside text are written.
pub mod analysis;
pub mod claims;
pub mod escape;
pub mod fmt;
pub mod grid;
pub mod lock;
pub mod machine;
pub mod profile;
pub mod registry;
pub mod releases;
pub mod results;
pub mod values;

pub use analysis::{Analysis, Named, StoredVerdict};
pub use claims::{Claim, Condition, Finding, Outcome, Verdict};
pub use profile::Profile;
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
