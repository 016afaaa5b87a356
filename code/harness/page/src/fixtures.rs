//! A book of one synthetic run, for tests here and in the crates above
//! (`harness::fixtures` re-exports it).
use harness_core::profile::Profile;
use harness_core::results::Store;
use harness_measure::fixtures::provenance;

use crate::chapter::{Book, Chapter, Run};

/// A book of chapter `C` holding one synthetic run of `data`, with the
/// committed published datasets.
pub fn book<C: Chapter>(data: C::Data) -> Book<C::Data> {
    Book {
        chapter: C::NAME,
        runs: vec![Run {
            path: "synthetic.json".into(),
            provenance: provenance(Profile::Smoke),
            data,
            stale: false,
            edited: false,
            ephemeral: true,
            derived: Default::default(),
        }],
        store: Store::new(harness_core::code_dir().join("results")),
    }
}
