//! The template measures what it says (its page's rule is tested in the
//! binary: `src/page/tests.rs`).
use chapter_template::{crossbeam_batch, vec_batch, BATCH, EXPECTED_SUM};

#[test]
fn every_variant_delivers_the_whole_batch() {
    assert_eq!(vec_batch::vec_batch(BATCH), EXPECTED_SUM);
    assert_eq!(crossbeam_batch::crossbeam_batch(BATCH), EXPECTED_SUM);
}
