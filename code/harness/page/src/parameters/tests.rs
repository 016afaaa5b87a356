use anyhow::Result;
use harness_core::results::Store;
use harness_measure::fixtures::provenance;
use harness_measure::schedule::{Planned, Schedule};
use harness_measure::timing::Sampling;
use harness_measure::Lab;
use serde::{Deserialize, Serialize};

use super::*;

/// A chapter of two points a side, `b` deciding, with one setting per
/// profile and one per run.
struct Toy;

#[derive(Clone, Serialize, Deserialize)]
struct Data {
    threads: u64,
    schedules: Vec<RecordedSchedule>,
}

fn plan(profile: Profile, design: &str) -> Schedule<(String, u64)> {
    let rounds = profile.pick(2, 3, 5);
    let s = Sampling::new(10, 20, profile.pick(50, 100, 400));
    let points: Vec<Planned<(String, u64)>> = [("a", 1u64), (design, 8)]
        .iter()
        .map(|&(d, n)| Planned::every((d.to_string(), n), s))
        .collect();
    Schedule::across("sweep", rounds, &points)
        .extra_at_end(4, &[(design.to_string(), 8)])
        .fields(&["design", "size"])
}

impl Experiment for Toy {
    type Data = Data;
    const NAME: &'static str = "toy";
    const MEASURED_CRATES: &'static [&'static str] = &[];
    fn measure(_: &Lab) -> Result<Data> {
        unreachable!("the exhibit reads, it never measures")
    }
    fn schedules(profile: Profile, data: Option<&Data>) -> Vec<RecordedSchedule> {
        match data {
            Some(d) if !d.schedules.is_empty() => d.schedules.clone(),
            _ => vec![plan(profile, "b").record()],
        }
    }
}

/// A page with nothing but its parameters.
macro_rules! bare_page {
    ($t:ty) => {
        impl Page for $t {
            type Data = Data;
            type Experiment = $t;
            const CLAIMS: &'static [harness_core::claims::Claim] = &[];
            const EXHIBITS: &'static [Exhibit<Data>] = &[];
            fn check(_: &Data) -> Result<()> {
                Ok(())
            }
            fn judge(_: &crate::page::Judged<Data>, _: &mut crate::page::Judge) -> Result<()> {
                Ok(())
            }
        }
    };
}

bare_page!(Toy);

impl Parameters for Toy {
    const ABOUT: &'static str = "Toy parameters.";
    fn per_profile(profile: Profile) -> Vec<Setting> {
        vec![Setting::new("Bursts", Cell::count(profile.pick(1, 2, 3)))]
    }
    fn per_run(run: &Run<Data>) -> Vec<Setting> {
        vec![Setting::new("Threads", Cell::count(run.data.threads))]
    }
}

fn run(machine: &str, data: Data) -> Run<Data> {
    let mut provenance = provenance(Profile::Quick);
    provenance.machine.id = machine.into();
    Run {
        path: "synthetic.json".into(),
        provenance,
        data,
        stale: false,
        edited: false,
        ephemeral: false,
        analysis: Default::default(),
        rejudged: false,
    }
}

fn book(runs: Vec<Run<Data>>) -> Book<Data> {
    Book {
        chapter: "toy",
        runs,
        store: Store::new(std::env::temp_dir()),
    }
}

fn tables(blocks: Vec<Block>) -> Vec<Table> {
    blocks
        .into_iter()
        .map(|b| match b {
            Block::Table(t) => t,
            other => panic!("the exhibit shows tables only: {other:?}"),
        })
        .collect()
}

fn row<'a>(t: &'a Table, name: &str) -> &'a [Cell] {
    t.rows
        .iter()
        .find(|r| r[0] == Cell::from(name))
        .unwrap_or_else(|| panic!("no row {name:?} in {:?}", t.rows))
}

#[test]
fn profiles_show_the_set_up_and_the_schedule_from_the_code() {
    let t = tables(render::<Toy>(&book(Vec::new())).unwrap());
    assert_eq!(t.len(), 1, "no run: the profiles only");
    let t = &t[0];
    assert_eq!(t.header, vec!["Setting", "smoke", "quick", "full"]);
    assert!(
        t.caption.starts_with("Toy parameters. Per profile"),
        "{}",
        t.caption
    );
    assert!(t.settings, "a table of settings");
    assert_eq!(
        t.rows[0][0],
        Cell::from("Bursts"),
        "the chapter's set-up first"
    );
    assert_eq!(row(t, "Rounds")[1..], [2, 3, 5].map(Cell::count));
    assert_eq!(row(t, "Points")[1..], [2, 2, 2].map(Cell::count));
    assert_eq!(
        row(t, "Timings")[1..],
        [2 * 2 + 4, 2 * 3 + 4, 2 * 5 + 4].map(Cell::count)
    );
    assert_eq!(
        row(t, "Measurement")[1..],
        [50e6, 100e6, 400e6].map(Cell::nanos)
    );
    assert_eq!(
        row(t, "Extra rounds")[3],
        Cell::from("4 more for 1 deciding point, after the regular rounds (9 in all)")
    );
    assert_eq!(
        row(t, "Rig")[1],
        Cell::from("none: each timing builds its own")
    );
}

#[test]
fn runs_show_their_record_and_every_point_escaped() {
    let hostile = "<b>x</b>";
    let mut recorded = plan(Profile::Quick, hostile).record();
    recorded.fields[1] = "size & <i>bytes</i>".into();
    let data = Data {
        threads: 7,
        schedules: vec![recorded],
    };
    let t = tables(render::<Toy>(&book(vec![run("m1", data)])).unwrap());
    assert_eq!(t.len(), 3, "profiles, runs, the run's points");
    let runs = &t[1];
    assert_eq!(runs.header, vec!["Setting", "m1 (quick)"]);
    assert_eq!(row(runs, "Threads")[1], Cell::count(7));
    assert_eq!(row(runs, "Rounds")[1], Cell::count(3));
    let points = &t[2];
    assert_eq!(
        points.header[..2],
        ["Design", "Size &amp; &lt;i&gt;bytes&lt;/i&gt;"]
    );
    assert_eq!(points.rows.len(), 2);
    use crate::render::blocks::Align;
    assert_eq!(
        points.align[..2],
        [Align::Left, Align::Right],
        "words left, sizes right"
    );
    assert_eq!(points.rows[0][0], Cell::from("a"));
    assert_eq!(points.rows[0][1], Cell::count(1));
    let b = &points.rows[1];
    assert_eq!(
        b[0],
        Cell::from("&lt;b&gt;x&lt;/b&gt;"),
        "text from data escaped"
    );
    assert_eq!(b[5..], [Cell::count(3), Cell::count(4), Cell::from("yes")]);
    assert_eq!(points.rows[0][7], Cell::from(""), "a is not deciding");
    assert!(points.caption.contains("m1"), "{}", points.caption);
}

#[test]
fn runs_with_the_same_schedule_share_one_table_of_points() {
    let data = |threads, design: &str| Data {
        threads,
        schedules: vec![plan(Profile::Quick, design).record()],
    };
    let same = book(vec![run("m1", data(2, "b")), run("m2", data(4, "b"))]);
    let t = tables(render::<Toy>(&same).unwrap());
    assert_eq!(t.len(), 3);
    assert!(t[2].caption.contains("m1, m2"), "{}", t[2].caption);
    let other = book(vec![run("m1", data(2, "b")), run("m2", data(4, "c"))]);
    assert_eq!(tables(render::<Toy>(&other).unwrap()).len(), 4);
}

#[test]
fn a_file_older_than_the_record_shows_the_code_plan_of_its_profile() {
    let old = Data {
        threads: 2,
        schedules: Vec::new(),
    };
    let t = tables(render::<Toy>(&book(vec![run("m1", old)])).unwrap());
    assert_eq!(row(&t[1], "Rounds")[1], Cell::count(3), "quick's plan");
    assert_eq!(t[2].rows[1][0], Cell::from("b"));
}

struct Uneven;

impl Experiment for Uneven {
    type Data = Data;
    const NAME: &'static str = "uneven";
    const MEASURED_CRATES: &'static [&'static str] = &[];
    fn measure(_: &Lab) -> Result<Data> {
        unreachable!()
    }
}

bare_page!(Uneven);

impl Parameters for Uneven {
    fn per_profile(profile: Profile) -> Vec<Setting> {
        let name = if profile == Profile::Full { "B" } else { "A" };
        vec![Setting::new(name, Cell::count(1))]
    }
}

#[test]
fn every_column_must_list_the_same_settings() {
    let err = render::<Uneven>(&book(Vec::new())).unwrap_err().to_string();
    assert!(err.contains("must list the same"), "{err}");
}

#[test]
fn points_timed_by_hand_say_so_instead_of_criterion_sampling() {
    let s = Sampling::new(10, 20, 50);
    let mixed = Schedule::across(
        "windows",
        2,
        &[
            Planned::every(("a".to_string(), 1u64), s),
            Planned::every(("b".to_string(), 8u64), None),
        ],
    )
    .fields(&["design", "size"]);
    let all_by_hand = Schedule::across(
        "by hand",
        2,
        &[Planned::every(("c".to_string(), 2u64), None)],
    )
    .fields(&["design", "size"]);
    let data = Data {
        threads: 1,
        schedules: vec![mixed.record(), all_by_hand.record()],
    };
    let t = tables(render::<Toy>(&book(vec![run("m1", data)])).unwrap());
    let runs = &t[1];
    assert_eq!(
        row(runs, "windows: Criterion samples per timing")[1],
        Cell::from("10, the rest by hand")
    );
    assert_eq!(
        row(runs, "windows: Measurement")[1],
        Cell::from(format!(
            "{}, the rest by hand",
            Cell::nanos(50e6).markdown()
        ))
    );
    assert_eq!(
        row(runs, "by hand: Warm-up")[1],
        Cell::from("by hand"),
        "no point of the schedule timed by criterion"
    );
    let windows = &t[2];
    assert_eq!(windows.rows[0][2], Cell::count(10));
    assert_eq!(
        windows.rows[1][2..5],
        [
            Cell::from("by hand"),
            Cell::from("by hand"),
            Cell::from("by hand")
        ]
    );
    assert!(
        windows.caption.contains("\"by hand\""),
        "{}",
        windows.caption
    );
}
