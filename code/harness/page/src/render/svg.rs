//! Inline SVG figures drawn with plotters' SVG backend. Text stays `<text>`
//! (no font files needed anywhere); axes and labels use `currentColor` so the
//! figure follows every mdBook theme; series colours are mid-luminance so
//! they hold contrast on light and dark backgrounds alike.
use plotters::prelude::*;

use crate::render::blocks::{BarChart, Figure, Scale};
use crate::render::html_escape;
use harness_core::fmt;

pub const WIDTH: u32 = 760;

/// The sizes one drawing of a figure is made at. Every figure is drawn twice:
/// wide for a desktop column, and narrow for a phone's, where the wide one
/// would shrink its text below 11 px. The page shows one of the two.
#[derive(Clone, Copy, Debug)]
pub struct Layout {
    pub width: u32,
    plot_height: u32,
    /// Font sizes in the SVG's units: tick labels, axis names, the title,
    /// the legend.
    tick: u32,
    desc: u32,
    title: u32,
    legend: u32,
    legend_columns: u32,
    /// At most this many labelled ticks on an axis.
    max_ticks: usize,
    y_label_area: u32,
}

/// Drawn 760 units wide into a column of 560-760 px: text of 15 units or more
/// stays at 11 px or more.
pub const WIDE: Layout = Layout {
    width: WIDTH,
    plot_height: 400,
    tick: 19,
    desc: 20,
    title: 22,
    legend: 19,
    legend_columns: 2,
    max_ticks: 10,
    y_label_area: 74,
};

/// Drawn 400 units wide into a phone's column (about 345 px at a 375-px
/// screen): its smallest text, 13.7 units (plotters' size 17), is drawn
/// at 11.8 px; the legend is one column.
pub const PHONE: Layout = Layout {
    width: 400,
    plot_height: 320,
    tick: 17,
    desc: 17,
    title: 18,
    legend: 17,
    legend_columns: 1,
    max_ticks: 6,
    y_label_area: 66,
};

/// A generous estimate of a sans-serif character's width, in em: text laid
/// out with it fits where it is put.
const CHAR_EM: f64 = 0.6;

/// plotters writes a font of size `s` as `font-size` s / 1.24 in the SVG.
fn drawn(font: u32) -> f64 {
    font as f64 / 1.24
}

/// The width of one character of text at `font`, in the SVG's units.
fn char_width(font: u32) -> f64 {
    CHAR_EM * drawn(font)
}

/// How many characters of text at `font` fit in `width` units.
fn chars_in(width: f64, font: u32) -> usize {
    ((width / char_width(font)).floor() as usize).max(8)
}

/// Words wrapped into lines of at most `max` characters (a longer word
/// keeps a line of its own).
fn wrap(text: &str, max: usize) -> Vec<String> {
    let mut lines: Vec<String> = Vec::new();
    let mut line = String::new();
    for word in text.split_whitespace() {
        if !line.is_empty() && line.chars().count() + 1 + word.chars().count() > max {
            lines.push(std::mem::take(&mut line));
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(word);
    }
    if !line.is_empty() || lines.is_empty() {
        lines.push(line);
    }
    lines
}

/// Labelled ticks on a log axis from `lo` to `hi`: 1-2-5 steps where they fit
/// in `max`, then 1-3, then powers of ten (every other one if need be), so
/// a range that starts at 150 gets a tick below 1k.
fn log_ticks(lo: f64, hi: f64, max: usize) -> Vec<f64> {
    if !lo.is_finite() || !hi.is_finite() || lo <= 0.0 || hi <= lo {
        return Vec::new();
    }
    let within = |mults: &[f64], every: i32| -> Vec<f64> {
        let (k0, k1) = (lo.log10().floor() as i32, hi.log10().ceil() as i32);
        let mut out = Vec::new();
        for k in k0..=k1 {
            if (k - k0) % every != 0 {
                continue;
            }
            for m in mults {
                let v = m * 10f64.powi(k);
                if v >= lo * (1.0 - 1e-9) && v <= hi * (1.0 + 1e-9) {
                    out.push(v);
                }
            }
        }
        out
    };
    for mults in [&[1.0, 2.0, 5.0][..], &[1.0, 3.0][..], &[1.0][..]] {
        let t = within(mults, 1);
        if t.len() <= max && t.len() >= 2 {
            return t;
        }
        if t.len() < 2 {
            // A narrow range: finer steps than these will not fit better.
            let fine = within(&[1.0, 1.5, 2.0, 3.0, 5.0, 7.0], 1);
            return if fine.len() >= 2 { fine } else { vec![lo, hi] };
        }
    }
    let mut every = 2;
    loop {
        let t = within(&[1.0], every);
        if t.len() <= max {
            return t;
        }
        every += 1;
    }
}

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

/// A value in a tooltip as the tables print it: whole numbers and anything
/// from a thousand up with separators and no decimals (`1`, `25,297,430`),
/// others to three significant figures.
fn tip_number(v: f64) -> String {
    if !v.is_finite() {
        return v.to_string();
    }
    let whole = (v - v.round()).abs() < 1e-9;
    if (whole || v.abs() >= 1000.0) && v.abs() < 1e15 {
        let n = fmt::thousands(v.abs().round() as u64);
        if v < 0.0 {
            format!("-{n}")
        } else {
            n
        }
    } else {
        fmt::sig3(v)
    }
}

/// The tooltip text of one point: series, both coordinates, the interval.
fn point_tip(series: &str, fig: &Figure, p: &crate::render::blocks::Point) -> String {
    let mut t = format!(
        "{series}: {} {}, {} {}",
        fig.x.label,
        tip_number(p.x),
        fig.y.label,
        tip_number(p.y)
    );
    if let Some((lo, hi)) = p.band {
        t.push_str(&format!(
            " (interval {} – {})",
            tip_number(lo),
            tip_number(hi)
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

/// A figure drawn twice, wide and for a phone: the page's style shows the
/// one that fits the column (the wide one in print).
pub fn figure_pair_html(id: &str, caption: &str, wide: &str, phone: &str) -> String {
    let phone = phone.replacen(
        "<svg class=\"figure-svg\"",
        "<svg class=\"figure-svg-phone\"",
        1,
    );
    figure_html(id, caption, &format!("{wide}\n{phone}")).replacen(
        "<figure class=\"bench-figure\"",
        "<figure class=\"bench-figure paired\"",
        1,
    )
}

fn tick(v: f64) -> String {
    // Round numbers print without decimals: 1k, 10k, 2.5M.
    fn short(v: f64) -> String {
        if (v - v.round()).abs() < 1e-9 {
            format!("{v:.0}")
        } else {
            // 2.5, not 2.50: a tick is a round number.
            let s = fmt::sig3(v);
            s.trim_end_matches('0').trim_end_matches('.').to_string()
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

/// One legend entry: its label, palette index, and whether it is dashed.
type Entry = (String, usize, bool);

/// The legend's lines: each entry's label wrapped to its column.
fn legend_lines(entries: &[Entry], l: &Layout) -> Vec<Vec<String>> {
    let column = legend_column(l) as f64 - 40.0;
    entries
        .iter()
        .map(|(label, _, _)| wrap(label, chars_in(column, l.legend)))
        .collect()
}

fn legend_pad(l: &Layout) -> u32 {
    if l.legend_columns > 1 {
        70
    } else {
        12
    }
}

fn legend_column(l: &Layout) -> u32 {
    (l.width - legend_pad(l) - 10) / l.legend_columns
}

fn line_height(font: u32) -> u32 {
    font + font / 6 + 3
}

/// Each legend row's height: its tallest entry.
fn legend_rows(entries: &[Entry], l: &Layout) -> Vec<u32> {
    legend_lines(entries, l)
        .chunks(l.legend_columns as usize)
        .map(|row| {
            row.iter()
                .map(|lines| lines.len() as u32)
                .max()
                .unwrap_or(1)
                * line_height(l.legend)
        })
        .collect()
}

fn legend_height(entries: &[Entry], l: &Layout) -> u32 {
    legend_rows(entries, l).iter().sum::<u32>() + 12
}

/// Legend under the plot; published series drawn dashed.
fn draw_legend(
    area: &DrawingArea<SVGBackend, plotters::coord::Shift>,
    entries: &[Entry],
    l: &Layout,
) {
    let font = ("sans-serif", l.legend).into_font().color(&INK);
    let lines = legend_lines(entries, l);
    let rows = legend_rows(entries, l);
    let columns = l.legend_columns as usize;
    for (i, (_, colour_index, dashed)) in entries.iter().enumerate() {
        let x = (legend_pad(l) + (i % columns) as u32 * legend_column(l)) as i32;
        let y = 10 + rows[..i / columns].iter().sum::<u32>() as i32;
        let mid = y + l.legend as i32 / 2 - 1;
        let style = colour(*colour_index).stroke_width(3);
        if *dashed {
            for k in 0..3 {
                let _ = area.draw(&PathElement::new(
                    vec![(x + k * 10, mid), (x + k * 10 + 6, mid)],
                    style,
                ));
            }
        } else {
            let _ = area.draw(&PathElement::new(vec![(x, mid), (x + 26, mid)], style));
        }
        for (k, line) in lines[i].iter().enumerate() {
            let at = (x + 34, y + (k as u32 * line_height(l.legend)) as i32);
            let _ = area.draw(&Text::new(line.clone(), at, font.clone()));
        }
    }
}

/// The title's lines, wrapped to the width of the drawing.
fn title_lines(title: &str, l: &Layout) -> Vec<String> {
    wrap(title, chars_in(l.width as f64 - 24.0, l.title))
}

fn title_height(title: &str, l: &Layout) -> u32 {
    title_lines(title, l).len() as u32 * line_height(l.title) + 10
}

/// The title, centred above the plot, on as many lines as it needs.
fn draw_title(area: &DrawingArea<SVGBackend, plotters::coord::Shift>, title: &str, l: &Layout) {
    let style = ("sans-serif", l.title).into_font().color(&INK).pos(
        plotters::style::text_anchor::Pos::new(
            plotters::style::text_anchor::HPos::Center,
            plotters::style::text_anchor::VPos::Top,
        ),
    );
    for (k, line) in title_lines(title, l).iter().enumerate() {
        let at = (
            (l.width / 2) as i32,
            8 + (k as u32 * line_height(l.title)) as i32,
        );
        let _ = area.draw(&Text::new(line.clone(), at, style.clone()));
    }
}

macro_rules! draw_lines {
    ($area:expr, $fig:expr, $l:expr, $xr:expr, $yr:expr, $tips:expr) => {{
        let fig: &Figure = $fig;
        let l: &Layout = $l;
        let mut chart = ChartBuilder::on($area)
            .margin(14)
            .margin_top(4)
            .x_label_area_size(l.tick + l.desc + 14)
            .y_label_area_size(l.y_label_area)
            .build_cartesian_2d($xr, $yr)
            .expect("chart layout");
        chart
            .configure_mesh()
            .x_desc(fig.x.label.as_str())
            .y_desc(fig.y.label.as_str())
            .x_labels(l.max_ticks)
            .y_labels(l.max_ticks)
            .axis_style(INK.stroke_width(1))
            .bold_line_style(INK.mix(0.12))
            .light_line_style(INK.mix(0.04))
            .label_style(("sans-serif", l.tick).into_font().color(&INK))
            .axis_desc_style(("sans-serif", l.desc).into_font().color(&INK))
            .x_label_formatter(&|v| tick(*v))
            .y_label_formatter(&|v| tick(*v))
            .draw()
            .expect("mesh");
        if let Some(at) = fig.line_at {
            // A reference line across the plot (a ratio's 1), in the text's colour.
            let (x0, x1) = (chart.x_range().start, chart.x_range().end);
            chart
                .draw_series(DashedLineSeries::new(
                    vec![(x0, at), (x1, at)],
                    4,
                    4,
                    INK.stroke_width(2),
                ))
                .expect("reference line");
        }
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

/// A line chart at the desktop's size.
pub fn line_chart(fig: &Figure) -> String {
    line_chart_at(fig, &WIDE)
}

pub fn line_chart_at(fig: &Figure, l: &Layout) -> String {
    let colours = colour_indices(fig);
    let entries: Vec<Entry> = fig
        .series
        .iter()
        .enumerate()
        .map(|(i, s)| (s.label.clone(), colours[i], s.published))
        .collect();
    let head = title_height(&fig.title, l);
    let height = head + l.plot_height + legend_height(&entries, l);
    let (x0, x1) = bounds(
        fig.series.iter().flat_map(|s| s.points.iter().map(|p| p.x)),
        fig.x.scale,
    );
    let (y0, y1) = bounds(
        fig.series
            .iter()
            .flat_map(|s| {
                s.points
                    .iter()
                    .flat_map(|p| [Some(p.y), p.band.map(|b| b.0), p.band.map(|b| b.1)])
                    .flatten()
            })
            .chain(fig.line_at),
        fig.y.scale,
    );
    let (xt, yt) = (
        log_ticks(x0, x1, l.max_ticks),
        log_ticks(y0, y1, l.max_ticks),
    );
    let mut buf = String::new();
    let mut tips = Vec::new();
    {
        let root = SVGBackend::with_string(&mut buf, (l.width, height)).into_drawing_area();
        let (top, rest) = root.split_vertically(head);
        draw_title(&top, &fig.title, l);
        let (plot, legend) = rest.split_vertically(l.plot_height);
        match (fig.x.scale, fig.y.scale) {
            (Scale::Linear, Scale::Linear) => draw_lines!(&plot, fig, l, x0..x1, y0..y1, tips),
            (Scale::Log, Scale::Linear) => {
                draw_lines!(
                    &plot,
                    fig,
                    l,
                    (x0..x1).log_scale().with_key_points(xt),
                    y0..y1,
                    tips
                )
            }
            (Scale::Linear, Scale::Log) => {
                draw_lines!(
                    &plot,
                    fig,
                    l,
                    x0..x1,
                    (y0..y1).log_scale().with_key_points(yt),
                    tips
                )
            }
            (Scale::Log, Scale::Log) => draw_lines!(
                &plot,
                fig,
                l,
                (x0..x1).log_scale().with_key_points(xt),
                (y0..y1).log_scale().with_key_points(yt),
                tips
            ),
        }
        draw_legend(&legend, &entries, l);
        root.present().expect("svg");
    }
    with_tips(finish(buf, &fig.title), &tips)
}

mod bars;
pub use bars::{bar_chart, bar_chart_at};

#[cfg(test)]
mod tests;
