//! Inline SVG figures drawn with plotters' SVG backend. Text stays `<text>`
//! (no font files needed anywhere); axes and labels use `currentColor` so the
//! figure follows every mdBook theme; series colours are mid-luminance so
//! they hold contrast on light and dark backgrounds alike.
use plotters::coord::ranged1d::SegmentValue;
use plotters::prelude::*;

use crate::render::blocks::{BarChart, Figure, Scale};
use crate::render::fmt;
use crate::render::html_escape;

pub const WIDTH: u32 = 760;
const PLOT_HEIGHT: u32 = 400;
const LEGEND_ROW: u32 = 22;

/// Relative luminance between 0.12 and 0.22: at least 3:1 contrast against
/// white, the rust theme's beige and the dark themes' near-black.
pub const PALETTE: [(u8, u8, u8); 8] = [
    (0x3b, 0x7d, 0xd8),
    (0xc8, 0x60, 0x1a),
    (0x2a, 0x8f, 0x47),
    (0xb0, 0x5c, 0xc8),
    (0xd6, 0x45, 0x3d),
    (0x1c, 0x8a, 0x8c),
    (0x9a, 0x7b, 0x4f),
    (0xcc, 0x4b, 0x8a),
];

fn colour(i: usize) -> RGBColor {
    let (r, g, b) = PALETTE[i % PALETTE.len()];
    RGBColor(r, g, b)
}

/// A hover target over one plotted value: its pixel box and the exact
/// figures, shown by the browser as a tooltip (`<title>`, no script).
struct Tip {
    x: i32,
    y: i32,
    w: i32,
    h: i32,
    text: String,
}

/// The tooltip text of one point: series, both coordinates, the interval.
fn point_tip(series: &str, fig: &Figure, p: &crate::render::blocks::Point) -> String {
    let mut t = format!(
        "{series}: {} {}, {} {}",
        fig.x.label,
        fmt::sig3(p.x),
        fig.y.label,
        fmt::sig3(p.y)
    );
    if let Some((lo, hi)) = p.band {
        t.push_str(&format!(
            " (interval {} – {})",
            fmt::sig3(lo),
            fmt::sig3(hi)
        ));
    }
    t
}

/// Appends the hover targets as the figure's last layer, so they sit above
/// the lines and bars they describe.
fn with_tips(mut svg: String, tips: &[Tip]) -> String {
    let mut layer = String::from("<g class=\"tips\">");
    for t in tips {
        layer.push_str(&format!(
            "<rect class=\"tip\" x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\"><title>{}</title></rect>",
            t.x,
            t.y,
            t.w.max(1),
            t.h.max(1),
            html_escape(&t.text)
        ));
    }
    layer.push_str("</g>");
    match svg.rfind("</svg>") {
        Some(i) => svg.insert_str(i, &layer),
        None => svg.push_str(&layer),
    }
    svg
}

/// Stands for the theme's text colour until `finish` swaps in `currentColor`.
const INK: RGBColor = RGBColor(0, 0, 0);

fn finish(svg: String, title: &str) -> String {
    // plotters writes `<svg width=".." height=".." viewBox="..">`; keep only the
    // viewBox so the figure scales to the column, and make it accessible.
    let svg = svg
        .replace("#000000", "currentColor")
        .replace("#000", "currentColor");
    let start = svg.find("<svg").unwrap_or(0);
    let header_end = svg[start..].find('>').map_or(0, |i| start + i);
    let header = &svg[start..header_end];
    let view_box = header
        .split("viewBox=\"")
        .nth(1)
        .and_then(|s| s.split('"').next())
        .unwrap_or("0 0 760 400")
        .to_string();
    let mut out = format!(
        "<svg class=\"figure-svg\" xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"{view_box}\" role=\"img\" aria-label=\"{}\">",
        html_escape(title)
    );
    out.push_str(&svg[header_end + 1..]);
    // A blank line would end the HTML block in markdown.
    out.lines()
        .map(str::trim_end)
        .filter(|l| !l.is_empty())
        .collect::<Vec<_>>()
        .join("\n")
}

pub fn figure_html(id: &str, caption: &str, svg: &str) -> String {
    let caption = crate::render::inline_markdown(caption);
    let id = html_escape(id);
    format!(
        "<figure class=\"bench-figure\" id=\"fig-{id}\">\n{svg}\n<figcaption>{caption}</figcaption>\n</figure>\n\n"
    )
}

fn tick(v: f64) -> String {
    // Round numbers print without decimals: 1k, 10k, 2.5M.
    fn short(v: f64) -> String {
        if (v - v.round()).abs() < 1e-9 {
            format!("{v:.0}")
        } else {
            fmt::sig3(v)
        }
    }
    let a = v.abs();
    if a >= 1e9 {
        format!("{}G", short(v / 1e9))
    } else if a >= 1e6 {
        format!("{}M", short(v / 1e6))
    } else if a >= 1e3 {
        format!("{}k", short(v / 1e3))
    } else if a >= 1.0 || a == 0.0 {
        short(v)
    } else {
        // 0.5, 0.25, 0.001: as many decimals as the value needs, no more.
        let s = format!("{v:.6}");
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    }
}

fn bounds(values: impl Iterator<Item = f64>, scale: Scale) -> (f64, f64) {
    let vs: Vec<f64> = values
        .filter(|v| v.is_finite() && (scale == Scale::Linear || *v > 0.0))
        .collect();
    let lo = vs.iter().cloned().fold(f64::INFINITY, f64::min);
    let hi = vs.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
    if !lo.is_finite() {
        return (1.0, 10.0);
    }
    match scale {
        Scale::Log => {
            let (lo, hi) = if lo == hi {
                (lo / 2.0, hi * 2.0)
            } else {
                (lo, hi)
            };
            (lo / 1.25, hi * 1.25)
        }
        Scale::Linear => {
            let pad = if hi > lo {
                (hi - lo) * 0.06
            } else {
                hi.abs().max(1.0) * 0.1
            };
            ((lo - pad).min(0.0_f64.max(lo - pad)), hi + pad)
        }
    }
}

fn legend_height(n: usize) -> u32 {
    (n as u32).div_ceil(2) * LEGEND_ROW + 12
}

/// Legend under the plot, two columns; published series drawn dashed.
fn draw_legend(
    area: &DrawingArea<SVGBackend, plotters::coord::Shift>,
    entries: &[(String, usize, bool)],
) {
    let font = ("sans-serif", 19).into_font().color(&INK);
    for (i, (label, colour_index, dashed)) in entries.iter().enumerate() {
        let x = 70 + (i as i32 % 2) * 340;
        let y = 10 + (i as i32 / 2) * LEGEND_ROW as i32;
        let style = colour(*colour_index).stroke_width(3);
        if *dashed {
            for k in 0..3 {
                let _ = area.draw(&PathElement::new(
                    vec![(x + k * 10, y + 8), (x + k * 10 + 6, y + 8)],
                    style,
                ));
            }
        } else {
            let _ = area.draw(&PathElement::new(vec![(x, y + 8), (x + 26, y + 8)], style));
        }
        let _ = area.draw(&Text::new(label.clone(), (x + 34, y), font.clone()));
    }
}

macro_rules! draw_lines {
    ($area:expr, $fig:expr, $xr:expr, $yr:expr, $tips:expr) => {{
        let fig: &Figure = $fig;
        let mut chart = ChartBuilder::on($area)
            .caption(&fig.title, ("sans-serif", 22).into_font().color(&INK))
            .margin(14)
            .x_label_area_size(46)
            .y_label_area_size(74)
            .build_cartesian_2d($xr, $yr)
            .expect("chart layout");
        chart
            .configure_mesh()
            .x_desc(fig.x.label.as_str())
            .y_desc(fig.y.label.as_str())
            .axis_style(INK.stroke_width(1))
            .bold_line_style(INK.mix(0.12))
            .light_line_style(INK.mix(0.04))
            .label_style(("sans-serif", 19).into_font().color(&INK))
            .axis_desc_style(("sans-serif", 20).into_font().color(&INK))
            .x_label_formatter(&|v| tick(*v))
            .y_label_formatter(&|v| tick(*v))
            .draw()
            .expect("mesh");
        let colours = colour_indices(fig);
        for (k, s) in fig.series.iter().enumerate() {
            let i = colours[k];
            let style = colour(i).stroke_width(if s.published { 2 } else { 3 });
            let pts: Vec<(f64, f64)> = s.points.iter().map(|p| (p.x, p.y)).collect();
            if s.published {
                chart
                    .draw_series(DashedLineSeries::new(pts.clone(), 7, 5, style))
                    .expect("series");
            } else {
                chart
                    .draw_series(LineSeries::new(pts.clone(), style))
                    .expect("series");
            }
            chart
                .draw_series(pts.iter().map(|&(x, y)| {
                    if s.published {
                        Circle::new((x, y), 3, colour(i).stroke_width(2))
                    } else {
                        Circle::new((x, y), 3, colour(i).filled())
                    }
                }))
                .expect("points");
            chart
                .draw_series(s.points.iter().filter_map(|p| {
                    p.band.map(|(lo, hi)| {
                        ErrorBar::new_vertical(p.x, lo, p.y, hi, colour(i).stroke_width(1), 8)
                    })
                }))
                .expect("bands");
            for p in &s.points {
                let (px, py) = chart.backend_coord(&(p.x, p.y));
                $tips.push(Tip {
                    x: px - 7,
                    y: py - 7,
                    w: 14,
                    h: 14,
                    text: point_tip(&s.label, fig, p),
                });
            }
        }
    }};
}

/// Palette index of each series: its own position, or that of the series it
/// asks to share a colour with (a published row beside its measured twin).
fn colour_indices(fig: &Figure) -> Vec<usize> {
    fig.series
        .iter()
        .enumerate()
        .map(|(i, s)| {
            s.coloured_like
                .as_ref()
                .and_then(|l| fig.series.iter().position(|o| &o.label == l))
                .unwrap_or(i)
        })
        .collect()
}

pub fn line_chart(fig: &Figure) -> String {
    let colours = colour_indices(fig);
    let entries: Vec<(String, usize, bool)> = fig
        .series
        .iter()
        .enumerate()
        .map(|(i, s)| (s.label.clone(), colours[i], s.published))
        .collect();
    let height = PLOT_HEIGHT + legend_height(entries.len());
    let (x0, x1) = bounds(
        fig.series.iter().flat_map(|s| s.points.iter().map(|p| p.x)),
        fig.x.scale,
    );
    let (y0, y1) = bounds(
        fig.series.iter().flat_map(|s| {
            s.points
                .iter()
                .flat_map(|p| [Some(p.y), p.band.map(|b| b.0), p.band.map(|b| b.1)])
                .flatten()
        }),
        fig.y.scale,
    );
    let mut buf = String::new();
    let mut tips = Vec::new();
    {
        let root = SVGBackend::with_string(&mut buf, (WIDTH, height)).into_drawing_area();
        let (plot, legend) = root.split_vertically(PLOT_HEIGHT);
        match (fig.x.scale, fig.y.scale) {
            (Scale::Linear, Scale::Linear) => draw_lines!(&plot, fig, x0..x1, y0..y1, tips),
            (Scale::Log, Scale::Linear) => {
                draw_lines!(&plot, fig, (x0..x1).log_scale(), y0..y1, tips)
            }
            (Scale::Linear, Scale::Log) => {
                draw_lines!(&plot, fig, x0..x1, (y0..y1).log_scale(), tips)
            }
            (Scale::Log, Scale::Log) => {
                draw_lines!(&plot, fig, (x0..x1).log_scale(), (y0..y1).log_scale(), tips)
            }
        }
        draw_legend(&legend, &entries);
        root.present().expect("svg");
    }
    with_tips(finish(buf, &fig.title), &tips)
}

macro_rules! draw_bars {
    ($area:expr, $chart:expr, $xr:expr, $base:expr, $tips:expr) => {{
        let chart: &BarChart = $chart;
        let n = chart.bars.len();
        let groups = groups(chart);
        let labels: Vec<String> = chart.bars.iter().map(|b| b.label.clone()).collect();
        let mut c = ChartBuilder::on($area)
            .caption(&chart.title, ("sans-serif", 22).into_font().color(&INK))
            .margin(14)
            .x_label_area_size(46)
            .y_label_area_size(250)
            .build_cartesian_2d($xr, (0..n).into_segmented())
            .expect("chart layout");
        c.configure_mesh()
            .x_desc(chart.value_axis.label.as_str())
            .axis_style(INK.stroke_width(1))
            .bold_line_style(INK.mix(0.12))
            .light_line_style(INK.mix(0.04))
            .disable_y_mesh()
            .y_labels(n)
            .label_style(("sans-serif", 19).into_font().color(&INK))
            .axis_desc_style(("sans-serif", 20).into_font().color(&INK))
            .x_label_formatter(&|v| tick(*v))
            .y_label_formatter(&|v| match v {
                SegmentValue::CenterOf(i) => labels.get(*i).cloned().unwrap_or_default(),
                _ => String::new(),
            })
            .draw()
            .expect("mesh");
        c.draw_series(chart.bars.iter().enumerate().map(|(i, b)| {
            let g = groups.iter().position(|g| *g == b.group).unwrap_or(0);
            let mut r = Rectangle::new(
                [
                    ($base, SegmentValue::Exact(i)),
                    (b.value, SegmentValue::Exact(i + 1)),
                ],
                colour(g).filled(),
            );
            r.set_margin(4, 4, 0, 0);
            r
        }))
        .expect("bars");
        for (i, b) in chart.bars.iter().enumerate() {
            let (x0, y0) = c.backend_coord(&($base, SegmentValue::Exact(i)));
            let (x1, y1) = c.backend_coord(&(b.value, SegmentValue::Exact(i + 1)));
            $tips.push(Tip {
                x: x0.min(x1),
                y: y0.min(y1),
                w: (x1 - x0).abs(),
                h: (y1 - y0).abs(),
                text: format!(
                    "{}: {} {}",
                    b.label,
                    chart.value_axis.label,
                    fmt::sig3(b.value)
                ),
            });
        }
    }};
}

fn groups(chart: &BarChart) -> Vec<String> {
    let mut groups: Vec<String> = Vec::new();
    for b in &chart.bars {
        if !groups.contains(&b.group) {
            groups.push(b.group.clone());
        }
    }
    groups
}

pub fn bar_chart(chart: &BarChart) -> String {
    let groups = groups(chart);
    let entries: Vec<(String, usize, bool)> = groups
        .iter()
        .enumerate()
        .map(|(i, g)| (g.clone(), i, false))
        .collect();
    let plot_height = 90 + 30 * chart.bars.len() as u32;
    let height = plot_height + legend_height(entries.len());
    let (x0, x1) = bounds(chart.bars.iter().map(|b| b.value), chart.value_axis.scale);
    let mut buf = String::new();
    let mut tips = Vec::new();
    {
        let root = SVGBackend::with_string(&mut buf, (WIDTH, height)).into_drawing_area();
        let (plot, legend) = root.split_vertically(plot_height);
        match chart.value_axis.scale {
            Scale::Log => draw_bars!(&plot, chart, (x0..x1).log_scale(), x0, tips),
            Scale::Linear => draw_bars!(&plot, chart, 0.0..x1, 0.0, tips),
        }
        draw_legend(&legend, &entries);
        root.present().expect("svg");
    }
    with_tips(finish(buf, &chart.title), &tips)
}

#[cfg(test)]
mod tests {
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
        }
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
        assert_eq!(tick(2_500_000.0), "2.50M");
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
}
