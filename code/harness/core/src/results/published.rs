//! Numbers published by the posts the book re-measures, kept as data with
//! their source. They are drawn as reference rows, never mixed with measurements.
use std::collections::BTreeMap;
use std::path::Path;

use anyhow::{bail, Context, Result};
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

pub const SCHEMA: &str = "async-rust-measured/published";

#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Source {
    /// Title of the post, as a reader would search for it.
    pub title: String,
    pub url: String,
    /// The machine the numbers were measured on, as the source states it.
    pub machine: String,
    pub code: Option<String>,
    /// The day the post was published (YYYY-MM-DD).
    pub published: Option<String>,
    /// The release of each measured crate that was current that day (the
    /// `releases` exhibit measures the chapter there too).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub releases_then: BTreeMap<String, String>,
    /// How `published` and `releases_then` were determined, with sources.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub releases_how: Option<String>,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Dataset {
    pub schema: String,
    /// SHA-256 of everything else in the file (see [`checksum`]), written by
    /// `harness seal-published`: a dataset edited afterwards stops the build
    /// until whoever edited it seals it again, on purpose.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub checksum: Option<String>,
    pub name: String,
    pub source: Source,
    /// What one row means, in the book's words.
    pub description: String,
    pub rows: Vec<BTreeMap<String, serde_json::Value>>,
}

impl Dataset {
    /// Reads a dataset. Published data is reference data that lives with the
    /// committed results: when `path` points into another results folder (a
    /// smoke run's, say) that lacks it, the committed copy is read instead.
    pub fn load(path: &Path) -> Result<Dataset> {
        let committed = path
            .file_name()
            .zip(path.parent().and_then(|p| p.file_name()))
            .map(|(file, chapter)| crate::code_dir().join("results").join(chapter).join(file));
        let path = match committed {
            Some(c) if !path.exists() && c.exists() => c,
            _ => path.to_path_buf(),
        };
        let path = path.as_path();
        let value = read_value(path)?;
        let stored = value.get("checksum").and_then(|c| c.as_str());
        let now = checksum(&value)?;
        match stored {
            None => bail!(
                "published dataset {} carries no checksum: seal it with \
                 `code/target/release/harness seal-published {}` once its numbers are checked \
                 against the source",
                path.display(),
                path.display()
            ),
            Some(c) if c != now => bail!(
                "published dataset {} was edited after it was sealed (its checksum no longer \
                 matches its contents): restore it (git checkout), or, if the edit is a checked \
                 correction, seal it again with `code/target/release/harness seal-published {}`",
                path.display(),
                path.display()
            ),
            Some(_) => {}
        }
        let ds: Dataset = serde_path_to_error::deserialize(&value).map_err(|e| {
            anyhow::anyhow!(
                "published dataset {} is not valid: at `{}`: {}",
                path.display(),
                e.path(),
                e.inner()
            )
        })?;
        Ok(ds)
    }

    /// The rows as the chapter's own row type.
    pub fn rows<R: DeserializeOwned>(&self) -> Result<Vec<R>> {
        self.rows
            .iter()
            .enumerate()
            .map(|(i, row)| {
                serde_json::from_value(serde_json::Value::Object(row.clone().into_iter().collect()))
                    .with_context(|| format!("published dataset {:?}, row {}", self.name, i + 1))
            })
            .collect()
    }

    /// "title (machine)" with a link, for captions and tables; the text
    /// escaped (it comes from a file), the URL refused unless it is http(s)
    /// and free of characters that would end the link.
    pub fn citation(&self) -> String {
        use crate::escape::escape_markdown;
        format!(
            "[{}]({}), {}",
            escape_markdown(&self.source.title),
            self.safe_url(),
            escape_markdown(&self.source.machine)
        )
    }

    fn safe_url(&self) -> String {
        let u = &self.source.url;
        let plain = (u.starts_with("https://") || u.starts_with("http://"))
            && !u.contains(|c: char| c.is_whitespace() || "()<>\"'`".contains(c));
        if plain {
            u.clone()
        } else {
            "#".into()
        }
    }

    /// The same as HTML, for figure captions (raw HTML on the page).
    pub fn citation_html(&self) -> String {
        use crate::escape::html_escape;
        format!(
            "<a href=\"{}\">{}</a>, {}",
            html_escape(&self.safe_url()),
            html_escape(&self.source.title),
            html_escape(&self.source.machine)
        )
    }
}

/// A published dataset as JSON, read within the results size limit, of the
/// published schema, every value checked (`validate_published`).
fn read_value(path: &Path) -> Result<serde_json::Value> {
    let text = crate::results::read_limited(path)
        .with_context(|| format!("cannot read published dataset {}", path.display()))?;
    let value: serde_json::Value = serde_json::from_str(&text)
        .with_context(|| format!("published dataset {} is not valid JSON", path.display()))?;
    let schema = value.get("schema").and_then(|s| s.as_str());
    if schema != Some(SCHEMA) {
        bail!(
            "{} is not a published dataset (schema {:?})",
            path.display(),
            schema.unwrap_or("missing")
        );
    }
    crate::results::validate_published(&value).with_context(|| {
        format!(
            "published dataset {} holds an impossible value",
            path.display()
        )
    })?;
    Ok(value)
}

/// SHA-256, in hex, of a published dataset without its `checksum` field, in
/// serde_json's compact form (object keys sorted, numbers in their shortest
/// exact form): the rows, the source and the description.
pub fn checksum(value: &serde_json::Value) -> Result<String> {
    use sha2::{Digest, Sha256};
    let mut whole = value.clone();
    if let Some(obj) = whole.as_object_mut() {
        obj.remove("checksum");
    }
    let digest = Sha256::digest(serde_json::to_vec(&whole)?);
    Ok(digest.iter().map(|b| format!("{b:02x}")).collect())
}

/// Writes the checksum of a published dataset into it (`harness
/// seal-published`): after its schema line when it has none, in place of
/// the old one when it has. Nothing else in the file changes, not a number,
/// not the order of its fields. Returns whether the file changed.
pub fn seal(path: &Path) -> Result<bool> {
    let value = read_value(path)?;
    let text = std::fs::read_to_string(path)?;
    let sum = checksum(&value)?;
    let line = format!("\"checksum\": \"{sum}\"");
    let sealed = match value.get("checksum").and_then(|c| c.as_str()) {
        Some(old) if old == sum => return Ok(false),
        Some(old) => text.replacen(&format!("\"checksum\": \"{old}\""), &line, 1),
        None => {
            let schema = format!("\"schema\": \"{SCHEMA}\",");
            if !text.contains(&schema) {
                bail!(
                    "{}: no `{schema}` line to put the checksum after",
                    path.display()
                );
            }
            text.replacen(&schema, &format!("{schema}\n  {line},"), 1)
        }
    };
    let back: serde_json::Value = serde_json::from_str(&sealed)?;
    if checksum(&back)? != sum || back.get("checksum").and_then(|c| c.as_str()) != Some(&sum) {
        bail!(
            "{}: sealing would change more than the checksum",
            path.display()
        );
    }
    crate::results::write_atomically(path, sealed.as_bytes())?;
    Ok(true)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn committed() -> Vec<std::path::PathBuf> {
        let root = crate::code_dir().join("results");
        let mut out = Vec::new();
        for chapter in std::fs::read_dir(&root).unwrap() {
            let dir = chapter.unwrap().path();
            for f in std::fs::read_dir(&dir).into_iter().flatten() {
                let f = f.unwrap().path();
                let name = f.file_name().unwrap().to_string_lossy().to_string();
                if name.starts_with("published-") && name.ends_with(".json") {
                    out.push(f);
                }
            }
        }
        out
    }

    #[test]
    fn every_committed_dataset_is_sealed_and_valid() {
        let all = committed();
        assert!(all.len() >= 5, "{all:?}");
        for p in all {
            Dataset::load(&p).unwrap_or_else(|e| panic!("{e:#}"));
        }
    }

    #[test]
    fn an_edited_dataset_is_refused_until_sealed_again() {
        let src = crate::code_dir().join("results/mutex-cost/published-mutex.json");
        let dir = tempfile::tempdir().unwrap();
        let chapter = dir.path().join("mutex-cost");
        std::fs::create_dir_all(&chapter).unwrap();
        let copy = chapter.join("published-mutex.json");
        let text = std::fs::read_to_string(&src).unwrap();
        // The std row's point moved: the published ratio 2.24x becomes 5.41x.
        let edited = text
            .replacen("\"lower_ms\": 7.2295", "\"lower_ms\": 2.99", 1)
            .replacen("\"point_ms\": 7.2521", "\"point_ms\": 3.0", 1)
            .replacen("\"upper_ms\": 7.278", "\"upper_ms\": 3.01", 1);
        assert_ne!(edited, text);
        std::fs::write(&copy, &edited).unwrap();
        let e = format!("{:#}", Dataset::load(&copy).unwrap_err());
        assert!(
            e.contains("was edited after it was sealed") && e.contains("published-mutex.json"),
            "{e}"
        );
        // An impossible value is named by its path, sealed or not.
        std::fs::write(
            &copy,
            text.replacen("\"upper_ms\": 7.278", "\"upper_ms\": 7.0", 1),
        )
        .unwrap();
        let e = format!("{:#}", Dataset::load(&copy).unwrap_err());
        assert!(
            e.contains("rows[1].{lower,point,upper}_ms: interval [7.2295, 7] does not contain"),
            "{e}"
        );
        // A field no one reads.
        std::fs::write(
            &copy,
            text.replacen(
                "\"name\": \"mutex\",",
                "\"name\": \"mutex\", \"extra\": 1,",
                1,
            ),
        )
        .unwrap();
        assert!(seal(&copy).unwrap());
        let e = format!("{:#}", Dataset::load(&copy).unwrap_err());
        assert!(e.contains("`extra`"), "{e}");
        // Sealed again on purpose, the edit loads; nothing but the checksum changed.
        std::fs::write(&copy, &edited).unwrap();
        assert!(seal(&copy).unwrap());
        assert!(!seal(&copy).unwrap(), "sealing twice changes nothing");
        let resealed = std::fs::read_to_string(&copy).unwrap();
        let strip = |t: &str| {
            t.lines()
                .filter(|l| !l.contains("\"checksum\""))
                .collect::<Vec<_>>()
                .join("\n")
        };
        assert_eq!(strip(&resealed), strip(&edited));
        Dataset::load(&copy).unwrap();
    }
}
