//! Freshness: a results file is stale when the code that produced it changed.
use std::fs;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use sha2::{Digest, Sha256};

use crate::profile::Profile;

/// Hash of what decides a chapter's numbers: the chapter crate's manifest and
/// `src/` (not its tests or benches), the third-party packages locked in
/// `Cargo.lock`, the compiler and the profile. The harness itself is left out
/// on purpose: changing how a table is drawn must not make every chapter
/// stale. So are the lock file's entries for the workspace's own crates: they
/// list each member's dev-dependencies, and a test-only dependency added to
/// one chapter must not stale the others.
pub fn fingerprint(code_dir: &Path, crate_name: &str, profile: Profile) -> Result<String> {
    let crate_dir = code_dir.join(crate_name);
    let mut files = vec![crate_dir.join("Cargo.toml")];
    collect(&crate_dir.join("src"), &mut files)?;
    let mut hasher = Sha256::new();
    for package in third_party_packages(code_dir)? {
        hasher.update(package.as_bytes());
        hasher.update([0]);
    }
    for file in &files {
        let rel = file.strip_prefix(code_dir).unwrap_or(file);
        hasher.update(rel.to_string_lossy().as_bytes());
        hasher.update([0]);
        let bytes = fs::read(file).with_context(|| format!("cannot read {}", file.display()))?;
        hasher.update(&bytes);
        hasher.update([0]);
    }
    hasher.update(crate::machine::rustc_version().as_bytes());
    hasher.update(profile.name().as_bytes());
    let digest = hasher.finalize();
    Ok(digest.iter().take(8).map(|b| format!("{b:02x}")).collect())
}

/// `name version source checksum` of every locked package that comes from a
/// registry or git (workspace members have no `source`), sorted.
fn third_party_packages(code_dir: &Path) -> Result<Vec<String>> {
    let path = code_dir.join("Cargo.lock");
    let text =
        fs::read_to_string(&path).with_context(|| format!("cannot read {}", path.display()))?;
    let lock: toml::Value =
        toml::from_str(&text).with_context(|| format!("{} is not valid TOML", path.display()))?;
    let field = |p: &toml::Value, k: &str| {
        p.get(k)
            .and_then(|v| v.as_str())
            .unwrap_or_default()
            .to_string()
    };
    let mut out: Vec<String> = lock
        .get("package")
        .and_then(|p| p.as_array())
        .map(|ps| ps.as_slice())
        .unwrap_or_default()
        .iter()
        .filter(|p| p.get("source").is_some())
        .map(|p| {
            ["name", "version", "source", "checksum"]
                .map(|k| field(p, k))
                .join(" ")
        })
        .collect();
    out.sort();
    Ok(out)
}

fn collect(dir: &Path, out: &mut Vec<PathBuf>) -> Result<()> {
    if !dir.exists() {
        return Ok(());
    }
    let mut entries: Vec<_> = fs::read_dir(dir)
        .with_context(|| format!("cannot list {}", dir.display()))?
        .collect::<Result<_, _>>()?;
    entries.sort_by_key(|e| e.path());
    for entry in entries {
        let path = entry.path();
        if path.is_dir() {
            collect(&path, out)?;
        } else {
            out.push(path);
        }
    }
    Ok(())
}

/// Versions of `names` as locked in `Cargo.lock` (first match per name).
pub fn locked_versions(
    code_dir: &Path,
    names: &[&str],
) -> Result<std::collections::BTreeMap<String, String>> {
    let path = code_dir.join("Cargo.lock");
    let text =
        fs::read_to_string(&path).with_context(|| format!("cannot read {}", path.display()))?;
    let lock: toml::Value =
        toml::from_str(&text).with_context(|| format!("{} is not valid TOML", path.display()))?;
    let packages = lock
        .get("package")
        .and_then(|p| p.as_array())
        .cloned()
        .unwrap_or_default();
    let mut out = std::collections::BTreeMap::new();
    for name in names {
        let version = packages
            .iter()
            .find(|p| p.get("name").and_then(|n| n.as_str()) == Some(name))
            .and_then(|p| p.get("version").and_then(|v| v.as_str()))
            .with_context(|| format!("{name} is not in {}", path.display()))?;
        out.insert(name.to_string(), version.to_string());
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tree() -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        fs::create_dir_all(dir.path().join("demo/src")).unwrap();
        fs::write(dir.path().join("demo/Cargo.toml"), "[package]").unwrap();
        fs::write(dir.path().join("demo/src/lib.rs"), "fn a() {}").unwrap();
        fs::write(dir.path().join("Cargo.lock"), lock("1.2.3", "")).unwrap();
        dir
    }

    /// A lock file with tokio at `tokio` and a workspace member whose
    /// dependency list ends with `member_deps`.
    fn lock(tokio: &str, member_deps: &str) -> String {
        format!(
            "version = 4\n\n[[package]]\nname = \"demo\"\nversion = \"0.1.0\"\n\
             dependencies = [\"tokio\"{member_deps}]\n\n[[package]]\nname = \"tokio\"\n\
             version = \"{tokio}\"\nsource = \"registry+https://github.com/rust-lang/crates.io-index\"\n\
             checksum = \"abc\"\n"
        )
    }

    #[test]
    fn sources_lock_and_profile_each_change_the_fingerprint() {
        let dir = tree();
        let base = fingerprint(dir.path(), "demo", Profile::Quick).unwrap();
        assert_eq!(
            base,
            fingerprint(dir.path(), "demo", Profile::Quick).unwrap()
        );
        assert_ne!(
            base,
            fingerprint(dir.path(), "demo", Profile::Full).unwrap()
        );
        fs::write(dir.path().join("demo/src/lib.rs"), "fn b() {}").unwrap();
        let edited = fingerprint(dir.path(), "demo", Profile::Quick).unwrap();
        assert_ne!(base, edited);
        // A workspace member's test-only dependency leaves it alone...
        fs::write(
            dir.path().join("Cargo.lock"),
            lock("1.2.3", ", \"tempfile\""),
        )
        .unwrap();
        assert_eq!(
            edited,
            fingerprint(dir.path(), "demo", Profile::Quick).unwrap()
        );
        // ...a different version of a third-party crate does not.
        fs::write(dir.path().join("Cargo.lock"), lock("1.2.4", "")).unwrap();
        assert_ne!(
            edited,
            fingerprint(dir.path(), "demo", Profile::Quick).unwrap()
        );
        fs::write(dir.path().join("Cargo.lock"), "[[package").unwrap();
        let err = fingerprint(dir.path(), "demo", Profile::Quick).unwrap_err();
        assert!(format!("{err:#}").contains("Cargo.lock"), "{err:#}");
    }

    #[test]
    fn versions_come_from_the_lock_file() {
        let dir = tree();
        let v = locked_versions(dir.path(), &["tokio"]).unwrap();
        assert_eq!(v["tokio"], "1.2.3");
        let err = locked_versions(dir.path(), &["kanal"]).unwrap_err();
        assert!(err.to_string().contains("kanal"));
    }
}
