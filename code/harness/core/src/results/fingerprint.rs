//! Freshness: a results file is stale when the code that produced it changed.
use std::fs;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use serde::Serialize;
use sha2::{Digest, Sha256};

use crate::profile::Profile;

/// Hash of what decides a chapter's numbers: the chapter crate's manifest,
/// `src/` but the page, `src/page/` ([`RENDERING_HALF`]), and build script (not its tests or benches), the
/// measuring package of the harness ([`MEASURING_PACKAGE`], found by its
/// name among the workspace members: its manifest, `src/` and build
/// script), the third-party packages the chapter and that package depend on
/// (their closure in `Cargo.lock`, dev-dependencies and the page side,
/// [`PAGE_SIDE`], left out), the compiler and the profile. What only reads
/// results is left out on purpose: the harness's page package and each
/// chapter's `src/page/` (exhibits, claims, judge, checks) can change
/// without making any chapter stale. The data package, `harness-core`, is not
/// hashed either: it does no arithmetic on measured numbers (its crate
/// doc). The page is the chapter binary's module, which the library
/// cannot name: no scan of the source is needed to keep measuring code
/// from reading it.
///
/// The build settings that change generated code count too
/// ([`build_settings`]): the `[profile.release]` table of `code/Cargo.toml`,
/// `code/.cargo/config.toml`, and the flags and profile overrides the
/// binaries were compiled with (`RUSTFLAGS` and the rest, `target-cpu`).
pub fn fingerprint(code_dir: &Path, crate_name: &str, profile: Profile) -> Result<String> {
    hash(code_dir, crate_name, profile, true, &Compiled::this_build())
}

/// The same hash without the lock file: what decides a release variant's
/// numbers apart from the releases it was measured against, which its
/// results file records (`results::Release`). The committed lock moving on
/// leaves it unchanged.
pub fn code_fingerprint(code_dir: &Path, crate_name: &str, profile: Profile) -> Result<String> {
    hash(
        code_dir,
        crate_name,
        profile,
        false,
        &Compiled::this_build(),
    )
}

/// What the compiler was told from outside the workspace's files: the
/// flags (`CARGO_ENCODED_RUSTFLAGS`, which gathers `RUSTFLAGS`,
/// `CARGO_BUILD_RUSTFLAGS`, `build.rustflags` and `target.*.rustflags` of
/// every cargo config) and the `CARGO_PROFILE_RELEASE_*` overrides in force
/// when the harness was built. The harness's build script records them;
/// the chapters link the harness built in the same cargo run, so the
/// binary that measures and the one that checks freshness agree.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Compiled {
    pub rustflags: Vec<String>,
    pub profile_env: std::collections::BTreeMap<String, String>,
}

impl Compiled {
    /// The flags and overrides this binary was built with.
    pub fn this_build() -> Compiled {
        let flags = env!("HARNESS_BUILD_RUSTFLAGS");
        let env = env!("HARNESS_BUILD_PROFILE_ENV");
        Compiled {
            rustflags: codegen_flags(flags.split('\x1f')),
            profile_env: env
                .split('\x1f')
                .filter_map(|kv| kv.split_once('='))
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect(),
        }
    }
}

/// The flags that can change generated code: all but the lint levels
/// (`-D warnings`, `-Aunused`, `--cap-lints warn`), which only decide
/// whether a build fails.
pub fn codegen_flags<'a>(flags: impl IntoIterator<Item = &'a str>) -> Vec<String> {
    let mut out = Vec::new();
    let mut skip_next = false;
    for f in flags {
        if std::mem::take(&mut skip_next) || f.is_empty() {
            continue;
        }
        if ["-D", "-W", "-A", "-F", "--force-warn", "--cap-lints"].contains(&f) {
            skip_next = true;
            continue;
        }
        let lint = ["-D", "-W", "-A", "-F", "--force-warn=", "--cap-lints="]
            .iter()
            .any(|p| f.starts_with(p));
        if !lint {
            out.push(f.to_string());
        }
    }
    out
}

/// The `[profile.release]` the committed results were measured under, as
/// `code/Cargo.toml` declared it then. Settings equal to these (with no
/// cargo config and no flags) leave the fingerprint as it always was, so
/// the committed results stay current; any other settings are hashed in.
/// Never edit this to match a new `Cargo.toml`: that would let results
/// measured under the old settings pass as current under the new ones.
pub const DECLARED_PROFILE_RELEASE: &str = "debug = \"limited\"\n";

/// The build settings that change generated code, canonically encoded (JSON,
/// keys sorted): `[profile.release]` of `code/Cargo.toml`, the `profile`,
/// `build`, `target` and `env` tables of `code/.cargo/config.toml` (or
/// `config`) when there is one, and the flags of `compiled`. `None` when
/// they are the book's declared settings ([`DECLARED_PROFILE_RELEASE`], no
/// cargo config, no flags, no overrides).
///
/// A package override (`[profile.release.package.NAME]`) counts for the
/// chapter `crate_name` only when NAME is a package its measuring code is
/// built from: a third-party package, `"*"`, or a workspace member among
/// [`measuring_members`]. The overrides of the workspace's other members
/// (the page side, [`PAGE_SIDE`], other chapters) are left out, as their
/// sources are (a `--with` copy's workspace has fewer members: there an
/// override of a member it leaves out counts as a dependency's): `code/Cargo.toml` builds the page side
/// without optimisation, which the test suite compiles in a quarter of the
/// time, and an override of one chapter stales only that chapter.
pub fn build_settings(
    code_dir: &Path,
    crate_name: &str,
    compiled: &Compiled,
) -> Result<Option<String>> {
    let manifest_path = code_dir.join("Cargo.toml");
    // No manifest (a test's bare tree): no declared settings either.
    let text = fs::read_to_string(&manifest_path).unwrap_or_default();
    let manifest: toml::Value = toml::from_str(&text)
        .with_context(|| format!("{} is not valid TOML", manifest_path.display()))?;
    let mut release = manifest
        .get("profile")
        .and_then(|p| p.get("release"))
        .cloned()
        .unwrap_or(toml::Value::Table(Default::default()));
    if let Some(table) = release.as_table_mut() {
        if let Some(packages) = table.get_mut("package").and_then(|p| p.as_table_mut()) {
            let members = workspace_members(code_dir)?;
            let measuring = measuring_members(code_dir, crate_name)?;
            // A key is a package spec: `name` or `name@version`.
            packages.retain(|spec, _| {
                let name = spec.split('@').next().unwrap_or(spec);
                !members.contains_key(name) || measuring.contains(name)
            });
            if packages.is_empty() {
                table.remove("package");
            }
        }
    }
    let declared: toml::Value = toml::from_str(DECLARED_PROFILE_RELEASE)?;
    let mut config = serde_json::Map::new();
    for name in ["config.toml", "config"] {
        let path = code_dir.join(".cargo").join(name);
        let Ok(text) = fs::read_to_string(&path) else {
            continue;
        };
        let parsed: toml::Value = toml::from_str(&text)
            .with_context(|| format!("{} is not valid TOML", path.display()))?;
        for table in ["profile", "build", "target", "env"] {
            if let Some(t) = parsed.get(table) {
                config.insert(format!("{name}:{table}"), serde_json::to_value(t)?);
            }
        }
    }
    if release == declared && config.is_empty() && *compiled == Compiled::default() {
        return Ok(None);
    }
    let whole = serde_json::json!({
        "profile.release": serde_json::to_value(&release)?,
        "cargo config": config,
        "compiled": serde_json::to_value(compiled)?,
    });
    Ok(Some(serde_json::to_string(&whole)?))
}

fn hash(
    code_dir: &Path,
    crate_name: &str,
    profile: Profile,
    lock: bool,
    compiled: &Compiled,
) -> Result<String> {
    let crate_dir = code_dir.join(crate_name);
    let mut files = vec![crate_dir.join("Cargo.toml")];
    collect(&crate_dir.join("src"), &mut files)?;
    let page = crate_dir.join("src").join(RENDERING_HALF);
    files.retain(|f| !f.starts_with(&page));
    // A build script decides what is compiled in (which of tokio's API a
    // release offers), and so does the shared code it includes.
    let build = crate_dir.join("build.rs");
    if build.exists() {
        files.push(build);
        collect(&code_dir.join(BUILD_SUPPORT), &mut files)?;
    }
    let measuring = member_dir(code_dir, MEASURING_PACKAGE)?;
    files.push(measuring.join("Cargo.toml"));
    collect(&measuring.join("src"), &mut files)?;
    let measuring_build = measuring.join("build.rs");
    if measuring_build.exists() {
        files.push(measuring_build);
    }
    let mut hasher = Sha256::new();
    if lock {
        for package in third_party_closure(code_dir, crate_name)? {
            hasher.update(package.as_bytes());
            hasher.update([0]);
        }
    } else {
        hasher.update(b"code only");
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
    if let Some(settings) = build_settings(code_dir, crate_name, compiled)? {
        hasher.update([0]);
        hasher.update(b"build settings");
        hasher.update([0]);
        hasher.update(settings.as_bytes());
    }
    let digest = hasher.finalize();
    Ok(digest.iter().take(8).map(|b| format!("{b:02x}")).collect())
}

/// What the chapters' build scripts `include!`, relative to `code/`.
pub const BUILD_SUPPORT: &str = "build-support";

/// A chapter's rendering half, relative to its `src/`: left out of its
/// fingerprint. It is the binary's module (`mod page;` in `src/main.rs`),
/// so the library, which measures, cannot name it: the compiler keeps
/// measuring code from reading the page.
pub const RENDERING_HALF: &str = "page";

/// Hash of the code that judges a chapter's data (harness-page's `judge`
/// stage): the chapter's `src/` (its page reads the data's types, and a
/// chapter that keeps its page in `src/book/` judges through its library),
/// and the sources of `harness-core`, `harness-measure` (the statistics
/// every interval is drawn with) and `harness-page`. A results file whose
/// `analysis.judged_by` differs was judged by other code: the page judges
/// it again.
pub fn judged_by(code_dir: &Path, crate_name: &str) -> Result<String> {
    let mut files = Vec::new();
    collect(&code_dir.join(crate_name).join("src"), &mut files)?;
    for package in ["harness-core", MEASURING_PACKAGE, "harness-page"] {
        collect(&member_dir(code_dir, package)?.join("src"), &mut files)?;
    }
    let mut hasher = Sha256::new();
    for file in files
        .iter()
        .filter(|f| f.extension().is_some_and(|e| e == "rs"))
    {
        let rel = file.strip_prefix(code_dir).unwrap_or(file);
        hasher.update(rel.to_string_lossy().as_bytes());
        hasher.update([0]);
        let bytes = fs::read(file).with_context(|| format!("cannot read {}", file.display()))?;
        hasher.update(&bytes);
        hasher.update([0]);
    }
    let digest = hasher.finalize();
    Ok(digest.iter().take(8).map(|b| format!("{b:02x}")).collect())
}

/// The harness's measuring package: every chapter's fingerprint covers it.
pub const MEASURING_PACKAGE: &str = "harness-measure";

/// The harness packages only the page side of a chapter uses: the walk of a
/// chapter's third-party closure does not follow its edges to them, so a
/// bump of what only draws the page (plotters, inferno) stales nothing.
pub const PAGE_SIDE: [&str; 2] = ["harness-page", "harness"];

/// The workspace members of `code/Cargo.toml`, by package name: each
/// member's folder. Empty without a workspace manifest (a test's bare tree).
pub fn workspace_members(code_dir: &Path) -> Result<std::collections::BTreeMap<String, PathBuf>> {
    let manifest_path = code_dir.join("Cargo.toml");
    let mut out = std::collections::BTreeMap::new();
    let Ok(text) = fs::read_to_string(&manifest_path) else {
        return Ok(out);
    };
    let manifest: toml::Value = toml::from_str(&text)
        .with_context(|| format!("{} is not valid TOML", manifest_path.display()))?;
    let members = manifest
        .get("workspace")
        .and_then(|w| w.get("members"))
        .and_then(|m| m.as_array())
        .cloned()
        .unwrap_or_default();
    for member in members.iter().filter_map(|m| m.as_str()) {
        let dir = code_dir.join(member);
        let path = dir.join("Cargo.toml");
        let text =
            fs::read_to_string(&path).with_context(|| format!("cannot read {}", path.display()))?;
        let package: toml::Value = toml::from_str(&text)
            .with_context(|| format!("{} is not valid TOML", path.display()))?;
        if let Some(name) = package
            .get("package")
            .and_then(|p| p.get("name"))
            .and_then(|n| n.as_str())
        {
            out.insert(name.to_string(), dir);
        }
    }
    Ok(out)
}

/// The folder of the workspace member named `package`, from the workspace
/// manifest's members (never from a folder name compiled in).
pub fn member_dir(code_dir: &Path, package: &str) -> Result<PathBuf> {
    workspace_members(code_dir)?
        .remove(package)
        .with_context(|| {
            format!(
                "no workspace member of {} is the package {package}",
                code_dir.join("Cargo.toml").display()
            )
        })
}

/// The workspace members whose code `crate_name` measures with: the
/// chapter, the measuring package and the members they depend on (normal and
/// build dependencies, read from their manifests), not through the page side
/// ([`PAGE_SIDE`]).
pub fn measuring_members(
    code_dir: &Path,
    crate_name: &str,
) -> Result<std::collections::BTreeSet<String>> {
    let members = workspace_members(code_dir)?;
    let mut seen = std::collections::BTreeSet::new();
    let mut queue = vec![crate_name.to_string(), MEASURING_PACKAGE.to_string()];
    while let Some(name) = queue.pop() {
        if PAGE_SIDE.contains(&name.as_str()) || !seen.insert(name.clone()) {
            continue;
        }
        if let Some(dir) = members.get(&name) {
            queue.extend(
                built_dependencies(dir)?
                    .into_iter()
                    .filter(|d| members.contains_key(d)),
            );
        }
    }
    Ok(seen)
}

/// The packages the member in folder `dir` builds with: its normal and build
/// dependencies, for any target, by package name.
fn built_dependencies(dir: &Path) -> Result<Vec<String>> {
    let path = dir.join("Cargo.toml");
    let text =
        fs::read_to_string(&path).with_context(|| format!("cannot read {}", path.display()))?;
    let manifest: toml::Value =
        toml::from_str(&text).with_context(|| format!("{} is not valid TOML", path.display()))?;
    Ok(dependency_names(
        &manifest,
        &["dependencies", "build-dependencies"],
    ))
}

/// The packages a member's `manifest` lists under the tables `kinds`
/// (`dependencies`, `build-dependencies`, `dev-dependencies`), for any
/// target, by package name (a renamed dependency by its `package`).
fn dependency_names(manifest: &toml::Value, kinds: &[&str]) -> Vec<String> {
    let mut tables: Vec<&toml::Value> = Vec::new();
    for key in kinds {
        tables.extend(manifest.get(key));
        if let Some(targets) = manifest.get("target").and_then(|t| t.as_table()) {
            tables.extend(targets.values().filter_map(|t| t.get(key)));
        }
    }
    tables
        .into_iter()
        .filter_map(|t| t.as_table())
        .flat_map(|t| t.iter())
        .map(|(key, spec)| {
            spec.get("package")
                .and_then(|p| p.as_str())
                .unwrap_or(key)
                .to_string()
        })
        .collect()
}

/// `name version source checksum` of every registry or git package that
/// `crate_name` or the measuring package depends on, directly or through
/// other packages, sorted. A workspace member's dev-dependencies (read from
/// its manifest) are not followed: a test-only crate does not change what
/// the chapter measures. Nor are its edges to the page side ([`PAGE_SIDE`]).
fn third_party_closure(code_dir: &Path, crate_name: &str) -> Result<Vec<String>> {
    let (path, packages) = locked_packages(code_dir)?;
    let packages = packages.as_slice();
    let field = |p: &toml::Value, k: &str| {
        p.get(k)
            .and_then(|v| v.as_str())
            .unwrap_or_default()
            .to_string()
    };
    // A dependency names a package as `name`, `name version` or
    // `name version (source)`.
    let find = |dep: &str| {
        let mut words = dep.split_whitespace();
        let (name, version) = (words.next().unwrap_or(""), words.next());
        packages.iter().position(|p| {
            field(p, "name") == name && version.is_none_or(|v| field(p, "version") == v)
        })
    };
    let start = packages
        .iter()
        .position(|p| field(p, "name") == crate_name && p.get("source").is_none())
        .with_context(|| {
            format!(
                "{crate_name} is not a workspace member in {}",
                path.display()
            )
        })?;
    let measuring = packages
        .iter()
        .position(|p| field(p, "name") == MEASURING_PACKAGE && p.get("source").is_none());
    let members = workspace_members(code_dir)?;
    let mut seen = vec![false; packages.len()];
    let mut queue = vec![start];
    seen[start] = true;
    if let Some(m) = measuring.filter(|&m| !seen[m]) {
        seen[m] = true;
        queue.push(m);
    }
    let mut out = Vec::new();
    while let Some(i) = queue.pop() {
        let p = &packages[i];
        let member = p.get("source").is_none();
        if member {
            let name = field(p, "name");
            let dir = members
                .get(&name)
                .cloned()
                .unwrap_or_else(|| code_dir.join(&name));
            let dev_only = dev_only_dependencies(&dir)?;
            for dep in dependencies(p) {
                let name = dep.split_whitespace().next().unwrap_or("");
                if dev_only.iter().any(|d| d == name) || PAGE_SIDE.contains(&name) {
                    continue;
                }
                if let Some(j) = find(&dep).filter(|&j| !seen[j]) {
                    seen[j] = true;
                    queue.push(j);
                }
            }
        } else {
            out.push(
                ["name", "version", "source", "checksum"]
                    .map(|k| field(p, k))
                    .join(" "),
            );
            for dep in dependencies(p) {
                if let Some(j) = find(&dep).filter(|&j| !seen[j]) {
                    seen[j] = true;
                    queue.push(j);
                }
            }
        }
    }
    out.sort();
    Ok(out)
}

fn dependencies(p: &toml::Value) -> Vec<String> {
    p.get("dependencies")
        .and_then(|d| d.as_array())
        .map(|ds| {
            ds.iter()
                .filter_map(|d| d.as_str().map(String::from))
                .collect()
        })
        .unwrap_or_default()
}

/// The names the workspace member in folder `dir` lists under
/// `[dev-dependencies]` and nowhere else.
fn dev_only_dependencies(dir: &Path) -> Result<Vec<String>> {
    let path = dir.join("Cargo.toml");
    let Ok(text) = fs::read_to_string(&path) else {
        return Ok(Vec::new());
    };
    let manifest: toml::Value =
        toml::from_str(&text).with_context(|| format!("{} is not valid TOML", path.display()))?;
    let normal = dependency_names(&manifest, &["dependencies", "build-dependencies"]);
    Ok(dependency_names(&manifest, &["dev-dependencies"])
        .into_iter()
        .filter(|d| !normal.contains(d))
        .collect())
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

/// `code/Cargo.lock`'s path and its `[[package]]` entries.
fn locked_packages(code_dir: &Path) -> Result<(PathBuf, Vec<toml::Value>)> {
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
    Ok((path, packages))
}

/// Versions of `names` as locked in `Cargo.lock` (first match per name).
pub fn locked_versions(
    code_dir: &Path,
    names: &[&str],
) -> Result<std::collections::BTreeMap<String, String>> {
    let (path, packages) = locked_packages(code_dir)?;
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
mod tests;
