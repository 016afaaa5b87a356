//! A book of one synthetic run, for tests here and in the crates above
//! (`harness::fixtures` re-exports it).
use harness_core::profile::Profile;
use harness_core::results::Store;
use harness_measure::fixtures::provenance;

use crate::chapter::{Book, Run};
use crate::page::{judge, Page};

/// A book of chapter `P` holding one synthetic run of `data`, judged, with
/// the committed published datasets.
pub fn book<P: Page>(data: P::Data) -> Book<P::Data> {
    let provenance = provenance(Profile::Smoke);
    let path = std::path::PathBuf::from("synthetic.json");
    let analysis = judge::<P>(&path, &provenance, &data).expect("the synthetic run is judged");
    Book {
        chapter: P::NAME,
        runs: vec![Run {
            path,
            provenance,
            data,
            stale: false,
            edited: false,
            ephemeral: true,
            analysis,
            rejudged: false,
        }],
        store: Store::new(harness_core::code_dir().join("results")),
    }
}
