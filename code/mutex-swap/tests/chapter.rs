//! The chapter end to end on the smoke profile: measure, check, render every
//! exhibit; and check rejects data that makes no sense.
use harness::chapter::{Book, Run};
use harness::results::{Provenance, Store};
use harness::{Block, Chapter, Outcome, Profile, Progress};
use mutex_swap::book::{Data, MutexSwap};

fn smoke() -> Data {
    MutexSwap::measure(Profile::Smoke, &Progress::hidden("mutex-swap"))
        .expect("smoke profile measures")
}

fn book_of(data: Data) -> Book<Data> {
    let machine = harness::machine::Machine::detect();
    Book {
        chapter: "mutex-swap",
        runs: vec![Run {
            path: "test.json".into(),
            provenance: Provenance {
                machine,
                rustc: "test".into(),
                crates: Default::default(),
                fingerprint: "test".into(),
                profile: Profile::Smoke,
                date: "test".into(),
                wall_time_s: 0.0,
                load_average_at_start: None,
            },
            data,
            stale: false,
            ephemeral: true,
        }],
        store: Store::new(harness::code_dir().join("results")),
    }
}

#[test]
fn smoke_profile_measures_checks_and_renders_every_exhibit() {
    let data = smoke();
    MutexSwap::check(&data).expect("its own smoke results pass check");

    let mut broken = data.clone();
    broken
        .points
        .retain(|m| m.design != mutex_swap::Design::LockFreeStack);
    let err = MutexSwap::check(&broken).unwrap_err().to_string();
    assert!(
        err.contains("lock-free-stack"),
        "check must name the missing design: {err}"
    );

    let mut broken = data.clone();
    broken.points[0].timing.mean.point_ns = 0.0;
    assert!(
        MutexSwap::check(&broken).is_err(),
        "a zero time must be rejected"
    );

    let mut broken = data.clone();
    broken.points[0].passes.messages += 1;
    assert!(
        MutexSwap::check(&broken).is_err(),
        "a wrong message count must be rejected"
    );

    let mut broken = data.clone();
    let dup = broken.points[0].clone();
    broken.points.push(dup);
    assert!(
        MutexSwap::check(&broken).is_err(),
        "a duplicated point must be rejected"
    );

    let book = book_of(data);
    for exhibit in MutexSwap::EXHIBITS {
        let blocks = MutexSwap::render(exhibit.name, &book)
            .unwrap_or_else(|e| panic!("exhibit {} failed: {e:#}", exhibit.name));
        assert!(!blocks.is_empty(), "exhibit {} is empty", exhibit.name);
        let markdown =
            harness::render::exhibit_markdown("mutex-swap", exhibit.name, &book, &blocks);
        assert!(
            !markdown.trim().is_empty(),
            "exhibit {} renders nothing",
            exhibit.name
        );
        if exhibit.name == "verdicts" {
            let Block::Verdicts(vs) = &blocks[0] else {
                panic!("verdicts exhibit is not a Block::Verdicts")
            };
            assert_eq!(vs.len(), MutexSwap::CLAIMS.len());
            assert!(
                vs.iter().all(|v| v.outcome != Outcome::NotMeasured),
                "{vs:?}"
            );
        }
    }
    assert!(MutexSwap::render("no-such-exhibit", &book).is_err());
}
