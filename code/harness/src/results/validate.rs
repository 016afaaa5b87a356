//! Every value in a results file, checked by what it is before anything
//! reads it: a file from another machine (or an unlucky edit) must not put
//! `-3.66×`, `NaN %` or `1e21 s` on a page. What a value is follows from its
//! field's name, the convention every chapter's data keeps:
//!
//! | field | is | allowed |
//! |---|---|---|
//! | `*_ns` | a duration in nanoseconds | 0 to 10¹³ (about 2.8 hours); samples (`per_sample_ns`) above 0 |
//! | `*_s` | a duration in seconds | 0 to 10⁶ |
//! | `*share*`, `steal_max` | a fraction of time | 0 to 1 |
//! | `*bytes*` | a byte count | 0 to 2⁴⁰ (1 TiB) |
//! | `load_average_at_start`, `busy_cores_at_start` | cores' worth of work | 0 to 10⁴ |
//! | `samples`, `iterations` | how much a timing rests on | at least 1 |
//! | any other number | a count or a size | 0 to 2⁵³ |
//! | any string under `data` | a name | no markup: none of `< > & " ' \``, no control characters |
//! | `stack` under `data` | a folded call stack (`measure::stacks`) | no control characters; `<`, `&` and quotes allowed (generics), escaped wherever shown |
//!
//! Free text in the provenance (a CPU model, an OS name) is escaped wherever
//! it is shown instead; ids and architectures must be slugs (`is_slug`).
//! The intervals under `derived` may be of any sign, finite.
//! Estimates (an interval that must contain its point) check themselves as
//! they are read (`values::Estimate`).
use anyhow::{bail, Result};
use serde_json::Value;

const MAX_NS: f64 = 1e13;
const MAX_S: f64 = 1e6;
const MAX_BYTES: f64 = (1u64 << 40) as f64;
const MAX_CORES: f64 = 1e4;
const MAX_COUNT: f64 = (1u64 << 53) as f64;

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

/// Checks every number and string under `value` (a whole results file),
/// naming the first impossible one by its path, e.g.
/// `data.sweep[3].timing.per_sample_ns[17] = -2: a sample must be above 0`.
pub fn validate_values(value: &Value) -> Result<()> {
    walk(value, "", "")
}

fn walk(v: &Value, path: &str, field: &str) -> Result<()> {
    match v {
        Value::Object(map) => {
            for (k, child) in map {
                let p = if path.is_empty() {
                    k.clone()
                } else {
                    format!("{path}.{k}")
                };
                walk(child, &p, k)?;
            }
            if let Some(Value::Array(samples)) = map.get("per_sample_ns") {
                if samples.is_empty() {
                    bail!("{path}.per_sample_ns is empty: a timing needs samples");
                }
            }
        }
        Value::Array(items) => {
            for (i, child) in items.iter().enumerate() {
                walk(child, &format!("{path}[{i}]"), field)?;
            }
        }
        Value::Number(n) => {
            let x = n.as_f64().unwrap_or(f64::NAN);
            // Derived intervals may be of any sign (a difference); their
            // order is checked as they are read (`Estimate`).
            let field = if path.starts_with("derived") {
                "derived"
            } else {
                field
            };
            if let Some(why) = impossible(field, x) {
                bail!("{path} = {n}: {why}");
            }
        }
        Value::String(s) if path.starts_with("data") && field == "stack" => {
            if let Some(c) = s.chars().find(|c| c.is_control()) {
                bail!("{path} = {s:?}: a call stack may not hold {c:?}");
            }
        }
        Value::String(s) if path.starts_with("data") => {
            if let Some(c) = s.chars().find(|c| "<>&\"'`".contains(*c) || c.is_control()) {
                bail!("{path} = {s:?}: a name may not hold {c:?}");
            }
        }
        Value::String(_) | Value::Bool(_) | Value::Null => {}
    }
    Ok(())
}

/// Why `x` cannot be a value of `field`, if it cannot.
fn impossible(field: &str, x: f64) -> Option<String> {
    let range = |lo: f64, hi: f64, what: &str| {
        (!(x >= lo && x <= hi)).then(|| format!("{what} must lie between {lo} and {hi}"))
    };
    if !x.is_finite() {
        return Some("not a finite number".into());
    }
    if field == "derived" {
        return None;
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
    if field.ends_with("_s") {
        return range(0.0, MAX_S, "a duration in seconds");
    }
    if field.contains("share") || field == "steal_max" {
        return range(0.0, 1.0, "a share of time");
    }
    if field.contains("bytes") {
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
            "data": {"points": [{"timing": {"samples": 10, "iterations": 100,
            "per_sample_ns": [1.5, 2.0], "mean": {"point_ns": 1.0}}, "bytes": 4096, "design": "std-mutex"}]}});
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
