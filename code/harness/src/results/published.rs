//! Numbers published by the posts the book re-measures, kept as data with
//! their source. They are drawn as reference rows, never mixed with measurements.
use std::collections::BTreeMap;
use std::path::Path;

use anyhow::{bail, Context, Result};
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

pub const SCHEMA: &str = "async-rust-measured/published";

#[derive(Clone, Debug, Serialize, Deserialize)]
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
pub struct Dataset {
    pub schema: String,
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
        let text = std::fs::read_to_string(path)
            .with_context(|| format!("cannot read published dataset {}", path.display()))?;
        let ds: Dataset = serde_json::from_str(&text)
            .with_context(|| format!("published dataset {} is not valid", path.display()))?;
        if ds.schema != SCHEMA {
            bail!(
                "{} is not a published dataset (schema {:?})",
                path.display(),
                ds.schema
            );
        }
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
        use crate::render::escape_markdown;
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
        use crate::render::html_escape;
        format!(
            "<a href=\"{}\">{}</a>, {}",
            html_escape(&self.safe_url()),
            html_escape(&self.source.title),
            html_escape(&self.source.machine)
        )
    }
}
