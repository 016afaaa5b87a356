//! Checks on the book's sources and on the built HTML: the things mdBook and
//! mdbook-cmdrun get wrong silently (errors written into the page, includes
//! that match nothing, figures broken by a blank line).
use std::fs;
use std::path::Path;

use anyhow::{Context, Result};

/// Every `{{#include file:anchor}}` in the markdown under `src` must name a
/// file that exists and an anchor with at least one non-blank line.
pub fn check_includes(src: &Path) -> Result<Vec<String>> {
    let mut problems = Vec::new();
    for entry in fs::read_dir(src).with_context(|| format!("cannot list {}", src.display()))? {
        let page = entry?.path();
        if page.extension().and_then(|e| e.to_str()) != Some("md") {
            continue;
        }
        let text = fs::read_to_string(&page)?;
        for (line_no, line) in text.lines().enumerate() {
            for directive in ["{{#include ", "{{#rustdoc_include "] {
                let Some(start) = line.find(directive) else {
                    continue;
                };
                let rest = &line[start + directive.len()..];
                let Some(end) = rest.find("}}") else { continue };
                let target = rest[..end].trim();
                let here = format!("{}:{}", page.display(), line_no + 1);
                if let Some(problem) = check_include(&page, target) {
                    problems.push(format!("{here}: {problem}"));
                }
            }
        }
    }
    Ok(problems)
}

fn check_include(page: &Path, target: &str) -> Option<String> {
    let (file, anchor) = match target.split_once(':') {
        Some((f, a)) => (f, Some(a)),
        None => (target, None),
    };
    let path = page.parent().unwrap_or(Path::new(".")).join(file);
    let Ok(text) = fs::read_to_string(&path) else {
        return Some(format!("include names {file}, which does not exist"));
    };
    let anchor = anchor?;
    if anchor.chars().all(|c| c.is_ascii_digit() || c == ':') {
        return None; // a line range, not an anchor
    }
    let begin = format!("ANCHOR: {anchor}");
    let end = format!("ANCHOR_END: {anchor}");
    let lines: Vec<&str> = text.lines().collect();
    let Some(from) = lines.iter().position(|l| l.trim_end().ends_with(&begin)) else {
        return Some(format!("anchor {anchor:?} is not in {file}"));
    };
    let Some(to) = lines[from..]
        .iter()
        .position(|l| l.trim_end().ends_with(&end))
    else {
        return Some(format!("anchor {anchor:?} in {file} has no ANCHOR_END"));
    };
    let body = &lines[from + 1..from + to];
    if body
        .iter()
        .all(|l| l.trim().is_empty() || l.contains("ANCHOR"))
    {
        return Some(format!("anchor {anchor:?} in {file} is empty"));
    }
    None
}

/// Every relative `href` and `src` in the built HTML must name a file of the
/// book, and every `#anchor` an element id on the page it points to.
pub fn check_links(book: &Path) -> Result<Vec<String>> {
    let mut pages = Vec::new();
    collect_html(book, &mut pages)?;
    let mut problems = Vec::new();
    let mut ids: std::collections::HashMap<std::path::PathBuf, String> = Default::default();
    for page in &pages {
        let html = fs::read_to_string(page)?;
        for attr in ["href=\"", "src=\""] {
            for (i, _) in html.match_indices(attr) {
                let link = html[i + attr.len()..].split('"').next().unwrap_or("");
                if link.is_empty()
                    || link.contains("://")
                    || link.starts_with("mailto:")
                    || link.starts_with("javascript:")
                    || link.starts_with("data:")
                    || link.starts_with("{{")
                {
                    continue;
                }
                let (file, anchor) = link.split_once('#').unwrap_or((link, ""));
                let file = file.split('?').next().unwrap_or("");
                let target = if file.is_empty() {
                    page.clone()
                } else if let Some(abs) = file.strip_prefix('/') {
                    book.join(abs)
                } else {
                    page.parent().unwrap_or(book).join(file)
                };
                let target = if target.is_dir() {
                    target.join("index.html")
                } else {
                    target
                };
                if !target.exists() {
                    problems.push(format!("{}: broken link {link}", page.display()));
                    continue;
                }
                if !anchor.is_empty() && target.extension().is_some_and(|e| e == "html") {
                    let text = ids
                        .entry(target.clone())
                        .or_insert_with(|| fs::read_to_string(&target).unwrap_or_default());
                    if !text.contains(&format!("id=\"{anchor}\"")) {
                        problems.push(format!(
                            "{}: link {link} names a missing anchor",
                            page.display()
                        ));
                    }
                }
            }
        }
    }
    Ok(problems)
}

/// A broken link to `<name>.html` where `src/<name>.md` is still there but
/// the registry lists no chapter `<name>`: the chapter was dropped from the
/// registry (so SUMMARY.md no longer builds its page) while pages link to
/// it. The problem is given again naming the registry and the way out.
pub fn explain_unregistered(
    problem: &str,
    src: &Path,
    chapters: &[harness_core::registry::ChapterInfo],
    registry: &Path,
) -> String {
    let Some((_, link)) = problem.split_once(": broken link ") else {
        return problem.to_string();
    };
    let file = link.split(['#', '?']).next().unwrap_or("");
    let Some(name) = Path::new(file)
        .file_name()
        .and_then(|n| n.to_str())
        .and_then(|n| n.strip_suffix(".html"))
    else {
        return problem.to_string();
    };
    let page = src.join(format!("{name}.md"));
    if !page.is_file() || chapters.iter().any(|c| c.name == name) {
        return problem.to_string();
    }
    format!(
        "{problem}: {} is a chapter's page, but the chapter registry {} has no [[chapter]] \
         entry named {name:?}, so the book no longer builds it; put the entry back (name = \
         \"{name}\"), or remove the chapter's page and every link to it",
        page.display(),
        registry.display()
    )
}

fn collect_html(dir: &Path, out: &mut Vec<std::path::PathBuf>) -> Result<()> {
    for entry in fs::read_dir(dir).with_context(|| format!("cannot list {}", dir.display()))? {
        let path = entry?.path();
        if path.is_dir() {
            collect_html(&path, out)?;
        } else if path.extension().is_some_and(|e| e == "html") {
            out.push(path);
        }
    }
    Ok(())
}

/// One exhibit found in a built page: where its marker said what it holds.
#[derive(Debug)]
struct Found<'a> {
    exhibit: &'a str,
    blocks: &'a str,
    body: &'a str,
}

fn exhibits_in(html: &str) -> Vec<Found<'_>> {
    const MARK: &str = "<div class=\"exhibit-marker\" data-exhibit=\"";
    let starts: Vec<usize> = html.match_indices(MARK).map(|(i, _)| i).collect();
    let mut found = Vec::new();
    for (k, &start) in starts.iter().enumerate() {
        let after = &html[start + MARK.len()..];
        let exhibit = after.split('"').next().unwrap_or("");
        let blocks = after
            .split("data-blocks=\"")
            .nth(1)
            .and_then(|s| s.split('"').next())
            .unwrap_or("");
        let stop = starts
            .get(k + 1)
            .copied()
            .or_else(|| html[start..].find("</main>").map(|i| start + i))
            .unwrap_or(html.len());
        found.push(Found {
            exhibit,
            blocks,
            body: &html[start..stop],
        });
    }
    found
}

/// Problems in one built page. `expected` lists the exhibits the page's source
/// asks for; `claims` the claim ids that must have a verdict on it.
pub fn check_page(page: &str, html: &str, expected: &[String], claims: &[String]) -> Vec<String> {
    let mut problems = Vec::new();
    for needle in ["cmdrun error", "render error"] {
        if html.contains(needle) {
            let at = html.find(needle).unwrap_or(0);
            problems.push(format!(
                "{page}: holds a {needle}: {}",
                plain_text(&html[at..], 400)
            ));
        }
    }
    let empty_code = html.match_indices("<code class=\"language-").any(|(i, _)| {
        let rest = &html[i..];
        let open_end = rest.find('>').unwrap_or(0);
        rest[open_end + 1..].trim_start().starts_with("</code>")
    });
    if empty_code {
        problems.push(format!(
            "{page}: has an empty code listing (an include matched nothing)"
        ));
    }
    let found = exhibits_in(html);
    for want in expected {
        if !found.iter().any(|f| f.exhibit == want) {
            problems.push(format!("{page}: exhibit {want} did not render"));
        }
    }
    for f in &found {
        for kind in f.blocks.split(',').filter(|k| !k.is_empty()) {
            let ok = match kind {
                "table" => f.body.contains("<table"),
                "figure" => {
                    let svg = f.body.find("<svg").map(|i| &f.body[i..]);
                    match svg.and_then(|s| s.find("</svg>").map(|j| &s[..j])) {
                        Some(inner) => !inner.contains("<p>"),
                        None => false,
                    }
                }
                "text" => true,
                "provenance" => f.body.contains("provenance-card"),
                v if v.starts_with("verdicts:") => v["verdicts:".len()..]
                    .split('+')
                    .all(|id| f.body.contains(&format!("data-claim=\"{id}\""))),
                _ => false,
            };
            if !ok {
                problems.push(format!(
                    "{page}: exhibit {} lacks its {kind} (or it was broken by the markdown)",
                    f.exhibit
                ));
            }
        }
    }
    for claim in claims {
        if !html.contains(&format!("data-claim=\"{claim}\"")) {
            problems.push(format!("{page}: no verdict for claim {claim}"));
        }
    }
    problems
}

/// The first `chars` characters of some HTML as a person reads them: tags
/// dropped, entities decoded (for an error message on the terminal).
fn plain_text(html: &str, chars: usize) -> String {
    let mut text = String::new();
    let mut in_tag = false;
    for c in html.chars() {
        match c {
            '<' => in_tag = true,
            '>' if in_tag => in_tag = false,
            c if !in_tag => text.push(c),
            _ => {}
        }
        if text.len() > chars * 4 {
            break;
        }
    }
    let text = html_escape::decode_html_entities(&text);
    text.split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .chars()
        .take(chars)
        .collect()
}

/// The exhibits a page's source asks cmdrun to render, as `chapter/exhibit`.
pub fn exhibits_requested(markdown: &str) -> Vec<String> {
    markdown
        .lines()
        .filter_map(|l| {
            let l = l.trim();
            let rest = l.strip_prefix("<!--")?.trim().strip_prefix("cmdrun ")?;
            let mut words = rest
                .split_whitespace()
                .skip_while(|w| *w != "render")
                .skip(1);
            let chapter = words.next()?;
            let exhibit = words.next()?.trim_end_matches("-->");
            Some(format!("{chapter}/{exhibit}"))
        })
        .collect()
}

/// The places that list the chapters must agree with the registry: the
/// workspace has each chapter's crate, `src/SUMMARY.md` lists each page in
/// the registry's order under its title, the README's table names each
/// crate with its title, and the introduction links each page. Returns one
/// line per disagreement.
pub fn check_registry(
    root: &Path,
    chapters: &[harness_core::registry::ChapterInfo],
) -> Result<Vec<String>> {
    let read = |rel: &str| {
        fs::read_to_string(root.join(rel)).with_context(|| format!("cannot read {rel}"))
    };
    let mut problems = Vec::new();
    let workspace: toml::Value =
        toml::from_str(&read("code/Cargo.toml")?).context("code/Cargo.toml is not valid TOML")?;
    let members: Vec<&str> = workspace
        .get("workspace")
        .and_then(|w| w.get("members"))
        .and_then(|m| m.as_array())
        .map(|m| m.iter().filter_map(|v| v.as_str()).collect())
        .unwrap_or_default();
    let summary = read("src/SUMMARY.md")?;
    let readme = read("README.md")?;
    let intro = read("src/introduction.md")?;
    let mut last = 0;
    for c in chapters {
        let name = &c.name;
        if !members.contains(&name.as_str()) {
            problems.push(format!(
                "code/Cargo.toml: the workspace lacks chapter crate {name}"
            ));
        }
        let entry = format!("[{}]({name}.md)", c.title);
        match summary.find(&entry) {
            None => problems.push(format!("src/SUMMARY.md: no entry {entry}")),
            Some(at) if at < last => problems.push(format!(
                "src/SUMMARY.md: {entry} is out of the registry's order"
            )),
            Some(at) => last = at,
        }
        let row = format!("| {} | `code/{name}` |", c.title);
        if !readme.contains(&row) {
            problems.push(format!(
                "README.md: the chapter table has no row starting {row}"
            ));
        }
        if !intro.contains(&format!("({name}.md)")) {
            problems.push(format!("src/introduction.md: no link to {name}.md"));
        }
        if !root.join("src").join(format!("{name}.md")).exists() {
            problems.push(format!("src/{name}.md: the chapter has no page"));
        }
    }
    Ok(problems)
}

/// Every CSV download under `book/results/` must carry its measurements as
/// numbers: a value column (one with a `<name> unit` column beside it)
/// parses as a number wherever its row names a unit. (That no measurement
/// hides in a text cell is checked on the typed tables, at export.)
pub fn check_csv(book: &Path) -> Result<Vec<String>> {
    let mut problems = Vec::new();
    let dir = book.join("results");
    if !dir.is_dir() {
        return Ok(problems);
    }
    for chapter in fs::read_dir(&dir)? {
        let chapter = chapter?.path();
        if !chapter.is_dir() {
            continue;
        }
        for entry in fs::read_dir(&chapter)? {
            let path = entry?.path();
            if path.extension().and_then(|e| e.to_str()) != Some("csv") {
                continue;
            }
            let name = path
                .strip_prefix(book)
                .unwrap_or(&path)
                .display()
                .to_string();
            let mut reader = csv::Reader::from_path(&path)
                .with_context(|| format!("cannot read {}", path.display()))?;
            let header: Vec<String> = reader.headers()?.iter().map(String::from).collect();
            let col = |n: &str| header.iter().position(|h| h == n);
            for (r, row) in reader.records().enumerate() {
                let row = row.with_context(|| format!("{name}: row {} is not CSV", r + 1))?;
                for (c, h) in header.iter().enumerate() {
                    let Some(unit) = col(&format!("{h} unit")) else {
                        continue;
                    };
                    if row.get(unit).unwrap_or("").is_empty() {
                        continue;
                    }
                    for v in [Some(c), col(&format!("{h} low")), col(&format!("{h} high"))]
                        .into_iter()
                        .flatten()
                    {
                        let cell = row.get(v).unwrap_or("");
                        if v != c && cell.is_empty() {
                            continue;
                        }
                        if cell.parse::<f64>().map_or(true, |x| !x.is_finite()) {
                            problems.push(format!(
                                "{name}: row {}, column {:?} is not a number: {cell:?}",
                                r + 1,
                                header[v]
                            ));
                        }
                    }
                }
            }
        }
    }
    Ok(problems)
}

#[cfg(test)]
mod tests {
    use super::*;
    use harness_page::render::blocks::looks_measured;

    const GOOD: &str = "<main><div class=\"exhibit-marker\" data-exhibit=\"a/grid\" data-blocks=\"table,figure,verdicts:X-1+X-2\"></div>\
        <table></table><figure><svg><text>t</text></svg></figure>\
        <span class=\"verdict holds\" data-claim=\"X-1\">holds</span><span data-claim=\"X-2\"></span></main>";

    #[test]
    fn a_complete_page_passes() {
        let p = check_page("a.html", GOOD, &["a/grid".into()], &["X-1".into()]);
        assert!(p.is_empty(), "{p:?}");
    }

    #[test]
    fn errors_missing_exhibits_and_broken_figures_are_reported() {
        let err = GOOD.replace("<table></table>", "**cmdrun error**: boom");
        let p = check_page("a.html", &err, &[], &[]);
        assert!(p.iter().any(|m| m.contains("cmdrun error")), "{p:?}");
        let escaped = GOOD.replace(
            "<table></table>",
            "<p><strong>render error</strong> in <code>x</code>: arch &quot;a&lt;b&gt;&quot; is wrong</p>",
        );
        let p = check_page("a.html", &escaped, &[], &[]);
        assert!(
            p.iter()
                .any(|m| m.contains("render error in x: arch \"a<b>\" is wrong")),
            "{p:?}"
        );
        assert!(p.iter().any(|m| m.contains("lacks its table")), "{p:?}");
        let broken = GOOD.replace("<text>t</text>", "<p>oops</p>");
        assert!(check_page("a.html", &broken, &[], &[])
            .iter()
            .any(|m| m.contains("figure")));
        let p = check_page("a.html", GOOD, &["a/other".into()], &["X-3".into()]);
        assert_eq!(p.len(), 2, "{p:?}");
        let empty = format!("{GOOD}<pre><code class=\"language-rust\"></code></pre>");
        assert!(check_page("a.html", &empty, &[], &[])[0].contains("empty code"));
    }

    #[test]
    fn includes_must_name_a_real_non_empty_anchor() {
        let dir = tempfile::tempdir().unwrap();
        let src = dir.path().join("src");
        fs::create_dir_all(&src).unwrap();
        fs::write(
            dir.path().join("lib.rs"),
            "// ANCHOR: full\nfn a() {}\n// ANCHOR_END: full\n// ANCHOR: empty\n// ANCHOR_END: empty\n",
        )
        .unwrap();
        fs::write(
            src.join("page.md"),
            "{{#include ../lib.rs:full}}\n{{#include ../lib.rs:empty}}\n{{#include ../lib.rs:nope}}\n{{#include ../gone.rs}}\n",
        )
        .unwrap();
        let p = check_includes(&src).unwrap();
        assert_eq!(p.len(), 3, "{p:?}");
        assert!(p[0].contains("empty") && p[1].contains("nope") && p[2].contains("gone.rs"));
    }

    #[test]
    fn links_must_reach_a_file_and_an_anchor() {
        let dir = tempfile::tempdir().unwrap();
        fs::write(dir.path().join("a.html"), "<h2 id=\"top\"></h2><a href=\"b.html#x\"></a><a href=\"#top\"></a><a href=\"https://x.y/z\"></a>").unwrap();
        fs::write(
            dir.path().join("b.html"),
            "<p id=\"x\"></p><a href=\"gone.json\"></a><a href=\"a.html#nope\"></a>",
        )
        .unwrap();
        let p = check_links(dir.path()).unwrap();
        assert_eq!(p.len(), 2, "{p:?}");
        assert!(p.iter().any(|m| m.contains("broken link gone.json")));
        assert!(p
            .iter()
            .any(|m| m.contains("a.html#nope names a missing anchor")));
    }

    #[test]
    fn a_link_to_a_chapter_the_registry_dropped_names_the_registry() {
        let src = tempfile::tempdir().unwrap();
        fs::write(src.path().join("mutex-swap.md"), "# Mutex swap\n").unwrap();
        let registry = Path::new("code/chapters.toml");
        let problem = "book/fan-in.html: broken link mutex-swap.html#claim-fan-4";
        let said = explain_unregistered(problem, src.path(), &[], registry);
        assert!(said.starts_with(problem), "{said}");
        assert!(
            said.contains("code/chapters.toml has no [[chapter]] entry named \"mutex-swap\""),
            "{said}"
        );
        // A chapter the registry lists, or a page that is no chapter's, is
        // left as it was.
        let listed = harness_core::registry::ChapterInfo {
            name: "mutex-swap".into(),
            ..Default::default()
        };
        assert_eq!(
            explain_unregistered(problem, src.path(), &[listed], registry),
            problem
        );
        let other = "book/a.html: broken link gone.html";
        assert_eq!(
            explain_unregistered(other, src.path(), &[], registry),
            other
        );
    }

    #[test]
    fn the_committed_book_lists_every_chapter_of_the_registry() {
        let root = harness_core::code_dir().parent().unwrap().to_path_buf();
        let chapters =
            harness_core::registry::read(&harness_core::code_dir().join("chapters.toml")).unwrap();
        let problems = check_registry(&root, &chapters).unwrap();
        assert!(problems.is_empty(), "{problems:#?}");
        // A chapter the registry gains but nothing else lists is caught, by name.
        let mut more = chapters.clone();
        more.push(harness_core::registry::ChapterInfo {
            name: "sixth".into(),
            title: "A sixth chapter".into(),
            search: "sixth".into(),
            ..Default::default()
        });
        let problems = check_registry(&root, &more).unwrap();
        for place in [
            "code/Cargo.toml",
            "src/SUMMARY.md",
            "README.md",
            "src/introduction.md",
            "src/sixth.md",
        ] {
            assert!(
                problems.iter().any(|p| p.starts_with(place)),
                "{place}: {problems:#?}"
            );
        }
        // And the order: the registry reversed.
        let reversed: Vec<_> = chapters.iter().rev().cloned().collect();
        let problems = check_registry(&root, &reversed).unwrap();
        assert!(
            problems
                .iter()
                .any(|p| p.contains("out of the registry's order")),
            "{problems:#?}"
        );
    }

    #[test]
    fn csv_downloads_must_hold_numbers() {
        let dir = tempfile::tempdir().unwrap();
        let chapter = dir.path().join("results").join("demo");
        fs::create_dir_all(&chapter).unwrap();
        fs::write(
            chapter.join("good.csv"),
            "design,time,time low,time high,time unit,note\nstd,1500,1400,1600,ns,fine\nkanal,baseline,,,,32 slots\n",
        )
        .unwrap();
        assert!(check_csv(dir.path()).unwrap().is_empty());
        fs::write(
            chapter.join("bad.csv"),
            "design,time,time unit,ratio\nstd,1.5 ms,ns,2.31\ntokio,,ns,x\n",
        )
        .unwrap();
        let p = check_csv(dir.path()).unwrap();
        assert_eq!(p.len(), 2, "{p:#?}");
        assert!(
            p[0].contains(
                "results/demo/bad.csv: row 1, column \"time\" is not a number: \"1.5 ms\""
            ),
            "{p:#?}"
        );
        assert!(
            p[1].contains("row 2, column \"time\" is not a number: \"\""),
            "{p:#?}"
        );
        for measured in [
            "211 µs",
            "2.31×",
            "± 2.0 %",
            "12 %",
            "8 KiB",
            "1.2 [1.1 – 1.3]",
        ] {
            assert!(looks_measured(measured), "{measured}");
        }
        for words in ["tokio mpsc", "32 slots", "1,024", "std (8 workers)", "0.5"] {
            assert!(!looks_measured(words), "{words}");
        }
    }

    #[test]
    fn requested_exhibits_are_read_from_cmdrun_lines() {
        let md = "text\n<!-- cmdrun ../code/target/release/harness render alloc-probe grid -->\n";
        assert_eq!(exhibits_requested(md), vec!["alloc-probe/grid".to_string()]);
    }
}
