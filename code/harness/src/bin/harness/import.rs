//! `harness import` and `harness convert`: results files from elsewhere,
//! validated before anything is written.
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{bail, Context, Result};

use harness_core::registry;
use harness_core::results::host::{self, Host};
use harness_core::results::{read_limited, value_checksum_matches, write_atomically, Store};

use crate::chapters::chapter_says;

pub(crate) fn import(
    store: &Store,
    files: &[PathBuf],
    accept_edited: bool,
    same_host: bool,
) -> Result<ExitCode> {
    if files.is_empty() {
        bail!("name at least one results file to import");
    }
    // Validate everything first; copy only if every file passes.
    let mut accepted = Vec::new();
    for file in files {
        // The size limit before a byte is parsed.
        let text = read_limited(file).context("rejected")?;
        let value: serde_json::Value = serde_json::from_str(&text)
            .with_context(|| format!("{} is not valid JSON", file.display()))?;
        let chapter = value
            .get("chapter")
            .and_then(|c| c.as_str())
            .with_context(|| format!("{} names no chapter", file.display()))?;
        let info = registry::find(chapter).with_context(|| format!("in {}", file.display()))?;
        if value["provenance"]["profile"].as_str() == Some("smoke") {
            bail!(
                "rejected {}: a smoke run only exercises the code and is never published; \
                 measure with scripts/fresh --profile quick or full",
                file.display()
            );
        }
        // The chapter reads the file as the book will: schema, every value,
        // file name = machine id, and the chapter's own checks.
        chapter_says(info, "check", file).context("rejected")?;
        if !value_checksum_matches(&value)? {
            if !accept_edited {
                bail!(
                    "rejected {}: its numbers no longer match its checksum, so they were \
                     changed after measuring. Import it anyway with --accept-edited \
                     (scripts/import --accept-edited FILE) and the page marks it \"edited\"",
                    file.display()
                );
            }
            eprintln!(
                "{}: numbers edited after measuring; imported as edited (--accept-edited)",
                file.display()
            );
        }
        let machine = value["provenance"]["machine"]["id"].as_str().unwrap_or("");
        if machine.starts_with("published") {
            bail!(
                "rejected {}: machine id {machine:?} would read as a published dataset",
                file.display()
            );
        }
        // A release variant (`scripts/fresh --with`) goes beside the others
        // of its chapter's releases/, never in place of the machine's run.
        let release: Option<std::collections::BTreeMap<String, String>> = value
            .get("release")
            .map(|r| serde_json::from_value(r["crates"].clone()))
            .transpose()
            .with_context(|| format!("{}: release.crates", file.display()))?;
        let target = match &release {
            Some(crates) => store.release_path(chapter, machine, crates),
            None => store.results_path(chapter, machine),
        };
        if target.exists() && !same_host {
            let before: Option<Host> = read_value_field(&target, "host")?;
            let now: Option<Host> = read_value_field(file, "host")?;
            if before.is_none() || before != now {
                bail!(
                    "refusing to replace {}: it was measured on {}, and {} on {}, both under \
                     machine id {machine:?}. Two hosts under one id would mix their numbers. If \
                     the hosts differ, measure the new one under its own id (BOOK_MACHINE_ID=NAME \
                     scripts/fresh on that host); if they are the same, confirm it with \
                     --same-host",
                    target.display(),
                    host::describe(before.as_ref()),
                    file.display(),
                    host::describe(now.as_ref())
                );
            }
        }
        if accepted.iter().any(|(t, _, _)| *t == target) {
            bail!(
                "rejected {}: another file given holds {chapter} results of machine {machine:?} too",
                file.display()
            );
        }
        accepted.push((target, text, chapter.to_string()));
    }
    for (target, text, chapter) in accepted {
        // One writer per chapter: a run adopting its file waits for this too.
        let _writer = harness_core::lock::wait(&store.root, &chapter)?;
        let replaced = if target.exists() {
            " (replacing that machine's earlier file)"
        } else {
            ""
        };
        write_atomically(&target, text.as_bytes())?;
        println!("imported {}{replaced}", target.display());
    }
    Ok(ExitCode::SUCCESS)
}

/// A field of a results file already in place, or `None` when it has none.
fn read_value_field<T: serde::de::DeserializeOwned>(
    path: &std::path::Path,
    field: &str,
) -> Result<Option<T>> {
    let value: serde_json::Value = serde_json::from_str(&read_limited(path)?)
        .with_context(|| format!("{} is not valid JSON", path.display()))?;
    value
        .get(field)
        .filter(|v| !v.is_null())
        .map(|v| serde_json::from_value(v.clone()))
        .transpose()
        .with_context(|| format!("{}: {field}", path.display()))
}

/// See `Cmd::SealPublished`.
pub(crate) fn seal_published(files: &[PathBuf]) -> Result<ExitCode> {
    if files.is_empty() {
        bail!("seal-published: name the published datasets to seal");
    }
    for file in files {
        let changed = harness_core::results::published::seal(file)?;
        println!(
            "{} {}",
            if changed { "sealed" } else { "already sealed" },
            file.display()
        );
    }
    Ok(ExitCode::SUCCESS)
}

/// See `Cmd::Convert`. Every file is converted in memory and checked by its
/// chapter before any is written.
pub(crate) fn convert(files: &[PathBuf]) -> Result<ExitCode> {
    if files.is_empty() {
        bail!("convert: name the schema-1 or schema-2 results files to rewrite");
    }
    let mut converted = Vec::new();
    for file in files {
        let text = std::fs::read_to_string(file)
            .with_context(|| format!("cannot read {}", file.display()))?;
        let mut v: serde_json::Value = serde_json::from_str(&text)
            .with_context(|| format!("{} is not valid JSON", file.display()))?;
        match v.get("schema_version").and_then(|n| n.as_u64()) {
            Some(1) => {}
            Some(2) => {
                // Read as schema 3 by the chapter (`derived` dropped, the
                // checksum by schema 3's rule), and judged: see below.
                converted.push((file.clone(), text.into_bytes()));
                continue;
            }
            Some(n) => bail!(
                "{} is schema {n}, not 1 or 2: nothing to convert",
                file.display()
            ),
            None => bail!("{} has no schema version", file.display()),
        }
        let checksum = harness_core::results::checksum(&v["data"])?;
        let obj = v
            .as_object_mut()
            .with_context(|| format!("{} is not a JSON object", file.display()))?;
        obj.insert(
            "schema_version".into(),
            harness_core::results::SCHEMA_VERSION.into(),
        );
        obj.insert("checksum".into(), checksum.into());
        let mut bytes = serde_json::to_vec_pretty(&v)?;
        bytes.push(b'\n');
        converted.push((file.clone(), bytes));
    }
    let scratch = tempfile::tempdir()?;
    let mut staged = Vec::new();
    for (file, bytes) in &converted {
        let chapter = file
            .parent()
            .and_then(|d| d.file_name())
            .and_then(|n| n.to_str())
            .with_context(|| format!("{} is not in a chapter's folder", file.display()))?;
        let info = registry::find(chapter).with_context(|| format!("in {}", file.display()))?;
        let copy = scratch
            .path()
            .join(chapter)
            .join(file.file_name().unwrap_or_default());
        write_atomically(&copy, bytes)?;
        crate::chapters::chapter_judges(info, &copy).with_context(|| {
            format!(
                "{} converted does not pass its chapter's checks",
                file.display()
            )
        })?;
        staged.push((file.clone(), std::fs::read(&copy)?));
    }
    for (file, bytes) in &staged {
        write_atomically(file, bytes)?;
        println!(
            "converted {} to schema {}",
            file.display(),
            harness_core::results::SCHEMA_VERSION
        );
    }
    Ok(ExitCode::SUCCESS)
}
