//! Flame graphs of the call stacks a run sampled (`measure::stacks`), and
//! a table of where the samples went by frame group.
//!
//! inferno lays the graph out (merging stacks into frames, their widths and
//! depths, pruning the narrowest); this module then keeps only that layout
//! and writes its own SVG from it: no script, no stylesheet, no ids (so any
//! number of graphs can share a page), every name escaped, frames coloured
//! by their group, labels cut to fit in a monospace font, and headings in
//! `currentColor` so they follow the page's theme. Frame fills are light
//! enough for dark labels on every theme.
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

use crate::measure::stacks::Stacks;
use crate::render::blocks::{Block, Cell, Drawn, Table};
use crate::render::escape;
use crate::values::Unit;

/// The frame groups, in the order tables list them; `other` last.
pub const GROUPS: [&str; 7] = [
    "scheduler",
    "semaphore/waker",
    "futex",
    "syscall write",
    "memcpy",
    "allocator",
    "other",
];
const OTHER: usize = GROUPS.len() - 1;

/// Light fills, one per group (other: a warm grey), each with at least 9:1
/// contrast against the labels' near-black.
const FILLS: [(u8, u8, u8); 7] = [
    (0xa9, 0xc9, 0xf2),
    (0xd5, 0xbd, 0xf0),
    (0xf5, 0xae, 0xa8),
    (0xad, 0xdd, 0xb1),
    (0x9f, 0xdb, 0xd6),
    (0xf6, 0xcc, 0x8f),
    (0xdc, 0xd6, 0xc8),
];
const LABEL: &str = "#1b1b1b";

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

/// What one frame does with a sample that reaches it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    /// The frame belongs to a group: the sample counts there.
    Group(usize),
    /// Works on behalf of its caller: the sample goes on outwards.
    PassOn,
    /// Code under test (or anything else): the sample counts as other.
    Other,
}

/// The group of one frame's name, or `None` when it passes samples on to
/// its caller or belongs to no group.
pub fn frame_group(frame: &str) -> Option<&'static str> {
    match kind(frame) {
        Kind::Group(g) => Some(GROUPS[g]),
        Kind::PassOn | Kind::Other => None,
    }
}

/// The group a folded stack (`thread;outermost;...;innermost`) counts for.
pub fn stack_group(stack: &str) -> &'static str {
    // The first field is the thread's name, not a frame.
    let frames = stack.split_once(';').map_or("", |(_, frames)| frames);
    for frame in frames.split(';').rev().filter(|f| !f.is_empty()) {
        match kind(frame) {
            Kind::Group(g) => return GROUPS[g],
            Kind::PassOn => continue,
            Kind::Other => return GROUPS[OTHER],
        }
    }
    GROUPS[OTHER]
}

/// Share of samples per frame group (in [`GROUPS`] order): sums to 1 for any
/// profile with samples (all zero for one without).
pub fn groups(s: &Stacks) -> Vec<(&'static str, f64)> {
    let mut counts = [0u64; GROUPS.len()];
    for f in &s.folded {
        let g = stack_group(&f.stack);
        let i = GROUPS.iter().position(|n| *n == g).unwrap_or(OTHER);
        counts[i] += f.count;
    }
    let total: u64 = counts.iter().sum();
    GROUPS
        .iter()
        .zip(counts)
        .map(|(g, c)| {
            (
                *g,
                if total == 0 {
                    0.0
                } else {
                    c as f64 / total as f64
                },
            )
        })
        .collect()
}

fn kind(frame: &str) -> Kind {
    let frame = frame.trim();
    let path = path_of(frame);
    let lower = path.to_ascii_lowercase();
    let group = |name: &str| Kind::Group(GROUPS.iter().position(|g| *g == name).unwrap_or(OTHER));
    let method = path.rsplit("::").next().unwrap_or("");
    // The futex calls themselves, not code that lives in a module named for
    // them (std's `sys::sync::mutex::futex::Mutex::lock` is an atomic
    // compare-and-swap): a function named for the futex, glibc's lock wait,
    // or a thread parker's park and unpark, which are a futex wait and wake.
    if method.to_ascii_lowercase().contains("futex")
        || lower.starts_with("__lll_lock")
        || (path.contains("thread_park") && matches!(method, "park" | "park_timeout" | "unpark"))
    {
        return group("futex");
    }
    if lower.contains("memcpy") || lower.contains("memmove") {
        return group("memcpy");
    }
    let c_symbol = !path.contains("::") && !frame.starts_with('<');
    if c_symbol {
        let bare = c_bare(&path);
        if matches!(
            bare,
            "write" | "writev" | "pwrite" | "pwrite64" | "send" | "sendto" | "sendmsg" | "sendmmsg"
        ) {
            return group("syscall write");
        }
        if is_c_allocator(bare)
            || lower.contains("__rust_alloc")
            || lower.contains("__rust_dealloc")
            || lower.contains("__rust_realloc")
            || lower.starts_with("__rdl_")
            || lower.starts_with("__rg_")
        {
            return group("allocator");
        }
        if bare == "sched_yield" {
            return group("scheduler");
        }
        return Kind::PassOn;
    }
    if path.starts_with("alloc::alloc::")
        || frame.contains(" as core::alloc::global::GlobalAlloc>")
        || frame.contains(" as core::alloc::Allocator>")
        || lower.contains("__rust_alloc")
        || lower.contains("__rust_dealloc")
        || lower.contains("__rust_realloc")
    {
        return group("allocator");
    }
    if path.starts_with("tokio::sync::")
        || path.contains("::waker::")
        || path.contains("wake_list")
        || path.contains("AtomicWaker")
        || path.contains("atomic_waker")
        || matches!(
            method,
            "wake"
                | "wake_by_ref"
                | "wake_by_val"
                | "wake_one"
                | "wake_all"
                | "notify_one"
                | "notify_waiters"
        )
    {
        return group("semaphore/waker");
    }
    if path.starts_with("tokio::runtime::") || path.starts_with("tokio::task::") {
        return group("scheduler");
    }
    const PASS_ON: &[&str] = &[
        "core::",
        "alloc::",
        "std::",
        "tokio::loom::",
        "tokio::util::",
        "mio::",
        "parking_lot::",
        "parking_lot_core::",
        "lock_api::",
        "hashbrown::",
        "[unknown]",
    ];
    // A generic parameter as the type (`<F as Future>::poll`) or a
    // primitive (`<[T]>::...`) names no owner: pass it on too.
    let owner_unnamed = frame.starts_with('<') && !path.contains("::");
    if owner_unnamed || path.starts_with('[') || PASS_ON.iter().any(|p| path.starts_with(p)) {
        return Kind::PassOn;
    }
    Kind::Other
}

/// A C symbol without the underscores and `GI_`/`libc_` prefixes glibc's
/// aliases carry: `__GI___libc_write` reads `write`.
fn c_bare(name: &str) -> &str {
    let mut s = name.trim_start_matches('_');
    for prefix in ["GI_", "libc_"] {
        if let Some(rest) = s.strip_prefix(prefix) {
            s = rest.trim_start_matches('_');
        }
    }
    s
}

fn is_c_allocator(bare: &str) -> bool {
    matches!(
        bare,
        "malloc"
            | "free"
            | "cfree"
            | "calloc"
            | "realloc"
            | "reallocarray"
            | "posix_memalign"
            | "aligned_alloc"
            | "memalign"
            | "sysmalloc"
            | "unlink_chunk"
            | "malloc_consolidate"
            | "int_malloc"
            | "int_free"
            | "int_realloc"
            | "int_memalign"
    ) || bare.starts_with("int_free")
        || bare.starts_with("tcache")
        || bare.contains("malloc")
}

/// The path a frame's name says its code belongs to, generics left out:
/// `<tokio::sync::batch_semaphore::Acquire as core::future::Future>::poll`
/// is `tokio::sync::batch_semaphore::Acquire::poll`, and
/// `core::ptr::drop_in_place<tokio::runtime::task::Task<S>>` is
/// `core::ptr::drop_in_place`.
fn path_of(frame: &str) -> String {
    if let Some(rest) = frame.strip_prefix('<') {
        if let Some(close) = matching_close(rest) {
            let inner = &rest[..close];
            let after = &rest[close + 1..];
            let owner = top_level_split_as(inner);
            let owner = owner
                .trim_start_matches('&')
                .trim_start_matches("mut ")
                .trim_start_matches("*const ")
                .trim_start_matches("*mut ")
                .trim_start_matches("dyn ")
                .trim_start_matches('&');
            return format!("{}{}", strip_generics(owner), strip_generics(after));
        }
    }
    strip_generics(frame)
}

/// The index of the `>` that closes an opening `<` already consumed.
fn matching_close(s: &str) -> Option<usize> {
    let mut depth = 0usize;
    for (i, c) in s.char_indices() {
        match c {
            '<' => depth += 1,
            '>' if depth == 0 => return Some(i),
            '>' => depth -= 1,
            _ => {}
        }
    }
    None
}

/// `Type as Trait` (at the top level of angle brackets): the type.
fn top_level_split_as(s: &str) -> &str {
    let mut depth = 0usize;
    for (i, c) in s.char_indices() {
        match c {
            '<' => depth += 1,
            '>' => depth = depth.saturating_sub(1),
            ' ' if depth == 0 && s[i..].starts_with(" as ") => return &s[..i],
            _ => {}
        }
    }
    s
}

fn strip_generics(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut depth = 0usize;
    for c in s.chars() {
        match c {
            '<' => depth += 1,
            '>' => depth = depth.saturating_sub(1),
            _ if depth == 0 => out.push(c),
            _ => {}
        }
    }
    out
}

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
            crate::render::fmt::thousands(p.samples)
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
            rgb(FILLS[g]),
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

/// A frame's fill: its group's colour, a shade lighter or darker by a hash
/// of its name so that neighbours of one group stay apart.
fn fill(name: &str) -> String {
    let name = name.split(TRUNK).next().unwrap_or(name);
    let g = match kind(name) {
        Kind::Group(g) => g,
        Kind::PassOn | Kind::Other => OTHER,
    };
    let h = name.bytes().fold(0x811c_9dc5u32, |h, b| {
        (h ^ u32::from(b)).wrapping_mul(0x0100_0193)
    });
    let shade = f64::from(h % 17) / 16.0 * 0.16 - 0.08;
    let (r, gg, b) = FILLS[g];
    let adjust = |c: u8| {
        let c = f64::from(c);
        let v = if shade >= 0.0 {
            c + (255.0 - c) * shade
        } else {
            c * (1.0 + shade)
        };
        v.round().clamp(0.0, 255.0) as u8
    };
    rgb((adjust(r), adjust(gg), adjust(b)))
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
        let _ = write!(
            svg,
            "<g><title>{}: {} samples ({})</title><rect x=\"{:.2}\" y=\"{:.1}\" width=\"{:.2}\" height=\"{:.1}\" fill=\"{}\"/>",
            escape(name),
            crate::render::fmt::thousands(f.samples),
            Unit::Share.show(share),
            f.x,
            f.y - top,
            f.w.max(0.5),
            f.h,
            fill(name)
        );
        if !label.is_empty() {
            let _ = write!(
                svg,
                "<text x=\"{:.2}\" y=\"{:.1}\" fill=\"{LABEL}\">{}</text>",
                f.x + 3.0,
                f.y - top + f.h / 2.0 + FONT_SIZE * 0.35,
                escape(&label)
            );
        }
        svg.push_str("</g>");
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::measure::stacks::{Folded, Stacks};

    fn profile(design: &str, folded: &[(&str, u64)]) -> Stacks {
        let mut folded: Vec<Folded> = folded
            .iter()
            .map(|&(stack, count)| Folded {
                stack: stack.into(),
                count,
            })
            .collect();
        folded.sort_by(|a, b| a.stack.cmp(&b.stack));
        Stacks {
            design: design.into(),
            hz: 997,
            samples: folded.iter().map(|f| f.count).sum(),
            folded,
        }
    }

    #[test]
    fn frames_fall_into_their_groups_by_name() {
        let cases = [
            ("tokio::runtime::task::raw::poll", Some("scheduler")),
            (
                "<tokio::sync::batch_semaphore::Acquire as core::future::future::Future>::poll",
                Some("semaphore/waker"),
            ),
            ("tokio::sync::notify::Notify::notify_one", Some("semaphore/waker")),
            ("core::task::wake::Waker::wake", Some("semaphore/waker")),
            ("std::sys::pal::unix::futex::futex_wait", Some("futex")),
            // std's Mutex lives in a module named futex; taking it is not one.
            ("<std::sys::sync::mutex::futex::Mutex>::lock_contended", None),
            (
                "<parking_lot_core::thread_parker::imp::UnparkHandle as parking_lot_core::thread_parker::UnparkHandleT>::unpark",
                Some("futex"),
            ),
            ("__lll_lock_wait", Some("futex")),
            ("__GI___libc_write", Some("syscall write")),
            ("sendto", Some("syscall write")),
            ("__memmove_avx_unaligned_erms", Some("memcpy")),
            ("_int_malloc", Some("allocator")),
            ("cfree", Some("allocator")),
            ("alloc::alloc::exchange_malloc", Some("allocator")),
            (
                "<dhat::Alloc as core::alloc::global::GlobalAlloc>::alloc",
                Some("allocator"),
            ),
            ("sched_yield", Some("scheduler")),
            // Generic arguments do not make a frame what it drops or polls.
            (
                "core::ptr::drop_in_place<tokio::runtime::task::Task<S>>",
                None,
            ),
            ("mutex_swap::lock_free_stack::LockFreeStack::push", None),
            ("syscall", None),
            (
                "<<std::io::stdio::StdoutLock as std::io::Write>::write_all::Adapter<W> as core::fmt::Write>::write_str",
                None,
            ),
        ];
        for (frame, group) in cases {
            assert_eq!(frame_group(frame), group, "{frame}");
        }
    }

    #[test]
    fn a_sample_counts_for_the_innermost_group_frame_reached_through_frames_that_pass_it_on() {
        let t = "tokio-rt-worker;tokio::runtime::task::raw::poll";
        // Under the runtime, the code under test is other, not scheduler.
        assert_eq!(
            stack_group(&format!("{t};app::push;alloc::vec::Vec<T>::push")),
            "other"
        );
        // A futex wait under std's Mutex, under the code under test: futex.
        assert_eq!(
            stack_group(&format!(
                "{t};app::push;std::sync::poison::mutex::Mutex<T>::lock;std::sys::sync::mutex::futex::Mutex::lock_contended;std::sys::pal::unix::futex::futex_wait;syscall"
            )),
            "futex"
        );
        // memcpy inside realloc is memcpy; realloc alone is allocator.
        assert_eq!(
            stack_group("t;app::f;realloc;__memmove_avx_unaligned_erms"),
            "memcpy"
        );
        assert_eq!(
            stack_group("t;app::f;alloc::raw_vec::finish_grow;realloc"),
            "allocator"
        );
        // The runtime's own work, reached through utilities: scheduler.
        assert_eq!(
            stack_group(&format!("{t};tokio::runtime::scheduler::multi_thread::worker::Context::run;core::sync::atomic::AtomicUsize::load")),
            "scheduler"
        );
        // A thread's name is never taken for a frame.
        assert_eq!(stack_group("futex-thread"), "other");
    }

    #[test]
    fn group_shares_sum_to_one_per_design() {
        let p = profile(
            "tokio-mutex-swap",
            &[
                ("w;tokio::runtime::task::raw::poll", 7),
                ("w;tokio::runtime::task::raw::poll;app::push;tokio::sync::batch_semaphore::Semaphore::acquire", 5),
                ("w;app::f;malloc", 3),
                ("w;app::f;__memcpy_avx_unaligned", 2),
                ("w;app::f;std::sys::pal::unix::futex::futex_wake;syscall", 1),
                ("w;app::f;__libc_write", 1),
                ("w;app::f", 11),
            ],
        );
        let shares = groups(&p);
        assert_eq!(
            shares.iter().map(|s| s.0).collect::<Vec<_>>(),
            GROUPS.to_vec()
        );
        let sum: f64 = shares.iter().map(|s| s.1).sum();
        assert!((sum - 1.0).abs() < 1e-12, "{shares:?}");
        let share = |g: &str| shares.iter().find(|s| s.0 == g).unwrap().1;
        assert_eq!(share("scheduler"), 7.0 / 30.0);
        assert_eq!(share("semaphore/waker"), 5.0 / 30.0);
        assert_eq!(share("other"), 11.0 / 30.0);
        for g in ["futex", "syscall write", "memcpy", "allocator"] {
            assert!(share(g) > 0.0, "{g}");
        }
        // The table shows the same shares, one column per design.
        let table = group_table(&[&p, &p]);
        for (row, (g, s)) in table.rows.iter().zip(&shares) {
            assert_eq!(row[0], Cell::from(*g));
            assert_eq!(row[1], Cell::Number(*s, Unit::Share));
        }
        assert_eq!(table.rows.last().unwrap()[2], Cell::count(30));
    }

    #[test]
    fn the_figure_is_one_script_free_svg_with_every_name_escaped() {
        let a = profile(
            "std-mutex-swap",
            &[
                ("consumer;app::consume<&mut Vec<u8>>;<alloc::vec::Vec<T> as core::ops::Drop>::drop", 40),
                ("tokio-rt-worker;tokio::runtime::task::raw::poll;app::push\"quoted\"", 60),
            ],
        );
        let b = profile(
            "tokio-mutex-swap",
            &[("w;tokio::sync::batch_semaphore::Semaphore::acquire", 9)],
        );
        let blocks = exhibit(&[&a, &b], "Where the time went").unwrap();
        let Block::Drawn(d) = &blocks[0] else {
            panic!("{blocks:?}")
        };
        assert!(matches!(blocks[1], Block::Table(_)));
        let doc = roxmltree::Document::parse(&d.svg).expect("the figure is well-formed XML");
        let root = doc.root_element();
        assert_eq!(root.tag_name().name(), "svg");
        assert_eq!(d.svg.matches("<svg").count(), 1);
        for n in doc.descendants().filter(|n| n.is_element()) {
            let tag = n.tag_name().name();
            assert!(
                ["svg", "g", "rect", "text", "title"].contains(&tag),
                "unexpected <{tag}>"
            );
            assert!(n.attribute("id").is_none(), "ids would clash on a page");
            for attr in n.attributes() {
                assert!(
                    !attr.name().starts_with("on"),
                    "event handler {}",
                    attr.name()
                );
            }
        }
        // The names read back exactly, so they were escaped on the way in.
        let texts: Vec<&str> = doc.descendants().filter_map(|n| n.text()).collect();
        assert!(
            texts
                .iter()
                .any(|t| t.starts_with("app::consume<&mut Vec<u8>>: 40 samples")),
            "{texts:?}"
        );
        assert!(
            texts.iter().any(|t| t.contains("app::push\"quoted\"")),
            "{texts:?}"
        );
        assert!(d.svg.contains("app::consume&lt;&amp;mut Vec&lt;u8&gt;&gt;"));
        assert!(!d.svg.contains("\n\n") && !d.svg.contains("<script"));
        // Two figures of different profiles get different ids.
        let other = exhibit(&[&b], "Where the time went").unwrap();
        let Block::Drawn(e) = &other[0] else { panic!() };
        assert_ne!(d.id, e.id);
    }

    #[test]
    fn a_trunk_ends_where_the_runtime_calls_the_code_under_test() {
        let p = profile(
            "d",
            &[(
                "consumer;app::start;tokio::runtime::a;tokio::runtime::b;tokio::runtime::c;app::consume;app::drain;app::hash",
                5,
            )],
        );
        assert_eq!(
            trunks(&p),
            ["consumer;app::consume [+4 callers];app::drain;app::hash 5"]
        );
    }

    #[test]
    fn a_threads_trunk_is_drawn_as_one_frame() {
        let p = profile(
            "d",
            &[
                ("w;a;b;c;d;task;push", 3),
                ("w;a;b;c;d;park", 2),
                ("consumer;x;y", 1),
            ],
        );
        let mut lines = trunks(&p);
        lines.sort();
        assert_eq!(
            lines,
            [
                "consumer;x;y 1",
                "w;d [+3 callers];park 2",
                "w;d [+3 callers];task;push 3"
            ]
        );
    }

    #[test]
    fn labels_fit_their_frames() {
        let width = |chars: usize| chars as f64 * FONT_SIZE * CHAR_EM;
        let name = "tokio::runtime::task::harness::Harness<T,S>::poll";
        assert_eq!(fit(name, 1000.0), name);
        assert_eq!(fit(name, width(20)), "Harness::poll");
        assert_eq!(fit(name, width(6)), "poll");
        assert_eq!(
            fit("tokio::sync::batch_semaphore::Semaphore::acquire", width(6)),
            "..uire"
        );
        assert_eq!(fit("poll", width(2)), "");
        assert_eq!(fit("a::b::run [+17 callers]", width(12)), "b::run [+..]");
        assert_eq!(frame_name("f(x) (1,234 samples, 12.50%)"), "f(x)");
        assert_eq!(frame_name("all (5 samples, 100%)"), "");
    }
}
