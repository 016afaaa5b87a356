//! The Findings page: every published claim the book judges, its headline
//! verdict, where it holds, on which machine, why, and a link to the verdict
//! on its chapter's page. Gathered from each chapter's `findings` command.
use std::fmt::Write;

use crate::render::blocks::Table;
use crate::render::reader::{claim_badge, finding_badge, OnMachine};
use crate::render::{claim_anchor, escape, escape_markdown, table};
use harness_core::claims::{Finding, Outcome};

/// The page's one exhibit: per chapter, a table of its claims (the claim,
/// its badge, which way the number points, the machine that decided it and
/// the verdict across releases), then, for a claim two chapters judge, the
/// two questions they ask and why the answers differ.
pub fn page(findings: &[Finding], titles: &[(String, String)]) -> String {
    let mut out = opening(findings, "claims", "table,");
    let mut classes: Vec<&str> = findings
        .iter()
        .filter_map(|f| f.machine_class.as_deref())
        .collect();
    classes.sort_unstable();
    classes.dedup();
    if !classes.is_empty() {
        let _ = writeln!(
            out,
            "<p class=\"decided-on\">Decided on {}.</p>\n",
            classes.join("; ")
        );
    }
    for (name, title) in titles {
        let rows: Vec<&Finding> = findings.iter().filter(|f| &f.chapter == name).collect();
        if rows.is_empty() {
            continue;
        }
        let _ = writeln!(out, "### [{}]({name}.md)\n", escape(title));
        // Where the chapter's verdicts depend on the number of cores, the
        // chapter's sentence saying so, once, under its title.
        let mut cores: Vec<&str> = rows
            .iter()
            .filter_map(|f| f.reading.cores.as_deref())
            .collect();
        cores.dedup();
        for c in cores {
            let _ = writeln!(out, "<p class=\"cores-note\">{c}</p>\n");
        }
        let mut t = Table::new("", &["Claim", "Verdict", "Why"]).left(&[0, 1, 2]);
        // One row per claim: one badge across the machines that decided
        // it, and each machine's reason, named, when there are several.
        for id in claims_in_order(&rows) {
            let of: Vec<&Finding> = rows.iter().copied().filter(|f| f.claim == id).collect();
            let f = of[0];
            let mut claim = format!(
                "[**{}**]({}.md#{}) {} ({})",
                escape(&f.claim),
                f.chapter,
                claim_anchor(&f.claim),
                escape_markdown(&f.statement),
                f.source
            );
            if let Some(q) = &f.reading.question {
                let _ = write!(claim, " <em>Asked here: {}</em>", escape_markdown(q));
            }
            let reason = |f: &Finding| {
                f.reading
                    .direction
                    .clone()
                    .unwrap_or_else(|| escape_markdown(&f.why))
            };
            let mut why = if of.len() > 1 {
                of.iter()
                    .map(|f| {
                        format!(
                            "On {}: {}",
                            escape(f.machine.as_deref().unwrap_or("no machine")),
                            reason(f)
                        )
                    })
                    .collect::<Vec<_>>()
                    .join("<br>")
            } else {
                let mut why = reason(f);
                if f.machine_class.is_none() {
                    let _ = write!(
                        why,
                        " (on {})",
                        escape(f.machine.as_deref().unwrap_or("no machine"))
                    );
                }
                why
            };
            if let Some(r) = &f.releases {
                let _ = write!(
                    why,
                    "<br>Across releases: [{}]({}.md#across-releases)",
                    escape_markdown(r),
                    f.chapter
                );
            }
            let on: Vec<OnMachine> = of.iter().map(|f| OnMachine::of_finding(f)).collect();
            t.push(vec![claim, claim_badge(id, &f.short, &on), why]);
        }
        out.push_str(&table(&t));
    }
    out.push_str(&asked_twice(findings, titles));
    out
}

/// A claim judged by more than one chapter: each chapter's question and
/// badge, then why the verdicts differ (each chapter's `Reading::differs`).
fn asked_twice(findings: &[Finding], titles: &[(String, String)]) -> String {
    let mut out = String::new();
    let mut ids: Vec<&str> = findings.iter().map(|f| f.claim.as_str()).collect();
    ids.sort_unstable();
    ids.dedup();
    for id in ids {
        let of: Vec<&Finding> = findings.iter().filter(|f| f.claim == id).collect();
        let mut chapters: Vec<&str> = of.iter().map(|f| f.chapter.as_str()).collect();
        chapters.dedup();
        if chapters.len() < 2 {
            continue;
        }
        let title = |name: &str| {
            titles
                .iter()
                .find(|(n, _)| n == name)
                .map_or(name.to_string(), |(_, t)| t.clone())
        };
        let asked: Vec<String> = of
            .iter()
            .map(|f| {
                format!(
                    "[{}]({}.md#{}) asks {} {}",
                    escape(&title(&f.chapter)),
                    f.chapter,
                    claim_anchor(&f.claim),
                    f.reading
                        .question
                        .as_deref()
                        .map_or_else(|| escape_markdown(&f.short), escape_markdown),
                    finding_badge(f)
                )
            })
            .collect();
        let differs: Vec<String> = of
            .iter()
            .filter_map(|f| f.reading.differs.as_deref().map(escape_markdown))
            .collect();
        let _ = writeln!(
            out,
            "<p class=\"asked-twice\" data-claim-twice=\"{}\"><strong>{}</strong> is two questions. {}. {}</p>\n",
            escape(id),
            escape(id),
            asked.join("; "),
            differs.join(" ")
        );
    }
    out
}

/// The marker the browser checks read (exhibit `findings/<exhibit>`, its
/// blocks and every claim's verdict), then the tally.
fn opening(findings: &[Finding], exhibit: &str, blocks: &str) -> String {
    let ids: Vec<&str> = findings.iter().map(|f| f.claim.as_str()).collect();
    let mut out = format!(
        "\n<div class=\"exhibit-marker\" data-exhibit=\"findings/{exhibit}\" \
         data-blocks=\"{blocks}verdicts:{}\"></div>\n\n",
        ids.join("+")
    );
    out.push_str(&tally(findings));
    out
}

/// The introduction's opening: the tally, then each chapter with its claims
/// beneath it, one line each: the claim's id, linking to its verdict, and
/// its badge; a claim judged on several machines names the machine after
/// each badge that has one. Generated, never typed.
pub fn front(findings: &[Finding], titles: &[(String, String)]) -> String {
    let mut out = opening(findings, "front", "");
    out.push_str("<ul class=\"answer-verdicts\">\n");
    for (name, title) in titles {
        let ours: Vec<&Finding> = findings.iter().filter(|f| &f.chapter == name).collect();
        // One badge per claim, however many machines decided it.
        let badges: Vec<String> = claims_in_order(&ours)
            .into_iter()
            .map(|claim| {
                let of: Vec<&Finding> = ours.iter().copied().filter(|f| f.claim == claim).collect();
                let on: Vec<OnMachine> = of.iter().map(|f| OnMachine::of_finding(f)).collect();
                format!(
                    "<li><a href=\"{name}.html#{}\">{}</a> {}</li>",
                    claim_anchor(claim),
                    escape(claim),
                    claim_badge(claim, &of[0].short, &on)
                )
            })
            .collect();
        if badges.is_empty() {
            continue;
        }
        let _ = writeln!(
            out,
            "<li><a href=\"{name}.html\"><strong>{}</strong></a>\n<ul class=\"answer-verdicts\">\n{}\n</ul></li>",
            escape(title),
            badges.join("\n")
        );
    }
    out.push_str("</ul>\n\n");
    out
}

/// The claims of `findings`, each once, in the order first met.
fn claims_in_order<'f>(findings: &[&'f Finding]) -> Vec<&'f str> {
    let mut claims: Vec<&str> = Vec::new();
    for f in findings {
        if !claims.contains(&f.claim.as_str()) {
            claims.push(&f.claim);
        }
    }
    claims
}

/// "Of 19 claims on 1 machine: 7 hold, ..." — counted, never typed.
fn tally(findings: &[Finding]) -> String {
    let mut claims: Vec<&str> = findings.iter().map(|f| f.claim.as_str()).collect();
    claims.sort_unstable();
    claims.dedup();
    let mut machines: Vec<&str> = findings
        .iter()
        .filter_map(|f| f.machine.as_deref())
        .collect();
    machines.sort_unstable();
    machines.dedup();
    let count = |o: Outcome| findings.iter().filter(|f| f.outcome == o).count();
    let mut parts = Vec::new();
    for (o, word) in [
        (Outcome::Holds, "hold"),
        (
            Outcome::Depends,
            "hold only under some of the conditions measured",
        ),
        (Outcome::DoesNotHold, "do not hold"),
        (Outcome::Inconclusive, "inconclusive"),
        (Outcome::NotMeasured, "not measured on these machines"),
    ] {
        let n = count(o);
        if n > 0 {
            parts.push(format!("{n} {word}"));
        }
    }
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{} published claims, {} verdicts (one for each chapter that tests a claim and each \
         machine or architecture that decides it), from {} machine{}: {}.\n",
        claims.len(),
        findings.len(),
        machines.len(),
        if machines.len() == 1 { "" } else { "s" },
        parts.join(", ")
    );
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn finding(chapter: &str, claim: &str, outcome: Outcome, headline: &str) -> Finding {
        Finding {
            chapter: chapter.into(),
            claim: claim.into(),
            short: format!("{claim} in <short>"),
            plain: headline.into(),
            reading: Default::default(),
            machine_class: Some("a 2-core x86_64 machine (AMD EPYC)".into()),
            statement: "A <b> claim".into(),
            source: "[post](https://example.org)".into(),
            machine: Some("m1".into()),
            outcome,
            headline: headline.into(),
            why: "ratio 2.0×".into(),
            releases: None,
        }
    }

    #[test]
    fn every_claim_has_a_badge_and_a_link_to_its_verdict() {
        let f = [
            finding("a", "A-1", Outcome::Holds, "holds"),
            finding(
                "a",
                "A-2",
                Outcome::Depends,
                "holds only when consumer on block_on",
            ),
            finding("b", "B-1", Outcome::DoesNotHold, "does not hold"),
        ];
        let titles = [
            ("a".into(), "Chapter A".into()),
            ("b".into(), "Chapter B".into()),
        ];
        let md = page(&f, &titles);
        for (chapter, id) in [("a", "A-1"), ("a", "A-2"), ("b", "B-1")] {
            assert!(md.contains(&format!("data-claim=\"{id}\"")), "{id} badge");
            assert!(
                md.contains(&format!("({chapter}.md#claim-{})", id.to_ascii_lowercase())),
                "{id} link"
            );
        }
        assert!(md.contains("data-blocks=\"table,verdicts:A-1+A-2+B-1\""));
        assert!(md.contains("3 published claims, 3 verdicts"), "{md}");
        assert!(md.contains("from 1 machine: 1 hold, 1 hold only"), "{md}");
        // The badge reads the claim's short form, then the plain verdict.
        assert!(
            md.contains(
                "<span class=\"verdict depends\" data-claim=\"A-2\"><span class=\"badge-claim\">A-2 in &lt;short&gt;</span>: <strong>holds only when consumer on block_on</strong></span>"
            ),
            "{md}"
        );
        assert!(
            md.contains("Decided on a 2-core x86_64 machine (AMD EPYC)."),
            "the machine class: {md}"
        );
        assert!(md.contains("A &lt;b&gt; claim"), "statements are escaped");
        assert!(md.find("Chapter A").unwrap() < md.find("Chapter B").unwrap());
        let front = front(&f, &titles);
        assert!(front.contains("data-blocks=\"verdicts:A-1+A-2+B-1\""));
        assert!(
            front.contains("<a href=\"a.html#claim-a-2\">A-2</a> <span class=\"verdict depends\""),
            "{front}"
        );
        assert!(front.contains("3 published claims, 3 verdicts"));
        // One line per claim, under its chapter, in reading order.
        let a = front.find("<strong>Chapter A</strong>").unwrap();
        let b = front.find("<strong>Chapter B</strong>").unwrap();
        let a2 = front
            .find("<li><a href=\"a.html#claim-a-2\">A-2</a>")
            .unwrap();
        let b1 = front
            .find("<li><a href=\"b.html#claim-b-1\">B-1</a>")
            .unwrap();
        assert!(a < a2 && a2 < b && b < b1, "{front}");
        assert!(
            !front.contains(" on m1"),
            "one verdict per claim: no machine named"
        );
        // A verdict no machine decided follows the machine's, as a badge of
        // its own.
        let mut twice = f.to_vec();
        let mut other = finding("b", "B-1", Outcome::NotMeasured, "not measured");
        other.machine = None;
        twice.push(other);
        twice[2].machine = Some("<m2>".into());
        let both = super::front(&twice, &titles);
        assert!(
            both.contains(
                "<strong>does not hold</strong></span>, <span class=\"verdict unmeasured\""
            ),
            "{both}"
        );
        assert!(
            both.contains("<strong>not measured</strong></span></li>"),
            "{both}"
        );
        // A claim decided on two machines (issue 60): one badge, the verdict
        // as a count, on the front page and in the Findings table, and
        // each machine's reason named.
        let mut two = f.to_vec();
        let mut on_m2 = finding("b", "B-1", Outcome::DoesNotHold, "does not hold");
        on_m2.machine = Some("m2".into());
        on_m2.why = "ratio 0.4×".into();
        two.push(on_m2);
        for md in [super::front(&two, &titles), page(&two, &titles)] {
            assert_eq!(md.matches("data-claim=\"B-1\"").count(), 1, "{md}");
            assert!(
                md.contains("<strong>does not hold (on 2 of 2 machines: m1 and m2)</strong>"),
                "{md}"
            );
        }
        let table = page(&two, &titles);
        assert!(
            table.contains("On m1: ratio 2.0×<br>On m2: ratio 0.4×"),
            "{table}"
        );
    }

    #[test]
    fn a_claim_two_chapters_judge_is_two_labelled_questions() {
        let mut a = finding("a", "X-4", Outcome::Holds, "holds");
        a.reading.question = Some("over a socket?".into());
        let mut b = finding("b", "X-4", Outcome::DoesNotHold, "does not hold");
        b.reading.question = Some("the lock alone?".into());
        b.reading.differs = Some("The socket is what batching saves.".into());
        let titles = [
            ("a".into(), "Chapter A".into()),
            ("b".into(), "Chapter B".into()),
        ];
        let md = page(&[a.clone(), b], &titles);
        let p = &md[md.find("data-claim-twice=\"X-4\"").expect("the note")..];
        assert!(
            p.contains("over a socket?") && p.contains("the lock alone?"),
            "{p}"
        );
        assert!(p.contains("The socket is what batching saves."), "{p}");
        assert!(md.contains("<em>Asked here: over a socket?</em>"), "{md}");
        assert!(
            !page(&[a], &titles).contains("data-claim-twice"),
            "one chapter, no note"
        );
    }
}
