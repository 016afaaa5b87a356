//! The answer under the chapter's question prints the results' headline
//! estimates: every number it marks with an estimate's name is that
//! estimate's point, and it marks at least one.
use harness::fixtures::{answer_check, committed_results, shows_point};

#[test]
fn the_answer_prints_the_headline_estimates() {
    let (results, file) = committed_results("channel-latency");
    let check = answer_check(
        env!("CARGO_BIN_EXE_channel-latency").as_ref(),
        &results,
        &file,
    );
    assert!(
        check.markdown.contains("data-answer=\"channel-latency\""),
        "{}",
        check.markdown
    );
    assert!(
        !check.matched.is_empty(),
        "no headline estimate in the answer: {}",
        check.markdown
    );
    for (name, shown, e) in &check.matched {
        assert!(
            shows_point(shown, e),
            "{name}: the answer shows {shown}, the headline {e:?}"
        );
    }
}
