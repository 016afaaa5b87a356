//! The chapters of the book, in reading order, from `code/chapters.toml`
//! (`BOOK_CHAPTERS` names another file: tests add a chapter that way).
use std::path::PathBuf;
use std::sync::OnceLock;

use anyhow::{bail, Context, Result};
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ChapterInfo {
    /// Crate, binary, results folder and page name (`src/<name>.md`).
    pub name: String,
    pub title: String,
    /// A word the book's search must find the page by (browser checks).
    pub search: String,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Registry {
    chapter: Vec<ChapterInfo>,
}

/// Where the registry lives: `$BOOK_CHAPTERS`, else `code/chapters.toml`.
pub fn path() -> PathBuf {
    std::env::var_os("BOOK_CHAPTERS")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .unwrap_or_else(|| crate::code_dir().join("chapters.toml"))
}

/// Reads and checks a registry file: names are slugs, none twice.
pub fn read(path: &std::path::Path) -> Result<Vec<ChapterInfo>> {
    let text = std::fs::read_to_string(path)
        .with_context(|| format!("cannot read the chapter registry {}", path.display()))?;
    let reg: Registry = toml::from_str(&text)
        .with_context(|| format!("{} is not a chapter registry", path.display()))?;
    for (i, c) in reg.chapter.iter().enumerate() {
        if !crate::results::validate::is_slug(&c.name) {
            bail!(
                "{}: chapter name {:?} must be lowercase letters, digits and '-'",
                path.display(),
                c.name
            );
        }
        if reg.chapter[..i].iter().any(|o| o.name == c.name) {
            bail!("{}: chapter {:?} is listed twice", path.display(), c.name);
        }
    }
    Ok(reg.chapter)
}

/// Every chapter, in reading order (read once per process).
pub fn chapters() -> Result<&'static [ChapterInfo]> {
    static CHAPTERS: OnceLock<Result<Vec<ChapterInfo>, String>> = OnceLock::new();
    CHAPTERS
        .get_or_init(|| read(&path()).map_err(|e| format!("{e:#}")))
        .as_deref()
        .map_err(|e| anyhow::anyhow!("{e}"))
}

/// The chapters a command names, in the order given, or every chapter when
/// it names none; an unknown name fails before anything runs.
pub fn select(names: &[String]) -> Result<Vec<&'static ChapterInfo>> {
    if names.is_empty() {
        Ok(chapters()?.iter().collect())
    } else {
        names.iter().map(|n| find(n)).collect()
    }
}

pub fn find(name: &str) -> Result<&'static ChapterInfo> {
    let all = chapters()?;
    all.iter().find(|c| c.name == name).ok_or_else(|| {
        anyhow::anyhow!(
            "unknown chapter {name:?}: expected one of {}",
            all.iter()
                .map(|c| c.name.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_registry_names_each_chapter_once_as_a_slug() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("chapters.toml");
        let entry =
            |n: &str| format!("[[chapter]]\nname = \"{n}\"\ntitle = \"T\"\nsearch = \"s\"\n");
        std::fs::write(&file, entry("a-b") + &entry("c")).unwrap();
        let names: Vec<String> = read(&file).unwrap().into_iter().map(|c| c.name).collect();
        assert_eq!(names, ["a-b", "c"]);
        std::fs::write(&file, entry("a") + &entry("a")).unwrap();
        assert!(format!("{:#}", read(&file).unwrap_err()).contains("listed twice"));
        std::fs::write(&file, entry("<b>")).unwrap();
        assert!(format!("{:#}", read(&file).unwrap_err()).contains("must be lowercase"));
        std::fs::write(&file, "[[chapter]]\nname = \"a\"\n").unwrap();
        assert!(format!("{:#}", read(&file).unwrap_err()).contains("not a chapter registry"));
    }

    #[test]
    fn the_committed_registry_reads() {
        let file = crate::code_dir().join("chapters.toml");
        assert!(!read(&file).unwrap().is_empty());
    }
}
