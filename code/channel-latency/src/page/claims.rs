//! The published claims as data, and the verdict maps that decide them from
//! one run's results at the judge stage. A map has one row per way of
//! measuring a claim (`other_ways::ROWS` for LAT-1..LAT-4, the burst-shape
//! row of LAT-2, `queue_ladder::STEPS` and the settings for LAT-5 and
//! LAT-6); each row applies the claim's rule to its own figures, named as
//! estimates, and `Verdict::from_map` derives the headline from the rows.
//! A claim is judged only on the architectures it speaks of; the page puts
//! the verdicts together (`super::verdicts`).
use anyhow::Result;
use harness_core::{Claim, Condition, Estimate, Outcome, Unit, Verdict};
use harness_page::{Judge, Judged};

mod backpressure;

pub(super) use backpressure::step_ratio_name;

use super::other_ways::{rows as a_rows, OtherWays, Row, Source, NOT_IN_RUN};
use super::{headline_name, size_label, Data, Reads};
use channel_latency::burst_shapes::Shape;
use channel_latency::PAYLOAD_SIZES;

const SWEEP_POST: &str =
    "[tokio's async tax vs crossbeam](https://punkeel.com/posts/tokio-mpsc-sweep)";
const BP_POST: &str =
    "[Rust training book, async channels (RustUtahChannels)](https://github.com/thebracket/RustUtahChannels)";

/// Minimum effect of the payload sweep's rules: a ratio must clear its line
/// by this fraction. The largest change of a ratio between two full runs
/// of this chapter on the book's machine was just below it.
pub(super) const SWEEP_MIN_EFFECT: f64 = 0.20;

/// Minimum effect of the back-pressure rules: at or above how far a median
/// latency moved between repeats of one setting on the book's machine.
pub(super) const QUEUE_MIN_EFFECT: f64 = 0.25;

/// The latency post's figure at 32 KB (LAT-3).
const LAT3_CENTRE: f64 = 1.3;
/// LAT-2's ratio at 8 B ("about 1.9x"); a row holds within the minimum
/// effect of it either way.
const LAT2_CENTRE: f64 = 1.9;

// ANCHOR: claims
pub const CLAIMS: &[Claim] = &[
    Claim {
        id: "LAT-1",
        short: "tokio and crossbeam about equal at 1 KB and 4 KB on x86-64",
        statement: "On x86-64, tokio mpsc and crossbeam-channel take about the same time at 1 KB and 4 KB payloads.",
        source: SWEEP_POST,
        rule: "Minimum effect 20 %. Each row of the map (a reading of the published seed, a step of the ladder to the fair ratio, a statistic, a runtime setting) holds on an x86-64 machine when the 95 % interval of the tokio/crossbeam ratio of burst times ([u8; N]) lies wholly within 1/1.2 to 1.2 at both 1024 B and 4096 B, does not hold when either lies wholly outside, and is inconclusive otherwise. \
               The headline holds, or does not, only when every decided row agrees; when rows split it names the rows where the claim holds, or those where it fails when they are fewer.",
    },
    Claim {
        id: "LAT-2",
        short: "the 8 B payload shows tokio's largest lag, about 1.9x, on x86-64",
        statement: "On x86-64, the smallest payload (8 B) shows the largest tokio/crossbeam ratio, about 1.9x.",
        source: SWEEP_POST,
        rule: "Minimum effect 20 %. The claim has a size and an order. A row holds on an x86-64 machine when the 8 B ratio's interval lies wholly within 1.9/1.2 to 1.9 x 1.2 (about 1.9x) and no other size's ratio exceeds it by the minimum effect (every size's ratio over the 8 B ratio lies wholly below 1.2: a tie within 20 % counts as largest); \
               it does not hold when some size's ratio is at least 1.2 times the 8 B ratio, or the 8 B interval lies wholly outside that band; otherwise inconclusive. \
               The map's burst-shape row takes the 8 B ratio from the burst rebuilt in a minimal reconstruction's shape, timed in the same run beside the book's, and the other sizes from the fair experiment. Headline from the map as for LAT-1.",
    },
    Claim {
        id: "LAT-3",
        short: "tokio about 1.3x crossbeam at 32 KB on both architectures",
        statement: "At 32 KB the tokio/crossbeam ratio settles near 1.3x on both architectures.",
        source: SWEEP_POST,
        rule: "Minimum effect 20 %. A row holds on a machine when the 95 % interval of the ratio at 32768 B lies wholly within 1.3/1.2 to 1.3 x 1.2; it does not hold when the interval lies wholly outside; otherwise inconclusive. \
               Both architectures need results. Headline from the map as for LAT-1.",
    },
    Claim {
        id: "LAT-4",
        short: "tokio slower than crossbeam at every size on arm64",
        statement: "On arm64, tokio mpsc is slower than crossbeam-channel at every payload size.",
        source: SWEEP_POST,
        rule: "Minimum effect 20 %. A row holds on an arm64 machine when the ratio's 95 % interval lies wholly at or above 1.2 at all eight sizes; \
               it does not hold when some size's interval lies wholly below 1.2; otherwise inconclusive. Headline from the map as for LAT-1.",
    },
    Claim {
        id: "LAT-5",
        short: "kanal's async channel beats tokio's under back-pressure",
        statement: "Under back-pressure, kanal's async channel has lower latency than tokio's at every tasks x bound setting.",
        source: BP_POST,
        rule: "Minimum effect 25 %. Each row of the map (a step of the ladder from the published method to the fair one, the fair run read another way, one setting, one long run) holds when tokio's latency over kanal's, paired repeat by repeat, has its 95 % interval wholly at or above 1.25 at every setting the row covers; \
               it does not hold when some setting's interval lies wholly below 1.25; otherwise inconclusive. The long run has no interval: it is shown, and decides nothing. The headline holds, or does not, only when every decided row agrees; when rows split it names the rows where the claim holds, or those where it fails when they are fewer.",
    },
    Claim {
        id: "LAT-6",
        short: "latency grows with the channel's bound",
        statement: "Latency grows with the channel bound (larger queues, longer waits).",
        source: BP_POST,
        rule: "Minimum effect 25 %. A row holds when, for both channels and both task counts, the latency at each step of the bound (1 to 100, 100 to 1000) over the one before, paired by repeat, has its 95 % interval wholly at or above 1.25; \
               it does not hold when some step's interval lies wholly below 1.25; otherwise inconclusive. Headline from the map as for LAT-5.",
    },
];
// ANCHOR_END: claims

pub(super) fn claim(id: &str) -> &'static Claim {
    CLAIMS
        .iter()
        .find(|c| c.id == id)
        .expect("claim is defined")
}

pub(super) fn is_x86_64(arch: &str) -> bool {
    arch == "x86_64"
}

pub(super) fn is_arm64(arch: &str) -> bool {
    arch == "aarch64" || arch == "arm64"
}

/// A row's outcome and the figure that decided it.
type Decided = (Outcome, String);

fn not_in_run() -> Decided {
    (Outcome::NotMeasured, NOT_IN_RUN.to_string())
}

fn show(e: &Estimate) -> String {
    e.show(Unit::Ratio)
}

fn condition(axis: &str, setting: &str, published: bool, fair: bool, d: Decided) -> Condition {
    let c = Condition::new(axis, setting, d.0, d.1);
    match (published, fair) {
        (true, _) => c.as_published(),
        (_, true) => c.fair(),
        _ => c,
    }
}

/// The estimates one verdict reads, named as they are drawn.
struct Reading<'j> {
    j: &'j mut Judge,
    names: Vec<String>,
}

impl<'j> Reading<'j> {
    fn new(j: &'j mut Judge) -> Self {
        Reading {
            j,
            names: Vec::new(),
        }
    }

    /// Names the ratio `e` (drawn by `method`) and notes that the verdict reads it.
    fn ratio(&mut self, name: String, e: Estimate, method: &str) -> Result<Estimate> {
        let e = self.j.estimate(&name, e, Unit::Ratio, method)?;
        if !self.names.contains(&name) {
            self.names.push(name);
        }
        Ok(e)
    }

    /// The map's verdict, its evidence the fair row's figure, stored with
    /// the names of the estimates its rows read.
    fn verdict(self, id: &str, machine: &str, rows: Vec<Condition>) {
        let evidence = rows
            .iter()
            .find(|c| c.fair)
            .map(|c| format!("fair experiment: {}", c.figure))
            .unwrap_or_default();
        let v = Verdict::from_map(claim(id), machine, rows, evidence);
        let names: Vec<&str> = self.names.iter().map(String::as_str).collect();
        self.j.verdict(v, &names);
    }
}

// ------------------------------------------------ LAT-1..LAT-4: the sweep

/// The name of a map row's ratio at `bytes` (the fair row's is the headline's).
fn row_name(row: Row, bytes: usize) -> String {
    if row.fair {
        return headline_name(bytes);
    }
    format!(
        "A, {}, {}: tokio ÷ crossbeam",
        row.setting,
        size_label(bytes)
    )
}

/// How a row's ratio is drawn, in words.
fn method_of(source: Source) -> &'static str {
    match source {
        Source::Method(_) | Source::HeadToHead(harness_measure::stats::Statistic::Median) => {
            "paired ratio of medians, window by window"
        }
        Source::HeadToHead(harness_measure::stats::Statistic::Mean) => {
            "paired ratio of means, window by window"
        }
        Source::Alone => "ratio of medians, bootstrapped",
    }
}

/// One row's ratios at `sizes`, named; `None` when this run lacks the row.
fn ratios(
    r: &mut Reading,
    d: &Data,
    row: Row,
    sizes: &[usize],
) -> Result<Option<Vec<(usize, Estimate)>>> {
    let mut found = Vec::new();
    for &b in sizes {
        match d.ratio_by(row.source, b)? {
            Some(e) => found.push((b, e)),
            None => return Ok(None),
        }
    }
    let mut out = Vec::new();
    for (b, e) in found {
        out.push((b, r.ratio(row_name(row, b), e, method_of(row.source))?));
    }
    Ok(Some(out))
}

/// The map of a sweep claim: every row of `other_ways::ROWS`, each decided
/// by `rule` on its ratios at `sizes`.
fn sweep_map(
    r: &mut Reading,
    d: &Data,
    sizes: &[usize],
    rule: fn(&[(usize, Estimate)]) -> Decided,
) -> Result<Vec<Condition>> {
    a_rows()
        .map(|row| {
            let decided = match ratios(r, d, row, sizes)? {
                Some(found) => rule(&found),
                None => not_in_run(),
            };
            Ok(condition(
                row.axis,
                row.setting,
                row.as_published,
                row.fair,
                decided,
            ))
        })
        .collect()
}

fn lat1_rule(r: &[(usize, Estimate)]) -> Decided {
    let (lo, hi) = (1.0 / (1.0 + SWEEP_MIN_EFFECT), 1.0 + SWEEP_MIN_EFFECT);
    let parts: Vec<Outcome> = r.iter().map(|(_, e)| Outcome::within(e, lo, hi)).collect();
    let figure = r
        .iter()
        .map(|(b, e)| format!("{} at {}", show(e), size_label(*b)))
        .collect::<Vec<_>>()
        .join(", ");
    (Outcome::all_of(&parts), figure)
}

fn lat2_rule(r: &[(usize, Estimate)]) -> Decided {
    let at8 = r[0].1;
    // Each other size's ratio over the 8 B ratio, with a conservative interval.
    let over: Vec<(usize, Estimate)> = r[1..]
        .iter()
        .map(|(b, e)| (*b, harness_measure::stats::crosswise_ratio(e, &at8)))
        .collect();
    let line = 1.0 + SWEEP_MIN_EFFECT;
    let size = Outcome::within(&at8, LAT2_CENTRE / line, LAT2_CENTRE * line);
    let outcome = if size == Outcome::DoesNotHold
        || over.iter().any(|(_, q)| q.at_least(line) == Some(true))
    {
        Outcome::DoesNotHold
    } else if size == Outcome::Holds && over.iter().all(|(_, q)| q.at_least(line) == Some(false)) {
        Outcome::Holds
    } else {
        Outcome::Inconclusive
    };
    let (top_bytes, top) = r[1..]
        .iter()
        .max_by(|a, b| a.1.point_ns.total_cmp(&b.1.point_ns))
        .copied()
        .expect("eight sizes");
    (
        outcome,
        format!(
            "{} at 8 B; the largest other {} at {}",
            show(&at8),
            show(&top),
            size_label(top_bytes)
        ),
    )
}

fn lat3_rule(r: &[(usize, Estimate)]) -> Decided {
    let e = r[0].1;
    (
        Outcome::within(
            &e,
            LAT3_CENTRE / (1.0 + SWEEP_MIN_EFFECT),
            LAT3_CENTRE * (1.0 + SWEEP_MIN_EFFECT),
        ),
        format!("{} at 32 KiB", show(&e)),
    )
}

fn lat4_rule(r: &[(usize, Estimate)]) -> Decided {
    let line = 1.0 + SWEEP_MIN_EFFECT;
    let parts: Vec<Option<bool>> = r.iter().map(|(_, e)| e.at_least(line)).collect();
    let outcome = if parts.contains(&Some(false)) {
        Outcome::DoesNotHold
    } else if parts.iter().all(|p| *p == Some(true)) {
        Outcome::Holds
    } else {
        Outcome::Inconclusive
    };
    let (b, lowest) = r
        .iter()
        .min_by(|x, y| x.1.lower_ns.total_cmp(&y.1.lower_ns))
        .copied()
        .expect("eight sizes");
    (
        outcome,
        format!("lowest {} at {}", show(&lowest), size_label(b)),
    )
}

fn sweep_verdict(
    j: &mut Judge,
    id: &str,
    run: &Judged<Data>,
    sizes: &[usize],
    rule: fn(&[(usize, Estimate)]) -> Decided,
) -> Result<()> {
    let mut r = Reading::new(j);
    let mut rows = sweep_map(&mut r, run.data, sizes, rule)?;
    if id == "LAT-2" {
        rows.push(lat2_shape_row(&mut r, run.data, rule)?);
    }
    r.verdict(id, run.machine(), rows);
    Ok(())
}

// ------------------------------------------- LAT-2: the burst's shape

/// The axis and setting of LAT-2's burst-shape row.
const SHAPE_AXIS: &str = "burst shape";
const SHAPE_SETTING: &str = "a minimal reconstruction's burst instead of the book's (a bare channel, every burst inside one block_on, no IO or time driver, one stack offset)";

/// What the book's shape does to tokio's time per burst next to the
/// minimal one, and crossbeam's as the control, in words.
fn shape_reading(tokio: &Estimate, crossbeam: &Estimate) -> &'static str {
    let line = 1.0 + SWEEP_MIN_EFFECT;
    let within = |e: &Estimate| Outcome::within(e, 1.0 / line, line);
    match within(tokio) {
        Outcome::Holds => {
            "the shape moves tokio's time by less than the minimum effect, so it does not explain a slower tokio"
        }
        Outcome::DoesNotHold if tokio.point_ns > 1.0 => match within(crossbeam) {
            Outcome::Holds => {
                "the book's shape slows tokio's burst by more than the minimum effect and crossbeam's not: the shape explains tokio's extra time"
            }
            _ => "the book's shape slows tokio's burst by more than the minimum effect, and crossbeam's is not clear of it",
        },
        Outcome::DoesNotHold => {
            "the book's shape speeds tokio's burst up by more than the minimum effect"
        }
        _ => "whether the shape moves tokio's time by the minimum effect is undecided",
    }
}

/// LAT-2's row for the burst's shape: the claim's rule with the 8 B ratio
/// timed in the minimal shape (the other sizes from the fair experiment),
/// and what the shape does to each channel.
fn lat2_shape_row(
    r: &mut Reading,
    d: &Data,
    rule: fn(&[(usize, Estimate)]) -> Decided,
) -> Result<Condition> {
    let Some(s) = &d.shapes else {
        return Ok(Condition::new(
            SHAPE_AXIS,
            SHAPE_SETTING,
            Outcome::NotMeasured,
            NOT_IN_RUN,
        ));
    };
    const PAIRED: &str = "paired ratio of medians, window by window";
    let minimal = s.ratio(Shape::TokioMinimal, Shape::CrossbeamMinimal)?;
    let mut ratios = vec![(
        8,
        r.ratio(
            "A at 8 B, minimal shapes: tokio ÷ crossbeam".into(),
            minimal,
            PAIRED,
        )?,
    )];
    for &bytes in &PAYLOAD_SIZES[1..] {
        let e = d.tokio_over_crossbeam(bytes)?;
        ratios.push((bytes, r.ratio(headline_name(bytes), e, PAIRED)?));
    }
    let (outcome, figure) = rule(&ratios);
    let tokio = r.ratio(
        "A at 8 B: tokio's book shape ÷ minimal".into(),
        s.ratio(Shape::TokioBook, Shape::TokioMinimal)?,
        PAIRED,
    )?;
    let crossbeam = r.ratio(
        "A at 8 B: crossbeam's book shape ÷ minimal".into(),
        s.ratio(Shape::CrossbeamBook, Shape::CrossbeamMinimal)?,
        PAIRED,
    )?;
    let instructions = s
        .instructions_ratio(Shape::TokioBook, Shape::TokioMinimal)
        .map(|r| format!(", tokio's instructions {}", Unit::Ratio.show(r)))
        .unwrap_or_default();
    Ok(Condition::new(
        SHAPE_AXIS,
        SHAPE_SETTING,
        outcome,
        format!(
            "{figure} (8 B timed in the minimal shape, the other sizes head to head); the book's shape over the minimal one: tokio's time {}, crossbeam's {}{instructions}: {}",
            tokio.show(Unit::Ratio),
            crossbeam.show(Unit::Ratio),
            shape_reading(&tokio, &crossbeam)
        ),
    ))
}

// ------------------------------------------------------------ judging

/// What a claim about x86-64 says where no x86-64 machine has results.
pub(super) const NO_X86: &str = "no x86-64 results yet";
/// What LAT-4 says where no arm64 machine has results.
pub(super) const NO_ARM64: &str =
    "no arm64 results yet (run the measure-latency workflow and import its file)";

/// Judges one run: the headline (the fair ratio at every size), then each
/// claim its architecture speaks of: LAT-1 and LAT-2 on x86-64, LAT-3 on
/// every machine, LAT-4 on arm64, LAT-5 and LAT-6 on every machine. A claim
/// about the other architecture is stored as not measured by this run (what
/// a release's column reads); the page's verdicts read each claim from the
/// runs of its architecture only (`super::verdicts`).
pub(super) fn judge(run: &Judged<Data>, j: &mut Judge) -> Result<()> {
    for bytes in PAYLOAD_SIZES {
        if let Ok(e) = run.data.tokio_over_crossbeam(bytes) {
            let name = headline_name(bytes);
            j.estimate(
                &name,
                e,
                Unit::Ratio,
                "paired ratio of medians, window by window",
            )?;
            j.headline(&name);
        }
    }
    let all_sizes = PAYLOAD_SIZES.to_vec();
    if is_x86_64(run.arch()) {
        sweep_verdict(j, "LAT-1", run, &[1024, 4096], lat1_rule)?;
        sweep_verdict(j, "LAT-2", run, &all_sizes, lat2_rule)?;
    } else {
        for id in ["LAT-1", "LAT-2"] {
            j.verdict(Verdict::not_measured(claim(id), NO_X86), &[]);
        }
    }
    sweep_verdict(j, "LAT-3", run, &[32768], lat3_rule)?;
    if is_arm64(run.arch()) {
        sweep_verdict(j, "LAT-4", run, &all_sizes, lat4_rule)?;
    } else {
        j.verdict(Verdict::not_measured(claim("LAT-4"), NO_ARM64), &[]);
    }
    backpressure::lat5(j, run)?;
    backpressure::lat6(j, run)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(pairs: &[(usize, f64, f64)]) -> Vec<(usize, Estimate)> {
        pairs
            .iter()
            .map(|&(b, p, spread)| (b, Estimate::around(p, spread)))
            .collect()
    }

    #[test]
    fn the_rules_state_their_minimum_effects() {
        let sweep = format!("Minimum effect {} %", (SWEEP_MIN_EFFECT * 100.0).round());
        let queue = format!("Minimum effect {} %", (QUEUE_MIN_EFFECT * 100.0).round());
        for c in CLAIMS {
            let expected = if c.source == BP_POST { &queue } else { &sweep };
            assert!(
                c.rule.starts_with(expected.as_str()),
                "{}: {}",
                c.id,
                c.rule
            );
        }
    }

    #[test]
    fn lat2_counts_a_tie_within_the_minimum_effect_as_largest() {
        let mut r = at(&[(8, 1.9, 0.02), (64, 2.0, 0.02)]);
        r.extend(
            PAYLOAD_SIZES[2..]
                .iter()
                .map(|&b| (b, Estimate::around(1.2, 0.02))),
        );
        // 64 B is 5 % above 8 B: a real difference, below the minimum effect.
        assert_eq!(lat2_rule(&r).0, Outcome::Holds);
        r[1].1 = Estimate::around(2.5, 0.02);
        assert_eq!(lat2_rule(&r).0, Outcome::DoesNotHold);
        r[1].1 = Estimate::around(2.28, 0.05);
        assert_eq!(lat2_rule(&r).0, Outcome::Inconclusive, "straddles 1.2 x");
        r[1].1 = Estimate::around(1.2, 0.02);
        r[0].1 = Estimate::around(1.2, 0.02);
        assert_eq!(
            lat2_rule(&r).0,
            Outcome::DoesNotHold,
            "below 1.9/1.2 at 8 B"
        );
        let figure = lat2_rule(&r).1;
        assert!(figure.starts_with("1.20× ["), "{figure}");
    }

    #[test]
    fn lat2_has_a_size_as_well_as_an_order() {
        let mut r = at(&[(8, 4.0, 0.02), (64, 3.7, 0.02)]);
        r.extend(
            PAYLOAD_SIZES[2..]
                .iter()
                .map(|&b| (b, Estimate::around(1.3, 0.02))),
        );
        // 8 B the largest, but twice "about 1.9x".
        assert_eq!(lat2_rule(&r).0, Outcome::DoesNotHold);
        r[0].1 = Estimate::around(2.28, 0.05);
        r[1].1 = Estimate::around(1.9, 0.02);
        assert_eq!(
            lat2_rule(&r).0,
            Outcome::Inconclusive,
            "straddles 1.9 x 1.2"
        );
    }

    #[test]
    fn the_sweep_rules_decide_only_beyond_the_minimum_effect() {
        // LAT-1: about the same means within 20 %.
        assert_eq!(
            lat1_rule(&at(&[(1024, 1.1, 0.02), (4096, 0.9, 0.02)])).0,
            Outcome::Holds
        );
        assert_eq!(
            lat1_rule(&at(&[(1024, 1.1, 0.02), (4096, 1.5, 0.02)])).0,
            Outcome::DoesNotHold
        );
        // LAT-3: 1.25 and 1.44 (two full runs) both lie near 1.3.
        assert_eq!(lat3_rule(&at(&[(32768, 1.25, 0.03)])).0, Outcome::Holds);
        assert_eq!(lat3_rule(&at(&[(32768, 1.44, 0.03)])).0, Outcome::Holds);
        assert_eq!(
            lat3_rule(&at(&[(32768, 2.0, 0.03)])).0,
            Outcome::DoesNotHold
        );
        assert_eq!(
            lat3_rule(&at(&[(32768, 1.55, 0.05)])).0,
            Outcome::Inconclusive
        );
        // LAT-4: slower by the minimum effect at every size.
        let all = |p: f64| {
            PAYLOAD_SIZES
                .iter()
                .map(|&b| (b, Estimate::around(p, 0.02)))
                .collect::<Vec<_>>()
        };
        assert_eq!(lat4_rule(&all(1.4)).0, Outcome::Holds);
        assert_eq!(
            lat4_rule(&all(1.1)).0,
            Outcome::DoesNotHold,
            "slower, but by less than 20 %"
        );
        let mut mixed = all(1.4);
        mixed[3].1 = Estimate::around(1.2, 0.05);
        assert_eq!(lat4_rule(&mixed).0, Outcome::Inconclusive);
        assert!(
            lat4_rule(&mixed).1.contains("at 512 B"),
            "{}",
            lat4_rule(&mixed).1
        );
    }
}
