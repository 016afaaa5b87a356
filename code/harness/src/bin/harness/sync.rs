//! `harness chapters`: the registry (code/chapters.toml) for scripts and
//! workflows (`--get`, `--where`), and the chapter lists written from it
//! (`--sync`): src/SUMMARY.md's chapters, the README's chapter table and the
//! introduction's list, each between two marker lines.
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{bail, Context, Result};

use harness_core::registry::{self, ChapterInfo};

/// The line before a generated list.
pub(crate) const BEGIN: &str =
    "<!-- chapters: generated from code/chapters.toml by `harness chapters --sync` \
                                (scripts/build runs it); edit that file, not the lines below -->";
/// The line after it.
pub(crate) const END: &str = "<!-- end chapters -->";

/// The introduction's list is wrapped at this many characters a line, as
/// the hand-written prose around it is.
const WRAP: usize = 80;

/// What `harness chapters` was asked.
pub(crate) enum Ask {
    Names,
    Json,
    Get { name: String, field: String },
    Where { field: String },
    Sync { check: bool },
}

pub(crate) fn chapters(ask: Ask) -> Result<ExitCode> {
    let all = registry::chapters()?;
    match ask {
        Ask::Names => all.iter().for_each(|c| println!("{}", c.name)),
        Ask::Json => println!("{}", serde_json::to_string(all)?),
        Ask::Get { name, field } => println!("{}", get(registry::find(&name)?, &field)?),
        Ask::Where { field } => {
            for name in where_true(all, &field)? {
                println!("{name}");
            }
        }
        Ask::Sync { check } => {
            let root = root()?;
            let stale = sync(&root, all, !check)?;
            if check && !stale.is_empty() {
                for file in &stale {
                    eprintln!(
                        "{file}: its chapter list differs from code/chapters.toml; \
                         run `harness chapters --sync` (scripts/build does) and commit the result"
                    );
                }
                return Ok(ExitCode::FAILURE);
            }
            for file in &stale {
                eprintln!("{file}: chapter list written from code/chapters.toml");
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// The checkout: the folder above `code/`.
pub(crate) fn root() -> Result<PathBuf> {
    let code = harness_core::find_code_dir()?;
    code.parent()
        .map(Path::to_path_buf)
        .context("code/ has no parent folder")
}

/// One setting of one chapter as a script reads it (defaults filled in):
/// a string as it is, a boolean as `true`/`false`.
pub(crate) fn get(c: &ChapterInfo, field: &str) -> Result<String> {
    let value = serde_json::to_value(c)?;
    let object = value.as_object().context("a chapter entry is a table")?;
    match object.get(field) {
        Some(serde_json::Value::String(s)) => Ok(s.clone()),
        Some(other) => Ok(other.to_string()),
        None => bail!(
            "no field {field:?} in a chapter entry of {}: expected one of {}",
            registry::path().display(),
            object.keys().cloned().collect::<Vec<_>>().join(", ")
        ),
    }
}

/// The chapters whose boolean setting `field` is true, in reading order.
pub(crate) fn where_true<'a>(all: &'a [ChapterInfo], field: &str) -> Result<Vec<&'a str>> {
    let mut names = Vec::new();
    for c in all {
        match get(c, field)?.as_str() {
            "true" => names.push(c.name.as_str()),
            "false" => {}
            _ => bail!("--where {field}: {field} is not a true/false setting"),
        }
    }
    Ok(names)
}

/// The files with a generated chapter list, and the list each holds.
pub(crate) fn lists(chapters: &[ChapterInfo]) -> [(&'static str, String); 3] {
    let summary: Vec<String> = chapters
        .iter()
        .map(|c| format!("- [{}]({}.md)", c.title, c.name))
        .collect();
    let mut table = vec![
        "| chapter | crate | question |".to_string(),
        "|:---|:---|:---|".to_string(),
    ];
    table.extend(
        chapters
            .iter()
            .map(|c| format!("| {} | `code/{}` | {} |", c.title, c.name, c.question)),
    );
    let intro: Vec<String> = chapters.iter().map(intro_item).collect();
    [
        ("src/SUMMARY.md", summary.join("\n")),
        ("README.md", table.join("\n")),
        ("src/introduction.md", intro.join("\n")),
    ]
}

/// `- [Title](name.md): intro`, wrapped at [`WRAP`] characters.
fn intro_item(c: &ChapterInfo) -> String {
    let mut text = format!("- [{}]({}.md)", c.title, c.name);
    if !c.intro.is_empty() {
        text += ": ";
        text += &c.intro;
    }
    let mut lines: Vec<String> = Vec::new();
    let mut line = String::new();
    for word in text.split(' ') {
        if !line.is_empty() && line.chars().count() + 1 + word.chars().count() > WRAP {
            lines.push(std::mem::take(&mut line));
            line.push_str("  ");
            line.push_str(word);
        } else {
            if !line.is_empty() {
                line.push(' ');
            }
            line.push_str(word);
        }
    }
    lines.push(line);
    lines.join("\n")
}

/// `text` with the lines between its markers replaced by `list`; an error
/// names the file when the markers are missing, doubled or out of order.
pub(crate) fn replace_block(file: &str, text: &str, list: &str) -> Result<String> {
    let begin = text
        .match_indices(BEGIN)
        .map(|(i, _)| i)
        .collect::<Vec<_>>();
    let end = text.match_indices(END).map(|(i, _)| i).collect::<Vec<_>>();
    if begin.len() != 1 || end.len() != 1 || end[0] < begin[0] {
        bail!(
            "{file}: expected one line {BEGIN:?} and after it one line {END:?} \
             around the chapter list (found {} and {})",
            begin.len(),
            end.len()
        );
    }
    let head = &text[..begin[0] + BEGIN.len()];
    let tail = &text[end[0]..];
    Ok(format!("{head}\n\n{list}\n\n{tail}"))
}

/// The files whose generated lists differ from the registry (relative
/// paths); with `write`, each is rewritten (atomically) first.
pub(crate) fn sync(root: &Path, chapters: &[ChapterInfo], write: bool) -> Result<Vec<String>> {
    let mut stale = Vec::new();
    for (file, new) in planned(root, chapters)? {
        let path = root.join(&file);
        let old = std::fs::read_to_string(&path)?;
        if old != new {
            if write {
                write_atomically(&path, &new)?;
            }
            stale.push(file);
        }
    }
    Ok(stale)
}

/// Each file with a generated list and its text after a sync (nothing written).
pub(crate) fn planned(root: &Path, chapters: &[ChapterInfo]) -> Result<Vec<(String, String)>> {
    lists(chapters)
        .into_iter()
        .map(|(file, list)| {
            let path = root.join(file);
            let old = std::fs::read_to_string(&path)
                .with_context(|| format!("cannot read {}", path.display()))?;
            Ok((file.to_string(), replace_block(file, &old, &list)?))
        })
        .collect()
}

/// Writes beside the file, then renames over it.
pub(crate) fn write_atomically(path: &Path, text: &str) -> Result<()> {
    let tmp = path.with_extension(format!("tmp-{}", std::process::id()));
    std::fs::write(&tmp, text).with_context(|| format!("cannot write {}", tmp.display()))?;
    std::fs::rename(&tmp, path).with_context(|| format!("cannot replace {}", path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn chapter(name: &str, title: &str) -> ChapterInfo {
        ChapterInfo {
            name: name.into(),
            title: title.into(),
            search: "s".into(),
            question: format!("what about {name}?"),
            intro: format!(
                "{title} explained in a sentence that runs on long enough to need a second line."
            ),
            releases_profile: "quick".into(),
            cross_arch: name == "b",
        }
    }

    #[test]
    fn the_committed_lists_are_what_sync_writes() {
        let root = harness_core::code_dir().parent().unwrap().to_path_buf();
        let chapters = registry::read(&harness_core::code_dir().join("chapters.toml")).unwrap();
        assert_eq!(sync(&root, &chapters, false).unwrap(), Vec::<String>::new());
    }

    #[test]
    fn sync_rewrites_only_between_the_markers() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("src")).unwrap();
        for file in ["src/SUMMARY.md", "README.md", "src/introduction.md"] {
            std::fs::write(
                dir.path().join(file),
                format!("before\n{BEGIN}\n\nold list\n\n{END}\nafter\n"),
            )
            .unwrap();
        }
        let chapters = [chapter("a", "Alpha"), chapter("b", "Beta")];
        let stale = sync(dir.path(), &chapters, true).unwrap();
        assert_eq!(stale.len(), 3);
        let summary = std::fs::read_to_string(dir.path().join("src/SUMMARY.md")).unwrap();
        assert_eq!(
            summary,
            format!("before\n{BEGIN}\n\n- [Alpha](a.md)\n- [Beta](b.md)\n\n{END}\nafter\n")
        );
        let readme = std::fs::read_to_string(dir.path().join("README.md")).unwrap();
        assert!(readme.contains("|:---|:---|:---|\n| Alpha | `code/a` | what about a? |\n| Beta |"));
        let intro = std::fs::read_to_string(dir.path().join("src/introduction.md")).unwrap();
        assert!(intro.contains(
            "- [Alpha](a.md): Alpha explained in a sentence that runs on long enough to need\n  a second line.\n- [Beta]"
        ), "{intro}");
        assert!(intro
            .lines()
            .filter(|l| l.starts_with("- ") || l.starts_with("  "))
            .all(|l| l.chars().count() <= WRAP));
        // A second sync finds nothing to do; a registry in another order does.
        assert!(sync(dir.path(), &chapters, false).unwrap().is_empty());
        let reversed = [chapter("b", "Beta"), chapter("a", "Alpha")];
        assert_eq!(sync(dir.path(), &reversed, false).unwrap().len(), 3);
        // A file without its markers is named.
        std::fs::write(dir.path().join("README.md"), "no markers\n").unwrap();
        let e = format!("{:#}", sync(dir.path(), &chapters, true).unwrap_err());
        assert!(e.starts_with("README.md: expected one line"), "{e}");
    }

    #[test]
    fn get_and_where_read_settings_with_their_defaults() {
        let all = [chapter("a", "Alpha"), chapter("b", "Beta")];
        assert_eq!(get(&all[0], "releases_profile").unwrap(), "quick");
        assert_eq!(get(&all[0], "title").unwrap(), "Alpha");
        assert_eq!(get(&all[1], "cross_arch").unwrap(), "true");
        let e = format!("{:#}", get(&all[0], "profile").unwrap_err());
        assert!(
            e.contains("no field \"profile\"") && e.contains("releases_profile"),
            "{e}"
        );
        assert_eq!(where_true(&all, "cross_arch").unwrap(), ["b"]);
        assert!(where_true(&all, "title").is_err());
    }

    #[test]
    fn the_workflows_name_no_chapter_but_read_the_registry() {
        let root = harness_core::code_dir().parent().unwrap().to_path_buf();
        let chapters = registry::read(&harness_core::code_dir().join("chapters.toml")).unwrap();
        let dir = root.join(".github/workflows");
        let mut read_registry = 0;
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            let text = std::fs::read_to_string(&path).unwrap();
            for c in chapters
                .iter()
                .chain(std::iter::once(&chapter("chapter-template", "T")))
            {
                assert!(
                    !text.contains(&c.name),
                    "{} names chapter {}: read code/chapters.toml (harness chapters --get/--where) instead",
                    path.display(),
                    c.name
                );
            }
            read_registry += usize::from(
                text.contains("chapters --get \"$chapter\" releases_profile")
                    || text.contains("chapters --where cross_arch"),
            );
        }
        assert_eq!(
            read_registry, 2,
            "releases.yml and measure-latency.yml read the registry"
        );
    }

    #[test]
    fn every_releases_profile_the_registry_allows_is_a_profile() {
        for p in registry::PROFILES {
            let parsed: harness_core::profile::Profile =
                serde_json::from_value(serde_json::Value::String(p.into())).unwrap();
            assert_eq!(parsed.name(), p);
        }
        assert_eq!(
            registry::PROFILES.len(),
            harness_core::profile::Profile::ALL.len()
        );
    }
}
