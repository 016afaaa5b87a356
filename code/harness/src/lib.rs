//! The book's harness: the only code that knows about results files,
//! provenance, freshness, markdown and SVG. Chapter crates implement
//! [`Chapter`] and call [`chapter_main`]; the `harness` binary dispatches
//! to them and checks the built book.
pub mod agreement;
pub mod chapter;
pub mod check;
pub mod claims;
pub mod cores;
pub mod exhibit;
pub mod fingerprint;
pub mod fmt;
pub mod machine;
pub mod profile;
pub mod progress;
pub mod published;
pub mod registry;
pub mod render;
pub mod results;
pub mod svg;
pub mod timing;

pub use chapter::{chapter_main, Book, Chapter, Exhibit, ExhibitKind, Run};
pub use claims::{Claim, Outcome, Verdict};
pub use exhibit::{Axis, Bar, BarChart, Block, Figure, Point, Scale, Series, Table};
pub use profile::Profile;
pub use progress::Progress;

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
