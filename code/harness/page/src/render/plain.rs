//! The chapter as plain text for a terminal (`<chapter> report`): the
//! verdicts, each claim's verdict map and every table of the page, aligned,
//! with no HTML and no markdown.
use std::fmt::Write;

use comfy_table::presets::UTF8_BORDERS_ONLY;
use comfy_table::{CellAlignment, ContentArrangement, Table as Grid};

use crate::render::blocks::{Align, Block, Table};
use crate::render::verdicts::map_row;
use harness_core::claims::Verdict;

/// Text as a terminal should show it: tags dropped, entities decoded,
/// `**bold**`, `` `code` `` and `[text](link)` reduced to their words.
pub fn plain(s: &str) -> String {
    outside_code(s, |p| {
        html_escape::decode_html_entities(&strip(p, true)).into_owned()
    })
}

/// Raw text (a claim, a rule, the figures behind a verdict: escaped only on
/// the way into a page) as a terminal shows it: markdown reduced to words,
/// angle brackets kept (`size_of::<T>()`).
pub fn text(s: &str) -> String {
    outside_code(s, |p| strip(p, false))
}

/// Applies `clean` outside code spans (which show their contents literally,
/// `Vec<u8>`), drops the backticks and folds runs of white space.
fn outside_code(s: &str, clean: impl Fn(&str) -> String) -> String {
    let parts: Vec<&str> = s.split('`').collect();
    let out: String = if parts.len() % 2 == 1 {
        parts
            .iter()
            .enumerate()
            .map(|(i, p)| if i % 2 == 1 { p.to_string() } else { clean(p) })
            .collect()
    } else {
        clean(s)
    };
    out.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Drops `**`, reduces `[text](link)` to its text and, with `tags`, drops
/// HTML tags.
fn strip(s: &str, tags: bool) -> String {
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    let stops: &[char] = if tags { &['<', '['] } else { &['['] };
    while let Some(i) = rest.find(stops) {
        out.push_str(&rest[..i]);
        let tail = &rest[i..];
        if tail.starts_with('<') {
            match tail.find('>') {
                Some(j) => rest = &tail[j + 1..],
                None => {
                    out.push_str(tail);
                    rest = "";
                }
            }
        } else if let Some((text, after)) = tail[1..]
            .split_once("](")
            .and_then(|(text, t)| t.split_once(')').map(|(_, after)| (text, after)))
            .filter(|(text, _)| !text.contains('['))
        {
            out.push_str(text);
            rest = after;
        } else {
            out.push('[');
            rest = &tail[1..];
        }
    }
    out.push_str(rest);
    out.replace("**", "")
}

fn grid(header: &[String]) -> Grid {
    let mut g = Grid::new();
    g.load_preset(UTF8_BORDERS_ONLY)
        .set_content_arrangement(ContentArrangement::Dynamic)
        .set_width(120)
        .set_header(header.iter().map(|h| plain(h)));
    g
}

/// One table, aligned as on the page.
pub fn table(t: &Table) -> String {
    let mut g = grid(&t.header);
    for row in &t.rows {
        g.add_row(row.iter().map(|c| plain(&c.markdown())));
    }
    for (i, a) in t.align.iter().enumerate() {
        if let Some(col) = g.column_mut(i) {
            col.set_cell_alignment(match a {
                Align::Left => CellAlignment::Left,
                Align::Right => CellAlignment::Right,
            });
        }
    }
    let mut out = String::new();
    if !t.caption.is_empty() {
        let _ = writeln!(out, "{}", plain(&t.caption));
    }
    let _ = writeln!(out, "{g}");
    out
}

/// The verdicts, one block per claim and machine, each with its map.
pub fn verdicts(vs: &[Verdict]) -> String {
    let mut out = String::new();
    for v in vs {
        let _ = writeln!(
            out,
            "{} on {}: {}\n  claim: {}\n  rule:  {}\n  why:   {}",
            v.claim.id,
            v.machine.as_deref().unwrap_or("no machine"),
            text(&v.headline()).to_uppercase(),
            text(v.claim.statement),
            text(v.claim.rule),
            text(&v.evidence)
        );
        if !v.conditions.is_empty() {
            let mut g = grid(&[
                "method choice".into(),
                "condition".into(),
                "deciding figure".into(),
                "verdict".into(),
            ]);
            for c in &v.conditions {
                g.add_row(map_row(
                    c,
                    text,
                    |_, label| format!("[{label}]"),
                    |c| match &c.not_deciding {
                        None => c.outcome.label().to_string(),
                        Some(why) => format!(
                            "not deciding ({}; the rule would say {})",
                            text(why),
                            c.outcome.label()
                        ),
                    },
                ));
            }
            let _ = writeln!(out, "{g}");
        }
        out.push('\n');
    }
    out
}

/// The blocks of one exhibit as text; figures are named, not drawn (their
/// numbers are in the tables and the CSV downloads).
pub fn blocks(name: &str, about: &str, blocks: &[Block]) -> String {
    let mut out = String::new();
    for b in blocks {
        match b {
            Block::Table(t) => {
                let _ = writeln!(out, "## {name}: {about}\n");
                out.push_str(&table(t));
                out.push('\n');
            }
            Block::Verdicts(v) => out.push_str(&verdicts(v)),
            Block::Text(_)
            | Block::Figure(_)
            | Block::Bars(_)
            | Block::Drawn(_)
            | Block::Advice(_) => {}
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::render::blocks::Cell;
    use harness_core::claims::{Claim, Condition, Outcome};
    use harness_core::values::Unit;

    #[test]
    fn markup_becomes_words() {
        assert_eq!(
            plain("<span class=\"verdict holds\">holds</span> **FAN-1** `Vec<u8>` [post](https://x.org) a &lt; b"),
            "holds FAN-1 Vec<u8> post a < b"
        );
        assert_eq!(plain("[unclosed and <open"), "[unclosed and <open");
    }

    #[test]
    fn a_table_keeps_its_numbers_and_loses_its_markup() {
        let mut t = Table::new("**Table.** sizes", &["channel", "bytes"]).left(&[0]);
        t.push(vec![
            Cell::from("`tokio` <b>mpsc</b>"),
            Cell::Number(544.0, Unit::Bytes),
        ]);
        let text = table(&t);
        assert!(text.contains("tokio mpsc"), "{text}");
        assert!(text.contains("544"), "{text}");
        assert!(!text.contains('<') && !text.contains("**"), "{text}");
    }

    #[test]
    fn verdicts_name_every_claim_and_row() {
        let claim = Claim::for_test("X-1", "`a` beats <b>");
        let v = Verdict::from_map(
            &claim,
            "m1",
            vec![
                Condition::new("ladder", "as published", Outcome::Holds, "2.0×").as_published(),
                Condition::new("ladder", "fair", Outcome::DoesNotHold, "1.0×").fair(),
            ],
            "e",
        );
        let text = verdicts(&[v]);
        assert!(
            text.contains("X-1 on m1: HOLDS ONLY WHEN AS PUBLISHED"),
            "{text}"
        );
        assert!(
            text.contains("fair [fair]") && text.contains("[as published]"),
            "{text}"
        );
        assert!(
            text.contains("claim: a beats <b>"),
            "raw text keeps its brackets: {text}"
        );
        assert!(!text.contains("<span"), "{text}");
    }

    #[test]
    fn raw_text_keeps_angle_brackets() {
        assert_eq!(
            text("32 × size_of::<T>() + **544** [post](https://x.org)"),
            "32 × size_of::<T>() + 544 post"
        );
    }
}
