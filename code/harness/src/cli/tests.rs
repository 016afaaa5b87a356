use super::*;
use harness_core::Claim;
use harness_measure::{Experiment, Lab};
use harness_page::{render::blocks::Block, Exhibit, Judge, Judged, Page};

const FIGURE: Exhibit<()> = Exhibit {
    name: "figure",
    kind: ExhibitKind::Figure,
    about: "a figure of its own",
    render: |_| Ok(Vec::new()),
};

/// A chapter whose own exhibit takes the built-in answer list's name.
struct Shadowing;

impl Experiment for Shadowing {
    type Data = ();
    const NAME: &'static str = "shadowing";
    const MEASURED_CRATES: &'static [&'static str] = &[];

    fn measure(_: &Lab) -> Result<()> {
        Ok(())
    }
}

impl Page for Shadowing {
    type Data = ();
    type Experiment = Shadowing;
    const CLAIMS: &'static [Claim] = &[];
    const EXHIBITS: &'static [Exhibit<()>] = &[
        FIGURE,
        Exhibit {
            name: "answer",
            kind: ExhibitKind::Text,
            about: "its own answer, which would hide the harness's",
            render: |_| Ok(Vec::new()),
        },
    ];

    fn check(_: &()) -> Result<()> {
        Ok(())
    }

    fn judge(_: &Judged<()>, _: &mut Judge) -> Result<()> {
        Ok(())
    }
}

/// The same chapter with only its figure: every built-in comes after it.
struct Plain;

impl Experiment for Plain {
    type Data = ();
    const NAME: &'static str = "plain";
    const MEASURED_CRATES: &'static [&'static str] = &[];

    fn measure(_: &Lab) -> Result<()> {
        Ok(())
    }
}

impl Page for Plain {
    type Data = ();
    type Experiment = Plain;
    const CLAIMS: &'static [Claim] = &[];
    const EXHIBITS: &'static [Exhibit<()>] = &[FIGURE];

    fn check(_: &()) -> Result<()> {
        Ok(())
    }

    fn judge(_: &Judged<()>, _: &mut Judge) -> Result<()> {
        Ok(())
    }
}

/// A chapter whose figure names every machine it was given.
struct Machines;

impl Experiment for Machines {
    type Data = u32;
    const NAME: &'static str = "machines";
    const MEASURED_CRATES: &'static [&'static str] = &[];

    fn measure(_: &Lab) -> Result<u32> {
        Ok(0)
    }
}

impl Page for Machines {
    type Data = u32;
    type Experiment = Machines;
    const CLAIMS: &'static [Claim] = &[];
    const EXHIBITS: &'static [Exhibit<u32>] = &[Exhibit {
        name: "figure",
        kind: ExhibitKind::Figure,
        about: "one line per run it sees",
        render: |book| {
            Ok(book
                .runs
                .iter()
                .map(|r| Block::Text(format!("drawn from {} ({})", r.machine(), r.data)))
                .collect())
        },
    }];

    fn check(_: &u32) -> Result<()> {
        Ok(())
    }

    fn judge(_: &Judged<u32>, _: &mut Judge) -> Result<()> {
        Ok(())
    }
}

#[test]
fn each_machines_panel_is_drawn_from_that_machines_run_alone() {
    let mut book = crate::fixtures::book::<Machines>(1);
    let mut other = book.runs[0].copy().unwrap();
    other.provenance.machine.id = "aarch64-other".into();
    other.data = 2;
    book.runs[0].provenance.machine.id = "x86_64-this".into();
    book.runs.push(other);
    let md = render_loaded::<Machines>(&<Machines as Page>::EXHIBITS[0], &book).unwrap();
    let panels: Vec<&str> = md.split("<div class=\"machine-panel\">").skip(1).collect();
    assert_eq!(panels.len(), 2, "{md}");
    for (panel, (this, not)) in panels.iter().zip([
        ("x86_64-this (1)", "aarch64"),
        ("aarch64-other (2)", "x86_64"),
    ]) {
        assert!(panel.contains(&format!("drawn from {this}")), "{panel}");
        assert!(!panel.contains(&format!("drawn from {not}")), "{panel}");
    }
}

#[test]
fn a_chapter_exhibit_may_not_shadow_a_built_in_one() {
    let err = format!("{:#}", exhibits::<Shadowing>().err().expect("refused"));
    assert!(
        err.contains("shadowing") && err.contains("\"answer\"") && err.contains("rename"),
        "{err}"
    );
    let names: Vec<&str> = exhibits::<Plain>()
        .unwrap()
        .iter()
        .map(|e| e.name)
        .collect();
    assert_eq!(
        names,
        ["figure", "answer", "releases", "provenance", "precision"]
    );
}
