//! CPU profiles end to end: two designs sampled while they run, their
//! stacks holding the frames each design must show, drawn as SVG that
//! parses, with every name escaped.
use std::time::Duration;

use harness_core::Profile;
use harness_measure::stacks::{record, Stacks};
use harness_measure::{Lab, Progress};
use harness_page::render::blocks::Block;
use harness_page::render::flame;
use mutex_swap::experiment::run_bursts_for;
use mutex_swap::{Design, Wait};

const SEMAPHORE: &str = "tokio::sync::batch_semaphore::";

fn profile(lab: &Lab, design: Design) -> Stacks {
    // Bursts for half a second: a few dozen samples at a scheduler tick's rate.
    let (passes, stacks) = record(lab, design.name(), || {
        run_bursts_for(
            design,
            Wait::Notify,
            16,
            1 << 14,
            Duration::from_millis(500),
        )
    })
    .unwrap_or_else(|e| panic!("{}: {e:#}", design.name()));
    assert!(passes.bursts > 0 && passes.messages == passes.bursts << 14);
    stacks
        .check()
        .expect("a recorded profile passes its own checks");
    stacks
}

fn frames(s: &Stacks) -> impl Iterator<Item = &str> {
    s.folded.iter().flat_map(|f| f.stack.split(';').skip(1))
}

// One test: the sampler is the process's, so nothing else runs beside it.
#[test]
fn two_designs_are_sampled_and_drawn() {
    let lab = Lab::new(Profile::Smoke, Progress::hidden("mutex-swap")).unwrap();
    let std_swap = profile(&lab, Design::StdMutexSwap);
    let tokio_swap = profile(&lab, Design::TokioMutexSwap);

    for s in [&std_swap, &tokio_swap] {
        assert_eq!(s.samples, s.folded.iter().map(|f| f.count).sum::<u64>());
        // Threads are named, frames are demangled and carry no hashes.
        assert!(s.folded.iter().all(|f| !f.stack.starts_with(';')));
        assert!(!frames(s).any(has_hash), "a frame kept its symbol hash");
        assert!(
            frames(s).any(|f| f.starts_with("mutex_swap::")),
            "the chapter's own frames are named"
        );
    }
    // The tokio swap waits on its mutex's semaphore; the std swap never touches one.
    assert!(
        frames(&tokio_swap).any(|f| f.contains(SEMAPHORE)),
        "no semaphore frame in the tokio swap"
    );
    assert!(
        !frames(&std_swap).any(|f| f.contains(SEMAPHORE)),
        "a semaphore frame in the std swap"
    );
    assert!(
        frames(&tokio_swap).any(|f| f.contains("TokioMutexSwap"))
            && !frames(&std_swap).any(|f| f.contains("TokioMutexSwap")),
        "each profile samples its own design"
    );

    // The group table sums to 100 % per design.
    for s in [&std_swap, &tokio_swap] {
        let sum: f64 = flame::groups(s).iter().map(|g| g.1).sum();
        assert!((sum - 1.0).abs() < 1e-9, "{}: {sum}", s.design);
    }

    let blocks = flame::exhibit(&[&std_swap, &tokio_swap], "std & tokio <swap>").unwrap();
    let Block::Drawn(fig) = &blocks[0] else {
        panic!("the first block is not the figure: {blocks:?}")
    };
    let doc = roxmltree::Document::parse(&fig.svg).expect("the flame graphs are well-formed SVG");
    let texts: String = doc.descendants().filter_map(|n| n.text()).collect();
    assert!(
        texts.contains(SEMAPHORE),
        "the semaphore frame is named in the figure"
    );
    // Generics reach the page escaped, and read back as written.
    let generic = frames(&tokio_swap)
        .find(|f| f.contains('<'))
        .expect("a frame with generics");
    assert!(texts.contains(generic.split(" [+").next().unwrap()) || fig.svg.contains("&lt;"));
    assert!(!fig.svg.contains("<script") && !fig.svg.contains("\n\n"));
    let Block::Table(t) = &blocks[1] else {
        panic!("the second block is not the group table")
    };
    assert_eq!(
        t.header,
        [
            "Frame group",
            std_swap.design.as_str(),
            tokio_swap.design.as_str()
        ]
    );
}

/// Whether a frame still carries a legacy symbol hash (`::h` and 16 hex digits).
fn has_hash(frame: &str) -> bool {
    frame.match_indices("::h").any(|(i, _)| {
        let tail = &frame[i + 3..];
        tail.len() >= 16 && tail[..16].chars().all(|c| c.is_ascii_hexdigit())
    })
}
