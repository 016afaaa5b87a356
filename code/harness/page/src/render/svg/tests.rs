use super::*;
use crate::render::blocks::{Axis, Bar, Point, Series};

fn luminance((r, g, b): (u8, u8, u8)) -> f64 {
    let lin = |c: u8| {
        let c = c as f64 / 255.0;
        if c <= 0.03928 {
            c / 12.92
        } else {
            ((c + 0.055) / 1.055).powf(2.4)
        }
    };
    0.2126 * lin(r) + 0.7152 * lin(g) + 0.0722 * lin(b)
}

fn contrast(a: (u8, u8, u8), b: (u8, u8, u8)) -> f64 {
    let (la, lb) = (luminance(a), luminance(b));
    (la.max(lb) + 0.05) / (la.min(lb) + 0.05)
}

#[test]
fn series_colours_hold_3_to_1_contrast_on_every_mdbook_theme() {
    // Page backgrounds of mdBook 0.4's light, rust, coal, navy and ayu themes.
    let backgrounds = [
        (0xff, 0xff, 0xff),
        (0xe1, 0xe1, 0xdb),
        (0x14, 0x16, 0x17),
        (0x16, 0x19, 0x23),
        (0x0f, 0x14, 0x19),
    ];
    for c in PALETTE {
        for bg in backgrounds {
            let k = contrast(c, bg);
            assert!(k >= 3.0, "{c:?} on {bg:?}: contrast {k:.2}");
        }
    }
}

fn figure() -> Figure {
    Figure {
        id: "t".into(),
        title: "Bytes vs size".into(),
        caption: "cap".into(),
        x: Axis::log("message size (B)"),
        y: Axis::log("bytes"),
        series: vec![
            Series::measured(
                "tokio",
                vec![
                    Point::new(8.0, 800.0),
                    Point::with_band(1024.0, 33312.0, 33000.0, 34000.0),
                ],
            ),
            Series::published(
                "tokio (published)",
                vec![Point::new(8.0, 800.0), Point::new(1024.0, 33312.0)],
            ),
        ],
        line_at: None,
    }
}

/// The labels of an SVG's text elements, as drawn.
fn texts(svg: &str) -> Vec<String> {
    svg.split("<text")
        .skip(1)
        .filter_map(|t| t.split_once('>').map(|(_, rest)| rest))
        .filter_map(|t| t.split("</text>").next())
        .map(|t| t.trim().to_string())
        .collect()
}

#[test]
fn a_log_axis_from_150_bytes_has_ticks_below_1k() {
    // The allocation figure's y axis: futures-channel and flume at 150-800 B.
    let t = log_ticks(120.0, 42_000.0, WIDE.max_ticks);
    assert!(t.iter().any(|&v| v < 1000.0), "{t:?}");
    assert_eq!(t.first(), Some(&200.0), "{t:?}");
    let phone = log_ticks(120.0, 42_000.0, PHONE.max_ticks);
    assert!(
        phone.iter().any(|&v| v < 1000.0) && phone.len() <= PHONE.max_ticks,
        "{phone:?}"
    );
    // Wide ranges thin to powers of ten, never past the limit.
    let wide = log_ticks(1.0, 1e12, 5);
    assert!(wide.len() <= 5 && wide.len() >= 3, "{wide:?}");
    // A narrow range still gets two ticks.
    assert!(log_ticks(1.1, 1.9, 10).len() >= 2);
    let mut fig = figure();
    fig.series[0].points[0].y = 150.0;
    let svg = line_chart(&fig);
    let drawn = texts(&svg);
    assert!(
        drawn.iter().any(|t| t == "200" || t == "500"),
        "a y tick below 1k is drawn: {drawn:?}"
    );
}

#[test]
fn a_tooltip_sits_on_its_point_below_a_wrapped_title() {
    let mut fig = figure();
    fig.title = "A title long enough that a phone must put it on two lines or more".into();
    for l in [&WIDE, &PHONE] {
        let svg = line_chart_at(&fig, l);
        let num = |s: &str, key: &str| -> i32 {
            let v: f64 = s
                .split(key)
                .nth(1)
                .unwrap()
                .split('"')
                .next()
                .unwrap()
                .parse()
                .unwrap();
            v.round() as i32
        };
        let circle = svg.split("<circle").nth(1).unwrap();
        let tip = svg.split("<rect class=\"tip\"").nth(1).unwrap();
        assert_eq!(
            num(circle, " cy=\""),
            num(tip, " y=\"") + 7,
            "{}",
            &svg[..300]
        );
        assert_eq!(num(circle, " cx=\""), num(tip, " x=\"") + 7);
    }
}

#[test]
fn tooltips_print_numbers_as_the_tables_do() {
    assert_eq!(tip_number(1.0), "1");
    assert_eq!(tip_number(16.0), "16");
    assert_eq!(tip_number(25_297_430.0), "25,297,430");
    assert_eq!(tip_number(19_177_670.4), "19,177,670");
    assert_eq!(tip_number(2.314), "2.31");
    assert_eq!(tip_number(0.0812), "0.08");
    let mut fig = figure();
    fig.x = Axis::log("workers");
    fig.series[0].points = vec![
        Point::new(1.0, 2.0),
        Point::with_band(16.0, 25_297_430.0, 19_177_670.0, 34_624_548.0),
    ];
    let svg = line_chart(&fig);
    assert!(svg.contains("tokio: workers 1, bytes 2</title>"), "{svg}");
    assert!(
        svg.contains("workers 16, bytes 25,297,430 (interval 19,177,670 – 34,624,548)"),
        "{svg}"
    );
}

#[test]
fn a_reference_line_is_drawn_where_the_figure_asks() {
    let mut fig = figure();
    fig.y = Axis::linear("ratio");
    fig.series = vec![Series::measured(
        "r",
        vec![Point::new(8.0, 2.0), Point::new(64.0, 3.0)],
    )];
    let without = line_chart(&fig);
    fig.line_at = Some(1.0);
    let with = line_chart(&fig);
    // The line at 1 is one more dashed path, and the axis reaches down to it.
    assert!(
        with.matches("<polyline").count() + with.matches("<path").count()
            > without.matches("<polyline").count() + without.matches("<path").count()
    );
    assert!(
        texts(&with).iter().any(|t| t == "1" || t == "0"),
        "{:?}",
        texts(&with)
    );
}

#[test]
fn the_phone_drawing_is_narrow_with_its_text_at_13_5_units_or_more() {
    let mut fig = figure();
    fig.title = "A title long enough that a phone must put it on two lines or more".into();
    let svg = line_chart_at(&fig, &PHONE);
    assert!(
        svg.contains(&format!("viewBox=\"0 0 {} ", PHONE.width)),
        "{}",
        &svg[..200]
    );
    for (i, _) in svg.match_indices("font-size=\"") {
        let size: f64 = svg[i + 11..].split('"').next().unwrap().parse().unwrap();
        // 13.5 units of 400 are 11.6 px in a 345-px column.
        assert!(size >= 13.5, "font-size {size}");
    }
    let drawn = texts(&svg);
    assert!(
        drawn
            .iter()
            .filter(|t| t.starts_with("A title") || t.ends_with("more"))
            .count()
            >= 2,
        "the title wraps: {drawn:?}"
    );
    // No title or legend line is longer than fits the drawing.
    let fits = chars_in(PHONE.width as f64, PHONE.title);
    assert!(drawn.iter().all(|t| t.chars().count() <= fits), "{drawn:?}");
    let page = figure_pair_html("t", "cap", &line_chart(&fig), &svg);
    assert_eq!(page.matches("<svg class=\"figure-svg\"").count(), 1);
    assert_eq!(page.matches("<svg class=\"figure-svg-phone\"").count(), 1);
    assert!(page.starts_with("<figure class=\"bench-figure paired\""));
}

#[test]
fn a_long_bar_label_is_cut_to_its_column_and_whole_above_its_bar_on_a_phone() {
    let chart = BarChart {
        id: "b".into(),
        title: "t".into(),
        caption: String::new(),
        value_axis: Axis::log("x"),
        bars: vec![Bar {
            label: "a label far longer than the label column of a phone can hold, whole".into(),
            value: 3.0,
            group: "g".into(),
        }],
    };
    let svg = bar_chart(&chart);
    assert!(
        texts(&svg).iter().any(|t| t.ends_with('…')),
        "{:?}",
        texts(&svg)
    );
    // On a phone the label sits above its bar, whole, on two lines.
    let phone = bar_chart_at(&chart, &PHONE);
    let drawn = texts(&phone);
    assert!(!drawn.iter().any(|t| t.ends_with('…')), "{drawn:?}");
    let first = drawn
        .iter()
        .position(|t| t.starts_with("a label far longer"))
        .expect("first line");
    assert_eq!(
        format!("{} {}", drawn[first], drawn[first + 1]),
        "a label far longer than the label column of a phone can hold, whole"
    );
    assert!(svg.contains(
        "<title>a label far longer than the label column of a phone can hold, whole: x 3</title>"
    ));
}

#[test]
fn a_line_chart_is_one_themeable_svg_without_blank_lines() {
    let svg = line_chart(&figure());
    assert!(svg.starts_with("<svg class=\"figure-svg\""));
    assert!(svg.trim_end().ends_with("</svg>"));
    assert_eq!(svg.matches("<svg").count(), 1);
    assert!(!svg.contains("\n\n"));
    assert!(!svg.contains("#000000"), "axes must follow the theme");
    assert!(svg.contains("currentColor"));
    assert!(
        svg.contains("tokio (published)\n</text>"),
        "legend text is SVG text"
    );
    assert!(svg.contains("stroke-dasharray") || svg.matches("<polyline").count() > 2);
    assert!(svg.contains("message size (B)"));
}

#[test]
fn every_point_and_bar_has_a_tooltip_with_its_value() {
    let mut fig = figure();
    fig.series[0].label = "tokio <mpsc> & co".into();
    let svg = line_chart(&fig);
    let points: usize = fig.series.iter().map(|s| s.points.len()).sum();
    assert_eq!(svg.matches("<rect class=\"tip\"").count(), points);
    assert!(
        svg.contains("tokio &lt;mpsc&gt; &amp; co:"),
        "labels escaped"
    );
    let p = &fig.series[0].points[0];
    assert!(svg.contains(&fmt::sig3(p.y)), "exact value in the tip");
    assert!(svg.rfind("class=\"tips\"").unwrap() > svg.rfind("<circle").unwrap());
    let bars = BarChart {
        id: "b".into(),
        title: "t".into(),
        caption: String::new(),
        value_axis: crate::render::blocks::Axis::linear("bytes"),
        bars: vec![crate::render::blocks::Bar {
            label: "tokio".into(),
            value: 544.0,
            group: "g".into(),
        }],
    };
    let svg = bar_chart(&bars);
    assert_eq!(svg.matches("<rect class=\"tip\"").count(), 1);
    assert!(svg.contains("<title>tokio: bytes 544</title>"), "{svg}");
}

#[test]
fn text_is_drawn_at_15_units_or_more() {
    let svg = line_chart(&figure());
    for (i, _) in svg.match_indices("font-size=\"") {
        let size: f64 = svg[i + 11..].split('"').next().unwrap().parse().unwrap();
        assert!(
            size >= 15.0,
            "font-size {size} in {}",
            &svg[i.saturating_sub(200)..i + 120]
        );
    }
}

#[test]
fn ticks_are_short() {
    assert_eq!(tick(1000.0), "1k");
    assert_eq!(tick(10_000.0), "10k");
    assert_eq!(tick(2_500_000.0), "2.5M");
    assert_eq!(tick(3.5), "3.5");
    assert_eq!(tick(0.5), "0.5");
    assert_eq!(tick(0.001), "0.001");
    assert_eq!(tick(8.0), "8");
}

#[test]
fn a_bar_chart_labels_every_bar() {
    let chart = BarChart {
        id: "b".into(),
        title: "10,000 channels".into(),
        caption: String::new(),
        value_axis: Axis::log("bytes"),
        bars: vec![
            Bar {
                label: "tokio 24 B".into(),
                value: 13_120_000.0,
                group: "tokio".into(),
            },
            Bar {
                label: "kanal 24 B".into(),
                value: 1_000_000.0,
                group: "kanal".into(),
            },
        ],
    };
    let svg = bar_chart(&chart);
    assert!(svg.contains("tokio 24 B\n</text>") && svg.contains("kanal 24 B\n</text>"));
    assert!(svg.matches("<rect").count() >= 2);
    assert!(!svg.contains("\n\n"));
}
