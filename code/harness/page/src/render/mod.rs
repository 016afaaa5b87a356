//! Markdown for the page: exhibits, tables, verdicts and the provenance card.
//! Everything here is emitted as blocks mdBook passes through untouched: no
//! blank line inside an HTML element, a blank line around every block.
pub mod blocks;
pub mod csv;
pub mod findings;
pub mod flame;
pub use harness_core::fmt;
pub mod notes;
pub mod plain;
pub mod reader;
pub mod svg;
mod verdicts;

pub use reader::verdict_badge;
pub use verdicts::{answer, claim_anchor, verdicts};

pub use harness_core::escape::{escape, escape_markdown, html_escape};

use std::fmt::Write;

use crate::chapter::{Book, Run};
use blocks::{Align, Block, Table};

/// The little markdown a caption uses, as HTML: `[text](url)`, `` `code` ``
/// and `**bold**`. Figure captions are raw HTML on the page, where mdBook
/// would leave markdown as it is. Existing HTML passes through.
pub fn inline_markdown(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(i) = rest.find(['[', '`', '*']) {
        out.push_str(&rest[..i]);
        let tail = &rest[i..];
        if let Some(code) = tail.strip_prefix('`').and_then(|t| t.split_once('`')) {
            out.push_str(&format!("<code>{}</code>", html_escape(code.0)));
            rest = code.1;
        } else if let Some(bold) = tail.strip_prefix("**").and_then(|t| t.split_once("**")) {
            out.push_str(&format!("<strong>{}</strong>", bold.0));
            rest = bold.1;
        } else if let Some((text, url, after)) = tail
            .strip_prefix('[')
            .and_then(|t| t.split_once("]("))
            .and_then(|(text, t)| t.split_once(')').map(|(url, after)| (text, url, after)))
            .filter(|(text, url, _)| !text.contains('[') && !url.contains(' '))
        {
            out.push_str(&format!("<a href=\"{url}\">{text}</a>"));
            rest = after;
        } else {
            out.push_str(&tail[..1]);
            rest = &tail[1..];
        }
    }
    out.push_str(rest);
    out
}

fn cell(s: &str) -> String {
    s.replace('|', "\\|").replace('\n', " ")
}

pub fn table(t: &Table) -> String {
    let mut out = String::new();
    if !t.caption.is_empty() {
        // A markdown paragraph, so links and `code` in captions render.
        let _ = writeln!(out, "**Table.** {}\n", t.caption);
    }
    let _ = writeln!(
        out,
        "| {} |",
        t.header
            .iter()
            .map(|h| cell(h))
            .collect::<Vec<_>>()
            .join(" | ")
    );
    let rule: Vec<&str> = t
        .align
        .iter()
        .map(|a| match a {
            Align::Left => ":---",
            Align::Right => "---:",
        })
        .collect();
    let _ = writeln!(out, "|{}|", rule.join("|"));
    for row in &t.rows {
        let _ = writeln!(
            out,
            "| {} |",
            row.iter()
                .map(|c| cell(&c.markdown()))
                .collect::<Vec<_>>()
                .join(" | ")
        );
    }
    out.push('\n');
    out
}

/// Links to the raw results and the tables as CSV, which the build copies
/// into `results/<chapter>/` beside the pages.
pub fn downloads<D>(chapter: &str, book: &Book<D>, csv: &[String]) -> String {
    let json: Vec<String> = book
        .runs
        .iter()
        .filter(|r| !r.ephemeral)
        .filter_map(|r| r.path.file_name().map(|n| n.to_string_lossy().into_owned()))
        .map(|n| {
            let n = escape(&n);
            format!("<a href=\"results/{chapter}/{n}\" download>{n}</a>")
        })
        .collect();
    let tables: Vec<String> = csv
        .iter()
        .map(|n| format!("<a href=\"results/{chapter}/{n}\" download>{n}</a>"))
        .collect();
    let mut out = String::from("<p class=\"downloads\">Download the raw results: ");
    out.push_str(&if json.is_empty() {
        "none committed yet".to_string()
    } else {
        json.join(", ")
    });
    if !tables.is_empty() {
        out.push_str("; the tables as CSV: ");
        out.push_str(&tables.join(", "));
    }
    out.push_str(".</p>\n\n");
    out
}

/// What the page must say about where the numbers come from, before the numbers.
fn status_notes<D>(book: &Book<D>) -> String {
    let mut out = String::new();
    for run in &book.runs {
        if run.ephemeral {
            let _ = writeln!(
                out,
                "<p class=\"run-note smoke\"><span class=\"badge smoke\">smoke run</span> No committed \
                 results exist for this chapter, so these numbers come from a short smoke run made \
                 while building the page on {}. Run <code>scripts/fresh {}</code> for real ones.</p>\n",
                html_escape(run.machine()),
                book.chapter
            );
        } else if run.stale {
            let _ = writeln!(
                out,
                "<p class=\"run-note stale\"><span class=\"badge stale\">stale</span> The results of \
                 {} were measured by an earlier version of this chapter's code, lock file, toolchain \
                 or profile (fingerprint {}). Run <code>scripts/fresh {}</code> to refresh them.</p>\n",
                html_escape(run.machine()),
                html_escape(&run.provenance.fingerprint),
                book.chapter
            );
        }
        if run.edited {
            let _ = writeln!(
                out,
                "<p class=\"run-note edited\"><span class=\"badge edited\">edited</span> The \
                 measured numbers of {} were changed after measurement: they no longer match the \
                 checksum written with them. Read them as edited by hand, not as measured.</p>\n",
                html_escape(run.machine())
            );
        }
    }
    out
}

fn plural(n: usize, what: &str) -> String {
    format!("{n} {what}{}", if n == 1 { "" } else { "s" })
}

/// The speed probe's record (`cores::speed_probe_ns`) for the card.
fn speed_row(c: Option<&harness_core::results::cores::CoresApart>) -> String {
    let Some((c, p)) = c.and_then(|c| Some((c, c.probe?))) else {
        return "not recorded".into();
    };
    let n = harness_core::fmt::nanos;
    format!(
        "a fixed probe of copying and arithmetic took {} (median; {}–{}), timed before and \
         after each of {} timings",
        n(p.median_ns),
        n(p.min_ns),
        n(p.max_ns),
        c.timings
    )
}

pub fn provenance_card<D>(run: &Run<D>) -> String {
    let p = &run.provenance;
    let m = &p.machine;
    let badge = if run.ephemeral {
        " <span class=\"badge smoke\">smoke run</span>"
    } else if run.edited {
        " <span class=\"badge edited\">edited after measurement</span>"
    } else if run.stale {
        " <span class=\"badge stale\">stale</span>"
    } else {
        " <span class=\"badge fresh\">current</span>"
    };
    let crates = p
        .crates
        .iter()
        .map(|(k, v)| format!("{k} {v}"))
        .collect::<Vec<_>>()
        .join(", ");
    let load = p
        .load_average_at_start
        .map_or("unknown".to_string(), |l| format!("{l:.2}"));
    let busy = p
        .busy_cores_at_start
        .map_or("not recorded".to_string(), |b| {
            format!(
                "{b:.2} of {} cores, in the second before measuring",
                m.cores
            )
        });
    let apart = p
        .cores_apart
        .as_ref()
        .map_or("not recorded".to_string(), |c| {
            let s = harness_core::fmt::sig3;
            let gate = match c.gate_ns {
                None => "no gate".to_string(),
                Some(g) => format!(
                    "gate {} ns: waited {:.0} s, measured {} again ({:.0} s), kept {} beyond it",
                    s(g),
                    c.waited_s,
                    plural(c.remeasured, "timing"),
                    c.remeasured_s,
                    c.beyond_gate
                ),
            };
            format!(
                "{}–{} ns (median {} ns), checked before and after each of {}; {gate}",
                s(c.min_ns),
                s(c.max_ns),
                s(c.median_ns),
                plural(c.timings, "timing")
            )
        });
    let steal = p.steal_share.map_or("not recorded".to_string(), |share| {
        let per_timing = p
            .cores_apart
            .as_ref()
            .and_then(|c| Some((c.steal_max?, c.stolen_timings?, c)))
            .map_or(String::new(), |(max, stolen, c)| {
                let again = match c.steal_remeasured {
                    Some(n) if n > 0 => format!(" (after {} measured again)", plural(n, "stolen one")),
                    _ => String::new(),
                };
                format!(
                    "; up to {:.0} % in one timing, {stolen} of {} timings lost at least {:.0} %{again}",
                    max * 100.0,
                    c.timings,
                    harness_core::results::cores::STOLEN * 100.0
                )
            });
        format!("{:.1} % of CPU time while measuring{per_timing}", share * 100.0)
    });
    let rows = [
        ("Machine", m.id.clone()),
        ("CPU", m.cpu.clone()),
        ("Cores", m.cores.to_string()),
        ("Architecture", m.arch.clone()),
        ("Memory", harness_core::fmt::bytes_h(m.memory_bytes as f64)),
        ("OS", format!("{} (kernel {})", m.os, m.kernel)),
        (
            "TCP congestion control",
            m.tcp_congestion_control
                .clone()
                .unwrap_or_else(|| "not recorded".into()),
        ),
        (
            "Memory returned to the host",
            m.memory_return
                .clone()
                .unwrap_or_else(|| "not recorded".into()),
        ),
        ("Compiler", p.rustc.clone()),
        ("Measured crates", crates),
        ("Profile", p.profile.to_string()),
        ("Date", p.date.clone()),
        ("Wall time", format!("{:.1} s", p.wall_time_s)),
        ("Load average at start", load),
        ("Other work at start", busy),
        ("Round trip between two cores", apart),
        ("Hypervisor steal", steal),
        ("Machine speed", speed_row(p.cores_apart.as_ref())),
        ("Fingerprint", p.fingerprint.clone()),
    ];
    let mut out = format!(
        "<div class=\"provenance-card\" data-machine=\"{}\"><p class=\"provenance-title\">Measured on {}{badge}</p><dl>",
        html_escape(&m.id),
        html_escape(&m.id)
    );
    for (k, v) in rows {
        let _ = write!(out, "<dt>{k}</dt><dd>{}</dd>", html_escape(&v));
    }
    out.push_str("</dl></div>\n\n");
    out
}

/// Typed blocks as page markdown (tables, inline SVG, verdicts, text).
fn blocks_markdown(blocks: &[Block]) -> String {
    let mut out = String::new();
    for block in blocks {
        match block {
            Block::Text(t) => {
                out.push_str(t.trim());
                out.push_str("\n\n");
            }
            Block::Table(t) => out.push_str(&table(t)),
            Block::Figure(f) => out.push_str(&svg::figure_pair_html(
                &f.id,
                &f.caption,
                &svg::line_chart(f),
                &svg::line_chart_at(f, &svg::PHONE),
            )),
            Block::Bars(b) => out.push_str(&svg::figure_pair_html(
                &b.id,
                &b.caption,
                &svg::bar_chart(b),
                &svg::bar_chart_at(b, &svg::PHONE),
            )),
            Block::Verdicts(v) => out.push_str(&verdicts(v)),
            Block::Drawn(d) => out.push_str(&svg::figure_html(&d.id, &d.caption, &d.svg)),
            Block::Advice(a) => out.push_str(&reader::summary(a)),
        }
    }
    out
}

/// A figure exhibit drawn once per machine, behind a switch a reader flips
/// without script (radio buttons and CSS): `panels` pairs each machine's id
/// with the blocks drawn for it, the first shown first.
pub fn exhibit_switch<D>(
    chapter: &str,
    exhibit: &str,
    book: &Book<D>,
    panels: &[(String, Vec<Block>)],
) -> String {
    let mut out = exhibit_markdown(chapter, exhibit, book, &[]);
    // The marker names what each panel holds, once.
    if let Some((_, first)) = panels.first() {
        out = out.replacen(
            "data-blocks=\"\"",
            &format!("data-blocks=\"{}\"", block_kinds(first)),
            1,
        );
    }
    let group: String = format!("ms-{chapter}-{exhibit}")
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' {
                c
            } else {
                '-'
            }
        })
        .collect();
    let _ = writeln!(
        out,
        "<div class=\"machine-switch\" role=\"group\" aria-label=\"machine\">"
    );
    for (k, (machine, _)) in panels.iter().enumerate() {
        let _ = writeln!(
            out,
            "<input type=\"radio\" name=\"{group}\" id=\"{group}-{k}\"{}><label for=\"{group}-{k}\">{}</label>",
            if k == 0 { " checked" } else { "" },
            escape(machine)
        );
    }
    out.push('\n');
    for (k, (_, blocks)) in panels.iter().enumerate() {
        let mut body = blocks_markdown(blocks);
        if k > 0 {
            // Element ids stay unique: the first panel keeps the ids links use.
            body = body.replace("id=\"fig-", &format!("id=\"fig-m{k}-"));
        }
        let _ = write!(out, "<div class=\"machine-panel\">\n\n{body}\n</div>\n");
    }
    out.push_str("</div>\n\n");
    out
}

fn block_kinds(blocks: &[Block]) -> String {
    blocks
        .iter()
        .map(|b| match b {
            Block::Text(_) | Block::Advice(_) => "text".to_string(),
            Block::Table(_) => "table".to_string(),
            Block::Figure(_) | Block::Bars(_) | Block::Drawn(_) => "figure".to_string(),
            Block::Verdicts(v) => format!(
                "verdicts:{}",
                v.iter().map(|v| v.claim.id).collect::<Vec<_>>().join("+")
            ),
        })
        .collect::<Vec<_>>()
        .join(",")
}

/// One exhibit as it goes on the page. It opens with a marker the book checks
/// use to find it in the HTML and to know what it must contain.
pub fn exhibit_markdown<D>(
    chapter: &str,
    exhibit: &str,
    book: &Book<D>,
    blocks: &[Block],
) -> String {
    let mut out = String::new();
    let kinds = if exhibit == "provenance" {
        "provenance".to_string()
    } else {
        block_kinds(blocks)
    };
    let _ = writeln!(
        out,
        "\n<div class=\"exhibit-marker\" data-exhibit=\"{chapter}/{exhibit}\" data-blocks=\"{kinds}\"></div>\n"
    );
    out.push_str(&status_notes(book));
    if exhibit == "provenance" {
        for run in &book.runs {
            out.push_str(&provenance_card(run));
        }
        return out;
    }
    out.push_str(&blocks_markdown(blocks));
    out
}

#[cfg(test)]
mod tests;
