//! Published claims as data, and the verdicts the measurements give them.
use serde::{Deserialize, Serialize};

use crate::values::Estimate;

/// One published claim, encoded once: what was said, where, and the rule
/// (with its tolerance) that decides it from measurements.
#[derive(Clone, Debug, Serialize)]
pub struct Claim {
    pub id: &'static str,
    /// The claim in a few words, as a badge leads with it ("std about 2x
    /// faster than tokio"): plain words, no term of the book's method.
    pub short: &'static str,
    /// The claim, paraphrased.
    pub statement: &'static str,
    /// Markdown link to the post that made it.
    pub source: &'static str,
    /// The test applied, tolerance included, shown beside the verdict.
    pub rule: &'static str,
}

impl Claim {
    /// A claim for tests: what they assert on (`id`, `statement`), with a
    /// placeholder source and rule.
    #[doc(hidden)]
    pub const fn for_test(id: &'static str, statement: &'static str) -> Claim {
        Claim {
            id,
            short: statement,
            statement,
            source: "a post",
            rule: "r",
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Outcome {
    Holds,
    DoesNotHold,
    /// Holds under some of the conditions of its verdict map and not under
    /// others: the verdict's `qualifier` names where it holds.
    Depends,
    /// No machine with results can decide it (e.g. no arm64 results yet).
    NotMeasured,
    /// The measurements' spread is too wide to decide.
    Inconclusive,
}

impl Outcome {
    /// The outcome of a test on an interval (`Estimate::at_least`,
    /// `within`, `compare`): decided when the interval is clear of the
    /// line, inconclusive when it straddles it.
    pub fn decided(clear: Option<bool>) -> Outcome {
        match clear {
            Some(true) => Outcome::Holds,
            Some(false) => Outcome::DoesNotHold,
            None => Outcome::Inconclusive,
        }
    }

    /// Whether the whole interval of `e` lies at or above `threshold`:
    /// holds, does not hold (wholly below), or inconclusive (straddles it).
    pub fn at_least(e: &Estimate, threshold: f64) -> Outcome {
        Outcome::decided(e.at_least(threshold))
    }

    /// Whether the whole interval of `e` lies inside `lo..=hi`.
    pub fn within(e: &Estimate, lo: f64, hi: f64) -> Outcome {
        Outcome::decided(e.within(lo, hi))
    }

    /// Every part must hold: one that does not decides, then one undecided.
    pub fn all_of(parts: &[Outcome]) -> Outcome {
        if parts.contains(&Outcome::DoesNotHold) {
            Outcome::DoesNotHold
        } else if parts.contains(&Outcome::NotMeasured) {
            Outcome::NotMeasured
        } else if parts.contains(&Outcome::Depends) {
            Outcome::Depends
        } else if parts.contains(&Outcome::Inconclusive) {
            Outcome::Inconclusive
        } else {
            Outcome::Holds
        }
    }

    pub fn label(self) -> &'static str {
        match self {
            Outcome::Holds => "holds",
            Outcome::DoesNotHold => "does not hold",
            Outcome::Depends => "holds only under some conditions",
            Outcome::NotMeasured => "not measured on these machines",
            Outcome::Inconclusive => "inconclusive",
        }
    }

    pub fn css(self) -> &'static str {
        match self {
            Outcome::Holds => "holds",
            Outcome::DoesNotHold => "fails",
            Outcome::Depends => "depends",
            Outcome::NotMeasured => "unmeasured",
            Outcome::Inconclusive => "inconclusive",
        }
    }

    pub fn from_bool(holds: bool) -> Outcome {
        if holds {
            Outcome::Holds
        } else {
            Outcome::DoesNotHold
        }
    }
}

/// One row of a claim's verdict map: one way of measuring the claim (the
/// published method, one step of the ladder of corrections, one setting of a
/// method choice a careful reproducer could make differently, or the book's
/// fair experiment) and what the claim's rule gives under it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Condition {
    /// The method choice the row varies: "ladder", "consumer placement",
    /// "statistic", "driver", ...
    pub axis: String,
    /// The setting, as a reader would name it: "consumer on the block_on
    /// thread". Rows where the claim holds are named in the headline.
    pub setting: String,
    /// The row follows the published method as closely as it is known.
    pub as_published: bool,
    /// The row is the book's fair experiment, the reference the others vary.
    pub fair: bool,
    /// The claim's rule applied to this row's figures.
    pub outcome: Outcome,
    /// The figure(s) that decided the row, with their intervals.
    pub figure: String,
    /// Why the row is shown but does not decide, when it does not: a figure
    /// with no interval (one long run) can be read, never trusted to turn
    /// a headline. `None` for every row that decides.
    pub not_deciding: Option<String>,
    /// The estimates (names in a run's `analysis`) the row's figure shows.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub estimates: Vec<String>,
}

impl Condition {
    pub fn new(
        axis: impl Into<String>,
        setting: impl Into<String>,
        outcome: Outcome,
        figure: impl Into<String>,
    ) -> Self {
        Condition {
            axis: axis.into(),
            setting: setting.into(),
            as_published: false,
            fair: false,
            outcome,
            figure: figure.into(),
            not_deciding: None,
            estimates: Vec::new(),
        }
    }

    /// Shows the row on the map without letting it decide, saying `why`
    /// ("one run, no interval"): the headline and the Findings page read
    /// only the rows that decide.
    pub fn not_deciding(mut self, why: impl Into<String>) -> Self {
        self.not_deciding = Some(why.into());
        self
    }

    /// The row takes part in the headline.
    pub fn decides(&self) -> bool {
        self.not_deciding.is_none()
    }

    /// Marks the row as the published method's reconstruction.
    pub fn as_published(mut self) -> Self {
        self.as_published = true;
        self
    }

    /// Names the estimates (in the run's `analysis`) the row's figure shows.
    pub fn reads(mut self, names: impl IntoIterator<Item = impl Into<String>>) -> Self {
        self.estimates = names.into_iter().map(Into::into).collect();
        self
    }

    /// Marks the row as the book's fair experiment.
    pub fn fair(mut self) -> Self {
        self.fair = true;
        self
    }
}

/// The headline of a verdict map, and what qualifies it.
///
/// The headline never claims more than every row supports:
/// - every decided row holds: **holds**; every one fails: **does not hold**;
///   rows that are inconclusive leave that headline standing but are named
///   ("undecided when ...");
/// - some rows hold and others fail (`Outcome::Depends`): **holds only
///   when** the rows that hold, or **holds except when** the rows that fail
///   when those are fewer, so the shorter list is spelled out and no failing
///   row hides behind "or N more";
/// - no row decided: **inconclusive**; no row measured: **not measured**;
/// - a row marked `not_deciding` (a figure with no interval) is shown on the
///   map and read by nothing here.
pub fn headline(rows: &[Condition]) -> (Outcome, Option<String>) {
    let named = |o: Outcome| -> Vec<&str> {
        rows.iter()
            .filter(|r| r.decides() && r.outcome == o)
            .map(|r| r.setting.as_str())
            .collect()
    };
    // A row that itself depends on something counts as both.
    let holds = named(Outcome::Holds);
    let fails = named(Outcome::DoesNotHold);
    let split = named(Outcome::Depends);
    let unclear = named(Outcome::Inconclusive);
    let undecided = (!unclear.is_empty()).then(|| format!("undecided when {}", join(&unclear)));
    if !split.is_empty() || (!holds.is_empty() && !fails.is_empty()) {
        let mut when: Vec<&str> = holds.clone();
        when.extend(split.iter().copied());
        let mut q = if split.is_empty() && fails.len() < when.len() {
            format!("holds except when {}", join(&fails))
        } else {
            format!("holds only when {}", join(&when))
        };
        if let Some(u) = &undecided {
            q.push_str("; ");
            q.push_str(u);
        }
        return (Outcome::Depends, Some(q));
    }
    if !holds.is_empty() {
        (Outcome::Holds, undecided)
    } else if !fails.is_empty() {
        (Outcome::DoesNotHold, undecided)
    } else if !unclear.is_empty() || rows.iter().any(|r| r.outcome != Outcome::NotMeasured) {
        // Measured, but nothing that decides.
        (Outcome::Inconclusive, None)
    } else {
        (Outcome::NotMeasured, None)
    }
}

/// "a", "a or b", "a, b or c"; beyond four, the first three and how many
/// more the map lists.
fn join(settings: &[&str]) -> String {
    if settings.len() > 4 {
        return format!(
            "{} or {} more conditions of the map",
            settings[..3].join(", "),
            settings.len() - 3
        );
    }
    match settings {
        [] => String::new(),
        [one] => one.to_string(),
        [init @ .., last] => format!("{} or {last}", init.join(", ")),
    }
}

#[derive(Clone, Debug, Serialize)]
pub struct Verdict {
    pub claim: Claim,
    /// The machine whose results decided it; `None` when no machine could.
    pub machine: Option<String>,
    pub outcome: Outcome,
    /// The figures that decided it, as a short sentence.
    pub evidence: String,
    /// The verdict map the outcome was derived from (empty when the claim
    /// was decided by one rule on one experiment).
    pub conditions: Vec<Condition>,
    /// What limits the headline: "holds only when ...", "undecided when ...".
    pub qualifier: Option<String>,
    /// The verdict as a reader meets it first (see `Reading`).
    pub reading: Reading,
}

/// A verdict in a reader's words, set by the chapter that judged it: the
/// badge reads the claim's short form, `verdict` and `number`; the Findings
/// page's Why cell reads `direction`. Empty fields fall back to words
/// derived from the verdict map (`Verdict::plain`).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Reading {
    /// The verdict in plain words, conditions included ("holds only as the
    /// post measured it"); no term of the book's method.
    pub verdict: Option<String>,
    /// The one number a badge carries ("6.3×"), printed from the results.
    pub number: Option<String>,
    /// Which way the number points, beside what the post said ("std 6.3×
    /// faster; the post said about 2×").
    pub direction: Option<String>,
    /// The question this chapter asks of the claim, when another chapter
    /// asks a different one of the same claim (FAN-4).
    pub question: Option<String>,
    /// Why this chapter's verdict differs from another chapter's on the
    /// same claim, in one sentence (with `question`).
    pub differs: Option<String>,
    /// Whether the verdict could change with the number of cores, and what
    /// the post ran on, as one sentence (`render::reader::cores_note`).
    pub cores: Option<String>,
}

impl Verdict {
    pub fn new(
        claim: &Claim,
        machine: &str,
        outcome: Outcome,
        evidence: impl Into<String>,
    ) -> Self {
        Verdict {
            claim: claim.clone(),
            machine: Some(machine.to_string()),
            outcome,
            evidence: evidence.into(),
            conditions: Vec::new(),
            qualifier: None,
            reading: Reading::default(),
        }
    }

    /// The verdict a map of conditions gives (see `headline`). The fair row
    /// is listed first, then the published one, then the rest in order.
    pub fn from_map(
        claim: &Claim,
        machine: &str,
        mut rows: Vec<Condition>,
        evidence: impl Into<String>,
    ) -> Self {
        rows.sort_by_key(|r| (!r.fair, !r.as_published));
        let (outcome, qualifier) = headline(&rows);
        Verdict {
            claim: claim.clone(),
            machine: Some(machine.to_string()),
            outcome,
            evidence: evidence.into(),
            conditions: rows,
            qualifier,
            reading: Reading::default(),
        }
    }

    pub fn not_measured(claim: &Claim, why: impl Into<String>) -> Self {
        Verdict {
            claim: claim.clone(),
            machine: None,
            outcome: Outcome::NotMeasured,
            evidence: why.into(),
            conditions: Vec::new(),
            qualifier: None,
            reading: Reading::default(),
        }
    }

    /// The verdict in a reader's words, with one number and which way it
    /// points (see `Reading`).
    pub fn reads(mut self, reading: Reading) -> Self {
        self.reading = reading;
        self
    }

    /// The verdict in plain words: the chapter's (`Reading::verdict`), or
    /// words derived from the map: where the as-published row and the
    /// fair row part, which of them holds; otherwise the outcome alone.
    pub fn plain(&self) -> String {
        if let Some(v) = &self.reading.verdict {
            return v.clone();
        }
        let row = |f: fn(&Condition) -> bool| {
            self.conditions
                .iter()
                .find(|c| c.decides() && f(c))
                .map(|c| c.outcome)
        };
        let (published, fair) = (row(|c| c.as_published), row(|c| c.fair));
        match self.outcome {
            Outcome::Holds | Outcome::DoesNotHold
                if published == Some(self.outcome) && fair == Some(Outcome::Inconclusive) =>
            {
                format!(
                    "{} as the post measured it; too close to call when measured fairly",
                    self.outcome.label()
                )
            }
            Outcome::Holds => "holds".into(),
            Outcome::DoesNotHold => "does not hold".into(),
            Outcome::Inconclusive => "too close to call".into(),
            Outcome::NotMeasured => "not measured here".into(),
            Outcome::Depends => match (published, fair) {
                (Some(Outcome::Holds), Some(Outcome::DoesNotHold)) => {
                    "holds as the post measured it, not when measured fairly".into()
                }
                (Some(Outcome::DoesNotHold), Some(Outcome::Holds)) => {
                    "holds when measured fairly, not as the post measured it".into()
                }
                _ => "holds under some conditions, not others".into(),
            },
        }
    }

    /// The headline as a reader meets it: "holds", "does not hold
    /// (undecided when ...)", "holds only when ...".
    pub fn headline(&self) -> String {
        match (&self.qualifier, self.outcome) {
            (Some(q), Outcome::Depends) => q.clone(),
            (Some(q), o) => format!("{} ({q})", o.label()),
            (None, o) => o.label().to_string(),
        }
    }
}

/// One claim's verdict on one machine as the Findings page lists it: owned,
/// so a chapter's binary can hand it to the harness as JSON.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Finding {
    pub chapter: String,
    pub claim: String,
    /// The claim in a few words (`Claim::short`).
    #[serde(default)]
    pub short: String,
    /// The verdict in plain words (`Verdict::plain`).
    #[serde(default)]
    pub plain: String,
    /// The chapter's reading of it: number, direction, question, cores.
    #[serde(default)]
    pub reading: Reading,
    /// The class of machine that decided it ("a 2-core x86_64 machine (AMD
    /// EPYC)"), from the results' provenance.
    #[serde(default)]
    pub machine_class: Option<String>,
    /// The claim as published (paraphrased) and the markdown link to its post.
    pub statement: String,
    pub source: String,
    /// `None` when no machine's results could decide it.
    pub machine: Option<String>,
    pub outcome: Outcome,
    /// "holds", "holds only when ...", "does not hold (undecided when ...)":
    /// the conditions it names are the shorter list, where it holds or
    /// where it fails.
    pub headline: String,
    /// The figures that decided it.
    pub why: String,
    /// The verdict across the releases measured (`releases::range_note`),
    /// when more than one was.
    pub releases: Option<String>,
}

impl Finding {
    pub fn of(chapter: &str, v: &Verdict) -> Finding {
        Finding {
            chapter: chapter.to_string(),
            claim: v.claim.id.to_string(),
            short: v.claim.short.to_string(),
            plain: v.plain(),
            reading: v.reading.clone(),
            machine_class: None,
            statement: v.claim.statement.to_string(),
            source: v.claim.source.to_string(),
            machine: v.machine.clone(),
            outcome: v.outcome,
            headline: v.headline(),
            why: v.evidence.clone(),
            releases: None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(setting: &str, outcome: Outcome) -> Condition {
        Condition::new("axis", setting, outcome, "1.0×")
    }

    #[test]
    fn the_plain_verdict_says_which_side_the_posts_method_falls_on() {
        let claim = Claim::for_test("X-1", "x");
        let v = |rows: Vec<Condition>| Verdict::from_map(&claim, "m", rows, "e").plain();
        assert_eq!(
            v(vec![
                row("a", Outcome::Holds).as_published(),
                row("b", Outcome::DoesNotHold).fair()
            ]),
            "holds as the post measured it, not when measured fairly"
        );
        assert_eq!(
            v(vec![
                row("a", Outcome::DoesNotHold).as_published(),
                row("b", Outcome::Holds).fair()
            ]),
            "holds when measured fairly, not as the post measured it"
        );
        assert_eq!(
            v(vec![
                row("a", Outcome::DoesNotHold).as_published(),
                row("b", Outcome::Inconclusive).fair()
            ]),
            "does not hold as the post measured it; too close to call when measured fairly"
        );
        let chosen =
            Verdict::from_map(&claim, "m", vec![row("a", Outcome::Holds)], "e").reads(Reading {
                verdict: Some("holds, plainly".into()),
                ..Reading::default()
            });
        assert_eq!(chosen.plain(), "holds, plainly");
    }

    #[test]
    fn rows_that_agree_give_their_outcome() {
        let rows = [row("a", Outcome::Holds), row("b", Outcome::Holds)];
        assert_eq!(headline(&rows), (Outcome::Holds, None));
        let rows = [
            row("a", Outcome::DoesNotHold),
            row("b", Outcome::DoesNotHold),
        ];
        assert_eq!(headline(&rows), (Outcome::DoesNotHold, None));
    }

    #[test]
    fn a_split_map_names_where_the_claim_holds() {
        let rows = [
            row("fair", Outcome::DoesNotHold),
            row("consumer on the block_on thread", Outcome::Holds),
            row("as published", Outcome::Holds),
        ];
        assert_eq!(
            headline(&rows),
            (Outcome::Depends, Some("holds except when fair".into())),
            "the one failing row is fewer to name than the two that hold"
        );
        let rows = [
            row("fair", Outcome::DoesNotHold),
            row("mean", Outcome::DoesNotHold),
            row("consumer on the block_on thread", Outcome::Holds),
        ];
        assert_eq!(
            headline(&rows),
            (
                Outcome::Depends,
                Some("holds only when consumer on the block_on thread".into())
            )
        );
        // A row that itself depends keeps the "only when" form: an
        // "except" would claim it holds there.
        let rows = [
            row("fair", Outcome::DoesNotHold),
            row("a", Outcome::Holds),
            row("b", Outcome::Depends),
        ];
        assert_eq!(headline(&rows).1.as_deref(), Some("holds only when a or b"));
    }

    #[test]
    fn a_row_without_an_interval_is_shown_but_never_turns_the_headline() {
        let long = row("one long run", Outcome::DoesNotHold).not_deciding("one run, no interval");
        let rows = [
            row("fair", Outcome::Holds),
            row("ladder 1", Outcome::Holds),
            long,
        ];
        assert_eq!(headline(&rows), (Outcome::Holds, None));
        let v = Verdict::from_map(&Claim::for_test("X-1", "s"), "m", rows.to_vec(), "e");
        let f = Finding::of("ch", &v);
        assert_eq!(
            f.headline, "holds",
            "the long run does not turn the Findings row"
        );
        assert_eq!(v.conditions.len(), 3, "the map still shows the long run");
        // Alone, it is measured and decides nothing.
        let only = [row("one long run", Outcome::Holds).not_deciding("no interval")];
        assert_eq!(headline(&only), (Outcome::Inconclusive, None));
    }

    #[test]
    fn an_inconclusive_row_is_named_and_never_upgraded() {
        let rows = [
            row("fair", Outcome::Holds),
            row("mean", Outcome::Inconclusive),
        ];
        assert_eq!(
            headline(&rows),
            (Outcome::Holds, Some("undecided when mean".into()))
        );
        let rows = [
            row("fair", Outcome::Inconclusive),
            row("mean", Outcome::Inconclusive),
        ];
        assert_eq!(headline(&rows), (Outcome::Inconclusive, None));
        let split = [
            row("fair", Outcome::DoesNotHold),
            row("published", Outcome::Holds),
            row("mean", Outcome::Inconclusive),
        ];
        let (o, q) = headline(&split);
        assert_eq!(o, Outcome::Depends);
        assert_eq!(q.unwrap(), "holds only when published; undecided when mean");
    }

    #[test]
    fn an_effect_below_the_minimum_does_not_decide_for_the_claim() {
        // The claim "a exceeds b" with a minimum effect of 10 %: a ratio of
        // 1.05 (1.03-1.07) is a real difference but smaller than the minimum,
        // so the row does not hold; one straddling 1.10 is undecided.
        let small = Estimate::new(1.05, 1.03, 1.07).unwrap();
        let near = Estimate::new(1.09, 1.06, 1.13).unwrap();
        let big = Estimate::new(1.4, 1.3, 1.5).unwrap();
        let rows = [
            row("fair", Outcome::at_least(&small, 1.10)),
            row("mean", Outcome::at_least(&near, 1.10)),
        ];
        assert_eq!(rows[0].outcome, Outcome::DoesNotHold);
        assert_eq!(rows[1].outcome, Outcome::Inconclusive);
        assert_eq!(
            headline(&rows),
            (Outcome::DoesNotHold, Some("undecided when mean".into()))
        );
        let rows = [row("fair", Outcome::at_least(&big, 1.10))];
        assert_eq!(headline(&rows), (Outcome::Holds, None));
    }

    #[test]
    fn a_long_list_of_conditions_is_cut_to_a_readable_headline() {
        let rows: Vec<Condition> = (1..=7)
            .map(|i| row(&format!("c{i}"), Outcome::Holds))
            .chain([row("fair", Outcome::DoesNotHold)])
            .collect();
        let (o, q) = headline(&rows);
        assert_eq!(o, Outcome::Depends);
        assert_eq!(
            q.unwrap(),
            "holds except when fair",
            "the failing row is named"
        );
        let rows: Vec<Condition> = (1..=7)
            .map(|i| row(&format!("c{i}"), Outcome::Holds))
            .chain((1..=7).map(|i| row(&format!("f{i}"), Outcome::DoesNotHold)))
            .collect();
        assert_eq!(
            headline(&rows).1.unwrap(),
            "holds only when c1, c2, c3 or 4 more conditions of the map"
        );
    }

    #[test]
    fn no_measured_row_is_not_measured() {
        assert_eq!(headline(&[]), (Outcome::NotMeasured, None));
        let rows = [row("arm64", Outcome::NotMeasured)];
        assert_eq!(headline(&rows), (Outcome::NotMeasured, None));
    }

    #[test]
    fn the_fair_row_leads_the_map() {
        let claim = Claim::for_test("X-1", "s");
        let v = Verdict::from_map(
            &claim,
            "m",
            vec![
                row("ladder", Outcome::Holds).as_published(),
                row("fair", Outcome::DoesNotHold).fair(),
            ],
            "e",
        );
        assert!(v.conditions[0].fair && v.conditions[1].as_published);
        assert_eq!(v.headline(), "holds only when ladder");
    }
}
