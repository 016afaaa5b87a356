//! The commands the book build runs: `render`, `export` and `check-book`.
use std::path::Path;
use std::process::{Command, ExitCode};

use anyhow::{bail, Context, Result};

use harness::check;
use harness::registry::{self, ChapterInfo};
use harness::results::Store;

use crate::chapters::{binary, headline};

pub(crate) fn render(store: &Store, chapter: &str, exhibit: &str) -> Result<ExitCode> {
    if chapter == "method" {
        // The method page's exhibits belong to the book, not to one chapter.
        if exhibit != "agreement" {
            bail!("unknown exhibit {exhibit:?} for the method page: expected agreement");
        }
        let chapters: Vec<&'static ChapterInfo> = registry::chapters()?.iter().collect();
        return match harness::agreement::exhibit(&store.root, &chapters, &headline) {
            Ok(md) => {
                print!("{md}");
                Ok(ExitCode::SUCCESS)
            }
            Err(e) => {
                // As a chapter does: into the page, where the build's check
                // finds it and names the file at fault.
                println!(
                    "\n**render error** on the method page, exhibit `agreement`: {}\n",
                    harness::render::escape(&format!("{e:#}"))
                );
                Err(e)
            }
        };
    }
    if chapter == "findings" {
        if exhibit != "claims" && exhibit != "front" {
            bail!("unknown exhibit {exhibit:?} for the findings: expected claims or front");
        }
        return match findings(store, exhibit) {
            Ok(md) => {
                print!("{md}");
                Ok(ExitCode::SUCCESS)
            }
            Err(e) => {
                println!(
                    "\n**render error** in the findings, exhibit `{}`: {}\n",
                    harness::render::escape(exhibit),
                    harness::render::escape(&format!("{e:#}"))
                );
                Err(e)
            }
        };
    }
    let info = registry::find(chapter)?;
    let status = Command::new(binary(info)?)
        .args(["render", exhibit, "--results"])
        .arg(&store.root)
        .status()?;
    Ok(if status.success() {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}

/// Each named chapter's (default: every chapter's) terminal report for one
/// machine (default: this one).
pub(crate) fn report(
    store: &Store,
    chapters: &[String],
    machine: Option<&str>,
) -> Result<ExitCode> {
    let here = harness::measure::machine::Machine::detect().id;
    let machine = machine.unwrap_or(&here);
    let infos: Vec<&ChapterInfo> = registry::select(chapters)?;
    let mut failed = false;
    for info in infos {
        let status = Command::new(binary(info)?)
            .args(["report", "--machine", machine, "--results"])
            .arg(&store.root)
            .status()?;
        failed |= !status.success();
        println!();
    }
    Ok(if failed {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    })
}

/// The Findings page: every chapter's verdicts, from each chapter's binary.
fn findings(store: &Store, exhibit: &str) -> Result<String> {
    let mut all = Vec::new();
    let mut titles = Vec::new();
    for info in registry::chapters()?.iter() {
        let out = Command::new(binary(info)?)
            .args(["findings", "--results"])
            .arg(&store.root)
            .output()?;
        if !out.status.success() {
            bail!(
                "chapter {} could not list its verdicts: {}",
                info.name,
                String::from_utf8_lossy(&out.stderr).trim()
            );
        }
        let found: Vec<harness::Finding> = serde_json::from_slice(&out.stdout)
            .with_context(|| format!("chapter {}: findings output is not JSON", info.name))?;
        all.extend(found);
        titles.push((info.name.to_string(), info.title.to_string()));
    }
    Ok(if exhibit == "front" {
        harness::render::findings::front(&all, &titles)
    } else {
        harness::render::findings::page(&all, &titles)
    })
}

pub(crate) fn export(store: &Store, book: &Path) -> Result<ExitCode> {
    for chapter in registry::chapters()?.iter() {
        let status = Command::new(binary(chapter)?)
            .arg("export")
            .arg(book.join("results").join(&chapter.name))
            .env("BOOK_RESULTS_DIR", &store.root)
            .status()?;
        if !status.success() {
            bail!("exporting {} failed", chapter.name);
        }
    }
    Ok(ExitCode::SUCCESS)
}

pub(crate) fn claims_of(info: &ChapterInfo) -> Result<Vec<String>> {
    let out = Command::new(binary(info)?).arg("exhibits").output()?;
    if !out.status.success() {
        bail!("{} exhibits failed", info.name);
    }
    Ok(String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|l| l.strip_prefix("claim\t"))
        .filter_map(|l| l.split('\t').next())
        .map(str::to_string)
        .collect())
}

pub(crate) fn check_book(book: &Path, src: &Path) -> Result<ExitCode> {
    let mut problems = check::check_includes(src)?;
    // The registry's chapters, as the book's other lists name them (only
    // for the book's own sources: a test book elsewhere has its own).
    let root = src.parent().unwrap_or(Path::new("."));
    if root.join("code").join("Cargo.toml").exists() {
        problems.extend(check::check_registry(root, registry::chapters()?)?);
    }
    // The Findings page must give every chapter's claims a verdict.
    let mut every_claim = Vec::new();
    for c in registry::chapters()?.iter() {
        every_claim.extend(claims_of(c)?);
    }
    let mut pages = vec![
        ("introduction".to_string(), None),
        ("findings".into(), None),
        ("method".into(), None),
        ("reproduce".into(), None),
    ];
    pages.extend(
        registry::chapters()?
            .iter()
            .map(|c| (c.name.to_string(), Some(c))),
    );
    for (page, chapter) in pages {
        let html_path = book.join(format!("{page}.html"));
        let Ok(html) = std::fs::read_to_string(&html_path) else {
            problems.push(format!(
                "{} is missing from the built book",
                html_path.display()
            ));
            continue;
        };
        let markdown = std::fs::read_to_string(src.join(format!("{page}.md"))).unwrap_or_default();
        let claims = match chapter {
            Some(c) => claims_of(c)?,
            None if page == "findings" || page == "introduction" => every_claim.clone(),
            None => Vec::new(),
        };
        let label = format!("chapter {page} ({})", html_path.display());
        problems.extend(check::check_page(
            &label,
            &html,
            &check::exhibits_requested(&markdown),
            &claims,
        ));
    }
    if book.is_dir() {
        problems.extend(check::check_links(book)?);
        problems.extend(check::check_csv(book)?);
    }
    if problems.is_empty() {
        println!("book check: every page present, every exhibit rendered, no errors");
        Ok(ExitCode::SUCCESS)
    } else {
        for p in &problems {
            eprintln!("book check: {p}");
        }
        Ok(ExitCode::FAILURE)
    }
}
