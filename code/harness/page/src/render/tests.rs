use super::*;

#[test]
fn a_figure_for_several_machines_sits_behind_a_switch() {
    use crate::render::blocks::{Axis, Figure, Point, Series};
    let fig = |m: &str| Figure {
        id: "ratio".into(),
        title: format!("ratio on {m}"),
        caption: "cap".into(),
        x: Axis::log("payload (B)"),
        y: Axis::linear("ratio"),
        series: vec![Series::measured(
            m,
            vec![Point::new(8.0, 2.0), Point::new(64.0, 1.5)],
        )],
        line_at: None,
    };
    let book: Book<()> = Book {
        chapter: "c",
        runs: Vec::new(),
        store: harness_core::results::Store::new("/nonexistent"),
    };
    let panels = vec![
        ("x86_64-a".to_string(), vec![Block::Figure(fig("x86_64-a"))]),
        ("arm64-<b>".to_string(), vec![Block::Figure(fig("arm64-b"))]),
    ];
    let md = exhibit_switch("c", "ratio-figure", &book, &panels);
    assert!(
        md.contains("data-exhibit=\"c/ratio-figure\" data-blocks=\"figure\""),
        "{md}"
    );
    assert_eq!(
        md.matches("type=\"radio\" name=\"ms-c-ratio-figure\"")
            .count(),
        2
    );
    assert_eq!(
        md.matches(" checked>").count(),
        1,
        "the first machine shows first"
    );
    assert!(
        md.contains(">arm64-&lt;b&gt;</label>"),
        "machine ids are escaped"
    );
    assert_eq!(md.matches("<div class=\"machine-panel\">").count(), 2);
    // Each panel's figure is drawn wide and for a phone.
    assert_eq!(md.matches("<svg").count(), 4);
    assert!(
        md.contains("id=\"fig-ratio\"") && md.contains("id=\"fig-m1-ratio\""),
        "ids unique"
    );
}

#[test]
fn caption_markdown_becomes_html() {
    assert_eq!(
        inline_markdown("see [post](https://x.y/p), `Vec<u8>` and **this**; a*b [x] <code>k</code>"),
        "see <a href=\"https://x.y/p\">post</a>, <code>Vec&lt;u8&gt;</code> and <strong>this</strong>; a*b [x] <code>k</code>"
    );
}

#[test]
fn the_card_says_not_recorded_for_what_the_machine_could_not_read() {
    let run = |remeasured_s: Option<f64>| Run {
        path: "x.json".into(),
        edited: false,
        analysis: Default::default(),
        rejudged: false,
        provenance: harness_core::results::Provenance {
            machine: harness_core::machine::Machine {
                tcp_congestion_control: remeasured_s.map(|_| "bbr".into()),
                memory_return: remeasured_s.map(|_| "a DAMON scheme that does pageout".into()),
                ..harness_measure::machine::detect()
            },
            rustc: "test".into(),
            crates: Default::default(),
            fingerprint: "test".into(),
            profile: harness_core::profile::Profile::Quick,
            date: "test".into(),
            wall_time_s: 1.0,
            load_average_at_start: None,
            busy_cores_at_start: None,
            cores_apart: Some(harness_core::results::cores::CoresApart {
                gate_ns: Some(335.0),
                timings: 40,
                checks: 80,
                min_ns: 50.0,
                median_ns: 60.0,
                max_ns: 400.0,
                beyond_gate: 1,
                remeasured: 3,
                waited_s: 4.0,
                remeasured_s: remeasured_s.unwrap_or(0.4),
                steal_max: remeasured_s.map(|_| 0.31),
                stolen_timings: remeasured_s.map(|_| 2),
                steal_remeasured: remeasured_s.map(|_| 5),
                probe: remeasured_s.map(|_| harness_core::results::cores::Spread {
                    min_ns: 32_400.0,
                    median_ns: 35_020.0,
                    max_ns: 45_800.0,
                }),
            }),
            // The same switch: a file that has one has the other.
            steal_share: remeasured_s.map(|_| 0.0734),
        },
        data: (),
        stale: false,
        ephemeral: false,
    };
    let card = provenance_card(&run(Some(12.4)));
    assert!(
        card.contains("waited 4 s, measured 3 timings again (12 s), kept 1 beyond it"),
        "{card}"
    );
    assert!(
        card.contains(
            "<dt>Hypervisor steal</dt><dd>7.3 % of CPU time while measuring; up to 31 % \
             in one timing, 2 of 40 timings lost at least 10 % (after 5 stolen ones \
             measured again)</dd>"
        ),
        "{card}"
    );
    assert!(
        card.contains("<dt>TCP congestion control</dt><dd>bbr</dd>"),
        "{card}"
    );
    assert!(
        card.contains(
            "<dt>Memory returned to the host</dt><dd>a DAMON scheme that does pageout</dd>"
        ),
        "{card}"
    );
    assert!(
        card.contains(
            "<dt>Machine speed</dt><dd>a fixed probe of copying and arithmetic took \
             35.0 µs (median; 32.4 µs–45.8 µs), timed before and after each of 40 \
             timings</dd>"
        ),
        "{card}"
    );
    // A machine that could read none of the optional figures (off Linux).
    let card = provenance_card(&run(None));
    assert!(
        card.contains("waited 4 s, measured 3 timings again (0 s), kept 1 beyond it"),
        "{card}"
    );
    assert!(
        card.contains("<dt>Hypervisor steal</dt><dd>not recorded</dd>"),
        "{card}"
    );
    assert!(
        card.contains("<dt>TCP congestion control</dt><dd>not recorded</dd>"),
        "{card}"
    );
    assert!(
        card.contains("<dt>Memory returned to the host</dt><dd>not recorded</dd>"),
        "{card}"
    );
    assert!(
        card.contains("<dt>Machine speed</dt><dd>not recorded</dd>"),
        "{card}"
    );
}

#[test]
fn tables_are_pipe_tables_with_alignment_and_escaping() {
    let mut t = Table::new("Heap", &["channel", "bytes"]);
    t.push(vec!["a|b", "800"]);
    let md = table(&t);
    assert!(md.contains("**Table.** Heap\n"));
    assert!(md.contains("| channel | bytes |\n|:---|---:|\n| a\\|b | 800 |"));
}
