//! The answer under the chapter's question follows the results (that it
//! names every headline estimate is the conformance suite's).
use harness::fixtures::{answer_check, committed_results, shows_point};

/// Doubling tokio's time per round in the published shape (a copy of the
/// results) changes the answer's first number, and it still prints the
/// headline of the edited file.
#[test]
fn the_answer_follows_the_results() {
    let (results, file) = committed_results("mutex-cost");
    let bin: &std::path::Path = env!("CARGO_BIN_EXE_mutex-cost").as_ref();
    let before = answer_check(bin, &results, &file);
    let (dir, edited) = harness::fixtures::edited_results("mutex-cost", |data| {
        for row in data["join_all"].as_array_mut().expect("join_all rows") {
            if row["variant"] != "tokio_mutex" {
                continue;
            }
            let t = &mut row["timing"];
            for s in t["per_sample_ns"].as_array_mut().expect("samples") {
                *s = (s.as_f64().expect("a number") * 2.0).into();
            }
            for stat in ["mean", "median"] {
                for k in ["point_ns", "lower_ns", "upper_ns"] {
                    let v = t[stat][k].as_f64().expect("a number") * 2.0;
                    t[stat][k] = v.into();
                }
            }
        }
    });
    let after = answer_check(bin, dir.path(), &edited);
    let first = |c: &harness::fixtures::AnswerCheck| c.matched.first().cloned().expect("a number");
    let (name, was, _) = first(&before);
    let (name_after, now, e) = first(&after);
    assert_eq!(name, name_after);
    assert_ne!(was, now, "the answer did not change with the results");
    assert!(
        shows_point(&now, &e),
        "{now} is not the edited headline {e:?}"
    );
}
