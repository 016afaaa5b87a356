//! `harness new-chapter NAME --title T --search W --claim-prefix ABC`: a
//! chapter started from `code/chapter-template`, every trace of the
//! template's name renamed (package, `Template` type, `NAME`, `TPL-` claim
//! ids, the `template-timings` figure id, the page's cmdrun and include
//! paths). It writes `code/NAME/`, `src/NAME.md` (from the template's
//! `page.md`, which stays behind only in the template), the workspace member
//! in `code/Cargo.toml`, the entry in `code/chapters.toml`, and the chapter
//! lists generated from the registry. Everything is checked and prepared
//! before the first write; a failed write undoes the ones before it.
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{bail, Context, Result};

use harness_core::registry::{self, ChapterInfo};

use crate::sync;

/// The chapter the command copies.
const TEMPLATE: &str = "chapter-template";
/// The template's page, which becomes `src/NAME.md`.
const PAGE: &str = "page.md";
/// Folders of `code/` that are not chapters.
const NOT_CHAPTERS: [&str; 5] = ["harness", "results", "target", "build-support", TEMPLATE];

#[derive(clap::Args)]
pub(crate) struct Args {
    /// Crate, binary, results folder and page name: lowercase words joined by '-'.
    name: String,
    /// The page's title (SUMMARY.md, the README's table).
    #[arg(long)]
    title: String,
    /// A word the book's search must find the page by (the browser checks).
    #[arg(long)]
    search: String,
    /// The claim ids' prefix, in capitals (`ABC` gives ABC-1, ABC-2 ...).
    #[arg(long)]
    claim_prefix: String,
    /// The README table's question (default: empty; chapters.toml holds it).
    #[arg(long, default_value = "")]
    question: String,
    /// The introduction's line about the chapter (default: empty).
    #[arg(long, default_value = "")]
    intro: String,
}

pub(crate) fn new_chapter(args: &Args) -> Result<ExitCode> {
    let code = harness_core::find_code_dir()?;
    let root = code
        .parent()
        .context("code/ has no parent folder")?
        .to_path_buf();
    let made = prepare(&code, &root, &registry::path(), args)?;
    made.write()?;
    let name = &args.name;
    println!(
        "code/{name}/ ({} files), src/{name}.md, the workspace member and the registry entry \
         written; the chapter lists synced.\n\
         Next: write the page (src/{name}.md) and the chapter (code/{name}/src), then measure it: \
         scripts/fresh {name}",
        made.files.len()
    );
    Ok(ExitCode::SUCCESS)
}

/// Everything the command writes, computed before anything is written.
struct Made {
    code: PathBuf,
    root: PathBuf,
    registry_path: PathBuf,
    name: String,
    /// The crate's files, relative to `code/NAME`, with their text.
    files: Vec<(PathBuf, String)>,
    page: String,
    workspace: String,
    registry: String,
    /// Files with a generated chapter list, relative to the checkout.
    lists: Vec<(String, String)>,
}

fn prepare(code: &Path, root: &Path, registry_path: &Path, args: &Args) -> Result<Made> {
    let name = &args.name;
    check_name(name)?;
    check_prefix(&args.claim_prefix)?;
    let chapters = registry::read(registry_path)?;
    if chapters.iter().any(|c| &c.name == name) {
        bail!(
            "{}: chapter {name:?} is already registered",
            registry_path.display()
        );
    }
    for place in [code.join(name), root.join("src").join(format!("{name}.md"))] {
        if place.exists() {
            bail!(
                "{} exists already: choose another name, or remove it",
                place.display()
            );
        }
    }
    for c in &chapters {
        if let Some(file) = uses_prefix(&code.join(&c.name), &args.claim_prefix)? {
            bail!(
                "--claim-prefix {}: chapter {} already has claims {}-… ({})",
                args.claim_prefix,
                c.name,
                args.claim_prefix,
                file.display()
            );
        }
    }
    let entry = ChapterInfo {
        name: name.clone(),
        title: args.title.clone(),
        search: args.search.clone(),
        question: args.question.clone(),
        intro: args.intro.clone(),
        releases_profile: "quick".into(),
        cross_arch: false,
    };
    if args.search.split_whitespace().count() != 1 {
        bail!("--search {:?}: expected one word", args.search);
    }

    // The registry with the entry appended: checked as every registry is.
    let old_registry = std::fs::read_to_string(registry_path)
        .with_context(|| format!("cannot read {}", registry_path.display()))?;
    let registry = append_entry(&old_registry, &entry);
    let tmp = tempfile::tempdir()?;
    let tried = tmp.path().join("chapters.toml");
    std::fs::write(&tried, &registry)?;
    let new_chapters = registry::read(&tried).map_err(|e| {
        anyhow::anyhow!("{e:#}").context(format!("the entry for {name} would not be valid"))
    })?;

    let workspace_path = code.join("Cargo.toml");
    let workspace = add_member(
        &std::fs::read_to_string(&workspace_path)
            .with_context(|| format!("cannot read {}", workspace_path.display()))?,
        name,
    )?;

    let template = code.join(TEMPLATE);
    let rename = Rename::new(name, &args.title, &args.claim_prefix);
    let mut files = Vec::new();
    let mut page = None;
    for rel in files_under(&template)? {
        let text = std::fs::read_to_string(template.join(&rel))
            .with_context(|| format!("{}: not text", template.join(&rel).display()))?;
        let text = rename.apply(&rel, &text);
        if let Some((line, found)) = trace_of_template(&text) {
            bail!(
                "code/{TEMPLATE}/{}: line {line} keeps {found:?} after renaming; \
                 new-chapter does not know that use of the template's name (nothing was written)",
                rel.display()
            );
        }
        if rel == Path::new(PAGE) {
            page = Some(text);
        } else {
            files.push((rel, text));
        }
    }
    let page = page.with_context(|| format!("code/{TEMPLATE} has no {PAGE}"))?;
    let lists = sync::planned(root, &new_chapters)?;
    Ok(Made {
        code: code.to_path_buf(),
        root: root.to_path_buf(),
        registry_path: registry_path.to_path_buf(),
        name: name.clone(),
        files,
        page,
        workspace,
        registry,
        lists,
    })
}

impl Made {
    /// Writes everything; on a failure, undoes what was written before it.
    fn write(&self) -> Result<()> {
        let mut undo: Vec<Box<dyn FnOnce()>> = Vec::new();
        let result = self.write_all(&mut undo);
        if result.is_err() {
            for step in undo.into_iter().rev() {
                step();
            }
        }
        result
    }

    fn write_all(&self, undo: &mut Vec<Box<dyn FnOnce()>>) -> Result<()> {
        // The crate, staged beside its place and renamed into it whole.
        let stage = tempfile::Builder::new()
            .prefix(&format!(".new-chapter-{}-", self.name))
            .tempdir_in(&self.code)?;
        for (rel, text) in &self.files {
            let path = stage.path().join(rel);
            std::fs::create_dir_all(path.parent().unwrap())?;
            std::fs::write(&path, text)?;
        }
        let krate = self.code.join(&self.name);
        std::fs::rename(stage.path(), &krate)
            .with_context(|| format!("cannot move the new crate to {}", krate.display()))?;
        let _ = stage.keep();
        let k = krate.clone();
        undo.push(Box::new(move || {
            let _ = std::fs::remove_dir_all(&k);
        }));

        let page = self.root.join("src").join(format!("{}.md", self.name));
        std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&page)
            .and_then(|mut f| std::io::Write::write_all(&mut f, self.page.as_bytes()))
            .with_context(|| format!("cannot write {}", page.display()))?;
        undo.push(Box::new(move || {
            let _ = std::fs::remove_file(&page);
        }));

        let mut edits = vec![
            (self.code.join("Cargo.toml"), self.workspace.clone()),
            (self.registry_path.clone(), self.registry.clone()),
        ];
        edits.extend(
            self.lists
                .iter()
                .map(|(f, t)| (self.root.join(f), t.clone())),
        );
        for (path, text) in edits {
            let before = std::fs::read_to_string(&path)?;
            sync::write_atomically(&path, &text)?;
            undo.push(Box::new(move || {
                let _ = sync::write_atomically(&path, &before);
            }));
        }
        Ok(())
    }
}

/// A chapter name: lowercase ASCII words joined by single '-', starting
/// with a letter, not a folder of `code/` that is no chapter, and without
/// the word "template" (the copy is checked for that word).
fn check_name(name: &str) -> Result<()> {
    let ok = name.starts_with(|c: char| c.is_ascii_lowercase())
        && name.split('-').all(|w| {
            !w.is_empty()
                && w.chars()
                    .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit())
        })
        && name.len() <= 40;
    if !ok {
        bail!(
            "chapter name {name:?}: expected lowercase words of letters and digits joined by '-', \
             starting with a letter (it names the crate, the binary, the results folder and the page)"
        );
    }
    if let Some(why) = harness_core::registry::reserved(name) {
        bail!("{why}");
    }
    if NOT_CHAPTERS.contains(&name) || name.starts_with("harness") {
        bail!("chapter name {name:?} is taken by a folder of code/ that is not a chapter");
    }
    if name.split('-').any(|w| w == "template") {
        bail!("chapter name {name:?}: the word \"template\" is the template's; choose another");
    }
    Ok(())
}

fn check_prefix(prefix: &str) -> Result<()> {
    let ok = (2..=8).contains(&prefix.len())
        && prefix.starts_with(|c: char| c.is_ascii_uppercase())
        && prefix
            .chars()
            .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit());
    if !ok {
        bail!(
            "--claim-prefix {prefix:?}: expected 2 to 8 capital letters or digits, starting \
             with a letter (claims are then {prefix}-1, {prefix}-2 …)"
        );
    }
    if prefix == "TPL" {
        bail!("--claim-prefix TPL is the template's");
    }
    Ok(())
}

/// The first file under `dir` holding a claim id `"PREFIX-<digit>`, if any.
fn uses_prefix(dir: &Path, prefix: &str) -> Result<Option<PathBuf>> {
    if !dir.is_dir() {
        return Ok(None);
    }
    let needle = format!("\"{prefix}-");
    for rel in files_under(dir)? {
        if rel.starts_with("target") || rel.extension().is_none_or(|e| e != "rs") {
            continue;
        }
        let text = std::fs::read_to_string(dir.join(&rel)).unwrap_or_default();
        if text
            .match_indices(&needle)
            .any(|(i, _)| text[i + needle.len()..].starts_with(|c: char| c.is_ascii_digit()))
        {
            return Ok(Some(dir.join(rel)));
        }
    }
    Ok(None)
}

/// Every file under `dir`, relative to it, sorted.
fn files_under(dir: &Path) -> Result<Vec<PathBuf>> {
    let mut out = Vec::new();
    let mut todo = vec![PathBuf::new()];
    while let Some(rel) = todo.pop() {
        let entries = std::fs::read_dir(dir.join(&rel))
            .with_context(|| format!("cannot read {}", dir.join(&rel).display()))?;
        for e in entries {
            let e = e?;
            let r = rel.join(e.file_name());
            if e.file_type()?.is_dir() {
                todo.push(r);
            } else {
                out.push(r);
            }
        }
    }
    out.sort();
    Ok(out)
}

/// How the template's name is rewritten, most specific first.
struct Rename {
    pairs: Vec<(String, String)>,
    title: String,
    name: String,
    camel: String,
}

impl Rename {
    fn new(name: &str, title: &str, prefix: &str) -> Rename {
        let camel: String = name
            .split('-')
            .map(|w| {
                let mut cs = w.chars();
                cs.next()
                    .map(|c| c.to_ascii_uppercase().to_string() + cs.as_str())
                    .unwrap_or_default()
            })
            .collect();
        Rename {
            pairs: vec![
                ("template-timings".into(), format!("{name}-timings")),
                (TEMPLATE.into(), name.into()),
                (TEMPLATE.replace('-', "_"), name.replace('-', "_")),
                ("TPL-".into(), format!("{prefix}-")),
            ],
            title: title.into(),
            name: name.into(),
            camel,
        }
    }

    fn apply(&self, rel: &Path, text: &str) -> String {
        let mut text = text.to_string();
        for (from, to) in &self.pairs {
            text = text.replace(from, to);
        }
        if rel == Path::new(PAGE) {
            // The page's title.
            if let Some(first) = text.lines().next().filter(|l| l.starts_with("# ")) {
                text = format!("# {}{}", self.title, &text[first.len()..]);
            }
        }
        if rel == Path::new("Cargo.toml") {
            text = text
                .lines()
                .map(|l| {
                    if l.starts_with("description = ") {
                        format!(
                            "description = {}",
                            toml::Value::String(format!("{}: a chapter of the book", self.title))
                        )
                    } else {
                        l.to_string()
                    }
                })
                .collect::<Vec<_>>()
                .join("\n")
                + "\n";
        }
        // The type, then the word in prose.
        let text = replace_word(&text, "Template", &self.camel);
        replace_word(&text, "template", &self.name)
    }
}

/// `text` with each whole-word `word` (not inside a longer identifier or
/// word: letters, digits and '_' around it end a match) replaced.
fn replace_word(text: &str, word: &str, with: &str) -> String {
    let is_word = |c: char| c.is_alphanumeric() || c == '_';
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(i) = rest.find(word) {
        let before = rest[..i].chars().next_back();
        let after = rest[i + word.len()..].chars().next();
        out.push_str(&rest[..i]);
        if before.is_some_and(is_word) || after.is_some_and(is_word) {
            out.push_str(word);
        } else {
            out.push_str(with);
        }
        rest = &rest[i + word.len()..];
    }
    out.push_str(rest);
    out
}

/// The first line still naming the template (any case): `chapter-template`,
/// `chapter_template`, `TPL-`, `template-timings` or the word `template`.
fn trace_of_template(text: &str) -> Option<(usize, String)> {
    for (n, line) in text.lines().enumerate() {
        let lower = line.to_lowercase();
        for needle in [
            "chapter-template",
            "chapter_template",
            "tpl-",
            "template-timings",
        ] {
            if lower.contains(needle) {
                return Some((n + 1, needle.to_string()));
            }
        }
        if replace_word(&lower, "template", "") != lower {
            return Some((n + 1, "template".into()));
        }
    }
    None
}

/// The registry's text with one entry appended.
fn append_entry(registry: &str, c: &ChapterInfo) -> String {
    let q = |s: &str| toml::Value::String(s.to_string()).to_string();
    let mut text = registry.trim_end().to_string();
    text += &format!(
        "\n\n[[chapter]]\nname = {}\ntitle = {}\nsearch = {}\n",
        q(&c.name),
        q(&c.title),
        q(&c.search)
    );
    if !c.question.is_empty() {
        text += &format!("question = {}\n", q(&c.question));
    }
    if !c.intro.is_empty() {
        text += &format!("intro = {}\n", q(&c.intro));
    }
    text
}

/// `code/Cargo.toml` with `name` appended to `[workspace] members`.
fn add_member(workspace: &str, name: &str) -> Result<String> {
    let start = workspace
        .find("members = [")
        .context("code/Cargo.toml: no `members = [` list")?;
    let close = start
        + workspace[start..]
            .find(']')
            .context("code/Cargo.toml: the members list does not end")?;
    let list = &workspace[start..close];
    let indent = if list.contains('\n') { "    " } else { " " };
    let sep = if list.trim_end().ends_with(',') || list.trim_end().ends_with('[') {
        ""
    } else {
        ","
    };
    let body = list.trim_end();
    let newline = if list.contains('\n') { "\n" } else { "" };
    let edited = format!(
        "{}{body}{sep}{newline}{indent}\"{name}\",{newline}{}",
        &workspace[..start],
        &workspace[close..]
    );
    let parsed: toml::Value =
        toml::from_str(&edited).context("code/Cargo.toml after adding the member")?;
    let members = parsed
        .get("workspace")
        .and_then(|w| w.get("members"))
        .and_then(|m| m.as_array())
        .context("code/Cargo.toml: [workspace] members is not a list")?;
    if !members.iter().any(|m| m.as_str() == Some(name)) {
        bail!("code/Cargo.toml: could not add {name} to the workspace members");
    }
    Ok(edited)
}

#[cfg(test)]
mod tests;
