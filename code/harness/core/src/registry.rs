//! The chapters of the book, in reading order, from `code/chapters.toml`
//! (`BOOK_CHAPTERS` names another file: tests add a chapter that way).
use std::path::PathBuf;
use std::sync::OnceLock;

use anyhow::{bail, Context, Result};
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ChapterInfo {
    /// Crate, binary, results folder and page name (`src/<name>.md`).
    pub name: String,
    pub title: String,
    /// A word the book's search must find the page by (browser checks).
    pub search: String,
    /// The question the chapter answers, one line: the README's chapter
    /// table (`harness chapters --sync`). Default: empty.
    #[serde(default)]
    pub question: String,
    /// One line for the introduction's chapter list, after the link.
    /// Default: empty (the link alone).
    #[serde(default)]
    pub intro: String,
    /// The profile the releases workflow measures a new release at.
    #[serde(default = "quick")]
    pub releases_profile: String,
    /// Measured on an x86-64 and an arm64 runner by the cross-architecture
    /// workflow (`harness chapters --where cross_arch`).
    #[serde(default)]
    pub cross_arch: bool,
}

fn quick() -> String {
    "quick".into()
}

/// The profiles `releases_profile` may name (the measuring side's
/// `Profile`; a test of the command line holds the two together).
pub const PROFILES: [&str; 3] = ["smoke", "quick", "full"];

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Registry {
    chapter: Vec<ChapterInfo>,
}

/// Names a chapter may not take, because its page (`src/<name>.md`, built
/// as `<name>.html`) or its folder would collide with something that has
/// the name already: what mdBook writes into every book (`print.html`,
/// `toc.html`, `index.html`, `404.html`, the search index and its scripts,
/// the theme's folders), the book's own pages and the checkout's folders.
pub const RESERVED: &[&str] = &[
    // mdBook's output (0.4.52).
    "print",
    "toc",
    "index",
    "404",
    "searchindex",
    "searcher",
    "search",
    "elasticlunr",
    "mark",
    "highlight",
    "clipboard",
    "book",
    "css",
    "fonts",
    "favicon",
    "ayu-highlight",
    "tomorrow-night",
    "sitemap",
    "theme",
    // The book's own pages (src/) and the checkout's folders.
    "summary",
    "introduction",
    "findings",
    "what-to-use",
    "glossary",
    "method",
    "reproduce",
    "src",
    "code",
    "scripts",
    "results",
    "target",
    "harness",
    "build-support",
];

/// Why `name` cannot name a chapter, when it is reserved (`RESERVED`).
pub fn reserved(name: &str) -> Option<String> {
    RESERVED.contains(&name).then(|| {
        format!(
            "chapter name {name:?} is reserved: mdBook or the book already has a page or \
             folder by that name ({name}.html or {name}/); choose another"
        )
    })
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
        if let Some(why) = reserved(&c.name) {
            bail!("{}: {why}", path.display());
        }
        if reg.chapter[..i].iter().any(|o| o.name == c.name) {
            bail!("{}: chapter {:?} is listed twice", path.display(), c.name);
        }
        check_fields(c)
            .map_err(|e| anyhow::anyhow!("{}: chapter {:?}: {e}", path.display(), c.name))?;
    }
    Ok(reg.chapter)
}

/// The settings generated lists and workflows print: one line each, none
/// empty where a page needs it, a known profile.
fn check_fields(c: &ChapterInfo) -> std::result::Result<(), String> {
    for (field, value, forbidden) in [
        ("title", &c.title, "|[]\n\r"),
        ("search", &c.search, "\n\r"),
        ("question", &c.question, "|\n\r"),
        ("intro", &c.intro, "\n\r"),
    ] {
        if (field == "title" || field == "search") && value.trim().is_empty() {
            return Err(format!("{field} is empty"));
        }
        if let Some(ch) = value.chars().find(|ch| forbidden.contains(*ch)) {
            return Err(format!(
                "{field} {value:?} holds {ch:?}: it is printed into one line of a \
                 generated list or table"
            ));
        }
        if value != value.trim() {
            return Err(format!("{field} {value:?} starts or ends with a space"));
        }
    }
    if !PROFILES.contains(&c.releases_profile.as_str()) {
        return Err(format!(
            "releases_profile {:?} must be one of {}",
            c.releases_profile,
            PROFILES.join(", ")
        ));
    }
    Ok(())
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
        // mdBook's print page, its table of contents, the book's folders.
        for name in ["print", "toc", "src", "findings"] {
            std::fs::write(&file, entry("a") + &entry(name)).unwrap();
            let e = format!("{:#}", read(&file).unwrap_err());
            assert!(
                e.contains(&format!("chapter name \"{name}\" is reserved")),
                "{e}"
            );
        }
    }

    #[test]
    fn optional_settings_have_defaults_and_bad_ones_are_named() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("chapters.toml");
        fn settings(c: &ChapterInfo) -> (&str, &str, &str, bool) {
            (&c.question, &c.intro, &c.releases_profile, c.cross_arch)
        }
        let base = "[[chapter]]\nname = \"a\"\ntitle = \"T\"\nsearch = \"s\"\n";
        std::fs::write(&file, base).unwrap();
        assert_eq!(settings(&read(&file).unwrap()[0]), ("", "", "quick", false));
        std::fs::write(
            &file,
            format!("{base}question = \"q?\"\nintro = \"i.\"\nreleases_profile = \"full\"\ncross_arch = true\n"),
        )
        .unwrap();
        assert_eq!(
            settings(&read(&file).unwrap()[0]),
            ("q?", "i.", "full", true)
        );
        let err = |extra: &str| {
            std::fs::write(&file, format!("{base}{extra}\n")).unwrap();
            format!("{:#}", read(&file).unwrap_err())
        };
        let e = err("releases_profile = \"slow\"");
        assert!(e.contains("chapters.toml: chapter \"a\": releases_profile \"slow\" must be one of smoke, quick, full"), "{e}");
        let e = err("question = \"a | b\"");
        assert!(
            e.contains("chapter \"a\": question \"a | b\" holds '|'"),
            "{e}"
        );
        let e = err("intro = \"two\\nlines\"");
        assert!(e.contains("intro"), "{e}");
        let e = err("cross_arch = \"yes\"");
        assert!(
            e.contains("chapters.toml") && e.contains("cross_arch"),
            "{e}"
        );
        let e = err("crossarch = true");
        assert!(e.contains("unknown field `crossarch`"), "{e}");
    }

    #[test]
    fn the_committed_registry_reads() {
        let file = crate::code_dir().join("chapters.toml");
        assert!(!read(&file).unwrap().is_empty());
    }
}
