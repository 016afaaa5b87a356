use super::*;

/// The workspace members of the test tree: the four harness packages and
/// two chapters.
const MEMBERS: &str =
    "members = [\"harness/core\", \"harness/measure\", \"harness/page\", \"harness\", \"demo\", \"other\"]";

/// The measuring package's folder in the test tree: the tests find it the
/// way the fingerprint does, by the package's name.
fn measuring(d: &Path) -> PathBuf {
    member_dir(d, MEASURING_PACKAGE).unwrap()
}

/// A workspace of two chapters (`demo`, `other`) and a harness in four
/// packages (its measuring package one file), with tokio locked for `demo`.
fn tree() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    fs::write(d.join("Cargo.toml"), format!("[workspace]\n{MEMBERS}\n")).unwrap();
    for (member, deps) in [("demo", "tokio = \"1\""), ("other", "")] {
        fs::create_dir_all(d.join(member).join("src")).unwrap();
        fs::write(
            d.join(member).join("Cargo.toml"),
            format!("[package]\nname = \"{member}\"\n[dependencies]\nharness = {{ path = \"../harness\" }}\n{deps}\n[dev-dependencies]\ntempfile = \"3\"\n"),
        )
        .unwrap();
        fs::write(d.join(member).join("src/lib.rs"), "fn a() {}").unwrap();
    }
    for (folder, name, deps, file) in [
        ("harness/core", "harness-core", "serde = \"1\"", "values.rs"),
        (
            "harness/measure",
            "harness-measure",
            "harness-core = { path = \"../core\" }\ncriterion = \"0.8\"",
            "timing.rs",
        ),
        (
            "harness/page",
            "harness-page",
            "harness-measure = { path = \"../measure\" }\nplotters = \"0.3\"",
            "render/svg.rs",
        ),
        (
            "harness",
            "harness",
            "harness-page = { path = \"page\" }\nharness-measure = { path = \"measure\" }",
            "lib.rs",
        ),
    ] {
        let src = d.join(folder).join("src");
        fs::create_dir_all(src.join(file).parent().unwrap()).unwrap();
        fs::write(src.join(file), "fn f() {}").unwrap();
        fs::write(
            d.join(folder).join("Cargo.toml"),
            format!("[package]\nname = \"{name}\"\n[dependencies]\n{deps}\n"),
        )
        .unwrap();
    }
    fs::write(d.join("Cargo.lock"), lock(&[], "1.2.3")).unwrap();
    dir
}

fn registry(name: &str, version: &str, deps: &[&str]) -> String {
    format!(
        "[[package]]\nname = \"{name}\"\nversion = \"{version}\"\n\
         source = \"registry+https://github.com/rust-lang/crates.io-index\"\n\
         checksum = \"abc\"\ndependencies = [{}]\n\n",
        deps.iter()
            .map(|d| format!("\"{d}\""))
            .collect::<Vec<_>>()
            .join(", ")
    )
}

/// A lock file: `other` depends on `other_deps` besides the harness.
fn lock(other_deps: &[&str], tokio: &str) -> String {
    let list = |ds: &[&str]| {
        ds.iter()
            .map(|d| format!("\"{d}\""))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let mut other = vec!["harness", "tempfile"];
    other.extend_from_slice(other_deps);
    format!(
        "version = 4\n\n[[package]]\nname = \"demo\"\nversion = \"0.1.0\"\n\
         dependencies = [\"harness\", \"tempfile\", \"tokio\"]\n\n\
         [[package]]\nname = \"other\"\nversion = \"0.1.0\"\ndependencies = [{}]\n\n\
         [[package]]\nname = \"harness\"\nversion = \"0.1.0\"\n\
         dependencies = [\"harness-measure\", \"harness-page\"]\n\n\
         [[package]]\nname = \"harness-page\"\nversion = \"0.1.0\"\n\
         dependencies = [\"harness-measure\", \"plotters\"]\n\n\
         [[package]]\nname = \"harness-measure\"\nversion = \"0.1.0\"\n\
         dependencies = [\"criterion\", \"harness-core\"]\n\n\
         [[package]]\nname = \"harness-core\"\nversion = \"0.1.0\"\ndependencies = [\"serde\"]\n\n{}{}{}{}{}",
        list(&other),
        registry("criterion", "0.8.0", &[]) + &registry("plotters", "0.3.0", &[]),
        registry("serde", "1.0.0", &[]),
        registry("tempfile", "3.0.0", &[]),
        registry("tokio", tokio, &["bytes"]),
        registry("bytes", "1.0.0", &[]) + &registry("kanal", "0.1.0", &[]),
    )
}

fn both(dir: &Path) -> (String, String) {
    (
        fingerprint(dir, "demo", Profile::Quick).unwrap(),
        fingerprint(dir, "other", Profile::Quick).unwrap(),
    )
}

#[test]
fn the_fingerprint_follows_what_decides_the_numbers() {
    let dir = tree();
    let d = dir.path();
    let base = both(d);
    assert_eq!(base, both(d), "the same tree hashes the same");
    assert_ne!(base.0, fingerprint(d, "demo", Profile::Full).unwrap());

    // A renderer edited, the page's command line or the data package:
    // nothing stale.
    fs::write(d.join("harness/page/src/render/svg.rs"), "fn s2() {}").unwrap();
    fs::write(d.join("harness/src/lib.rs"), "fn f2() {}").unwrap();
    fs::write(d.join("harness/core/src/values.rs"), "fn f2() {}").unwrap();
    assert_eq!(both(d), base);
    // A release of a crate only the page side brings: nothing stale.
    let text = fs::read_to_string(d.join("Cargo.lock")).unwrap().replace(
        "name = \"plotters\"\nversion = \"0.3.0\"",
        "name = \"plotters\"\nversion = \"0.3.9\"",
    );
    fs::write(d.join("Cargo.lock"), text).unwrap();
    assert_eq!(both(d), base);
    // A release of a crate the measuring package brings: every chapter
    // stale, though no chapter names the measuring package itself.
    let criterion = |v: &str| {
        let text = fs::read_to_string(d.join("Cargo.lock")).unwrap();
        let at = text.find("name = \"criterion\"\nversion = ").unwrap();
        let end = text[at..].find('\n').unwrap() + at + 1;
        let end = text[end..].find('\n').unwrap() + end;
        let text = format!(
            "{}name = \"criterion\"\nversion = \"{v}\"{}",
            &text[..at],
            &text[end..]
        );
        fs::write(d.join("Cargo.lock"), text).unwrap();
    };
    criterion("0.8.1");
    let bumped = both(d);
    assert!(bumped.0 != base.0 && bumped.1 != base.1);
    criterion("0.8.0");
    assert_eq!(both(d), base);

    // A measuring file of the harness edited: every chapter stale. The
    // package is found by its name, wherever its folder is.
    fs::write(measuring(d).join("src/timing.rs"), "fn t2() {}").unwrap();
    let measured = both(d);
    assert!(measured.0 != base.0 && measured.1 != base.1);
    let manifest = measuring(d).join("Cargo.toml");
    let named = fs::read_to_string(&manifest).unwrap();
    fs::write(&manifest, "[package]\nname = \"elsewhere\"\n").unwrap();
    let err = fingerprint(d, "demo", Profile::Quick).unwrap_err();
    assert!(format!("{err:#}").contains(MEASURING_PACKAGE), "{err:#}");
    fs::write(&manifest, named).unwrap();
    assert_eq!(both(d), measured);

    // A crate added to one chapter: only that chapter stale.
    fs::write(d.join("Cargo.lock"), lock(&["kanal"], "1.2.3")).unwrap();
    let added = both(d);
    assert_eq!(added.0, measured.0);
    assert_ne!(added.1, measured.1);

    // Another release of a crate only `demo` uses (or its dependency).
    fs::write(d.join("Cargo.lock"), lock(&["kanal"], "1.2.4")).unwrap();
    let moved = both(d);
    assert_ne!(moved.0, added.0);
    assert_eq!(moved.1, added.1);

    // A chapter's own source.
    fs::write(d.join("demo/src/lib.rs"), "fn b() {}").unwrap();
    let edited = both(d);
    assert_ne!(edited.0, moved.0);

    // A chapter's page (the binary's `src/page/`: exhibits, claims, judge,
    // checks), added or edited: nothing stale. A file named like it
    // elsewhere in `src/`, and a `src/book/` (no longer a page), count.
    let page = d.join("demo/src").join(RENDERING_HALF);
    fs::create_dir_all(page.join("claims")).unwrap();
    fs::write(page.join("mod.rs"), "fn caption() {}").unwrap();
    fs::write(page.join("claims/rule.rs"), "fn judge() {}").unwrap();
    assert_eq!(both(d), edited);
    fs::write(page.join("claims/rule.rs"), "fn judge2() {}").unwrap();
    assert_eq!(both(d), edited);
    for measuring in ["demo/src/page.rs", "demo/src/book/mod.rs"] {
        let file = d.join(measuring);
        fs::create_dir_all(file.parent().unwrap()).unwrap();
        fs::write(&file, "fn run() {}").unwrap();
        assert_ne!(both(d).0, edited.0, "{measuring} is measuring code");
        fs::remove_file(&file).unwrap();
        assert_eq!(both(d), edited);
    }

    // A build script added to one chapter, then the shared code build
    // scripts include: only the chapter with the script stale.
    fs::create_dir_all(d.join(BUILD_SUPPORT)).unwrap();
    fs::write(d.join(BUILD_SUPPORT).join("tokio_coop.rs"), "fn c() {}").unwrap();
    assert_eq!(
        both(d),
        edited,
        "shared build code no build script includes"
    );
    fs::write(d.join("demo/build.rs"), "fn main() {}").unwrap();
    let scripted = both(d);
    assert_ne!(scripted.0, edited.0);
    assert_eq!(scripted.1, edited.1);
    fs::write(d.join(BUILD_SUPPORT).join("tokio_coop.rs"), "fn c2() {}").unwrap();
    let shared = both(d);
    assert_ne!(shared.0, scripted.0);
    assert_eq!(shared.1, scripted.1);

    fs::write(d.join("Cargo.lock"), "[[package").unwrap();
    let err = fingerprint(d, "demo", Profile::Quick).unwrap_err();
    assert!(format!("{err:#}").contains("Cargo.lock"), "{err:#}");
}

#[test]
fn the_code_fingerprint_ignores_the_lock_and_follows_the_code() {
    let dir = tree();
    let d = dir.path();
    let code = |d: &Path| code_fingerprint(d, "demo", Profile::Quick).unwrap();
    let base = code(d);
    assert_ne!(base, fingerprint(d, "demo", Profile::Quick).unwrap());
    // The lock moves on (tokio 1.2.3 to 1.2.4): a release variant stays current.
    fs::write(d.join("Cargo.lock"), lock(&[], "1.2.4")).unwrap();
    assert_eq!(code(d), base);
    // Even an unreadable lock does not matter to it.
    fs::write(d.join("Cargo.lock"), "[[package").unwrap();
    assert_eq!(code(d), base);
    // The profile, the chapter's code and the measuring half do.
    assert_ne!(code_fingerprint(d, "demo", Profile::Full).unwrap(), base);
    fs::write(d.join("demo/src/lib.rs"), "fn b() {}").unwrap();
    let edited = code(d);
    assert_ne!(edited, base);
    fs::write(measuring(d).join("src/timing.rs"), "fn t2() {}").unwrap();
    assert_ne!(code(d), edited);
}

#[test]
fn build_settings_that_change_code_stale_every_chapter() {
    let dir = tree();
    let d = dir.path();
    let none = Compiled::default();
    let with = |c: &Compiled| {
        (
            hash(d, "demo", Profile::Quick, true, c).unwrap(),
            hash(d, "other", Profile::Quick, true, c).unwrap(),
        )
    };
    // The tree's workspace manifest declares nothing: not the book's
    // settings, so they are hashed. Declared as the book declares them,
    // the hash is the one without settings (committed results current).
    let manifest = |release: &str| {
        fs::write(
            d.join("Cargo.toml"),
            format!("[workspace]\n{MEMBERS}\n\n[profile.release]\n{release}\n[profile.bench]\ndebug = \"limited\"\n"),
        )
        .unwrap()
    };
    manifest("# the book's\ndebug = \"limited\"");
    assert_eq!(build_settings(d, "demo", &none).unwrap(), None);
    let base = with(&none);
    // Declared settings: the same hash as before build settings counted
    // (the chapter fingerprints recorded in code/results stay current).
    assert_eq!(base, both(d), "this build has no flags");
    for release in [
        "debug = \"limited\"\nopt-level = 0",
        "debug = \"limited\"\noverflow-checks = true",
        "debug = \"limited\"\nlto = true",
        "debug = true",
        "",
    ] {
        manifest(release);
        let changed = with(&none);
        assert!(
            changed.0 != base.0 && changed.1 != base.1,
            "{release:?} left a chapter current"
        );
    }
    manifest("debug = \"limited\"");
    assert_eq!(with(&none), base);
    // The page side's own packages may be built otherwise: what only reads
    // results and draws pages decides no number. An override of what a
    // chapter measures with (the measuring package, the data package, any
    // dependency, "*") stales every chapter; of a chapter, that chapter.
    let page_side = "debug = \"limited\"\n[profile.release.package.harness-page]\nopt-level = 0\n[profile.release.package.harness]\nopt-level = 0";
    manifest(page_side);
    assert_eq!(build_settings(d, "demo", &none).unwrap(), None);
    assert_eq!(with(&none), base, "a page-side override staled a chapter");
    for (spec, stales_demo, stales_other) in [
        ("harness-measure", true, true),
        ("harness-core", true, true),
        ("\"harness-core@0.1.0\"", true, true),
        ("\"*\"", true, true),
        ("tokio", true, true),
        ("demo", true, false),
        ("other", false, true),
    ] {
        manifest(&format!(
            "{page_side}\n[profile.release.package.{spec}]\nopt-level = 0"
        ));
        let changed = with(&none);
        assert_eq!(
            (changed.0 != base.0, changed.1 != base.1),
            (stales_demo, stales_other),
            "an override of {spec}: (demo stale, other stale)"
        );
        if let Some(settings) = build_settings(d, "demo", &none).unwrap() {
            assert!(
                !settings.contains("harness-page"),
                "the page side's override was hashed in: {settings}"
            );
        }
    }
    manifest("debug = \"limited\"");
    let native = Compiled {
        rustflags: vec!["-C".into(), "target-cpu=native".into()],
        ..Compiled::default()
    };
    let flagged = with(&native);
    assert!(flagged.0 != base.0 && flagged.1 != base.1);
    let overridden = Compiled {
        profile_env: [(
            "CARGO_PROFILE_RELEASE_OPT_LEVEL".to_string(),
            "1".to_string(),
        )]
        .into(),
        ..Compiled::default()
    };
    assert_eq!(
        codegen_flags([
            "-D",
            "warnings",
            "-Aunused",
            "-C",
            "target-cpu=native",
            "--cap-lints=warn"
        ]),
        ["-C", "target-cpu=native"]
    );
    let over = with(&overridden);
    assert!(over.0 != base.0 && over.0 != flagged.0);
    // A cargo config beside the workspace.
    fs::create_dir_all(d.join(".cargo")).unwrap();
    fs::write(
        d.join(".cargo/config.toml"),
        "[build]\nrustflags = [\"-C\", \"target-cpu=native\"]\n",
    )
    .unwrap();
    let config = with(&none);
    assert!(config.0 != base.0 && config.1 != base.1);
    fs::write(d.join(".cargo/config.toml"), "[alias]\nb = \"build\"\n").unwrap();
    assert_eq!(with(&none), base, "an alias changes no code");
}

#[test]
fn the_committed_settings_are_the_declared_ones() {
    // Else every committed result would be stale: they were measured
    // under code/Cargo.toml as committed, with no flags.
    for chapter in crate::registry::chapters().unwrap() {
        assert_eq!(
            build_settings(&crate::code_dir(), &chapter.name, &Compiled::default()).unwrap(),
            None,
            "{}",
            chapter.name
        );
    }
}

#[test]
fn a_test_only_crate_stales_nothing() {
    let dir = tree();
    let d = dir.path();
    let base = both(d);
    // tempfile is a dev-dependency of both; bumping it changes no fingerprint.
    let text = fs::read_to_string(d.join("Cargo.lock")).unwrap().replace(
        "name = \"tempfile\"\nversion = \"3.0.0\"",
        "name = \"tempfile\"\nversion = \"3.9.0\"",
    );
    fs::write(d.join("Cargo.lock"), text).unwrap();
    assert_eq!(both(d), base);
}

#[test]
fn versions_come_from_the_lock_file() {
    let dir = tree();
    let v = locked_versions(dir.path(), &["tokio"]).unwrap();
    assert_eq!(v["tokio"], "1.2.3");
    let err = locked_versions(dir.path(), &["flume"]).unwrap_err();
    assert!(err.to_string().contains("flume"));
}
