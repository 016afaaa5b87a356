//! The page check: the chapter's page shows what the chapter lists, and
//! every listing it includes shows code.
use std::path::{Path, PathBuf};

use anyhow::{bail, ensure, Context, Result};

use super::checks::{join, listed};
use super::subject::Subject;

/// The chapter's page: `src/<chapter>.md`, or the template's `page.md`.
fn page_of(s: &Subject) -> Result<(PathBuf, PathBuf)> {
    if let Some(page) = &s.suite.page {
        let src = page
            .parent()
            .map_or_else(|| PathBuf::from("."), Path::to_path_buf);
        return Ok((page.clone(), src));
    }
    let code = harness_core::find_code_dir()?;
    let src = code.join("..").join("src");
    let chapter = &s.suite.chapter;
    for page in [
        src.join(format!("{chapter}.md")),
        code.join(chapter).join("page.md"),
    ] {
        if page.is_file() {
            return Ok((page, src));
        }
    }
    bail!("chapter {chapter} has no page (src/{chapter}.md)")
}

/// Every `{{#include file:anchor}}` of the page shows code (mdBook would
/// include nothing, silently), and every exhibit the page renders is one
/// the chapter lists.
pub(crate) fn page(s: &Subject) -> Result<()> {
    let (page, src) = page_of(s)?;
    let text =
        std::fs::read_to_string(&page).with_context(|| format!("reading {}", page.display()))?;
    let mut problems = Vec::new();
    let mut includes = 0;
    for include in text.split("{{#include ").skip(1) {
        includes += 1;
        let spec = include.split("}}").next().unwrap_or_default().trim();
        if let Err(e) = included(&src, spec) {
            problems.push(format!(
                "{}: {{{{#include {spec}}}}}: {e:#}",
                page.display()
            ));
        }
    }
    if includes == 0 {
        problems.push(format!(
            "{} includes no listing of the chapter's code",
            page.display()
        ));
    }
    let listed = listed(s)?;
    let ask = format!("harness render {} ", s.suite.chapter);
    for line in text.lines().filter(|l| l.contains("cmdrun")) {
        if let Some((_, rest)) = line.split_once(&ask) {
            let name = rest.split_whitespace().next().unwrap_or_default();
            if !listed.exhibits.iter().any(|e| e == name) {
                problems.push(format!(
                    "{} renders exhibit {name:?}, which the chapter does not list",
                    page.display()
                ));
            }
        }
    }
    join(problems)
}

/// What `{{#include spec}}` shows, relative to `src`, is not empty.
fn included(src: &Path, spec: &str) -> Result<()> {
    let (file, part) = match spec.split_once(':') {
        Some((f, p)) => (f, Some(p)),
        None => (spec, None),
    };
    let path = src.join(file);
    let source = std::fs::read_to_string(&path)
        .with_context(|| format!("cannot read {}", path.display()))?;
    let shown: Vec<&str> = match part {
        None => source.lines().collect(),
        Some(p) if p.chars().next().is_some_and(|c| c.is_ascii_digit()) => {
            let mut bounds = p.split(':').map(|n| n.parse::<usize>().ok());
            let from = bounds.next().flatten().unwrap_or(1).max(1);
            let to = bounds.next().flatten().unwrap_or(usize::MAX);
            source
                .lines()
                .skip(from - 1)
                .take(to.saturating_sub(from - 1))
                .collect()
        }
        Some(anchor) => {
            let lines: Vec<&str> = source.lines().collect();
            let is = |l: &str, mark: &str| {
                l.split_once(mark)
                    .is_some_and(|(_, name)| name.trim() == anchor)
            };
            let start = lines
                .iter()
                .position(|l| is(l, "ANCHOR: "))
                .with_context(|| format!("{file} has no anchor {anchor}"))?;
            let end = lines[start..]
                .iter()
                .position(|l| is(l, "ANCHOR_END: "))
                .with_context(|| format!("{file}: anchor {anchor} is never closed"))?;
            lines[start + 1..start + end]
                .iter()
                .copied()
                .filter(|l| !l.contains("ANCHOR"))
                .collect()
        }
    };
    ensure!(
        shown.iter().any(|l| !l.trim().is_empty()),
        "{file}: shows nothing"
    );
    Ok(())
}
