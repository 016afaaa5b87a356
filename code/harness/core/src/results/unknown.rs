//! Fields a results file holds that its reader does not know. Many of the
//! types a file is read into live in fingerprinted code (the harness's
//! `measure/`, each chapter's measuring half), which cannot gain
//! `#[serde(deny_unknown_fields)]` without making every committed result
//! stale. So the check is generic: the file is read into its typed form,
//! written back, and every key of the file that the round trip lost is a
//! field nobody reads.
use serde_json::Value;

/// The paths (`provenance.machine.numa_nodes`, `data.grid[0].footprint.x`)
/// of every key in `raw` that `typed` (the same value read into its type
/// and serialized again) lacks. A key whose value is `null`, `[]` or `{}`
/// is not counted: a field skipped when empty (`skip_serializing_if`) reads
/// back that way.
pub fn unknown_fields(raw: &Value, typed: &Value) -> Vec<String> {
    let mut out = Vec::new();
    walk(raw, typed, "", &mut out);
    out
}

fn walk(raw: &Value, typed: &Value, path: &str, out: &mut Vec<String>) {
    match (raw, typed) {
        (Value::Object(r), Value::Object(t)) => {
            for (k, rv) in r {
                let p = if path.is_empty() {
                    k.clone()
                } else {
                    format!("{path}.{k}")
                };
                match t.get(k) {
                    Some(tv) => walk(rv, tv, &p, out),
                    None if is_empty(rv) => {}
                    None => out.push(p),
                }
            }
        }
        (Value::Array(r), Value::Array(t)) if r.len() == t.len() => {
            for (i, (rv, tv)) in r.iter().zip(t).enumerate() {
                walk(rv, tv, &format!("{path}[{i}]"), out);
            }
        }
        _ => {}
    }
}

fn is_empty(v: &Value) -> bool {
    match v {
        Value::Null => true,
        Value::Array(a) => a.is_empty(),
        Value::Object(o) => o.is_empty(),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::{Deserialize, Serialize};
    use serde_json::json;
    use std::collections::BTreeMap;

    #[derive(Serialize, Deserialize)]
    struct Point {
        bytes: u64,
        #[serde(skip_serializing_if = "Option::is_none")]
        note: Option<String>,
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        repeats: Vec<u32>,
        by_name: BTreeMap<String, u32>,
    }

    #[derive(Serialize, Deserialize)]
    struct Data {
        grid: Vec<Point>,
    }

    fn found(raw: Value) -> Vec<String> {
        let typed: Data = serde_json::from_value(raw.clone()).unwrap();
        unknown_fields(&raw, &serde_json::to_value(&typed).unwrap())
    }

    #[test]
    fn keys_the_type_drops_are_named_by_path() {
        let known =
            json!({"grid": [{"bytes": 1, "note": null, "repeats": [], "by_name": {"any-key": 1}}]});
        assert!(found(known).is_empty());
        let raw = json!({"grid": [{"bytes": 1, "by_name": {}},
            {"bytes": 2, "by_name": {"a": 1}, "after_64": 5}], "new_experiment": {"x": 1}});
        assert_eq!(found(raw), ["grid[1].after_64", "new_experiment"]);
    }
}
