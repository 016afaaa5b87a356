//! `harness new-chapter`: renaming, refusals and writes (in a copy of a checkout).
use super::*;

#[test]
fn every_trace_of_the_template_is_renamed() {
    let r = Rename::new("sixth-probe", "Sixth probe", "SIX");
    let src = "use chapter_template::run::Template;\nconst NAME: &str = \"chapter-template\";\n\
               id: \"TPL-1\", fig: \"template-timings\", // the template's claim\n\
               impl Templates for TemplateX {}\n";
    let out = r.apply(Path::new("src/run.rs"), src);
    assert_eq!(
        out,
        "use sixth_probe::run::SixthProbe;\nconst NAME: &str = \"sixth-probe\";\n\
         id: \"SIX-1\", fig: \"sixth-probe-timings\", // the sixth-probe's claim\n\
         impl Templates for TemplateX {}\n"
    );
    let page = r.apply(
        Path::new("page.md"),
        "# Template chapter\n\n<!-- cmdrun ../code/target/release/harness render chapter-template figure -->\n",
    );
    assert_eq!(
        page,
        "# Sixth probe\n\n<!-- cmdrun ../code/target/release/harness render sixth-probe figure -->\n"
    );
    assert_eq!(trace_of_template(&page), None);
    assert_eq!(
        trace_of_template("a\nthe Template x"),
        Some((2, "template".into()))
    );
    assert_eq!(trace_of_template("id TPL-2"), Some((1, "tpl-".into())));
}

#[test]
fn the_committed_template_leaves_no_trace_when_renamed() {
    let template = harness_core::code_dir().join(TEMPLATE);
    let r = Rename::new("sixth-probe", "Sixth probe", "SIX");
    let mut n = 0;
    for rel in files_under(&template).unwrap() {
        let text = std::fs::read_to_string(template.join(&rel)).unwrap();
        let out = r.apply(&rel, &text);
        assert_eq!(trace_of_template(&out), None, "{}", rel.display());
        n += 1;
    }
    assert!(n >= 10, "{n} files in the template");
}

#[test]
fn bad_names_and_prefixes_are_refused_by_name() {
    for bad in [
        "",
        "Sixth",
        "6th",
        "a_b",
        "a--b",
        "-a",
        "a-",
        "harness",
        "results",
        "my-template",
    ] {
        assert!(check_name(bad).is_err(), "{bad:?}");
    }
    for good in ["sixth-probe", "x2", "ring-buffer-2"] {
        check_name(good).unwrap();
    }
    for bad in ["", "A", "abc", "TPL", "A-B", "TOOLONGPREFIX", "1AB"] {
        assert!(check_prefix(bad).is_err(), "{bad:?}");
    }
    check_prefix("SIX").unwrap();
}

#[test]
fn the_member_and_the_entry_are_appended() {
    let ws = "[workspace]\nresolver = \"2\"\nmembers = [\n    \"harness\",\n    \"chapter-template\",\n]\n\n[x]\n";
    assert_eq!(
        add_member(ws, "sixth").unwrap(),
        "[workspace]\nresolver = \"2\"\nmembers = [\n    \"harness\",\n    \"chapter-template\",\n    \"sixth\",\n]\n\n[x]\n"
    );
    assert_eq!(
        add_member("[workspace]\nmembers = [\"a\"]\n", "b").unwrap(),
        "[workspace]\nmembers = [\"a\", \"b\",]\n"
    );
    let c = ChapterInfo {
        name: "sixth".into(),
        title: "A \"sixth\"".into(),
        search: "s".into(),
        ..Default::default()
    };
    assert_eq!(
        append_entry("# head\n\n[[chapter]]\nname = \"a\"\n\n", &c),
        "# head\n\n[[chapter]]\nname = \"a\"\n\n[[chapter]]\nname = \"sixth\"\ntitle = 'A \"sixth\"'\nsearch = \"s\"\n"
    );
}

#[test]
fn a_refused_chapter_writes_nothing() {
    // A copy of the parts of a checkout the command reads and writes.
    let dir = tempfile::tempdir().unwrap();
    let (root, code) = (dir.path(), dir.path().join("code"));
    let real = harness_core::code_dir();
    std::fs::create_dir_all(root.join("src")).unwrap();
    std::fs::create_dir_all(code.join(TEMPLATE)).unwrap();
    for f in ["Cargo.toml", "chapters.toml"] {
        std::fs::copy(real.join(f), code.join(f)).unwrap();
    }
    for f in ["README.md", "src/SUMMARY.md", "src/introduction.md"] {
        std::fs::copy(real.parent().unwrap().join(f), root.join(f)).unwrap();
    }
    for rel in files_under(&real.join(TEMPLATE)).unwrap() {
        let to = code.join(TEMPLATE).join(&rel);
        std::fs::create_dir_all(to.parent().unwrap()).unwrap();
        std::fs::copy(real.join(TEMPLATE).join(&rel), to).unwrap();
    }
    // fan-in's claims, as far as the prefix check reads them.
    std::fs::create_dir_all(code.join("fan-in/src/book")).unwrap();
    std::fs::write(code.join("fan-in/src/book/claims.rs"), "id: \"FAN-1\",\n").unwrap();
    let snapshot = |root: &Path| {
        let mut all: Vec<(PathBuf, Vec<u8>)> = files_under(root)
            .unwrap()
            .into_iter()
            .map(|r| (r.clone(), std::fs::read(root.join(r)).unwrap()))
            .collect();
        all.sort();
        all
    };
    let before = snapshot(root);
    let args = |name: &str, prefix: &str, title: &str| Args {
        name: name.into(),
        title: title.into(),
        search: "sixth".into(),
        claim_prefix: prefix.into(),
        question: String::new(),
        intro: String::new(),
    };
    let with_registry =
        |a: &Args| prepare(&code, root, &code.join("chapters.toml"), a).map(|m| m.files.len());
    for (a, says) in [
        (args("Bad", "SIX", "T"), "chapter name \"Bad\""),
        (args("sixth", "tpl", "T"), "--claim-prefix \"tpl\""),
        (args("fan-in", "SIX", "T"), "already registered"),
        (
            args("sixth", "FAN", "T"),
            "chapter fan-in already has claims FAN-",
        ),
        (args("sixth", "SIX", "A | B"), "title \"A | B\" holds '|'"),
    ] {
        let e = format!("{:#}", with_registry(&a).unwrap_err());
        assert!(e.contains(says), "{says}: {e}");
    }
    // An existing folder is named; a page too.
    std::fs::create_dir(code.join("sixth")).unwrap();
    let e = format!(
        "{:#}",
        with_registry(&args("sixth", "SIX", "T")).unwrap_err()
    );
    assert!(e.contains("code/sixth exists already"), "{e}");
    std::fs::remove_dir(code.join("sixth")).unwrap();
    assert_eq!(snapshot(root), before, "a refused chapter wrote something");
    // The template gaining a use of its name the command cannot rename
    // stops it before anything is written.
    let lib = code.join(TEMPLATE).join("src/lib.rs");
    let text = std::fs::read_to_string(&lib).unwrap();
    std::fs::write(&lib, format!("{text}// see TEMPLATE.md\n")).unwrap();
    let e = format!(
        "{:#}",
        with_registry(&args("sixth", "SIX", "T")).unwrap_err()
    );
    assert!(
        e.contains("src/lib.rs: line") && e.contains("keeps \"template\""),
        "{e}"
    );
    std::fs::write(&lib, &text).unwrap();
    assert_eq!(snapshot(root), before);

    // A write that fails half-way (the page appeared meanwhile) undoes
    // the ones before it.
    let made = prepare(
        &code,
        root,
        &code.join("chapters.toml"),
        &args("sixth", "SIX", "Sixth"),
    )
    .unwrap();
    std::fs::write(root.join("src/sixth.md"), "someone's page").unwrap();
    let e = format!("{:#}", made.write().unwrap_err());
    assert!(e.contains("sixth.md"), "{e}");
    std::fs::remove_file(root.join("src/sixth.md")).unwrap();
    assert_eq!(
        snapshot(root),
        before,
        "a failed write left something behind"
    );

    // And a whole one.
    made.write().unwrap();
    let after = snapshot(root);
    let added: Vec<_> = after
        .iter()
        .filter(|f| !before.contains(f))
        .map(|f| f.0.display().to_string())
        .collect();
    for f in [
        "code/Cargo.toml",
        "code/chapters.toml",
        "src/sixth.md",
        "code/sixth/src/lib.rs",
        "README.md",
        "src/SUMMARY.md",
        "src/introduction.md",
    ] {
        assert!(added.iter().any(|a| a == f), "{f} not written: {added:?}");
    }
    assert!(!root.join("code/sixth/page.md").exists());
    let summary = std::fs::read_to_string(root.join("src/SUMMARY.md")).unwrap();
    assert!(
        summary.contains("- [Channel fan-in](fan-in.md)\n")
            && summary.contains("- [Sixth](sixth.md)\n")
    );
    let chapters = registry::read(&code.join("chapters.toml")).unwrap();
    assert_eq!(chapters.last().unwrap().name, "sixth");
    assert!(std::fs::read_to_string(code.join("Cargo.toml"))
        .unwrap()
        .contains("    \"sixth\",\n]"));
    assert!(!std::fs::read_dir(&code).unwrap().any(|e| e
        .unwrap()
        .file_name()
        .to_string_lossy()
        .starts_with(".new-chapter")));
}
