//! The chapter's pages and checks on synthetic data shaped like a real run
//! (tokio's bytes follow the published formula), so no heap profiler runs:
//! unit tests of the binary, as the page is not part of the library.
use alloc_probe::probe::Footprint;
use alloc_probe::run::{AllocData, CreationCount};
use alloc_probe::{
    Channel, GridPoint, ScenarioResult, CREATE_COUNTS, GRID_CAPACITIES, GRID_SIZES, SCENARIOS,
    SWEEP_CAPACITY, SWEEP_SIZES,
};
use harness::fixtures::{book, render, verdicts};
use harness_core::Outcome;
use harness_measure::counts::LAYOUTS;
use harness_measure::PerOp;
use harness_page::render::exhibit_markdown;
use harness_page::{render::blocks::Block, render::blocks::Cell, Page};

use super::AllocProbe;

/// Live bytes of one channel with `queued` messages in it.
fn queued_bytes(channel: Channel, size: u64, capacity: u64, queued: u64) -> u64 {
    match channel {
        // Blocks of 32 slots plus 32 bytes of bookkeeping; the first comes with the channel.
        Channel::TokioBounded | Channel::TokioUnbounded => {
            32 * size + 544 + queued.saturating_sub(1) / 32 * (32 * size + 32)
        }
        // A stub node at creation, one node per queued message.
        Channel::FuturesMpsc => size + 176 + queued * (size + 16),
        // Room for every message up front.
        _ => capacity * size + 144,
    }
}

fn footprint(channel: Channel, size: usize, capacity: usize) -> Footprint {
    let (s, c) = (size as u64, capacity as u64);
    let at = |k: u64| queued_bytes(channel, s, c, k);
    let past_32 = c >= 33;
    Footprint {
        created: at(0),
        after_32: past_32.then(|| at(32)),
        after_33: past_32.then(|| at(33)),
        full: at(c),
        // tokio keeps up to three spare blocks after a drain.
        drained: match channel {
            Channel::TokioBounded | Channel::TokioUnbounded => {
                at(0) + (at(c) - at(0)).min(3 * (32 * s + 32))
            }
            _ => at(0),
        },
        messages: c,
    }
}

fn synthetic() -> AllocData {
    let mut grid = Vec::new();
    let mut sweep = Vec::new();
    let mut scenarios = Vec::new();
    for channel in Channel::ALL {
        for &(msg_size, _) in GRID_SIZES {
            for capacity in GRID_CAPACITIES {
                grid.push(GridPoint {
                    channel,
                    msg_size,
                    capacity,
                    footprint: footprint(channel, msg_size, capacity),
                });
            }
        }
        for &(msg_size, _) in SWEEP_SIZES {
            sweep.push(GridPoint {
                channel,
                msg_size,
                capacity: SWEEP_CAPACITY,
                footprint: footprint(channel, msg_size, SWEEP_CAPACITY),
            });
        }
    }
    for s in SCENARIOS {
        for (channel, boxed) in Channel::ALL
            .iter()
            .map(|&c| (c, false))
            .chain([(Channel::TokioBounded, true)])
        {
            let size = if boxed { 8 } else { s.msg_size };
            let per = footprint(channel, size, s.capacity).created;
            scenarios.push(ScenarioResult {
                scenario: s.name.to_string(),
                channel,
                boxed,
                msg_size: s.msg_size,
                capacity: s.capacity,
                channels: s.channels,
                total_bytes: per * s.channels as u64,
            });
        }
    }
    AllocData {
        pointer_width: 64,
        grid,
        sweep,
        scenarios,
        creation_counts: synthetic_counts(),
    }
}

/// Counts shaped like callgrind's: channel `i` of scenario `s` executes
/// `1000 (s + 1) + 100 i` instructions per creation on top of a fixed
/// 5,000, from every starting heap but tokio bounded's in the health
/// scenario, which executes 200 more from each next one.
fn synthetic_counts() -> Vec<CreationCount> {
    let (small, large) = CREATE_COUNTS;
    let mut out = Vec::new();
    for (s, scenario) in SCENARIOS.iter().enumerate() {
        for (i, &channel) in Channel::ALL.iter().enumerate() {
            let counts = (0..LAYOUTS.len() as u64)
                .map(|j| {
                    let moves = s == 0 && i == 0;
                    let each = 1000 * (s as u64 + 1) + 100 * i as u64 + u64::from(moves) * 200 * j;
                    PerOp {
                        name: format!("create-{}-{}", scenario.name, channel.slug()),
                        small,
                        large,
                        instructions_small: 5000 + small * each,
                        instructions_large: 5000 + large * each,
                        per_op: each as f64,
                    }
                })
                .collect();
            out.push(CreationCount {
                scenario: scenario.name.to_string(),
                channel,
                layouts: LAYOUTS.to_vec(),
                counts,
            });
        }
    }
    out
}

fn at(data: &mut AllocData, channel: Channel, size: usize, capacity: usize) -> &mut Footprint {
    &mut data
        .grid
        .iter_mut()
        .find(|p| p.channel == channel && p.msg_size == size && p.capacity == capacity)
        .unwrap()
        .footprint
}

fn markdown(exhibit: &str, data: AllocData) -> String {
    let book = book::<AllocProbe>(data);
    exhibit_markdown(
        AllocProbe::NAME,
        exhibit,
        &book,
        &render::<AllocProbe>(exhibit, &book),
    )
}

fn refusal(data: &AllocData) -> String {
    format!("{:#}", AllocProbe::check(data).unwrap_err())
}

#[test]
fn the_synthetic_run_checks_and_every_claim_holds() {
    let vs = verdicts::<AllocProbe>(synthetic());
    assert_eq!(vs.len(), AllocProbe::CLAIMS.len());
    for v in &vs {
        assert_eq!(v.outcome, Outcome::Holds, "{}: {}", v.claim.id, v.evidence);
    }
    let alloc_2 = vs.iter().find(|v| v.claim.id == "ALLOC-2").unwrap();
    assert_eq!(
        alloc_2.evidence,
        "Fitted a = 32.00, b = 544.0, largest miss 0 B."
    );
    let alloc_5 = vs.iter().find(|v| v.claim.id == "ALLOC-5").unwrap();
    assert!(alloc_5
        .evidence
        .starts_with("1,312 B per channel over 10,000 channels (+0.0 %"));
}

#[test]
fn bytes_that_fall_while_filling_are_refused_naming_the_point_and_both_values() {
    let mut data = synthetic();
    let f = at(&mut data, Channel::TokioBounded, 128, 16);
    f.full = f.created - 1;
    let err = refusal(&data);
    assert!(
        err.contains("tokio mpsc, bounded, 128 B messages, capacity 16")
            && err.contains("full (4,639 B) is below created (4,640 B)"),
        "{err}"
    );

    let mut data = synthetic();
    let f = at(&mut data, Channel::FuturesMpsc, 8, 1024);
    f.after_33 = Some(f.after_32.unwrap() - 24);
    let err = refusal(&data);
    assert!(
        err.contains("futures-channel mpsc, 8 B messages, capacity 1024")
            && err.contains("33 queued (")
            && err.contains("is below 32 queued ("),
        "{err}"
    );

    // The size sweep is held to the same order.
    let mut data = synthetic();
    let p = data.sweep.iter_mut().find(|p| p.msg_size == 250).unwrap();
    p.footprint.full = 0;
    assert!(
        refusal(&data).contains("size sweep: "),
        "{}",
        refusal(&data)
    );
}

#[test]
fn a_footprint_that_is_not_what_the_probe_records_is_refused() {
    let mut data = synthetic();
    at(&mut data, Channel::KanalSync, 8, 16).messages = 15;
    assert!(refusal(&data).contains("is not a complete run"));

    let mut data = synthetic();
    at(&mut data, Channel::FlumeBounded, 8, 16).after_32 = Some(400);
    assert!(refusal(&data).contains("records bytes with 32 and 33"));

    let mut data = synthetic();
    at(&mut data, Channel::FlumeBounded, 8, 1024).after_33 = None;
    assert!(refusal(&data).contains("lacks bytes with 32 and 33"));

    let mut data = synthetic();
    data.grid
        .retain(|p| !(p.channel == Channel::KanalAsync && p.capacity == 16));
    assert!(
        refusal(&data).contains("the grid has no point (KanalAsync, 8, 16)"),
        "{}",
        refusal(&data)
    );
}

#[test]
fn drained_below_created_is_possible_but_never_printed_as_a_wrapped_count() {
    // Draining frees what the channel likes, so the check lets it pass...
    let mut data = synthetic();
    let f = at(&mut data, Channel::TokioBounded, 8, 1024);
    f.drained = f.created - 8;
    AllocProbe::check(&data).unwrap();
    // ...but the sentence that counts tokio's spare blocks refuses to print it.
    let book = book::<AllocProbe>(data);
    let fit = AllocProbe::EXHIBITS
        .iter()
        .find(|e| e.name == "fit")
        .unwrap();
    let err = format!("{:#}", (fit.render)(&book).unwrap_err());
    assert!(
        err.contains("tokio mpsc, bounded, 8 B messages, capacity 1024")
            && err.contains("drained (792 B) is below created (800 B)"),
        "{err}"
    );
}

#[test]
fn size_of_t_reaches_the_page_as_written() {
    let fit = markdown("fit", synthetic());
    let bare = fit.matches("size_of::<T>()").count();
    assert!(bare > 0, "{fit}");
    assert_eq!(
        fit.matches("`size_of::<T>()`").count(),
        bare,
        "a bare size_of::<T>() would render as size_of::():\n{fit}"
    );
    assert!(
        fit.contains("**32 × `size_of::<T>()` + 544 bytes**"),
        "{fit}"
    );
    assert!(fit.contains(
        "Each further block of `[u8; 8]` costs 288 B (its slots plus 32 B of bookkeeping). \
         Filled to 1024 and drained, the channel keeps 3 spare blocks"
    ));

    let verdicts = markdown("verdicts", synthetic());
    assert!(
        verdicts.contains("32 × size_of::&lt;T&gt;() + 544 bytes"),
        "{verdicts}"
    );
    assert!(!verdicts.contains("size_of::<T>()"), "{verdicts}");
}

#[test]
fn tables_hold_numbers_and_the_grid_counts_exact_matches() {
    let mut data = synthetic();
    let blocks = render::<AllocProbe>("grid", &book::<AllocProbe>(data.clone()));
    let [Block::Table(t), Block::Text(summary)] = &blocks[..] else {
        panic!("{blocks:?}")
    };
    assert_eq!(
        summary,
        &format!(
            "On {}, 9 of 9 rows match the published bytes exactly.",
            machine()
        )
    );
    assert_eq!(t.rows[2][2], Cell::bytes(800));
    assert_eq!(t.rows[2][4], Cell::bytes(9728));
    assert_eq!(t.rows[2][1], Cell::count(1024));

    at(&mut data, Channel::TokioBounded, 1024, 16).full += 8;
    let blocks = render::<AllocProbe>("grid", &book::<AllocProbe>(data.clone()));
    let Block::Table(t) = &blocks[0] else {
        panic!()
    };
    assert_eq!(t.rows[7][6], Cell::from("**no**"));
    assert!(matches!(&blocks[1], Block::Text(s) if s.contains("8 of 9 rows")));

    let blocks = render::<AllocProbe>("channels", &book::<AllocProbe>(data));
    let Block::Table(t) = &blocks[0] else {
        panic!()
    };
    assert_eq!(t.rows[0][4], Cell::from("–"));
    assert!(t.rows[0][3..]
        .iter()
        .filter(|c| **c != Cell::from("–"))
        .all(|c| matches!(c, Cell::Number(..))));
}

fn machine() -> String {
    harness::fixtures::provenance(harness_core::Profile::Smoke)
        .machine
        .id
}

#[test]
fn instruction_counts_show_per_creation_and_tokio_s_ratios() {
    let blocks = render::<AllocProbe>("create-instructions", &book::<AllocProbe>(synthetic()));
    let [Block::Table(health), Block::Table(requests), Block::Text(ratios)] = &blocks[..] else {
        panic!("{blocks:?}")
    };
    for t in [health, requests] {
        assert_eq!(t.rows.len(), Channel::ALL.len());
        assert_eq!(t.header.len(), 5);
        // The CSV gets numbers, never formatted text.
        assert!(t.formatted_measurement().is_none());
    }
    let n = |v: f64| Cell::Number(v, harness_core::Unit::Plain);
    // Health: tokio 1000 to 1600 over the starting heaps, crossbeam 1300.
    assert_eq!(health.rows[0][1..3], [n(1000.0), n(1600.0)]);
    assert_eq!(health.rows[3][0], Cell::from("crossbeam-channel bounded"));
    assert_eq!(
        health.rows[3][1..],
        [
            n(1300.0),
            n(1300.0),
            Cell::ratio(1000.0 / 1300.0),
            Cell::ratio(1600.0 / 1300.0)
        ]
    );
    assert_eq!(
        requests.rows[3][3..],
        [Cell::ratio(2000.0 / 2300.0), Cell::ratio(2000.0 / 2300.0)]
    );
    assert_eq!(
        ratios,
        &format!(
            "On {}, creating and dropping tokio's bounded channel executes in the health \
             scenario, between 0.77× and 1.23× the instructions of crossbeam-channel's bounded \
             channel (which of tokio and crossbeam executes fewer depends on the heap) and \
             between 0.83× and 1.33× those of futures-channel's; in the requests scenario, 0.87× \
             the instructions of crossbeam-channel's bounded channel and 0.91× those of \
             futures-channel's.",
            machine()
        )
    );

    // A smoke run counts tokio, crossbeam and futures-channel in the first
    // scenario only: one table of three rows, and the sentence for it.
    let mut data = synthetic();
    data.creation_counts.retain(|k| {
        k.scenario == "health"
            && matches!(
                k.channel,
                Channel::TokioBounded | Channel::CrossbeamBounded | Channel::FuturesMpsc
            )
    });
    AllocProbe::check(&data).unwrap();
    let blocks = render::<AllocProbe>("create-instructions", &book::<AllocProbe>(data));
    let [Block::Table(t), Block::Text(words)] = &blocks[..] else {
        panic!("{blocks:?}")
    };
    assert_eq!(t.rows.len(), 3);
    assert_eq!(
        words,
        &format!(
            "On {}, creating and dropping tokio's bounded channel executes in the health \
             scenario, between 0.77× and 1.23× the instructions of crossbeam-channel's bounded \
             channel (which of tokio and crossbeam executes fewer depends on the heap) and \
             between 0.83× and 1.33× those of futures-channel's.",
            machine()
        )
    );

    // A run without counts is refused, and says what is missing.
    let mut data = synthetic();
    data.creation_counts.clear();
    assert!(refusal(&data).contains("no instruction counts"));
}

#[test]
fn instruction_counts_that_do_not_add_up_are_refused() {
    let mut data = synthetic();
    data.creation_counts[2].counts[1].per_op += 1.0;
    let err = refusal(&data);
    assert!(
        err.contains(
            "scenario health, starting heap 3: the instruction count of futures-channel mpsc \
             says 1201 per creation where its counts give 1200"
        ),
        "{err}"
    );

    let mut data = synthetic();
    let c = &mut data.creation_counts[9].counts[0];
    c.instructions_large = c.instructions_small;
    assert!(refusal(&data).contains("more must execute more"));

    let mut data = synthetic();
    data.creation_counts[0].counts[0].name = "create-health-flume-bounded".into();
    assert!(refusal(&data).contains("is of case \"create-health-flume-bounded\""));

    let mut data = synthetic();
    data.creation_counts[1].channel = Channel::TokioBounded;
    assert!(refusal(&data).contains("2 instruction counts of tokio mpsc, bounded, expected one"));

    let mut data = synthetic();
    data.creation_counts[8].channel = Channel::FuturesMpsc;
    assert!(refusal(&data)
        .contains("scenario requests: 0 instruction counts of tokio mpsc, bounded, expected one"));

    let mut data = synthetic();
    data.creation_counts[3].scenario = "chat".into();
    assert!(refusal(&data)
        .contains("instruction counts of scenario \"chat\", which the chapter does not have"));

    let mut data = synthetic();
    data.creation_counts[5].counts.pop();
    assert!(
        refusal(&data).contains("are from starting heaps [0, 3, 8, 24] (3 counts)"),
        "{}",
        refusal(&data)
    );

    let mut data = synthetic();
    data.creation_counts[5].layouts[1] = 4;
    assert!(refusal(&data).contains("where the first channel's are from [0, 3, 8, 24]"));
}

/// Two releases of tokio on one machine, the older one's channels 64 bytes
/// heavier at creation: the history names the change and where it lies.
#[test]
fn the_history_places_a_change_in_tokios_fixed_part_between_two_releases() {
    let dir = tempfile::tempdir().unwrap();
    let mut book = book::<AllocProbe>(synthetic());
    book.store = harness_core::results::Store::new(dir.path());
    let mut older = book.runs[0].copy().unwrap();
    for p in older.data.sweep.iter_mut() {
        if p.channel == Channel::TokioBounded {
            p.footprint.created += 64;
        }
    }
    for (run, tokio) in book
        .runs
        .iter_mut()
        .zip(["1.54.1"])
        .chain([(&mut older, "1.20.0")])
    {
        run.provenance.machine.id = "test-machine".into();
        run.provenance.crates.insert("tokio".into(), tokio.into());
    }
    book.runs.push(older);
    let blocks = render::<AllocProbe>("history", &book);
    let text = match &blocks[0] {
        Block::Text(t) => t.clone(),
        other => panic!("{other:?}"),
    };
    assert!(
        text.contains("at 2 releases of tokio, from 1.20.0 to 1.54.1")
            && text.contains(
                "between 1.20.0 and 1.54.1 (tokio mpsc, bounded: fixed part 608 B → 544 B)"
            ),
        "{text}"
    );
    assert!(matches!(blocks[1], Block::Figure(_)), "{blocks:?}");
    let Block::Table(t) = &blocks[2] else {
        panic!("{blocks:?}")
    };
    assert_eq!(t.rows.len(), 2);
    let cells = |row: usize| -> Vec<String> {
        t.rows[row]
            .iter()
            .map(|c| match c {
                Cell::Text(s) => s.clone(),
                Cell::Number(v, _) => format!("{v}"),
                other => format!("{other:?}"),
            })
            .collect()
    };
    // tokio, then slots and fixed bytes of the bounded and unbounded channels.
    assert_eq!(
        cells(0)[..5],
        ["1.20.0", "32", "608", "32", "544"],
        "{:?}",
        cells(0)
    );
    assert_eq!(
        cells(1)[..5],
        ["1.54.1", "32", "544", "32", "544"],
        "{:?}",
        cells(1)
    );
    assert_eq!(cells(0)[6], "—");
    assert!(
        cells(1)[6].contains("fixed part 608 B → 544 B"),
        "{:?}",
        cells(1)
    );
}
