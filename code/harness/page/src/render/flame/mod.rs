//! Flame graphs of the call stacks a run sampled (`measure::stacks`), and
//! a table of where the samples went by frame group.
//!
//! inferno lays the graph out (merging stacks into frames, their widths and
//! depths, pruning the narrowest); this module then keeps only that layout
//! and writes its own SVG from it: no script, no stylesheet, no ids (so any
//! number of graphs can share a page), every name escaped, frames coloured
//! by their group, labels cut to fit in a monospace font, and headings in
//! `currentColor` so they follow the page's theme. Frame fills are mid-tones
//! (see [`FRAME_LUMINANCE`]): they stand out from every theme's page and
//! keep black labels readable, so one drawing serves all five themes. Each
//! frame carries a transparent hover target whose `<title>` is the browser's
//! tooltip: the frame's whole name, its samples and their share.
//!
//! # Frame groups
//!
//! Each frame is classified by its name (see [`frame_group`]): a group's own
//! frames (`scheduler`: tokio's runtime, `sched_yield`; `semaphore/waker`:
//! `tokio::sync`, wakers and wake-ups; `futex`; `syscall write`: the libc
//! `write`/`send` family; `memcpy`; `allocator`), frames that work on
//! behalf of their caller (the standard library, `core`, `alloc`, libc
//! wrappers such as `syscall`, tokio's internal utilities, lock and I/O
//! crates underneath: these pass the sample on to their caller), and
//! everything else (the code under test). A sample counts for the innermost
//! frame that belongs to a group, walking out from where it landed through
//! frames that pass it on; the first frame of other code stops the walk and
//! the sample counts as `other`. So a `memcpy` inside `realloc` is memcpy,
//! a futex wait under `std::sync::Mutex::lock` is futex, and the chapter's
//! own loop running inside a tokio task is other, not scheduler.
use std::fmt::Write as _;

use anyhow::{bail, ensure, Context, Result};

use crate::render::blocks::{Block, Cell, Drawn, Table};
use crate::render::escape;
use harness_core::values::Unit;
use harness_measure::stacks::Stacks;

mod groups;
#[cfg(test)]
mod tests;

pub use groups::{frame_group, groups, stack_group, GROUPS};
use groups::{kind, path_of, Kind, OTHER};

/// The hue of each group (other: a warm grey); [`fill`] sets its lightness.
const FILLS: [(u8, u8, u8); 7] = [
    (0xa9, 0xc9, 0xf2),
    (0xd5, 0xbd, 0xf0),
    (0xf5, 0xae, 0xa8),
    (0xad, 0xdd, 0xb1),
    (0x9f, 0xdb, 0xd6),
    (0xf6, 0xcc, 0x8f),
    (0xdc, 0xd6, 0xc8),
];
const LABEL: &str = "#000000";
/// The relative luminance (WCAG) of every frame fill lies in this range:
/// at least 0.18 gives black labels 4.6:1; at most 0.21 keeps 3:1 against
/// the lightest page behind a figure (the rust theme's, 0.75) and, with the
/// lower end, against the dark themes' (about 0.01).
const FRAME_LUMINANCE: (f64, f64) = (0.18, 0.21);

/// Drawing units: the book's figure width, and the frames' text.
const WIDTH: f64 = crate::render::svg::WIDTH as f64;
const FRAME_HEIGHT: f64 = 18.0;
const FONT_SIZE: f64 = 12.0;
/// Width of one monospace character, in ems: 0.6 in most monospace fonts;
/// a little more so that no label outruns its frame.
const CHAR_EM: f64 = 0.62;
const HEADING: f64 = 30.0;
const GAP: f64 = 18.0;
/// Frames narrower than this share of the samples are left out (inferno's
/// `min_width`, in percent of the width): under 4 units wide, a frame has
/// no label and is hard to point at, and rare deep stacks would make the
/// graph tall for nothing. The group table still counts every sample.
const MIN_WIDTH_PCT: f64 = 0.5;

/// Flame graphs of several designs, one above the other in one figure, with
/// a table of the share of samples per frame group per design.
pub fn exhibit(profiles: &[&Stacks], caption: &str) -> Result<Vec<Block>> {
    ensure!(!profiles.is_empty(), "no profiles to draw");
    for p in profiles {
        p.check()?;
    }
    let mut body = String::new();
    let mut y = 0.0;
    legend(&mut body, &mut y);
    for p in profiles {
        let graph = draw(p).with_context(|| format!("cannot draw the profile of {}", p.design))?;
        let _ = write!(
            body,
            "<text x=\"0\" y=\"{:.1}\" font-size=\"16\" font-weight=\"bold\" fill=\"currentColor\">{}: {} samples</text>",
            y + 20.0,
            escape(&p.design),
            harness_core::fmt::thousands(p.samples)
        );
        y += HEADING;
        let _ = write!(
            body,
            "<g transform=\"translate(0 {y:.1})\">{}</g>",
            graph.svg
        );
        y += graph.height + GAP;
    }
    let title = format!(
        "Flame graphs of {}",
        profiles
            .iter()
            .map(|p| p.design.as_str())
            .collect::<Vec<_>>()
            .join(", ")
    );
    let svg = format!(
        "<svg class=\"figure-svg flame-svg\" xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 {WIDTH} {:.0}\" role=\"img\" aria-label=\"{}\" font-family=\"monospace\">{body}</svg>",
        y.max(1.0),
        escape(&title)
    );
    Ok(vec![
        Block::Drawn(Drawn {
            id: figure_id(profiles, caption),
            caption: caption.to_string(),
            svg,
        }),
        Block::Table(group_table(profiles)),
    ])
}

/// The groups' colours, in one row above the graphs.
fn legend(out: &mut String, y: &mut f64) {
    let mut x = 0.0;
    for (g, name) in GROUPS.iter().enumerate() {
        let _ = write!(
            out,
            "<rect x=\"{x:.1}\" y=\"4\" width=\"14\" height=\"14\" fill=\"{}\"/><text x=\"{:.1}\" y=\"16\" font-size=\"13\" fill=\"currentColor\">{}</text>",
            rgb(at_luminance(FILLS[g], mid_luminance())),
            x + 18.0,
            escape(name)
        );
        x += 18.0 + name.chars().count() as f64 * 13.0 * CHAR_EM + 14.0;
    }
    *y += 28.0;
}

/// An id for the figure, the same on every render of the same exhibit and
/// different for different profiles or captions on one page.
fn figure_id(profiles: &[&Stacks], caption: &str) -> String {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for b in profiles
        .iter()
        .flat_map(|p| p.design.bytes().chain([0]))
        .chain(caption.bytes())
    {
        hash = (hash ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3);
    }
    format!("flame-{:08x}", hash >> 32)
}

fn group_table(profiles: &[&Stacks]) -> Table {
    let mut header = vec!["Frame group"];
    header.extend(profiles.iter().map(|p| p.design.as_str()));
    let mut t = Table::new(
        "Share of each profile's samples by frame group. A sample counts for the innermost \
         frame that belongs to a group, walking out from where it landed through frames that \
         work for their caller (the standard library, libc wrappers, tokio's utilities); the \
         first frame of any other code ends the walk, and the sample counts as other. Samples \
         are of CPU time: a thread asleep is not sampled.",
        &header,
    );
    let shares: Vec<Vec<(&str, f64)>> = profiles.iter().map(|p| groups(p)).collect();
    for (g, name) in GROUPS.iter().enumerate() {
        let mut row = vec![Cell::from(*name)];
        row.extend(shares.iter().map(|s| Cell::Number(s[g].1, Unit::Share)));
        t.push(row);
    }
    let mut row = vec![Cell::from("samples")];
    row.extend(profiles.iter().map(|p| Cell::count(p.samples)));
    t.push(row);
    t
}

fn rgb((r, g, b): (u8, u8, u8)) -> String {
    format!("#{r:02x}{g:02x}{b:02x}")
}

/// A frame's fill: its group's hue at a luminance inside
/// [`FRAME_LUMINANCE`], a shade lighter or darker by a hash of its name so
/// that neighbours of one group stay apart.
fn fill(name: &str) -> String {
    let name = name.split(TRUNK).next().unwrap_or(name);
    let g = match kind(name) {
        Kind::Group(g) => g,
        Kind::PassOn | Kind::Other => OTHER,
    };
    let h = name.bytes().fold(0x811c_9dc5u32, |h, b| {
        (h ^ u32::from(b)).wrapping_mul(0x0100_0193)
    });
    let (low, high) = FRAME_LUMINANCE;
    // A margin of 0.004 each side absorbs rounding to 8-bit channels.
    let target = low + 0.004 + (high - low - 0.008) * f64::from(h % 17) / 16.0;
    rgb(at_luminance(FILLS[g], target))
}

fn mid_luminance() -> f64 {
    (FRAME_LUMINANCE.0 + FRAME_LUMINANCE.1) / 2.0
}

/// sRGB channel to linear light, and back (the WCAG definitions).
fn linear(c: u8) -> f64 {
    let c = f64::from(c) / 255.0;
    if c <= 0.040_45 {
        c / 12.92
    } else {
        ((c + 0.055) / 1.055).powf(2.4)
    }
}

fn gamma(l: f64) -> u8 {
    let c = if l <= 0.003_130_8 {
        l * 12.92
    } else {
        1.055 * l.powf(1.0 / 2.4) - 0.055
    };
    (c * 255.0).round().clamp(0.0, 255.0) as u8
}

/// The relative luminance of a colour, as WCAG defines it.
fn luminance((r, g, b): (u8, u8, u8)) -> f64 {
    0.2126 * linear(r) + 0.7152 * linear(g) + 0.0722 * linear(b)
}

/// `hue` scaled in linear light to relative luminance `target` (the hues
/// are light, so scaling down never clips a channel).
fn at_luminance(hue: (u8, u8, u8), target: f64) -> (u8, u8, u8) {
    let k = target / luminance(hue);
    let (r, g, b) = hue;
    (
        gamma(linear(r) * k),
        gamma(linear(g) * k),
        gamma(linear(b) * k),
    )
}

struct Graph {
    svg: String,
    height: f64,
}

/// Marks a frame drawn for a thread's trunk (see `trunks`).
const TRUNK: &str = " [+";

/// The stacks with each thread's trunk drawn as one frame: the frames every
/// sample of the thread passed through (a runtime's worker loop and what
/// starts it) are the same full-width tower in every graph, so the innermost
/// of them stands for all, named with how many it stands for. A trunk ends
/// at the first frame of the code under test that the runtime calls (the
/// consumer's loop, a task's body), so that code keeps its frames. Only the
/// drawing changes: the groups are counted on the stacks as sampled.
fn trunks(p: &Stacks) -> Vec<String> {
    let split: Vec<(Vec<&str>, u64)> = p
        .folded
        .iter()
        .map(|f| (f.stack.split(';').collect(), f.count))
        .collect();
    let mut trunk_of: std::collections::BTreeMap<&str, usize> = Default::default();
    for (frames, _) in &split {
        let thread = frames[0];
        let common = match trunk_of.get(thread) {
            None => frames.len() - 1,
            Some(&k) => {
                let first = split.iter().find(|(f, _)| f[0] == thread).map(|(f, _)| f);
                let first = first.expect("the thread was seen");
                (1..=k)
                    .take_while(|&i| frames.get(i).is_some() && frames.get(i) == first.get(i))
                    .count()
            }
        };
        trunk_of.insert(thread, common.min(trunk_limit(frames)));
    }
    split
        .iter()
        .map(|(frames, count)| {
            // Never the whole stack: the innermost frame keeps its own place.
            let k = trunk_of[frames[0]].min(frames.len().saturating_sub(2));
            let mut line = frames[0].to_string();
            if k >= 3 {
                let _ = write!(line, ";{}{TRUNK}{} callers]", frames[k], k - 1);
                for f in &frames[k + 1..] {
                    line.push(';');
                    line.push_str(f);
                }
            } else {
                for f in &frames[1..] {
                    line.push(';');
                    line.push_str(f);
                }
            }
            let _ = write!(line, " {count}");
            line
        })
        .collect()
}

/// How far a trunk may reach in `frames` (the thread's name first): up to
/// the first frame of other code after a frame of the runtime or a library.
fn trunk_limit(frames: &[&str]) -> usize {
    let mut seen_library = false;
    for (i, f) in frames.iter().enumerate().skip(1) {
        match kind(f) {
            Kind::Other if seen_library => return i,
            Kind::Other => {}
            Kind::Group(_) | Kind::PassOn => seen_library = true,
        }
    }
    frames.len()
}

/// One profile's frames: inferno's layout, written out again as plain SVG.
fn draw(p: &Stacks) -> Result<Graph> {
    let lines = trunks(p);
    let mut options = inferno::flamegraph::Options::default();
    options.image_width = Some(WIDTH as usize);
    options.frame_height = FRAME_HEIGHT as usize;
    options.font_size = FONT_SIZE as usize;
    options.min_width = MIN_WIDTH_PCT;
    options.hash = true;
    options.deterministic = true;
    options.count_name = "samples".into();
    let mut raw = Vec::new();
    inferno::flamegraph::from_lines(&mut options, lines.iter().map(String::as_str), &mut raw)
        .context("inferno could not lay the stacks out")?;
    let raw = String::from_utf8(raw).context("inferno wrote text that is not UTF-8")?;
    let doc = roxmltree::Document::parse_with_options(
        &raw,
        roxmltree::ParsingOptions {
            allow_dtd: true,
            ..Default::default()
        },
    )
    .context("inferno's SVG does not parse")?;
    let frames = doc
        .descendants()
        .find(|n| n.has_tag_name("svg") && n.attribute("id") == Some("frames"))
        .context("inferno's SVG has no frames")?;
    let inner_x: f64 = number(frames.attribute("x"))?;
    let inner_w: f64 = number(frames.attribute("width"))?;
    const FG: &str = "http://github.com/jonhoo/inferno";
    struct Frame {
        x: f64,
        y: f64,
        w: f64,
        h: f64,
        name: String,
        samples: u64,
    }
    let mut drawn = Vec::new();
    for g in frames.children().filter(|n| n.is_element()) {
        ensure!(
            g.has_tag_name("g"),
            "unexpected <{}> among the frames",
            g.tag_name().name()
        );
        let rect = g
            .children()
            .find(|n| n.has_tag_name("rect"))
            .context("a frame without its rectangle")?;
        let title = g
            .children()
            .find(|n| n.has_tag_name("title"))
            .and_then(|t| t.text())
            .unwrap_or("");
        let samples: u64 = rect
            .attribute((FG, "w"))
            .context("a frame without its sample count")?
            .parse()
            .context("a frame's sample count is not a number")?;
        let x = percent(rect.attribute("x"))? / 100.0 * inner_w + inner_x;
        let w = percent(rect.attribute("width"))? / 100.0 * inner_w;
        drawn.push(Frame {
            x: x * WIDTH / (inner_w + 2.0 * inner_x),
            y: number(rect.attribute("y"))?,
            w: w * WIDTH / (inner_w + 2.0 * inner_x),
            h: number(rect.attribute("height"))?,
            name: frame_name(title),
            samples,
        });
    }
    ensure!(!drawn.is_empty(), "inferno drew no frames");
    let top = drawn.iter().map(|f| f.y).fold(f64::INFINITY, f64::min);
    let bottom = drawn.iter().map(|f| f.y + f.h).fold(0.0, f64::max);
    let total = p.samples.max(1) as f64;
    let mut svg = format!("<g font-size=\"{FONT_SIZE}\">");
    for f in &drawn {
        let share = f.samples as f64 / total;
        let name = if f.name.is_empty() {
            "all threads"
        } else {
            &f.name
        };
        let label = fit(name, f.w - 6.0);
        let (x, y, w) = (f.x, f.y - top, f.w.max(0.5));
        let _ = write!(
            svg,
            "<g class=\"frame\"><rect class=\"frame\" x=\"{x:.2}\" y=\"{y:.1}\" width=\"{w:.2}\" height=\"{:.1}\" fill=\"{}\"/>",
            f.h,
            fill(name)
        );
        if !label.is_empty() {
            let _ = write!(
                svg,
                "<text x=\"{:.2}\" y=\"{:.1}\" fill=\"{LABEL}\">{}</text>",
                x + 3.0,
                y + f.h / 2.0 + FONT_SIZE * 0.35,
                escape(&label)
            );
        }
        // The hover target lies over the label, so the tooltip shows
        // wherever the pointer is on the frame.
        let _ = write!(
            svg,
            "<rect class=\"tip\" x=\"{x:.2}\" y=\"{y:.1}\" width=\"{w:.2}\" height=\"{:.1}\"><title>{}: {} samples ({})</title></rect></g>",
            f.h,
            escape(name),
            harness_core::fmt::thousands(f.samples),
            Unit::Share.show(share),
        );
    }
    svg.push_str("</g>");
    Ok(Graph {
        svg,
        height: bottom - top,
    })
}

/// The function a frame's tooltip names: inferno writes `name (N samples,
/// P%)`, and the name itself may hold parentheses.
fn frame_name(title: &str) -> String {
    match title.rfind(" (") {
        Some(i) if title.ends_with("%)") && title[i..].contains(" samples, ") => {
            let name = &title[..i];
            if name == "all" {
                String::new()
            } else {
                name.to_string()
            }
        }
        _ => title.to_string(),
    }
}

/// A label for `name` that fits in `width` units: the whole name, else its
/// last two path segments without generics (`Harness::poll`), else the last
/// one, else the end of that with `..` before it; nothing when not even
/// three characters fit. The tooltip always has the whole name.
fn fit(name: &str, width: f64) -> String {
    let fits = (width / (FONT_SIZE * CHAR_EM)).floor().max(0.0) as usize;
    if fits < 3 {
        return String::new();
    }
    let whole = name;
    let (name, trunk) = match name.split_once(TRUNK) {
        Some((n, _)) => (n, true),
        None => (name, false),
    };
    let path = path_of(name);
    let segments: Vec<&str> = path.split("::").filter(|s| !s.is_empty()).collect();
    let tail = |n: usize| segments[segments.len().saturating_sub(n)..].join("::");
    let mut candidates = vec![whole.to_string(), tail(2), tail(1)];
    if trunk {
        // The trunk's marker is worth keeping while there is room.
        candidates.insert(1, format!("{} [+..]", tail(2)));
    }
    if let Some(c) = candidates
        .iter()
        .find(|c| !c.is_empty() && c.chars().count() <= fits)
    {
        return c.clone();
    }
    let last = candidates.last().cloned().unwrap_or_default();
    let keep: Vec<char> = last.chars().collect();
    let start = keep.len().saturating_sub(fits - 2);
    format!("..{}", keep[start..].iter().collect::<String>())
}

fn number(v: Option<&str>) -> Result<f64> {
    let v = v.context("a missing coordinate")?;
    let x: f64 = v
        .trim()
        .parse()
        .with_context(|| format!("coordinate {v:?} is not a number"))?;
    if !x.is_finite() {
        bail!("coordinate {v:?} is not finite");
    }
    Ok(x)
}

fn percent(v: Option<&str>) -> Result<f64> {
    let v = v.context("a missing coordinate")?;
    number(Some(v.trim().trim_end_matches('%')))
}
