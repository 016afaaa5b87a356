//! The answer under the chapter's question prints the results' headline
//! estimates: every number it marks with an estimate's name is that
//! estimate's point, and it marks at least one.

#[test]
fn the_answer_prints_the_headline_estimates() {
    harness::fixtures::assert_answer_prints_the_headline(
        "mutex-swap",
        env!("CARGO_BIN_EXE_mutex-swap").as_ref(),
    );
}
