//! What a reader meets first, in one notation for every chapter: a claim's
//! badge (its short form, the verdict in plain words, one number), the
//! answer paragraph under a chapter's question, the summary list at its
//! end, the rows of the What to use page, and the sentences that say which
//! machine decided. Chapters write their own sentences; the shape, the
//! escaping and the markers the checks read live here.
use std::fmt::Write;

use crate::render::blocks::Table;
use crate::render::{claim_anchor, escape, escape_markdown, inline_markdown, table};
use harness_core::claims::{Finding, Outcome, Verdict};
use harness_core::machine::Machine;
use harness_core::values::{Estimate, Unit};

/// A badge as a reader parses it: the claim in a few words, the verdict in
/// plain words, then one number. `data-claim` is what the browser check reads.
pub fn badge(id: &str, short: &str, outcome: Outcome, plain: &str, number: Option<&str>) -> String {
    let number = number
        .map(|n| format!(" <span class=\"badge-number\">{}</span>", escape(n)))
        .unwrap_or_default();
    format!(
        "<span class=\"verdict {}\" data-claim=\"{}\"><span class=\"badge-claim\">{}</span>: \
         <strong>{}</strong>{number}</span>",
        outcome.css(),
        escape(id),
        inline_markdown(&escape_markdown(short)),
        escape(plain)
    )
}

/// One machine's verdict on a claim, as a badge across machines reads it.
#[derive(Clone, Copy, Debug)]
pub struct OnMachine<'a> {
    /// The machine that decided it (`None`: no machine could).
    pub machine: Option<&'a str>,
    pub outcome: Outcome,
    /// The verdict in plain words.
    pub plain: &'a str,
    /// The badge's one number on this machine.
    pub number: Option<&'a str>,
}

impl<'a> OnMachine<'a> {
    pub fn of_verdict(v: &'a Verdict, plain: &'a str) -> OnMachine<'a> {
        OnMachine {
            machine: v.machine.as_deref(),
            outcome: v.outcome,
            plain,
            number: v.reading.number.as_deref(),
        }
    }

    pub fn of_finding(f: &'a Finding) -> OnMachine<'a> {
        OnMachine {
            machine: f.machine.as_deref(),
            outcome: f.outcome,
            plain: &f.plain,
            number: f.reading.number.as_deref(),
        }
    }
}

/// One badge for a claim, whatever the number of machines that decided it.
/// On one machine, that machine's badge (`badge`). On several, the verdict
/// as a count, and each machine's number named: "holds (on 2 of 2
/// machines)" when they agree; "splits: holds on a; does not hold on b"
/// (coloured as a verdict that depends) when they do not; the number once
/// when every machine gives the same, else "1.4× on a, 8.8× on b".
/// A verdict no machine could decide ("not measured: no arm64 results")
/// follows as a badge of its own.
pub fn claim_badge(id: &str, short: &str, on: &[OnMachine]) -> String {
    let (decided, undecided): (Vec<&OnMachine>, Vec<&OnMachine>) =
        on.iter().partition(|o| o.machine.is_some());
    let mut badges = match decided.as_slice() {
        [] => Vec::new(),
        [o] => vec![badge(id, short, o.outcome, o.plain, o.number)],
        _ => vec![across_machines(id, short, &decided)],
    };
    let mut said: Vec<&str> = Vec::new();
    for o in undecided {
        if !said.contains(&o.plain) {
            said.push(o.plain);
            badges.push(badge(id, short, o.outcome, o.plain, o.number));
        }
    }
    badges.join(", ")
}

/// The badge of a claim decided on several machines (`claim_badge`). Each
/// machine is named once: beside its number; after the one number every
/// machine gives, when they agree; in the split, when they do not.
fn across_machines(id: &str, short: &str, decided: &[&OnMachine]) -> String {
    let name = |o: &OnMachine| o.machine.unwrap_or("no machine").to_string();
    let n = decided.len();
    let same_plain = decided.iter().all(|o| o.plain == decided[0].plain);
    let outcome = if decided.iter().all(|o| o.outcome == decided[0].outcome) {
        decided[0].outcome
    } else {
        Outcome::Depends
    };
    let names: Vec<String> = decided.iter().map(|o| name(o)).collect();
    let all_names = match names.split_last() {
        Some((last, rest)) if !rest.is_empty() => format!("{} and {last}", rest.join(", ")),
        _ => names.concat(),
    };
    let numbers: Vec<&str> = decided.iter().filter_map(|o| o.number).collect();
    let one_number = numbers.len() == n && numbers.iter().all(|x| *x == numbers[0]);
    let number = match (numbers.is_empty(), one_number, same_plain) {
        (true, _, _) => None,
        (_, true, true) => Some(format!("{} on {all_names}", numbers[0])),
        (_, true, false) => Some(format!("{} on each", numbers[0])),
        _ => Some(
            decided
                .iter()
                .filter_map(|o| o.number.map(|x| format!("{x} on {}", name(o))))
                .collect::<Vec<_>>()
                .join(", "),
        ),
    };
    let plain = match (same_plain, &number) {
        (true, Some(_)) => format!("{} (on {n} of {n} machines)", decided[0].plain),
        (true, None) => format!("{} (on {n} of {n} machines: {all_names})", decided[0].plain),
        (false, _) => {
            // Machines grouped by what they say, in the order first said.
            let mut said: Vec<(&str, Vec<String>)> = Vec::new();
            for o in decided {
                match said.iter_mut().find(|(p, _)| *p == o.plain) {
                    Some((_, ms)) => ms.push(name(o)),
                    None => said.push((o.plain, vec![name(o)])),
                }
            }
            let parts: Vec<String> = said
                .iter()
                .map(|(p, ms)| format!("{p} on {}", ms.join(" and ")))
                .collect();
            format!("splits: {}", parts.join("; "))
        }
    };
    badge(id, short, outcome, &plain, number.as_deref())
}

/// A verdict's badge (see `badge`).
pub fn verdict_badge(v: &Verdict) -> String {
    badge(
        v.claim.id,
        v.claim.short,
        v.outcome,
        &v.plain(),
        v.reading.number.as_deref(),
    )
}

/// A finding's badge (see `badge`).
pub fn finding_badge(f: &Finding) -> String {
    badge(
        &f.claim,
        &f.short,
        f.outcome,
        &f.plain,
        f.reading.number.as_deref(),
    )
}

/// Which way a ratio of times points, in words: `a_over_b` is a's time
/// over b's; "b 3.5× faster than a" when it is above 1, "a 2× faster than
/// b" below. The names are the chapter's words (escaped here).
pub fn faster(a: &str, b: &str, a_over_b: f64) -> String {
    let (winner, loser, r) = if a_over_b >= 1.0 {
        (b, a, a_over_b)
    } else {
        (a, b, 1.0 / a_over_b)
    };
    format!(
        "{} {} faster than {}",
        escape_markdown(winner),
        harness_core::fmt::ratio(r),
        escape_markdown(loser)
    )
}

/// The class of machine a run was measured on, in a reader's words:
/// "a 2-core x86_64 machine (AMD EPYC)". Every part is escaped.
pub fn machine_class(m: &Machine) -> String {
    format!(
        "a {}-core {} machine ({})",
        m.cores,
        escape(&m.arch),
        escape(&cpu_for_readers(&m.cpu))
    )
}

/// The CPU's model name as a reader says it: without the trademark marks,
/// the words "Processor" and "CPU" and the clock speed that `/proc/cpuinfo`
/// adds ("Intel(R) Xeon(R) Processor" reads "Intel Xeon"). A name left empty
/// by that stays as it was.
fn cpu_for_readers(cpu: &str) -> String {
    let mut name = cpu.to_string();
    for mark in ["(R)", "(r)", "(TM)", "(tm)"] {
        name = name.replace(mark, "");
    }
    let words: Vec<&str> = name
        .split_whitespace()
        .take_while(|w| *w != "@")
        .filter(|w| !matches!(*w, "Processor" | "CPU"))
        .collect();
    if words.is_empty() {
        cpu.trim().to_string()
    } else {
        words.join(" ")
    }
}

/// `why` as the start of a sentence: its first letter capitalised.
fn sentence(why: &str) -> String {
    let mut chars = why.chars();
    match chars.next() {
        Some(c) if c.is_lowercase() => c.to_uppercase().chain(chars).collect(),
        _ => why.to_string(),
    }
}

/// The sentence that says a verdict depends on the number of cores: what
/// decided it here and what the post ran on (`posts`, from the published
/// dataset's source, escaped here).
pub fn cores_note(_m: &Machine, posts: &str) -> String {
    format!(
        "The verdicts depend on the number of cores; {}.",
        posts_machine("the post", posts)
    )
}

/// "the post ran on AMD Ryzen 9 5900HS", or "the post does not say what it
/// ran on" when its dataset says the machine is not stated; escaped.
pub fn posts_machine(post: &str, machine: &str) -> String {
    if machine.contains("not stated") || machine.trim().is_empty() {
        format!("{} does not say what it ran on", escape(post))
    } else {
        format!("{} ran on {}", escape(post), escape(machine))
    }
}

/// One number of the answer, marked with the headline estimate it prints
/// (`name`, as the chapter's `headline` names it) so a test can hold the
/// two together: `<span class="answer-number" data-estimate="...">3.5×</span>`.
pub fn number(name: &str, e: &Estimate, unit: Unit) -> String {
    format!(
        "<span class=\"answer-number\" data-estimate=\"{}\">{}</span>",
        escape(name),
        escape(&unit.show(e.point_ns))
    )
}

/// A number the answer prints that is not a headline estimate (an exact
/// count of bytes, a published figure): marked so it is not taken for one.
pub fn exact(shown: &str) -> String {
    format!(
        "<span class=\"answer-number\" data-exact=\"\">{}</span>",
        escape(shown)
    )
}

/// Every `(estimate name, number shown)` the answer prints with
/// `number`, in order (what the tests compare with the headline).
pub fn numbers_of(html: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut rest = html;
    while let Some(i) = rest.find("data-estimate=\"") {
        rest = &rest[i + "data-estimate=\"".len()..];
        let Some(end) = rest.find('"') else { break };
        let name = html_escape::decode_html_entities(&rest[..end]).into_owned();
        let Some(open) = rest.find('>') else { break };
        let Some(close) = rest[open..].find('<') else {
            break;
        };
        let shown = html_escape::decode_html_entities(&rest[open + 1..open + close]).into_owned();
        out.push((name, shown));
        rest = &rest[open + close..];
    }
    out
}

/// The answer under a chapter's question: two to four sentences, each
/// written by the chapter from its results (numbers through `number`),
/// then which machine decided and, where the verdict depends on it, the
/// number of cores. The sentences are markdown the chapter escaped.
pub fn answer(
    chapter: &str,
    sentences: &[String],
    machine: &Machine,
    cores: Option<&str>,
) -> String {
    let mut out = format!(
        "<div class=\"answer-first\" data-answer=\"{}\">\n\n",
        escape(chapter)
    );
    let _ = writeln!(out, "**In short.** {}\n", sentences.join(" "));
    let _ = write!(
        out,
        "<p class=\"answer-machine\">Measured on {}.",
        machine_class(machine)
    );
    if let Some(c) = cores {
        let _ = write!(out, " {c}");
    }
    out.push_str("</p>\n\n</div>\n\n");
    out
}

pub use crate::render::blocks::Advice;

/// The summary list that ends a chapter: one line per piece of advice,
/// each with its number and a link to the verdict behind it. The fields
/// are markdown the chapter escaped (code spans allowed).
pub fn summary(advice: &[Advice]) -> String {
    let mut out = String::from("<ul class=\"summary-list\">\n");
    for a in advice {
        let link = a
            .claim
            .as_deref()
            .map(|id| {
                format!(
                    "; <a href=\"#{}\">the verdict on {}</a>",
                    claim_anchor(id),
                    escape(id)
                )
            })
            .unwrap_or_default();
        let _ = writeln!(
            out,
            "<li><strong>{}</strong>: {}. {} ({}, on {}{link})</li>",
            inline_markdown(&a.situation),
            inline_markdown(&a.reach_for),
            inline_markdown(&sentence(&a.why)),
            inline_markdown(&a.evidence),
            a.machine
        );
    }
    out.push_str("</ul>\n\n");
    out
}

/// The What to use page: every chapter's advice in one table, in reading
/// order, one row each (situation, what to reach for, why, the evidence and
/// the machine, the verdict). `titles` are the registry's (name, title).
pub fn what_to_use(advice: &[Advice], titles: &[(String, String)]) -> String {
    let chapters: Vec<&str> = titles
        .iter()
        .filter(|(name, _)| advice.iter().any(|a| &a.chapter == name))
        .map(|(name, _)| name.as_str())
        .collect();
    let mut out = format!(
        "\n<div class=\"exhibit-marker\" data-exhibit=\"what-to-use/rows\" \
         data-blocks=\"table\" data-chapters=\"{}\"></div>\n\n",
        escape(&chapters.join(" "))
    );
    // The machine is named once when every row was measured on one class.
    let mut machines: Vec<&str> = advice.iter().map(|a| a.machine.as_str()).collect();
    machines.sort_unstable();
    machines.dedup();
    let one = machines.len() == 1;
    if one {
        let _ = writeln!(
            out,
            "<p class=\"decided-on\">Every number below was measured on {}.</p>\n",
            machines[0]
        );
    }
    for (name, title) in titles {
        let rows: Vec<&Advice> = advice.iter().filter(|a| &a.chapter == name).collect();
        if rows.is_empty() {
            continue;
        }
        let _ = writeln!(out, "### [{}]({name}.md)\n", escape(title));
        let mut t = Table::new("", &["When you", "Reach for", "Why", "Measured", "Verdict"])
            .left(&[0, 1, 2, 3, 4]);
        for a in rows {
            let verdict = match &a.claim {
                Some(id) => format!("[{}]({name}.md#{})", escape(id), claim_anchor(id)),
                None => format!("[the chapter]({name}.md)"),
            };
            let measured = if one {
                a.evidence.clone()
            } else {
                format!("{}, on {}", a.evidence, a.machine)
            };
            t.push(vec![
                a.situation.clone(),
                a.reach_for.clone(),
                sentence(&a.why),
                measured,
                verdict,
            ]);
        }
        out.push_str(&table(&t));
    }
    out
}

/// One measured contender for a pick: its name as markdown the chapter
/// escaped (code spans allowed), the number compared (lower is better) and
/// that number as the page prints it.
#[derive(Clone, Debug, PartialEq)]
pub struct Candidate {
    pub name: String,
    pub value: f64,
    pub shown: String,
}

/// A pick computed from the results: the candidate with the lowest value
/// is what to reach for, and the evidence names the runner-up and how much
/// more it takes, so a reader
/// who measures their own machine gets their own picks. `measure` says what
/// was compared ("time per message at 8 B"). None when fewer than two
/// candidates have a finite value (nothing was chosen between). Ties keep
/// the earlier candidate.
pub fn pick_lowest(
    situation: &str,
    measure: &str,
    candidates: &[Candidate],
    machine: &str,
    claim: Option<&str>,
) -> Option<Advice> {
    let mut ranked: Vec<&Candidate> = candidates.iter().filter(|c| c.value.is_finite()).collect();
    if ranked.len() < 2 {
        return None;
    }
    ranked.sort_by(|a, b| a.value.total_cmp(&b.value));
    let (best, next) = (ranked[0], ranked[1]);
    let margin = if best.value > 0.0 {
        format!(": {:.2}× as much", next.value / best.value)
    } else {
        String::new()
    };
    Some(Advice {
        chapter: String::new(),
        situation: situation.to_string(),
        reach_for: best.name.clone(),
        why: format!("the lowest {measure} of the {} measured", ranked.len()),
        evidence: format!(
            "{} {}; the next, {}, {}{margin}",
            best.name, best.shown, next.name, next.shown
        ),
        machine: machine.to_string(),
        claim: claim.map(str::to_string),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn advice(chapter: &str, claim: Option<&str>) -> Advice {
        Advice {
            chapter: chapter.into(),
            situation: "many <producers>".into(),
            reach_for: "a `Vec` swap".into(),
            why: "one write per batch".into(),
            evidence: "12×".into(),
            machine: "a 2-core x86_64 machine (AMD EPYC)".into(),
            claim: claim.map(str::to_string),
        }
    }

    #[test]
    fn faster_names_the_winner_whichever_way_the_ratio_points() {
        assert_eq!(faster("tokio", "std", 3.5), "std 3.50× faster than tokio");
        assert_eq!(faster("tokio", "std", 0.5), "tokio 2.00× faster than std");
    }

    fn on<'a>(m: &'a str, o: Outcome, plain: &'a str, n: &'a str) -> OnMachine<'a> {
        OnMachine {
            machine: Some(m),
            outcome: o,
            plain,
            number: Some(n),
        }
    }

    #[test]
    fn one_badge_per_claim_counts_the_machines_and_names_each_number() {
        // One machine: that machine's badge, as before.
        let one = [on("xeon", Outcome::Holds, "holds", "1.4×")];
        assert_eq!(
            claim_badge("M-1", "std faster", &one),
            badge("M-1", "std faster", Outcome::Holds, "holds", Some("1.4×"))
        );
        // Two that agree: the count, each number named.
        let two = [
            on("xeon", Outcome::Holds, "holds", "1.4×"),
            on("epyc", Outcome::Holds, "holds", "8.8×"),
        ];
        let b = claim_badge("M-1", "std faster", &two);
        assert!(
            b.contains("<strong>holds (on 2 of 2 machines)</strong>"),
            "{b}"
        );
        assert!(b.contains("1.4× on xeon, 8.8× on epyc"), "{b}");
        assert!(b.starts_with("<span class=\"verdict holds\""), "{b}");
        assert_eq!(b.matches("data-claim=").count(), 1, "one badge: {b}");
        // Three, one of which disagrees: a split, coloured as depending,
        // each machine named once with its verdict; one number when all
        // give the same.
        let three = [
            on("xeon", Outcome::Holds, "holds", "2×"),
            on("epyc", Outcome::DoesNotHold, "does not hold", "2×"),
            on("arm", Outcome::Holds, "holds", "2×"),
        ];
        let b = claim_badge("M-2", "actor slower", &three);
        assert!(
            b.contains("<strong>splits: holds on xeon and arm; does not hold on epyc</strong>"),
            "{b}"
        );
        assert!(b.starts_with("<span class=\"verdict depends\""), "{b}");
        assert!(
            b.contains("<span class=\"badge-number\">2× on each</span>"),
            "{b}"
        );
        for m in ["xeon", "epyc", "arm"] {
            assert_eq!(b.matches(m).count(), 1, "{m} named once: {b}");
        }
        // Agreeing machines with one number are named after it.
        let same = three.map(|o| OnMachine {
            outcome: Outcome::Holds,
            plain: "holds",
            ..o
        });
        let b = claim_badge("M-2", "actor slower", &same);
        assert!(b.contains("2× on xeon, epyc and arm"), "{b}");
        // A machine id is escaped like every other string from a file.
        let odd = [
            on("a<b", Outcome::Holds, "holds", "1×"),
            on("c", Outcome::Holds, "holds", "2×"),
        ];
        assert!(claim_badge("M-3", "x", &odd).contains("1× on a&lt;b"));
    }

    #[test]
    fn a_badge_reads_claim_then_verdict_then_number_all_escaped() {
        let b = badge(
            "X-1",
            "std <2×> faster",
            Outcome::Depends,
            "holds only as the post measured it",
            Some("6.3×"),
        );
        let claim = b.find("std &lt;2×&gt; faster").unwrap();
        let verdict = b.find("holds only as the post measured it").unwrap();
        let number = b.find("6.3×").unwrap();
        assert!(claim < verdict && verdict < number, "{b}");
        assert!(
            b.starts_with("<span class=\"verdict depends\" data-claim=\"X-1\">"),
            "{b}"
        );
    }

    #[test]
    fn the_answer_marks_each_number_with_its_estimate() {
        let e = Estimate {
            point_ns: 3.46,
            lower_ns: 3.2,
            upper_ns: 3.7,
        };
        let s = format!(
            "std took {} less time.",
            number("MUT-1 <ratio>", &e, Unit::Ratio)
        );
        let mut m = harness_measure::machine::detect();
        m.cpu = "AMD <EPYC>".into();
        m.cores = 2;
        let html = answer("c", &[s], &m, Some("depends on cores"));
        assert_eq!(
            numbers_of(&html),
            vec![("MUT-1 <ratio>".to_string(), Unit::Ratio.show(3.46))]
        );
        assert!(html.contains("a 2-core"), "{html}");
        assert!(html.contains("AMD &lt;EPYC&gt;"), "{html}");
        assert!(html.contains("depends on cores"), "{html}");
    }

    #[test]
    fn what_to_use_has_a_row_per_advice_and_names_its_chapters() {
        let rows = [advice("b", None), advice("a", Some("A-1"))];
        let titles = [
            ("a".to_string(), "Chapter A".to_string()),
            ("b".to_string(), "Chapter B".to_string()),
            ("c".to_string(), "Chapter C".to_string()),
        ];
        let md = what_to_use(&rows, &titles);
        assert!(md.contains("data-chapters=\"a b\""), "{md}");
        assert!(md.contains("[A-1](a.md#claim-a-1)"), "{md}");
        assert!(md.contains("[the chapter](b.md)"), "{md}");
        assert!(
            md.contains("measured on a 2-core x86_64 machine (AMD EPYC)."),
            "{md}"
        );
        assert!(md.find("[Chapter A]").unwrap() < md.find("[Chapter B]").unwrap());
        let list = summary(&rows[1..]);
        assert!(list.contains("<a href=\"#claim-a-1\">"), "{list}");
    }

    fn candidates(values: &[(&str, f64)]) -> Vec<Candidate> {
        values
            .iter()
            .map(|&(name, value)| Candidate {
                name: format!("`{name}`"),
                value,
                shown: format!("{value} ns"),
            })
            .collect()
    }

    #[test]
    fn a_cpu_name_reads_without_marks_or_clock() {
        for (cpu, read) in [
            ("Intel(R) Xeon(R) Processor", "Intel Xeon"),
            (
                "Intel(R) Core(TM) i7-8700 CPU @ 3.20GHz",
                "Intel Core i7-8700",
            ),
            ("AMD EPYC 7B13 64-Core Processor", "AMD EPYC 7B13 64-Core"),
            ("AMD EPYC", "AMD EPYC"),
            ("Processor", "Processor"),
        ] {
            assert_eq!(cpu_for_readers(cpu), read, "{cpu}");
        }
    }

    #[test]
    fn a_summary_line_starts_its_reason_as_a_sentence() {
        let mut a = advice("a", None);
        a.why = "one write per batch".into();
        let list = summary(&[a]);
        assert!(list.contains("</code> swap. One write per batch"), "{list}");
    }

    #[test]
    fn a_pick_follows_the_numbers_not_the_order() {
        let m = "a 2-core x86_64 machine";
        let a = pick_lowest(
            "one message",
            "time per message at 8 B",
            &candidates(&[("tokio", 70.0), ("flume", 30.0), ("crossbeam", 20.0)]),
            m,
            None,
        )
        .unwrap();
        assert_eq!(a.reach_for, "`crossbeam`");
        assert_eq!(
            a.why,
            "the lowest time per message at 8 B of the 3 measured"
        );
        assert_eq!(
            a.evidence,
            "`crossbeam` 20 ns; the next, `flume`, 30 ns: 1.50× as much"
        );
        // The same fixture with two crates' numbers swapped picks the other.
        let b = pick_lowest(
            "one message",
            "time per message at 8 B",
            &candidates(&[("tokio", 70.0), ("flume", 20.0), ("crossbeam", 30.0)]),
            m,
            Some("LAT-1"),
        )
        .unwrap();
        assert_eq!(b.reach_for, "`flume`");
        assert_eq!(b.claim.as_deref(), Some("LAT-1"));
    }

    #[test]
    fn no_pick_without_two_finite_candidates() {
        let one = candidates(&[("tokio", 70.0), ("flume", f64::NAN)]);
        assert_eq!(pick_lowest("s", "m", &one, "x", None), None);
        assert_eq!(pick_lowest("s", "m", &[], "x", None), None);
    }
}
