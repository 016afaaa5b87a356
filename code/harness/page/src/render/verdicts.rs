//! Verdicts on the page: the table of every claim's verdict, the
//! answer-first list at the top of a chapter, and each claim's verdict map.
use std::fmt::Write;

use crate::render::blocks::Table;
use crate::render::reader::{claim_badge, verdict_badge, OnMachine};
use crate::render::{escape, escape_markdown, table};
use harness_core::claims::{Condition, Verdict};

/// The verdicts table, then each claim's verdict map (the conditions its
/// headline was derived from). The first verdict of each claim carries the
/// anchor `claim-<id>` the Findings page links to.
pub fn verdicts(vs: &[Verdict]) -> String {
    let mut t = Table::new(
        "",
        &[
            "Claim",
            "As published",
            "Test applied",
            "Machine",
            "Verdict",
            "Decided by",
        ],
    )
    .left(&[1, 2, 3, 4, 5]);
    let mut anchored = std::collections::BTreeSet::new();
    for v in vs {
        let id = if anchored.insert(v.claim.id) {
            format!(
                "<span id=\"{}\"></span>**{}**",
                claim_anchor(v.claim.id),
                v.claim.id
            )
        } else {
            format!("**{}**", v.claim.id)
        };
        let mut evidence = escape_markdown(&v.evidence);
        if !v.conditions.is_empty() {
            evidence.push_str(&format!(
                " ([map below](#{}))",
                map_anchor(v.claim.id, v.machine.as_deref())
            ));
        }
        t.push(vec![
            id,
            format!(
                "{} ({})",
                escape_markdown(v.claim.statement),
                v.claim.source
            ),
            escape_markdown(v.claim.rule),
            escape(v.machine.as_deref().unwrap_or("none")),
            format!("{} (by the map: {})", verdict_badge(v), technical_badge(v)),
            evidence,
        ]);
    }
    let mut out = table(&t);
    for v in vs.iter().filter(|v| !v.conditions.is_empty()) {
        out.push_str(&verdict_map(v));
    }
    out
}

/// The answer-first list at the top of a chapter: each claim once, its
/// badge on every machine (claim, plain verdict, number), a link down to
/// the verdict and its map.
pub fn answer(vs: &[Verdict]) -> String {
    let mut ids: Vec<&str> = Vec::new();
    for v in vs {
        if !ids.contains(&v.claim.id) {
            ids.push(v.claim.id);
        }
    }
    let mut out = String::from("<ul class=\"answer-verdicts\">\n");
    for id in ids {
        let of: Vec<&Verdict> = vs.iter().filter(|v| v.claim.id == id).collect();
        // One badge however many machines decided it (`claim_badge`).
        let plains: Vec<String> = of.iter().map(|v| v.plain()).collect();
        let on: Vec<OnMachine> = of
            .iter()
            .zip(&plains)
            .map(|(v, p)| OnMachine::of_verdict(v, p))
            .collect();
        let badges = [claim_badge(id, of[0].claim.short, &on)];
        // A claim another chapter asks a different question of says which
        // question this page asks, and why the answers differ.
        let asked = match (&of[0].reading.question, &of[0].reading.differs) {
            (Some(q), differs) => format!(
                "<br><em>Asked here: {}</em> {}",
                crate::render::inline_markdown(&escape_markdown(q)),
                differs
                    .as_deref()
                    .map(|d| crate::render::inline_markdown(&escape_markdown(d)))
                    .unwrap_or_default()
            ),
            _ => String::new(),
        };
        let _ = writeln!(
            out,
            "<li><a href=\"#{}\"><strong>{}</strong></a> {}{asked}</li>",
            claim_anchor(id),
            escape(id),
            badges.join(", ")
        );
    }
    out.push_str("</ul>\n\n");
    out
}

/// The verdict map's headline in its own terms (the rows it names), as the
/// verdicts table shows it beside the plain badge.
fn technical_badge(v: &Verdict) -> String {
    format!(
        "<span class=\"verdict {}\" data-claim-map=\"{}\">{}</span>",
        v.outcome.css(),
        escape(v.claim.id),
        escape_markdown(&v.headline())
    )
}

/// `claim-fan-3`: where a claim's verdict sits on its chapter's page.
pub fn claim_anchor(id: &str) -> String {
    format!("claim-{}", id.to_ascii_lowercase())
}

fn map_anchor(id: &str, machine: Option<&str>) -> String {
    let machine: String = machine
        .unwrap_or("none")
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() {
                c.to_ascii_lowercase()
            } else {
                '-'
            }
        })
        .collect();
    format!("map-{}-{machine}", id.to_ascii_lowercase())
}

/// One claim's verdict map on one machine: every condition, its deciding
/// figure and what the rule gives under it.
fn verdict_map(v: &Verdict) -> String {
    let machine = v.machine.as_deref().unwrap_or("none");
    let mut t = Table::new(
        format!(
            "<span id=\"{}\"></span>Verdict map of **{}** on {}: each row measures the claim one \
             way; the headline ({}) holds only what every row supports.",
            map_anchor(v.claim.id, v.machine.as_deref()),
            v.claim.id,
            escape(machine),
            escape_markdown(&v.headline())
        ),
        &["Method choice", "Condition", "Deciding figure", "Verdict"],
    )
    .left(&[0, 1, 2, 3]);
    for c in &v.conditions {
        t.push(map_row(
            c,
            escape_markdown,
            |class, label| format!("<span class=\"badge {class}\">{label}</span>"),
            |c| match &c.not_deciding {
                None => format!(
                    "<span class=\"verdict {}\">{}</span>",
                    c.outcome.css(),
                    c.outcome.label()
                ),
                Some(why) => format!(
                    "<span class=\"verdict reference\">not deciding</span> ({}; the rule would \
                     say {})",
                    escape_markdown(why),
                    c.outcome.label()
                ),
            },
        ));
    }
    // The map is the notebook behind the headline: folded, titled with what
    // it holds (a link to its anchor opens it; print opens every fold).
    format!(
        "\n<details class=\"verdict-map\">\n<summary>The verdict map of {} on {}: {} way{} of measuring the claim, each with its verdict</summary>\n\n{}\n</details>\n\n",
        v.claim.id,
        escape(machine),
        v.conditions.len(),
        if v.conditions.len() == 1 { "" } else { "s" },
        table(&t)
    )
}

/// The four cells of one verdict-map row (method choice, condition,
/// deciding figure, verdict) in one notation: `words` escapes the claim's
/// text, `badge(class, label)` marks the as-published and fair rows, and
/// `verdict` writes the outcome or why the row does not decide.
pub(crate) fn map_row(
    c: &Condition,
    words: fn(&str) -> String,
    badge: fn(&str, &str) -> String,
    verdict: fn(&Condition) -> String,
) -> Vec<String> {
    let mut setting = words(&c.setting);
    for (marked, class, label) in [
        (c.as_published, "published", "as published"),
        (c.fair, "fair", "fair"),
    ] {
        if marked {
            setting.push(' ');
            setting.push_str(&badge(class, label));
        }
    }
    vec![words(&c.axis), setting, words(&c.figure), verdict(c)]
}

#[cfg(test)]
mod tests {
    use super::*;
    use harness_core::claims::{Claim, Condition, Outcome};

    #[test]
    fn a_row_that_does_not_decide_says_so_and_why_on_the_map() {
        let claim = Claim::for_test("X-1", "tokio is slower");
        let rows = vec![
            Condition::new("ladder", "fair", Outcome::Holds, "1.5× [1.4, 1.6]").fair(),
            Condition::new("runs", "one long run", Outcome::DoesNotHold, "1.1×")
                .not_deciding("one run, no interval"),
        ];
        let v = Verdict::from_map(&claim, "m<1>", rows, "fair: 1.5×");
        let md = verdicts(&[v]);
        assert!(md.contains("Verdict map of **X-1** on m&lt;1&gt;"), "{md}");
        // The map is folded under a title that says what it holds.
        assert!(
            md.contains("<details class=\"verdict-map\">\n<summary>The verdict map of X-1 on m&lt;1&gt;: 2 ways of measuring the claim"),
            "{md}"
        );
        assert!(
            md.contains(
                "<span class=\"verdict reference\">not deciding</span> (one run, no interval; \
                 the rule would say does not hold)"
            ),
            "{md}"
        );
        assert!(
            md.contains("<span class=\"verdict holds\">holds</span>"),
            "{md}"
        );
    }
}
