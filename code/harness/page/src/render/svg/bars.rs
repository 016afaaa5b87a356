//! Bar charts: one bar per label, grouped, with a label column that wraps
//! above each bar on a phone.
use plotters::coord::ranged1d::SegmentValue;
use plotters::prelude::*;

use super::*;

/// The width, in the SVG's units, of the bars' label column: the longest
/// label, within a share of the drawing.
fn bar_label_area(chart: &BarChart, l: &Layout) -> u32 {
    let longest = chart
        .bars
        .iter()
        .map(|b| b.label.chars().count())
        .max()
        .unwrap_or(0);
    let need = (longest as f64 * char_width(l.tick)).ceil() as u32 + 16;
    need.clamp(80, l.width * 45 / 100)
}

/// A bar's label as drawn: cut with an ellipsis where the column is too
/// narrow (its tooltip and the table beside it hold it whole).
fn bar_label(label: &str, area: u32, l: &Layout) -> String {
    let max = chars_in(area as f64 - 16.0, l.tick);
    if label.chars().count() <= max {
        label.to_string()
    } else {
        let cut: String = label.chars().take(max.saturating_sub(1)).collect();
        format!("{}…", cut.trim_end())
    }
}

/// A bar's label on a phone, where it sits above its bar: wrapped to the
/// plot's width, three lines at most.
fn phone_bar_label(label: &str, l: &Layout) -> Vec<String> {
    let max = chars_in(l.width as f64 - 40.0, l.tick);
    let mut lines = wrap(label, max);
    if lines.len() > 3 {
        lines.truncate(3);
        let last = bar_label(&format!("{} …", lines[2]), l.width - 24, l);
        lines[2] = last;
    }
    lines
}

/// The most lines any bar's label takes on a phone.
fn phone_label_lines(chart: &BarChart, l: &Layout) -> u32 {
    chart
        .bars
        .iter()
        .map(|b| phone_bar_label(&b.label, l).len() as u32)
        .max()
        .unwrap_or(1)
}

macro_rules! draw_bars {
    ($area:expr, $chart:expr, $l:expr, $xr:expr, $base:expr, $tips:expr) => {{
        let chart: &BarChart = $chart;
        let l: &Layout = $l;
        let n = chart.bars.len();
        let groups = groups(chart);
        // On a phone each label sits above its bar, across the plot's width.
        let above = l.legend_columns == 1;
        let area = if above { 12 } else { bar_label_area(chart, l) };
        let labels: Vec<String> = chart
            .bars
            .iter()
            .map(|b| bar_label(&b.label, area, l))
            .collect();
        let wrapped: Vec<Vec<String>> = chart
            .bars
            .iter()
            .map(|b| phone_bar_label(&b.label, l))
            .collect();
        let mut c = ChartBuilder::on($area)
            .margin(14)
            .margin_top(4)
            .x_label_area_size(l.tick + l.desc + 14)
            .y_label_area_size(area)
            .build_cartesian_2d($xr, (0..n).into_segmented())
            .expect("chart layout");
        c.configure_mesh()
            .x_desc(chart.value_axis.label.as_str())
            .axis_style(INK.stroke_width(1))
            .bold_line_style(INK.mix(0.12))
            .light_line_style(INK.mix(0.04))
            .disable_y_mesh()
            .x_labels(l.max_ticks)
            .y_labels(n)
            .label_style(("sans-serif", l.tick).into_font().color(&INK))
            .axis_desc_style(("sans-serif", l.desc).into_font().color(&INK))
            .x_label_formatter(&|v| tick(*v))
            .y_label_formatter(&|v| match v {
                SegmentValue::CenterOf(i) if !above => labels.get(*i).cloned().unwrap_or_default(),
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
            if above {
                r.set_margin(
                    phone_label_lines(chart, l) * line_height(l.tick) + 4,
                    3,
                    0,
                    0,
                );
            } else {
                r.set_margin(4, 4, 0, 0);
            }
            r
        }))
        .expect("bars");
        if above {
            let font = ("sans-serif", l.tick).into_font().color(&INK);
            let (bx, by) = $area.get_base_pixel();
            for (i, lines) in wrapped.iter().enumerate() {
                let (x, y0) = c.backend_coord(&($base, SegmentValue::Exact(i)));
                let (_, y1) = c.backend_coord(&($base, SegmentValue::Exact(i + 1)));
                for (k, line) in lines.iter().enumerate() {
                    let at = (
                        x + 2 - bx,
                        y0.min(y1) + 2 + (k as u32 * line_height(l.tick)) as i32 - by,
                    );
                    let _ = $area.draw(&Text::new(line.clone(), at, font.clone()));
                }
            }
        }
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
                    tip_number(b.value)
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

/// A bar chart at the desktop's size.
pub fn bar_chart(chart: &BarChart) -> String {
    bar_chart_at(chart, &WIDE)
}

pub fn bar_chart_at(chart: &BarChart, l: &Layout) -> String {
    let groups = groups(chart);
    let entries: Vec<Entry> = groups
        .iter()
        .enumerate()
        .map(|(i, g)| (g.clone(), i, false))
        .collect();
    let head = title_height(&chart.title, l);
    // A phone's bar row holds its label, on up to three lines, above the bar.
    let bar = if l.legend_columns > 1 {
        30
    } else {
        phone_label_lines(chart, l) * line_height(l.tick) + 24
    };
    let plot_height = 70 + bar * chart.bars.len() as u32;
    let height = head + plot_height + legend_height(&entries, l);
    let (x0, x1) = bounds(chart.bars.iter().map(|b| b.value), chart.value_axis.scale);
    let xt = log_ticks(x0, x1, l.max_ticks);
    let mut buf = String::new();
    let mut tips = Vec::new();
    {
        let root = SVGBackend::with_string(&mut buf, (l.width, height)).into_drawing_area();
        let (top, rest) = root.split_vertically(head);
        draw_title(&top, &chart.title, l);
        let (plot, legend) = rest.split_vertically(plot_height);
        match chart.value_axis.scale {
            Scale::Log => draw_bars!(
                &plot,
                chart,
                l,
                (x0..x1).log_scale().with_key_points(xt),
                x0,
                tips
            ),
            Scale::Linear => draw_bars!(&plot, chart, l, 0.0..x1, 0.0, tips),
        }
        draw_legend(&legend, &entries, l);
        root.present().expect("svg");
    }
    with_tips(finish(buf, &chart.title), &tips)
}
