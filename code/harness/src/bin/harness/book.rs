//! The commands the book build runs: `render`, `export` and `check-book`.
use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};
use std::time::UNIX_EPOCH;

use anyhow::{bail, Context, Result};
use harness::cli::{render_error, Rendered};
use sha2::{Digest, Sha256};

use crate::check;
use harness_core::registry::{self, ChapterInfo};
use harness_core::results::Store;

use crate::chapters::{binary, headline};

pub(crate) fn render(store: &Store, chapter: &str, exhibit: &str) -> Result<ExitCode> {
    if chapter == "method" {
        // The method page's exhibits belong to the book, not to one chapter.
        if exhibit != "agreement" {
            bail!("unknown exhibit {exhibit:?} for the method page: expected agreement");
        }
        let chapters: Vec<&'static ChapterInfo> = registry::chapters()?.iter().collect();
        // Each replicate file's headline comes from its chapter's binary,
        // which judges it again (seconds each): the exhibit is kept in the
        // render cache under a key of every binary and file it reads.
        let mut bins: Vec<PathBuf> = chapters.iter().map(|c| binary(c)).collect::<Result<_>>()?;
        bins.push(std::env::current_exe()?);
        let key = render_key(&bins, store)?;
        let cache = cache_dir(&bins[0]).join(format!("{AGREEMENT}-{key}.json"));
        if let Some(md) = fs::read(&cache)
            .ok()
            .and_then(|b| serde_json::from_slice::<String>(&b).ok())
        {
            print!("{md}");
            return Ok(ExitCode::SUCCESS);
        }
        return match harness_page::agreement::exhibit(&store.root, &chapters, &headline) {
            Ok(md) => {
                keep_in_cache(&cache, AGREEMENT, &serde_json::to_vec(&md)?);
                print!("{md}");
                Ok(ExitCode::SUCCESS)
            }
            Err(e) => {
                // As a chapter does: into the page, where the build's check
                // finds it and names the file at fault.
                println!(
                    "\n**render error** on the method page, exhibit `agreement`: {}\n",
                    harness_page::render::escape(&format!("{e:#}"))
                );
                Err(e)
            }
        };
    }
    if chapter == "what-to-use" {
        if exhibit != "rows" {
            bail!("unknown exhibit {exhibit:?} for the What to use page: expected rows");
        }
        return match what_to_use(store) {
            Ok(md) => {
                print!("{md}");
                Ok(ExitCode::SUCCESS)
            }
            Err(e) => {
                println!(
                    "\n**render error** on the What to use page, exhibit `rows`: {}\n",
                    harness_page::render::escape(&format!("{e:#}"))
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
                    harness_page::render::escape(exhibit),
                    harness_page::render::escape(&format!("{e:#}"))
                );
                Err(e)
            }
        };
    }
    let info = registry::find(chapter)?;
    let page = match rendered(store, info) {
        Ok(page) => page,
        Err(e) => {
            print!("{}", render_error(chapter, exhibit, &format!("{e:#}")));
            return Err(e);
        }
    };
    let names: Vec<&str> = page.exhibits.keys().map(String::as_str).collect();
    let message = match page.exhibits.get(exhibit) {
        Some(Ok(markdown)) => {
            print!("{markdown}");
            return Ok(ExitCode::SUCCESS);
        }
        Some(Err(message)) => message.clone(),
        None => format!(
            "unknown exhibit {exhibit:?} for chapter {chapter}: expected one of {}",
            names.join(", ")
        ),
    };
    print!("{}", render_error(chapter, exhibit, &message));
    bail!("{message}")
}

/// A chapter's whole page, rendered by one run of its binary
/// (`<chapter> render-all`) and kept in `render-cache/` beside the binaries
/// under a key of everything the page is drawn from: the chapter's binary,
/// the results folder and the sources under `code/` (which decide what is
/// stale). `BOOK_RENDER_CACHE` names another folder for it. A page of twenty exhibits reads and checks its results once per
/// build instead of twenty times, and a rebuild with nothing changed reads
/// every page from the cache. Any change to those files makes a new key.
fn rendered(store: &Store, info: &ChapterInfo) -> Result<Rendered> {
    let bin = binary(info)?;
    let key = render_key(std::slice::from_ref(&bin), store)?;
    let path = cache_dir(&bin).join(format!("{}-{key}.json", info.name));
    if let Some(page) = fs::read(&path)
        .ok()
        .and_then(|b| serde_json::from_slice::<Rendered>(&b).ok())
    {
        return Ok(page);
    }
    let out = Command::new(&bin)
        .args(["render-all", "--results"])
        .arg(&store.root)
        .output()?;
    if !out.status.success() {
        bail!(
            "chapter {} could not render its page: {}",
            info.name,
            String::from_utf8_lossy(&out.stderr).trim()
        );
    }
    let page: Rendered = serde_json::from_slice(&out.stdout)
        .with_context(|| format!("chapter {}: render-all output is not JSON", info.name))?;
    keep_in_cache(&path, &info.name, &out.stdout);
    Ok(page)
}

/// The method page's agreement exhibit, as the render cache names it.
const AGREEMENT: &str = "method-agreement";

/// The render cache: `render-cache/` beside the binaries, or
/// `BOOK_RENDER_CACHE`.
fn cache_dir(bin: &Path) -> PathBuf {
    std::env::var_os("BOOK_RENDER_CACHE")
        .map(PathBuf::from)
        .unwrap_or_else(|| bin.with_file_name("render-cache"))
}

/// Keeps `bytes` at `path` in the render cache and removes the older
/// entries of `name`. Keeping is a saving, not a duty: a cache that cannot
/// be written leaves the build as it was.
fn keep_in_cache(path: &Path, name: &str, bytes: &[u8]) {
    let Some(dir) = path.parent() else { return };
    if fs::create_dir_all(dir).is_ok()
        && harness_core::results::write_atomically(path, bytes).is_ok()
    {
        for old in fs::read_dir(dir).into_iter().flatten().flatten() {
            let file = old.file_name().to_string_lossy().into_owned();
            if old.path() != path && cached_page_of(name, &file) {
                let _ = fs::remove_file(old.path());
            }
        }
    }
}

/// How many bytes of the hash name a cached page (twice as many hex digits).
const KEY_BYTES: usize = 8;

/// Whether `file` in the render cache is one of `chapter`'s pages,
/// `<chapter>-<16 hex digits>.json`: a chapter named `fan` must not take
/// `fan-in`'s pages for its own.
fn cached_page_of(chapter: &str, file: &str) -> bool {
    file.strip_prefix(chapter)
        .and_then(|rest| rest.strip_prefix('-'))
        .and_then(|rest| rest.strip_suffix(".json"))
        .is_some_and(|key| key.len() == 2 * KEY_BYTES && key.bytes().all(|b| b.is_ascii_hexdigit()))
}

/// The key of a chapter's cached page: the path, size and modification time
/// of the chapter's binary, of every file in the results folder and of every
/// source under `code/` (not `target/`), hashed.
fn render_key(bins: &[PathBuf], store: &Store) -> Result<String> {
    let code = harness_core::code_dir();
    let mut files = bins.to_vec();
    stat_tree(&store.root, &mut files);
    stat_tree(&code, &mut files);
    files.sort();
    files.dedup();
    let mut hasher = Sha256::new();
    for file in &files {
        let meta = fs::metadata(file).with_context(|| format!("cannot read {}", file.display()))?;
        let modified = meta
            .modified()
            .ok()
            .and_then(|t| t.duration_since(UNIX_EPOCH).ok())
            .map_or(0, |d| d.as_nanos());
        hasher.update(file.to_string_lossy().as_bytes());
        hasher.update(meta.len().to_le_bytes());
        hasher.update(modified.to_le_bytes());
    }
    Ok(hasher
        .finalize()
        .iter()
        .take(KEY_BYTES)
        .map(|b| format!("{b:02x}"))
        .collect())
}

/// Every file below `dir`, skipping `target/` and hidden folders; the
/// results folder is listed by its own walk (it may live elsewhere).
fn stat_tree(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        let name = entry.file_name();
        let name = name.to_string_lossy();
        let Ok(kind) = entry.file_type() else {
            continue;
        };
        if kind.is_dir() {
            if name != "target" && !name.starts_with('.') {
                stat_tree(&path, out);
            }
        } else if kind.is_file() || kind.is_symlink() {
            out.push(path);
        }
    }
}

/// Each named chapter's (default: every chapter's) terminal report for one
/// machine (default: this one).
pub(crate) fn report(
    store: &Store,
    chapters: &[String],
    machine: Option<&str>,
) -> Result<ExitCode> {
    let here = harness_measure::machine::detect().id;
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

/// The Findings page: every chapter's verdicts, from each chapter's page
/// (`rendered`, so a build renders each chapter once). The book's first
/// page asks for them, so on a fresh build the chapters render here, side
/// by side, and every later exhibit reads its page from the cache.
fn findings(store: &Store, exhibit: &str) -> Result<String> {
    let chapters = registry::chapters()?;
    let pages = every_page(store, chapters)?;
    let mut all = Vec::new();
    let mut titles = Vec::new();
    for (info, page) in chapters.iter().zip(pages) {
        let found = page.findings.map_err(|e| {
            anyhow::anyhow!("chapter {} could not list its verdicts: {e}", info.name)
        })?;
        all.extend(found);
        titles.push((info.name.to_string(), info.title.to_string()));
    }
    Ok(if exhibit == "front" {
        harness_page::render::findings::front(&all, &titles)
    } else {
        harness_page::render::findings::page(&all, &titles)
    })
}

/// The What to use page: every chapter's advice (its `summary` exhibit),
/// in reading order.
fn what_to_use(store: &Store) -> Result<String> {
    let chapters = registry::chapters()?;
    let pages = every_page(store, chapters)?;
    let mut all = Vec::new();
    let mut titles = Vec::new();
    for (info, page) in chapters.iter().zip(pages) {
        let advice = page
            .advice
            .map_err(|e| anyhow::anyhow!("chapter {} could not give its advice: {e}", info.name))?;
        all.extend(advice);
        titles.push((info.name.to_string(), info.title.to_string()));
    }
    Ok(harness_page::render::reader::what_to_use(&all, &titles))
}

/// Every chapter's page (`rendered`), side by side.
fn every_page(store: &Store, chapters: &[ChapterInfo]) -> Result<Vec<Rendered>> {
    let pages: Vec<Result<Rendered>> = std::thread::scope(|s| {
        let handles: Vec<_> = chapters
            .iter()
            .map(|info| s.spawn(move || rendered(store, info)))
            .collect();
        handles
            .into_iter()
            .map(|h| {
                h.join()
                    .unwrap_or_else(|_| bail!("rendering a chapter panicked"))
            })
            .collect()
    });
    pages.into_iter().collect()
}

/// Every chapter's downloads into `book/results/<chapter>/`, the chapters'
/// processes side by side.
pub(crate) fn export(store: &Store, book: &Path) -> Result<ExitCode> {
    let mut running = Vec::new();
    for chapter in registry::chapters()?.iter() {
        let child = Command::new(binary(chapter)?)
            .arg("export")
            .arg(book.join("results").join(&chapter.name))
            .env("BOOK_RESULTS_DIR", &store.root)
            .spawn()
            .with_context(|| format!("cannot start {}'s export", chapter.name))?;
        running.push((chapter, child));
    }
    let mut failed = Vec::new();
    for (chapter, mut child) in running {
        if !child.wait()?.success() {
            failed.push(chapter.name.as_str());
        }
    }
    if !failed.is_empty() {
        bail!("exporting {} failed", failed.join(", "));
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
        ("what-to-use".into(), None),
        ("glossary".into(), None),
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
        let registry_path = registry::path();
        problems.extend(check::check_links(book)?.into_iter().map(|p| {
            check::explain_unregistered(
                &p,
                src,
                registry::chapters().unwrap_or(&[]),
                &registry_path,
            )
        }));
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

#[cfg(test)]
mod tests {
    use super::cached_page_of;

    #[test]
    fn a_chapter_owns_only_its_own_cached_pages() {
        assert!(cached_page_of("fan", "fan-0123456789abcdef.json"));
        assert!(cached_page_of("fan-in", "fan-in-0123456789abcdef.json"));
        assert!(!cached_page_of("fan", "fan-in-0123456789abcdef.json"));
        assert!(!cached_page_of("fan", "fan-0123456789abcdef.json.tmp"));
        assert!(!cached_page_of("fan", "fan-0123456789abcdeg.json"));
        assert!(!cached_page_of("fan", "fanin-0123456789abcdef.json"));
    }
}
