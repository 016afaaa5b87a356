//! Every value in a results file or a published dataset, checked by what it
//! is before anything reads it: a file from another machine (or an unlucky
//! edit) must not put `-3.66×`, `NaN %` or `1e21 s` on a page. One set of
//! rules for the three places numbers live (`data`, `derived`, a published
//! dataset's `rows`). What a value is follows from its field's name, the
//! convention every chapter's data keeps:
//!
//! | field | is | allowed |
//! |---|---|---|
//! | `*_ns` | a duration in nanoseconds | 0 to 10¹³ (about 2.8 hours); samples (`per_sample_ns`) above 0 |
//! | `*_ms` | a duration in milliseconds (published datasets) | 0 to 10⁷ |
//! | `*_s` | a duration in seconds | 0 to 10⁶ |
//! | `*share*`, `steal_max` | a fraction of time | 0 to 1 |
//! | `*percent*`, `*_pct` | a percentage | 0 to 100 |
//! | `*bytes*` | a byte count | a whole number, 0 to 2⁴⁰ (1 TiB) |
//! | `load_average_at_start`, `busy_cores_at_start` | cores' worth of work | 0 to 10⁴ |
//! | `samples`, `iterations` | how much a timing rests on | at least 1 |
//! | any other number | a count or a size | 0 to 2⁵³ |
//! | any number under `derived` or `analysis` | a bootstrapped interval (a time, a ratio, a difference) | finite, within ±10¹³ |
//! | any string under `analysis` | a verdict's text or an estimate's name | at most 4,000 characters; no control or bidi characters |
//! | any string under `data` or `rows` | a name | at most 200 characters; no markup: none of `< > & " ' \``, no control or bidi characters |
//! | `stack` under `data` | a folded call stack (`measure::stacks`) | at most 65,536 characters; no control or bidi characters; `<`, `&` and quotes allowed (generics), escaped wherever shown |
//! | any other string (provenance, a dataset's source) | free text | at most 200 characters (2,000 for a dataset's source and description); no control or bidi characters |
//!
//! Shapes, wherever they appear:
//! - an interval `lower_X`, `point_X`, `upper_X` holds `lower ≤ point ≤ upper`
//!   (worded as `values::Estimate` words it);
//! - a timing's `samples` equals the length of its `per_sample_ns`, the
//!   `repeats` it pools (when any) add up to it, and its `mean` and `median`
//!   points are those samples' mean and median;
//! - a folded profile's `samples` equals the sum of its stacks' `count`s.
//!
//! Free text is escaped wherever it is shown; ids and architectures must be
//! slugs (`is_slug`). The string limits can be raised with
//! `BOOK_MAX_STRING_CHARS` (every limit above multiplied up to it) by
//! someone who truly needs longer text.
use anyhow::{bail, Result};
use serde_json::{Map, Value};

const MAX_NS: f64 = 1e13;
const MAX_MS: f64 = 1e7;
const MAX_S: f64 = 1e6;
const MAX_BYTES: f64 = (1u64 << 40) as f64;
const MAX_CORES: f64 = 1e4;
const MAX_COUNT: f64 = (1u64 << 53) as f64;
/// The largest magnitude a derived interval may take: the largest any unit's
/// value may (a duration in nanoseconds).
const MAX_DERIVED: f64 = MAX_NS;

/// A name in the data (a design, a variant) or a provenance string (a CPU
/// model, an OS): longer than this is not a name.
pub const MAX_NAME_CHARS: usize = 200;
/// A folded call stack: the longest committed is about 3,300 characters.
pub const MAX_STACK_CHARS: usize = 65_536;
/// A published dataset's source (how its dates were found) and description.
pub const MAX_TEXT_CHARS: usize = 2_000;
/// A verdict's evidence, qualifier or figure in a run's `analysis`.
pub const MAX_VERDICT_CHARS: usize = 4_000;
/// Raises every string limit to (at least) this many characters.
pub const MAX_STRING_ENV: &str = "BOOK_MAX_STRING_CHARS";

/// Ids, slugs and chapter names: lowercase letters, digits and `_`, in
/// parts joined by single dashes; at most 80 characters.
pub fn is_slug(s: &str) -> bool {
    !s.is_empty()
        && s.len() <= 80
        && s.split('-').all(|part| {
            !part.is_empty()
                && part
                    .chars()
                    .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_')
        })
}

/// Characters that reorder the text around them (U+202E turns
/// `cpu` into `upc` on screen): never in a name or a provenance string.
pub fn is_bidi_control(c: char) -> bool {
    matches!(c, '\u{061C}' | '\u{200E}' | '\u{200F}' | '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}')
}

/// Where a value lives, which decides the rules for its strings and numbers.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Section {
    /// `data`, or a published dataset's `rows`: measured values and names.
    Data,
    /// `derived` (schema 2) or `analysis` (schema 3): intervals drawn from
    /// the data, and the verdicts' texts.
    Derived,
    /// Provenance and everything else of a results file: free text.
    Provenance,
    /// A published dataset's source and description: longer free text.
    Source,
}

/// Checks every number and string under `value` (a whole results file),
/// naming the first impossible one by its path, e.g.
/// `data.sweep[3].timing.per_sample_ns[17] = -2: a sample must be above 0`.
pub fn validate_values(value: &Value) -> Result<()> {
    top(value, |k| match k {
        "data" => Section::Data,
        "derived" | "analysis" => Section::Derived,
        _ => Section::Provenance,
    })
}

/// The same rules for a published dataset: its `rows` as data, its source
/// and description as free text.
pub fn validate_published(value: &Value) -> Result<()> {
    top(value, |k| match k {
        "rows" => Section::Data,
        _ => Section::Source,
    })
}

fn top(value: &Value, section: impl Fn(&str) -> Section) -> Result<()> {
    match value {
        Value::Object(map) => {
            // Provenance first: what the other sections repeat of it (a
            // verdict's machine is the provenance's machine id) is refused
            // where it is first said, not where it is copied.
            let rank = |k: &String| match section(k) {
                Section::Provenance | Section::Source => 0,
                Section::Data => 1,
                Section::Derived => 2,
            };
            let mut keys: Vec<&String> = map.keys().collect();
            keys.sort_by_key(|k| rank(k));
            for k in keys {
                walk(&map[k], k, k, section(k))?;
            }
            Ok(())
        }
        other => walk(other, "", "", Section::Provenance),
    }
}

fn walk(v: &Value, path: &str, field: &str, section: Section) -> Result<()> {
    match v {
        Value::Object(map) => {
            for (k, child) in map {
                let p = if path.is_empty() {
                    k.clone()
                } else {
                    format!("{path}.{k}")
                };
                walk(child, &p, k, section)?;
            }
            shape(map, path)?;
        }
        Value::Array(items) => {
            for (i, child) in items.iter().enumerate() {
                walk(child, &format!("{path}[{i}]"), field, section)?;
            }
        }
        Value::Number(n) => {
            let x = n.as_f64().unwrap_or(f64::NAN);
            let why = if section == Section::Derived {
                derived(x)
            } else {
                impossible(field, x)
            };
            if let Some(why) = why {
                bail!("{path} = {n}: {why}");
            }
        }
        Value::String(s) => string(s, path, field, section)?,
        Value::Bool(_) | Value::Null => {}
    }
    Ok(())
}

/// The longest a string of this kind may be, and what it is called.
fn string_limit(field: &str, section: Section) -> (usize, &'static str) {
    let (limit, what) = match section {
        Section::Data if field == "stack" => (MAX_STACK_CHARS, "a call stack"),
        Section::Data => (MAX_NAME_CHARS, "a name"),
        Section::Source => (MAX_TEXT_CHARS, "a source's text"),
        Section::Provenance => (MAX_NAME_CHARS, "a provenance string"),
        Section::Derived => (MAX_VERDICT_CHARS, "a verdict's text"),
    };
    let raised = std::env::var(MAX_STRING_ENV)
        .ok()
        .and_then(|v| v.parse::<usize>().ok())
        .unwrap_or(0);
    (limit.max(raised), what)
}

fn string(s: &str, path: &str, field: &str, section: Section) -> Result<()> {
    let (limit, what) = string_limit(field, section);
    // Counting stops past the limit: a 500 MB string is not walked twice.
    let chars = s.chars().take(limit + 1).count();
    if chars > limit {
        bail!(
            "{path} is longer than {limit} characters ({} bytes): {what} is at most {limit} \
             characters (set {MAX_STRING_ENV} to a larger number if you truly need longer text)",
            s.len()
        );
    }
    let shown = || s.chars().take(60).collect::<String>();
    if let Some(c) = s.chars().find(|c| c.is_control() || is_bidi_control(*c)) {
        bail!("{path} = {:?}: {what} may not hold {c:?}", shown());
    }
    if section == Section::Data && field != "stack" {
        if let Some(c) = s.chars().find(|c| "<>&\"'`".contains(*c)) {
            bail!("{path} = {:?}: a name may not hold {c:?}", shown());
        }
    }
    Ok(())
}

/// The rules that tie fields of one object together: an interval around its
/// point, and counts equal to what they count.
fn shape(map: &Map<String, Value>, path: &str) -> Result<()> {
    let at = |k: &str| {
        if path.is_empty() {
            k.to_string()
        } else {
            format!("{path}.{k}")
        }
    };
    for (k, point) in map {
        let Some(unit) = k.strip_prefix("point_") else {
            continue;
        };
        let num = |name: &str| map.get(name).and_then(Value::as_f64);
        let (Some(p), lower, upper) = (
            point.as_f64(),
            num(&format!("lower_{unit}")),
            num(&format!("upper_{unit}")),
        ) else {
            continue;
        };
        // Worded as `values::Estimate` words it, which checks the same as
        // it reads an estimate.
        let (l, u) = (lower.unwrap_or(p), upper.unwrap_or(p));
        if l > p || u < p {
            bail!(
                "{}: interval [{l}, {u}] does not contain its estimate {p}",
                at(&format!("{{lower,point,upper}}_{unit}"))
            );
        }
    }
    let count = |k: &str| map.get(k).and_then(Value::as_u64);
    if let Some(Value::Array(samples)) = map.get("per_sample_ns") {
        if samples.is_empty() {
            bail!("{} is empty: a timing needs samples", at("per_sample_ns"));
        }
        // A timing's `samples` counts the samples it keeps, pooled or not
        // (`Timing::pooled` adds up its repeats' counts).
        if let Some(n) = count("samples") {
            if n != samples.len() as u64 {
                bail!(
                    "{} = {n}, but {} holds {} samples: a count must equal what it counts",
                    at("samples"),
                    at("per_sample_ns"),
                    samples.len()
                );
            }
        }
        // Its mean and median are the statistics of those samples (criterion
        // computes them from the same list; `Timing::of_samples` too): a
        // stored point the samples would not give is refused by name.
        let xs: Vec<f64> = samples.iter().filter_map(Value::as_f64).collect();
        if xs.len() == samples.len() {
            let mean = xs.iter().sum::<f64>() / xs.len() as f64;
            let mut sorted = xs.clone();
            sorted.sort_by(f64::total_cmp);
            let mid = sorted.len() / 2;
            let median = if sorted.len() % 2 == 0 {
                (sorted[mid - 1] + sorted[mid]) / 2.0
            } else {
                sorted[mid]
            };
            for (name, given) in [("mean", mean), ("median", median)] {
                let Some(point) = map
                    .get(name)
                    .and_then(|e| e.get("point_ns"))
                    .and_then(Value::as_f64)
                else {
                    continue;
                };
                if (point - given).abs() > 1e-9 * given.abs().max(point.abs()) {
                    bail!(
                        "{} = {point}, but the {name} of {} is {given}: a stored estimate must \
                         be what its samples give",
                        at(&format!("{name}.point_ns")),
                        at("per_sample_ns")
                    );
                }
            }
        }
        // A pooled timing's repeats count the samples each repeat kept
        // (`Timing::pooled`). Its `samples` counts what criterion took, which
        // can differ from the samples kept, so it is not held to them.
        if let Some(Value::Array(repeats)) = map.get("repeats") {
            let sum: u64 = repeats.iter().filter_map(Value::as_u64).sum();
            if !repeats.is_empty() && sum != samples.len() as u64 {
                bail!(
                    "{} add up to {sum}, but {} holds {} samples: a count must equal what it counts",
                    at("repeats"),
                    at("per_sample_ns"),
                    samples.len()
                );
            }
        }
    }
    if let (Some(Value::Array(folded)), Some(n)) = (map.get("folded"), count("samples")) {
        let sum: u64 = folded
            .iter()
            .filter_map(|f| f.get("count").and_then(Value::as_u64))
            .sum();
        if sum != n {
            bail!(
                "{}: the stacks count {sum} samples, but {} = {n}: a count must equal what it counts",
                at("folded"),
                at("samples")
            );
        }
    }
    Ok(())
}

/// Why `x` cannot be a derived interval's bound or point, if it cannot.
fn derived(x: f64) -> Option<String> {
    if !x.is_finite() {
        return Some("not a finite number".into());
    }
    (x.abs() > MAX_DERIVED)
        .then(|| format!("a derived interval must lie between -{MAX_DERIVED} and {MAX_DERIVED}"))
}

/// Why `x` cannot be a value of `field`, if it cannot.
fn impossible(field: &str, x: f64) -> Option<String> {
    let range = |lo: f64, hi: f64, what: &str| {
        (!(x >= lo && x <= hi)).then(|| format!("{what} must lie between {lo} and {hi}"))
    };
    if !x.is_finite() {
        return Some("not a finite number".into());
    }
    if field == "per_sample_ns" {
        if x <= 0.0 {
            return Some("a sample must be above 0".into());
        }
        return range(0.0, MAX_NS, "a duration in nanoseconds");
    }
    if field.ends_with("_ns") {
        return range(0.0, MAX_NS, "a duration in nanoseconds");
    }
    if field.ends_with("_ms") {
        return range(0.0, MAX_MS, "a duration in milliseconds");
    }
    if field.ends_with("_s") {
        return range(0.0, MAX_S, "a duration in seconds");
    }
    if field.contains("share") || field == "steal_max" {
        return range(0.0, 1.0, "a share of time");
    }
    if field.contains("percent") || field.ends_with("_pct") {
        return range(0.0, 100.0, "a percentage");
    }
    if field.contains("bytes") {
        if x.fract() != 0.0 {
            return Some("a byte count must be a whole number".into());
        }
        return range(0.0, MAX_BYTES, "a byte count");
    }
    if field == "load_average_at_start" || field == "busy_cores_at_start" {
        return range(0.0, MAX_CORES, "cores' worth of work");
    }
    if field == "samples" || field == "iterations" {
        return range(1.0, MAX_COUNT, "a timing's samples and iterations");
    }
    range(0.0, MAX_COUNT, "a count or size")
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn error(v: Value) -> String {
        format!("{:#}", validate_values(&v).unwrap_err())
    }

    #[test]
    fn impossible_values_are_refused_by_path_field_and_value() {
        let ok = json!({"provenance": {"steal_share": 0.01, "load_average_at_start": 0.2},
            "data": {"points": [{"timing": {"samples": 2, "iterations": 100,
            "per_sample_ns": [1.5, 2.0], "mean": {"point_ns": 1.75}}, "bytes": 4096, "design": "std-mutex"}]}});
        validate_values(&ok).unwrap();
        // A call stack names generics and references: markup characters allowed.
        let stack = json!({"data": {"profile": {"design": "tokio-swap", "hz": 997, "samples": 2,
            "folded": [{"stack": "w;<alloc::vec::Vec<T> as core::ops::Drop>::drop;f<&'a str>", "count": 2}]}}});
        validate_values(&stack).unwrap();
        let cases = [
            (
                json!({"data": {"created": u64::MAX}}),
                "data.created = 18446744073709551615",
            ),
            (
                json!({"data": {"t": {"point_ns": 1e30}}}),
                "data.t.point_ns = 1e+30",
            ),
            (
                json!({"data": {"per_sample_ns": [1.0, -2.0]}}),
                "per_sample_ns[1] = -2.0: a sample must be above 0",
            ),
            (
                json!({"data": {"per_sample_ns": [0.0]}}),
                "a sample must be above 0",
            ),
            (
                json!({"provenance": {"steal_share": 7.5}}),
                "provenance.steal_share = 7.5: a share",
            ),
            (
                json!({"provenance": {"load_average_at_start": -5}}),
                "load_average_at_start = -5",
            ),
            (json!({"data": {"bytes_per_burst": 1e13}}), "a byte count"),
            (json!({"data": {"samples": 0}}), "data.samples = 0"),
            (
                json!({"data": {"t": {"per_sample_ns": []}}}),
                "data.t.per_sample_ns is empty",
            ),
            (
                json!({"data": {"design": "<script>"}}),
                "data.design = \"<script>\": a name may not hold '<'",
            ),
            (
                json!({"data": {"wall_time_s": 1e9}}),
                "a duration in seconds",
            ),
            (
                json!({"data": {"profile": {"folded": [{"stack": "t;f\nx", "count": 1}]}}}),
                "a call stack may not hold '\\n'",
            ),
            (
                json!({"data": {"profile": {"design": "<b>", "folded": []}}}),
                "data.profile.design = \"<b>\": a name may not hold '<'",
            ),
        ];
        for (v, expected) in cases {
            let e = error(v);
            assert!(e.contains(expected), "{e:?} lacks {expected:?}");
        }
    }

    #[test]
    fn derived_intervals_and_shapes_follow_the_same_rules() {
        let ok = json!({"derived": {"k": {"point_ns": -0.1, "lower_ns": -0.2, "upper_ns": 0.3}},
            "data": {"t": {"samples": 3, "per_sample_ns": [1.0, 2.0, 3.0], "repeats": [1, 2]},
            "p": {"samples": 3, "folded": [{"stack": "a;b", "count": 1}, {"stack": "a", "count": 2}]}}});
        validate_values(&ok).unwrap();
        // An even count's median is the mean of the middle two.
        validate_values(
            &json!({"data": {"t": {"samples": 4, "per_sample_ns": [4.0, 1.0, 2.0, 6.0],
            "mean": {"point_ns": 3.25}, "median": {"point_ns": 3.0}}}}),
        )
        .unwrap();
        let cases = [
            // The case the issue found: every interval 1e30 around -1e30.
            (
                json!({"derived": {"k": {"point_ns": 1e30, "lower_ns": -1e30, "upper_ns": 1e30}}}),
                "derived.k.lower_ns = -1e+30: a derived interval must lie between",
            ),
            (
                json!({"derived": {"k": {"point_ns": 2.0, "lower_ns": 3.0, "upper_ns": 4.0}}}),
                "derived.k.{lower,point,upper}_ns: interval [3, 4] does not contain its estimate 2",
            ),
            (
                json!({"data": {"m": {"point_ns": 2.0, "lower_ns": 1.0, "upper_ns": 1.5}}}),
                "data.m.{lower,point,upper}_ns: interval [1, 1.5] does not contain its estimate 2",
            ),
            (
                json!({"rows": {"point_ms": 7.0, "lower_ms": 1.0, "upper_ms": 1e9}}),
                "a duration in milliseconds",
            ),
            (
                json!({"data": {"t": {"samples": 2, "per_sample_ns": [1.0, 2.0], "repeats": [1, 2]}}}),
                "data.t.repeats add up to 3, but data.t.per_sample_ns holds 2 samples",
            ),
            (
                json!({"data": {"p": {"samples": 9, "folded": [{"stack": "a", "count": 2}]}}}),
                "data.p.folded: the stacks count 2 samples, but data.p.samples = 9",
            ),
            // Issue 57: a count that says 49 of 50 samples, or an estimate
            // the samples would not give.
            (
                json!({"data": {"t": {"samples": 2, "per_sample_ns": [1.0, 2.0, 3.0]}}}),
                "data.t.samples = 2, but data.t.per_sample_ns holds 3 samples",
            ),
            (
                json!({"data": {"t": {"samples": 3, "per_sample_ns": [1.0, 2.0, 6.0],
                    "mean": {"point_ns": 3.0}, "median": {"point_ns": 3.0}}}}),
                "data.t.median.point_ns = 3, but the median of data.t.per_sample_ns is 2",
            ),
            (
                json!({"data": {"t": {"samples": 4, "per_sample_ns": [1.0, 2.0, 3.0, 6.0],
                    "mean": {"point_ns": 2.5}, "median": {"point_ns": 2.5}}}}),
                "data.t.mean.point_ns = 2.5, but the mean of data.t.per_sample_ns is 3",
            ),
            (json!({"data": {"total_bytes": 1.5}}), "a whole number"),
            (json!({"data": {"cpu_percent": 101}}), "a percentage"),
        ];
        for (v, expected) in cases {
            let e = error(v);
            assert!(e.contains(expected), "{e:?} lacks {expected:?}");
        }
        let rows = json!({"rows": [{"point_ms": 2.0, "lower_ms": 3.0, "upper_ms": 4.0}]});
        let e = format!("{:#}", validate_published(&rows).unwrap_err());
        assert!(
            e.contains("rows[0].{lower,point,upper}_ms: interval [3, 4] does not"),
            "{e}"
        );
    }

    #[test]
    fn strings_have_limits_and_no_bidi_controls() {
        let long = "x".repeat(MAX_NAME_CHARS + 1);
        let e = error(json!({"provenance": {"machine": {"cpu": long}}}));
        assert!(
            e.contains("provenance.machine.cpu is longer than 200 characters")
                && e.contains(MAX_STRING_ENV),
            "{e}"
        );
        let e = error(json!({"provenance": {"machine": {"os": "Linux\u{202E}xuniL"}}}));
        assert!(
            e.contains("provenance.machine.os") && e.contains("'\\u{202e}'"),
            "{e}"
        );
        let e = error(json!({"data": {"design": "a\u{2066}b"}}));
        assert!(e.contains("data.design"), "{e}");
        let e = error(json!({"provenance": {"rustc": "rustc\n1.0"}}));
        assert!(e.contains("provenance.rustc"), "{e}");
        let stack = "f;".repeat(MAX_STACK_CHARS);
        let e = error(json!({"data": {"p": {"folded": [{"stack": stack, "count": 1}]}}}));
        assert!(e.contains("a call stack is at most 65536"), "{e}");
        // A name of 200 characters is still a name.
        validate_values(&json!({"provenance": {"machine": {"cpu": "x".repeat(200)}}})).unwrap();
        // A machine id too long is named where it is given, not where a
        // verdict repeats it (`analysis` sorts first).
        let id = "x".repeat(5_000);
        let e = error(json!({"analysis": {"verdicts": [{"machine": id}]},
            "provenance": {"machine": {"id": id}}}));
        assert!(
            e.contains("provenance.machine.id is longer than 200 characters"),
            "{e}"
        );
    }

    #[test]
    fn every_committed_file_passes() {
        let root = crate::code_dir().join("results");
        let mut seen = 0;
        let mut stack = vec![root];
        while let Some(dir) = stack.pop() {
            for entry in std::fs::read_dir(&dir).unwrap() {
                let path = entry.unwrap().path();
                if path.is_dir() {
                    stack.push(path);
                    continue;
                }
                if path.extension().is_none_or(|e| e != "json") {
                    continue;
                }
                let v: Value =
                    serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
                let name = path.file_name().unwrap().to_string_lossy();
                let checked = if name.starts_with("published-") {
                    validate_published(&v)
                } else {
                    validate_values(&v)
                };
                checked.unwrap_or_else(|e| panic!("{}: {e:#}", path.display()));
                seen += 1;
            }
        }
        assert!(seen > 10, "only {seen} files found");
    }

    #[test]
    fn slugs_are_plain() {
        for good in ["x86_64-amd-epyc-2c", "fan-in", "a", "aarch64"] {
            assert!(is_slug(good), "{good}");
        }
        for bad in [
            "",
            "-a",
            "a--b",
            "A",
            "a b",
            "<script>",
            "a.json",
            &"a".repeat(81),
        ] {
            assert!(!is_slug(bad), "{bad}");
        }
    }
}
