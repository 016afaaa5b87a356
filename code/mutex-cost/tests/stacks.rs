//! CPU profiles of the two counters end to end: sampled while checked rounds
//! run, the tokio counter's stacks holding its semaphore and the std
//! counter's none, the group shares summing to one, drawn as SVG that parses.
use std::time::Duration;

use harness_core::Profile;
use harness_measure::{Lab, Progress};
use harness_page::render::blocks::Block;
use harness_page::render::flame;
use mutex_cost::profiles::{profile_name, record_one, ProfiledShape, RoundProfile};
use mutex_cost::Variant;

const SEMAPHORE: &str = "tokio::sync::batch_semaphore::";
const FUTURES: usize = 10_000;

fn profile(lab: &Lab, shape: ProfiledShape, variant: Variant) -> RoundProfile {
    let name = profile_name(shape, variant, FUTURES);
    let p = record_one(
        lab,
        shape,
        variant,
        FUTURES,
        Duration::from_millis(500),
        &name,
    )
    .unwrap_or_else(|e| panic!("{name}: {e:#}"));
    assert!(p.rounds_validated > 0, "{name}: no round ran");
    assert_eq!(p.stacks.design, name);
    p.stacks
        .check()
        .expect("a recorded profile passes its checks");
    p
}

fn frames(p: &RoundProfile) -> impl Iterator<Item = &str> {
    p.stacks
        .folded
        .iter()
        .flat_map(|f| f.stack.split(';').skip(1))
}

// One test: the sampler is the process's, so nothing else runs beside it.
#[test]
fn both_counters_are_sampled_in_both_shapes_and_the_actor_refused() {
    let lab = Lab::new(Profile::Smoke, Progress::hidden("mutex-cost")).unwrap();
    for shape in ProfiledShape::ALL {
        let std = profile(&lab, shape, Variant::StdMutex);
        let tokio = profile(&lab, shape, Variant::TokioMutex);
        assert!(
            frames(&tokio).any(|f| f.contains(SEMAPHORE)),
            "{shape:?}: no semaphore frame in the tokio counter's profile"
        );
        assert!(
            !frames(&std).any(|f| f.contains(SEMAPHORE)),
            "{shape:?}: a semaphore frame in the std counter's profile"
        );
        assert!(
            frames(&std).any(|f| f.contains("StdMutexCounter"))
                && !frames(&std).any(|f| f.contains("TokioMutexCounter")),
            "{shape:?}: the std profile samples its own counter"
        );
        for p in [&std, &tokio] {
            let sum: f64 = flame::groups(&p.stacks).iter().map(|g| g.1).sum();
            assert!((sum - 1.0).abs() < 1e-9, "{}: {sum}", p.stacks.design);
        }
        let blocks = flame::exhibit(&[&std.stacks, &tokio.stacks], "std & <tokio>").unwrap();
        let Block::Drawn(fig) = &blocks[0] else {
            panic!("the first block is not the figure: {blocks:?}")
        };
        roxmltree::Document::parse(&fig.svg).expect("the flame graphs are well-formed SVG");
        assert!(
            !fig.svg.contains("<tokio>"),
            "the caption reached the SVG unescaped"
        );
    }
    // The actor holds no lock: asked for, it is refused with the reason.
    let err = record_one(
        &lab,
        ProfiledShape::JoinAll,
        Variant::Actor,
        100,
        Duration::from_millis(10),
        "actor",
    )
    .unwrap_err();
    assert!(format!("{err:#}").contains("holds no lock"), "{err:#}");
}
