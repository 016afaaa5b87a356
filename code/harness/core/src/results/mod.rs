//! The results file: schema, provenance, loading with clear errors and every
//! value validated, a checksum of the measured payload, atomic writes.
pub mod cores;
pub mod fingerprint;
pub mod host;
pub mod published;
mod unknown;
pub(crate) mod validate;

use std::collections::BTreeMap;
use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};
pub use unknown::unknown_fields;
pub use validate::{is_bidi_control, is_slug, validate_published, validate_values};

use anyhow::{bail, Context, Result};
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

use crate::analysis::Analysis;
use crate::machine::Machine;
use crate::profile::Profile;

pub const SCHEMA: &str = "async-rust-measured/results";
pub const SCHEMA_VERSION: u32 = 3;
/// The oldest schema read: a schema-2 file (intervals in `derived`, no
/// `analysis`) is read as schema 3, its analysis judged when the page loads it.
pub const OLDEST_READ: u32 = 2;

/// Everything a reader needs to judge where a number came from.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Provenance {
    pub machine: Machine,
    pub rustc: String,
    /// Versions of the crates the chapter measures, read from Cargo.lock.
    pub crates: BTreeMap<String, String>,
    /// Hash of the chapter crate's sources, Cargo.lock, toolchain and profile.
    pub fingerprint: String,
    pub profile: Profile,
    /// RFC 3339, UTC.
    pub date: String,
    pub wall_time_s: f64,
    /// The one-minute load average (`None` where the system has none).
    pub load_average_at_start: Option<f64>,
    /// Cores' worth of CPU other work used in the second before measuring
    /// (`machine::busy_cores`; `None` off Linux).
    pub busy_cores_at_start: Option<f64>,
    /// How far apart the cores were around each timing, and the gate the
    /// timings waited at (`cores`); `None` for runs on one core.
    pub cores_apart: Option<crate::results::cores::CoresApart>,
    /// Share of all CPU time, from the start of measuring to its end, that
    /// the hypervisor gave to something else while this guest wanted it
    /// (`steal` in `/proc/stat`; 0 on bare metal, `None` off Linux).
    pub steal_share: Option<f64>,
}

impl Provenance {
    /// Whether the code that made these results is still the code in `code/`:
    /// the one staleness test used by render, `list` and `measure --stale`.
    pub fn is_current(&self, chapter: &str) -> Result<bool> {
        let now =
            crate::results::fingerprint::fingerprint(&crate::code_dir(), chapter, self.profile)?;
        Ok(now == self.fingerprint)
    }
}

#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ResultsFile<D> {
    pub schema: String,
    pub schema_version: u32,
    pub chapter: String,
    pub provenance: Provenance,
    /// SHA-256 of `data` as measured (see [`checksum`]): a file whose
    /// numbers were edited afterwards is flagged on the page, not refused.
    pub checksum: String,
    pub data: D,
    /// What judging `data` gave (named estimates, verdicts, headline; see
    /// `analysis`). Outside the checksum: it is reproducible from `data`.
    /// `None` in a schema-2 file, and in a run not judged yet.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub analysis: Option<Analysis>,
    /// Set when the chapter was measured against other releases of the
    /// crates it measures than the committed lock resolves
    /// (`scripts/fresh --with`; see `harness-page`'s `releases`). Such a file lives in
    /// `<chapter>/releases/`, never in place of the committed-lock run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub release: Option<Release>,
    /// The host that measured (`host::Host`: CPU vendor, family, model,
    /// stepping, caches, cores), recorded as the run is written; `None` in
    /// files measured before hosts were recorded. Outside the checksum.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub host: Option<host::Host>,
    /// The checksum of `data` exactly as it stood in the file read (by the
    /// rule of the file's schema: `data` and `derived` for schema 2) (`None` for a file made in memory). A field a newer chapter
    /// adds with a default then leaves an older file's checksum intact.
    #[serde(skip)]
    pub stored: Option<String>,
}

/// What makes a results file a release variant: the releases asked for, and
/// the fingerprint of the code that measured them without the lock file
/// (`fingerprint::code_fingerprint`), so that the committed lock moving on
/// does not make it stale, while a change to the chapter's code does.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Release {
    /// Crate name to the version asked for (`--with tokio@1.37.0`); every
    /// other package as cargo resolved it around these.
    pub crates: BTreeMap<String, String>,
    pub code_fingerprint: String,
}

impl<D> ResultsFile<D> {
    /// Whether the code that made these results is still the code in
    /// `code/`: for a release variant, the code without the lock file.
    pub fn is_current(&self) -> Result<bool> {
        match &self.release {
            Some(r) => Ok(r.code_fingerprint
                == crate::results::fingerprint::code_fingerprint(
                    &crate::code_dir(),
                    &self.chapter,
                    self.provenance.profile,
                )?),
            None => self.provenance.is_current(&self.chapter),
        }
    }
}

impl<D: Serialize> ResultsFile<D> {
    pub fn new(chapter: &str, provenance: Provenance, data: D) -> Result<Self> {
        let mut file = ResultsFile {
            schema: SCHEMA.into(),
            schema_version: SCHEMA_VERSION,
            chapter: chapter.into(),
            provenance,
            checksum: String::new(),
            data,
            analysis: None,
            release: None,
            host: None,
            stored: None,
        };
        file.seal()?;
        Ok(file)
    }

    /// Records what judging `data` gave (outside the checksum), after
    /// checking it (`Analysis::validate`).
    pub fn with_analysis(mut self, analysis: Analysis) -> Result<Self> {
        analysis.validate()?;
        self.analysis = Some(analysis);
        Ok(self)
    }

    fn seal(&mut self) -> Result<()> {
        self.checksum = checksum(&serde_json::to_value(&self.data)?)?;
        self.stored = None;
        Ok(())
    }

    /// The file as written: pretty JSON and a final newline.
    pub fn to_bytes(&self) -> Result<Vec<u8>> {
        let mut bytes = serde_json::to_vec_pretty(self)?;
        bytes.push(b'\n');
        Ok(bytes)
    }

    /// Whether `data` is still what was measured.
    pub fn checksum_matches(&self) -> Result<bool> {
        Ok(match &self.stored {
            Some(stored) => *stored == self.checksum,
            None => checksum(&serde_json::to_value(&self.data)?)? == self.checksum,
        })
    }
}

/// SHA-256, in hex, of a measured payload (`{"data": ...}`) in serde_json's
/// compact form (object keys sorted, numbers in their shortest exact form).
/// The analysis is outside it: judging again never touches it.
pub fn checksum(data: &serde_json::Value) -> Result<String> {
    digest(&serde_json::json!({ "data": data }))
}

/// Schema 2's rule: `data` and its stored intervals (`derived`) together.
fn checksum_v2(data: &serde_json::Value, derived: &serde_json::Value) -> Result<String> {
    digest(&serde_json::json!({ "data": data, "derived": derived }))
}

fn digest(whole: &serde_json::Value) -> Result<String> {
    use sha2::{Digest, Sha256};
    let digest = Sha256::digest(serde_json::to_vec(whole)?);
    Ok(digest.iter().map(|b| format!("{b:02x}")).collect())
}

/// The checksum of a file as read from disk, by the rule of its schema
/// version (schema 2: `data` and `derived`; schema 3: `data`).
fn stored_checksum(value: &serde_json::Value) -> Result<String> {
    let null = serde_json::Value::Null;
    let data = value.get("data").unwrap_or(&null);
    if value.get("schema_version").and_then(|v| v.as_u64()) == Some(2) {
        checksum_v2(data, value.get("derived").unwrap_or(&null))
    } else {
        checksum(data)
    }
}

/// The largest results file read unless `BOOK_MAX_RESULTS_BYTES` says
/// otherwise: 64 MiB, about 45 times the largest committed file (1.4 MB, a
/// full run of channel-latency with its call stacks). A file this size
/// already takes seconds and hundreds of MB to read; a padded 476 MB one
/// took 2.5 GB.
pub const MAX_RESULTS_BYTES: u64 = 64 << 20;
/// Raises [`MAX_RESULTS_BYTES`], for someone who truly needs a larger file.
pub const MAX_RESULTS_BYTES_ENV: &str = "BOOK_MAX_RESULTS_BYTES";

/// The size limit in force: [`MAX_RESULTS_BYTES`], or `BOOK_MAX_RESULTS_BYTES`.
pub fn max_results_bytes() -> u64 {
    std::env::var(MAX_RESULTS_BYTES_ENV)
        .ok()
        .and_then(|v| v.trim().parse::<u64>().ok())
        .unwrap_or(MAX_RESULTS_BYTES)
}

/// Refuses a symbolic link where a results file or folder belongs, naming
/// the link and where it points: git would commit the link, not the
/// numbers, so a book built from it would show a machine whose results are
/// not in the repository (or read whatever the link names).
pub fn refuse_link(path: &Path) -> Result<()> {
    let Ok(meta) = fs::symlink_metadata(path) else {
        return Ok(());
    };
    if meta.file_type().is_symlink() {
        let target = fs::read_link(path)
            .map(|t| t.display().to_string())
            .unwrap_or_else(|e| format!("an unreadable target ({e})"));
        bail!(
            "{} is a symbolic link to {target}: results must be files of the checkout (git \
             would commit only the link, not the numbers); put the file itself there \
             (scripts/import FILE validates and copies it)",
            path.display()
        );
    }
    Ok(())
}

/// Refuses a file larger than the limit before any of it is read, naming
/// the file, its size, the limit and how to raise it; and a symbolic link
/// (`refuse_link`).
pub fn check_size(path: &Path) -> Result<()> {
    refuse_link(path)?;
    let len = fs::metadata(path)
        .with_context(|| format!("cannot read {}", path.display()))?
        .len();
    let limit = max_results_bytes();
    if len > limit {
        bail!(
            "{} is {len} bytes, more than the {limit} bytes a results file may hold (the \
             largest committed one is about 1.4 MB); if you truly need a larger file, set \
             {MAX_RESULTS_BYTES_ENV} to a larger number of bytes",
            path.display()
        );
    }
    Ok(())
}

/// Reads a file of at most the size limit (checked before, and again while
/// reading: a file that grows in between is not read past the limit).
pub fn read_limited(path: &Path) -> Result<String> {
    use std::io::Read;
    check_size(path)?;
    let limit = max_results_bytes();
    let mut text = String::new();
    fs::File::open(path)
        .with_context(|| format!("cannot read {}", path.display()))?
        .take(limit + 1)
        .read_to_string(&mut text)
        .with_context(|| format!("cannot read {}", path.display()))?;
    if text.len() as u64 > limit {
        bail!(
            "{} grew past {limit} bytes while being read (set {MAX_RESULTS_BYTES_ENV} to raise the limit)",
            path.display()
        );
    }
    Ok(text)
}

/// Whether a results file as read from disk (a JSON value) still holds the
/// numbers its checksum was computed over.
pub fn value_checksum_matches(value: &serde_json::Value) -> Result<bool> {
    let stored = stored_checksum(value)?;
    Ok(value.get("checksum").and_then(|c| c.as_str()) == Some(stored.as_str()))
}

/// Reads a results file, checking, in order, its size, that it is JSON,
/// that it is a results file of this book, of this schema version, of this
/// chapter, that its data has the chapter's layout, and that it holds no
/// field the chapter does not know. Every error names the file.
pub fn read_results<D: Serialize + DeserializeOwned>(
    path: &Path,
    chapter: &str,
) -> Result<ResultsFile<D>> {
    let text = read_limited(path)
        .with_context(|| format!("cannot read results file {}", path.display()))?;
    let value: serde_json::Value = serde_json::from_str(&text)
        .with_context(|| format!("results file {} is not valid JSON", path.display()))?;
    drop(text);
    let schema = value.get("schema").and_then(|s| s.as_str());
    if schema != Some(SCHEMA) {
        bail!(
            "{} is not a results file of this book (schema {:?}, expected {SCHEMA:?})",
            path.display(),
            schema.unwrap_or("missing")
        );
    }
    let version = value.get("schema_version").and_then(|v| v.as_u64());
    if version == Some(1) {
        bail!(
            "{} is schema 1, which this harness no longer reads: re-measure it with \
             scripts/fresh, or convert it with `code/target/release/harness convert {}`",
            path.display(),
            path.display()
        );
    }
    if let Some(v) = version.filter(|v| *v > SCHEMA_VERSION as u64) {
        bail!(
            "{} was written by a newer harness (results schema version {v}; this harness \
             reads version {SCHEMA_VERSION}): update this checkout (git pull) before reading it",
            path.display()
        );
    }
    if !version.is_some_and(|v| (OLDEST_READ as u64..=SCHEMA_VERSION as u64).contains(&v)) {
        bail!(
            "{} has results schema version {}, but this harness reads version {SCHEMA_VERSION}; \
             re-measure it with scripts/fresh",
            path.display(),
            version.map_or("missing".to_string(), |v| v.to_string())
        );
    }
    let found = value.get("chapter").and_then(|c| c.as_str()).unwrap_or("");
    if found != chapter {
        bail!(
            "{} holds results of chapter {found:?}, not of chapter {chapter:?}",
            path.display()
        );
    }
    validate_values(&value)
        .with_context(|| format!("{} holds an impossible value", path.display()))?;
    let stored = stored_checksum(&value)?;
    let old = version == Some(2);
    let mut value = value;
    if old {
        // Schema 2 kept the intervals its exhibits drew in `derived`; schema
        // 3 judges the data instead. Read as schema 3 (see below).
        if let Some(map) = value.as_object_mut() {
            map.remove("derived");
            map.insert("schema_version".into(), SCHEMA_VERSION.into());
        }
    }
    let mut file: ResultsFile<D> = serde_path_to_error::deserialize(&value).map_err(|e| {
        anyhow::anyhow!(
            "{} does not have the layout of chapter {chapter:?}'s results: at `{}`: {}",
            path.display(),
            e.path(),
            e.inner()
        )
    })?;
    let unknown = unknown_fields(&value, &serde_json::to_value(&file)?);
    if !unknown.is_empty() {
        bail!(
            "{} holds {} this harness does not know: {}. A field nobody reads would pass \
             unseen; if a newer harness wrote it, update this checkout, else remove {}",
            path.display(),
            if unknown.len() == 1 {
                "a field"
            } else {
                "fields"
            },
            unknown
                .iter()
                .map(|u| format!("`{u}`"))
                .collect::<Vec<_>>()
                .join(", "),
            if unknown.len() == 1 { "it" } else { "them" },
        );
    }
    check_identity(path, chapter, &file.provenance, file.release.as_ref())?;
    if let Some(a) = &file.analysis {
        a.validate_on(&file.provenance.machine.id)
            .with_context(|| format!("{}: its analysis is not sound", path.display()))?;
    }
    if old && stored == file.checksum {
        // Converted on reading: the checksum by schema 3's rule (data
        // only). A schema-2 file edited after measuring keeps its old
        // checksum, which matches nothing, so it stays flagged as edited.
        file.checksum = checksum(&serde_json::to_value(&file.data)?)?;
        file.stored = Some(file.checksum.clone());
    } else {
        file.stored = Some(stored);
    }
    Ok(file)
}

/// The file's name, its folder, the chapter and the machine inside must
/// agree: `<results>/<chapter>/<machine-id>.json`, or for a release variant
/// `<results>/<chapter>/releases/<machine-id>@<crate>-<version>.json`. A copy
/// under another name would otherwise show one machine twice.
fn check_identity(
    path: &Path,
    chapter: &str,
    p: &Provenance,
    release: Option<&Release>,
) -> Result<()> {
    let id = &p.machine.id;
    if !is_slug(id) {
        bail!(
            "{}: machine id {:?} must be lowercase letters, digits, '_' and single '-'",
            path.display(),
            id
        );
    }
    if !is_slug(&p.machine.arch) {
        bail!(
            "{}: architecture {:?} must be lowercase letters, digits and '_'",
            path.display(),
            p.machine.arch
        );
    }
    if let Some(r) = release {
        for (name, version) in &r.crates {
            if !crate::releases::is_crate_name(name) || !crate::releases::is_version(version) {
                bail!(
                    "{}: release {name:?} {version:?} is not a crate name and a version",
                    path.display()
                );
            }
        }
    }
    let name = path.file_name().and_then(|s| s.to_str()).unwrap_or("");
    let expected = match release {
        Some(r) => Store::new("")
            .release_path(chapter, id, &r.crates)
            .file_name()
            .and_then(|n| n.to_str())
            .unwrap_or_default()
            .to_string(),
        None => format!("{id}.json"),
    };
    if name != expected {
        bail!(
            "{} holds results of machine {id:?}: a results file must be named after its \
             machine{} ({expected})",
            path.display(),
            if release.is_some() {
                " and the releases it measured"
            } else {
                ""
            }
        );
    }
    let folder = path
        .parent()
        .filter(|_| release.is_none())
        .and_then(|d| d.file_name())
        .and_then(|n| n.to_str());
    if let Some(folder) = folder.filter(|f| is_slug(f) && *f != chapter) {
        // Only a folder named like a chapter can disagree; a loose file
        // checked by `harness import` lives anywhere.
        if crate::registry::find(folder).is_ok() {
            bail!(
                "{} lies in the folder of chapter {folder:?} but holds chapter {chapter:?}",
                path.display()
            );
        }
    }
    if p.rustc.is_empty() || p.fingerprint.is_empty() || p.date.is_empty() {
        bail!(
            "{}: provenance lacks rustc, fingerprint or date",
            path.display()
        );
    }
    if p.machine.cores == 0 {
        bail!("{}: provenance counts no cores", path.display());
    }
    Ok(())
}

/// Writes to a temporary file in the same folder, then renames it over the
/// target: a reader (or a crash) sees the old file or the new one, never half.
pub fn write_atomically(path: &Path, bytes: &[u8]) -> Result<()> {
    let dir = path
        .parent()
        .with_context(|| format!("{} has no parent folder", path.display()))?;
    fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    let mut tmp = tempfile::Builder::new()
        .prefix(".partial-")
        .tempfile_in(dir)
        .with_context(|| format!("cannot create a temporary file in {}", dir.display()))?;
    tmp.write_all(bytes)?;
    // Temporary files are private (0600); results are for everyone to read.
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        tmp.as_file()
            .set_permissions(fs::Permissions::from_mode(0o644))?;
    }
    tmp.as_file().sync_all()?;
    tmp.persist(path)
        .with_context(|| format!("cannot move the new results into {}", path.display()))?;
    Ok(())
}

/// The committed results: `<root>/<chapter>/<machine-id>.json`, plus the
/// published reference datasets `<root>/<chapter>/published-<name>.json`.
#[derive(Clone, Debug)]
pub struct Store {
    pub root: PathBuf,
    /// Whether the chapter's history (release variants, replicate runs) is
    /// read from it: off while a fresh run draws its intervals, so that an
    /// older file the new code no longer accepts cannot cost the new run.
    pub history: bool,
}

impl Store {
    pub fn new(root: impl Into<PathBuf>) -> Self {
        Store {
            root: root.into(),
            history: true,
        }
    }

    /// The same store, its release variants and replicate runs left unread.
    pub fn without_history(mut self) -> Self {
        self.history = false;
        self
    }

    /// `BOOK_RESULTS_DIR`, else `code/results` beside the harness crate.
    pub fn default_root() -> PathBuf {
        std::env::var_os("BOOK_RESULTS_DIR")
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
            .unwrap_or_else(|| crate::code_dir().join("results"))
    }

    /// `code/results`: the results the book publishes.
    pub fn committed() -> PathBuf {
        crate::code_dir().join("results")
    }

    /// Where smoke runs go instead of the committed results: they only
    /// exercise the code and are never published.
    pub fn smoke() -> PathBuf {
        crate::code_dir().join("target").join("smoke-results")
    }

    /// Whether this store is the committed results folder.
    pub fn is_committed(&self) -> bool {
        let canon = |p: &Path| fs::canonicalize(p).unwrap_or_else(|_| p.to_path_buf());
        canon(&self.root) == canon(&Store::committed())
    }

    /// The store a run of `profile` writes to: this one, except that a
    /// smoke run never writes into the committed results.
    pub fn for_profile(&self, profile: Profile) -> Store {
        if profile == Profile::Smoke && self.is_committed() {
            Store::new(Store::smoke())
        } else {
            self.clone()
        }
    }

    pub fn chapter_dir(&self, chapter: &str) -> PathBuf {
        self.root.join(chapter)
    }

    pub fn results_path(&self, chapter: &str, machine_id: &str) -> PathBuf {
        self.chapter_dir(chapter).join(format!("{machine_id}.json"))
    }

    /// `<chapter>/releases/`: the chapter measured against other releases
    /// of the crates it measures (`scripts/fresh --with`).
    pub fn releases_dir(&self, chapter: &str) -> PathBuf {
        self.chapter_dir(chapter).join("releases")
    }

    /// `<chapter>/releases/<machine>@<crate>-<version>[+...].json`.
    pub fn release_path(
        &self,
        chapter: &str,
        machine_id: &str,
        crates: &BTreeMap<String, String>,
    ) -> PathBuf {
        let versions: Vec<String> = crates.iter().map(|(c, v)| format!("{c}-{v}")).collect();
        self.releases_dir(chapter)
            .join(format!("{machine_id}@{}.json", versions.join("+")))
    }

    /// Paths of every release variant of a chapter, sorted (none in a
    /// store without history).
    pub fn release_files(&self, chapter: &str) -> Result<Vec<PathBuf>> {
        if !self.history {
            return Ok(Vec::new());
        }
        json_files(&self.releases_dir(chapter))
    }

    /// Paths of every machine's results for a chapter, sorted.
    pub fn machine_files(&self, chapter: &str) -> Result<Vec<PathBuf>> {
        json_files(&self.chapter_dir(chapter))
    }

    pub fn load_all<D: Serialize + DeserializeOwned>(
        &self,
        chapter: &str,
    ) -> Result<Vec<(PathBuf, ResultsFile<D>)>> {
        let committed = self.is_committed();
        self.machine_files(chapter)?
            .into_iter()
            .map(|p| {
                let file: ResultsFile<D> = read_results(&p, chapter)?;
                if file.release.is_some() {
                    bail!(
                        "{} is a release variant (measured with --with), which belongs in {}",
                        p.display(),
                        self.releases_dir(chapter).display()
                    );
                }
                if committed && file.provenance.profile == Profile::Smoke {
                    bail!(
                        "{} is a smoke run, which is never published: measure it with \
                         scripts/fresh (quick or full profile) or remove it",
                        p.display()
                    );
                }
                Ok((p, file))
            })
            .collect()
    }

    /// Writes `file` where it belongs: a release variant under `releases/`,
    /// any other run as the machine's results.
    pub fn write<D: Serialize>(&self, file: &ResultsFile<D>) -> Result<PathBuf> {
        let machine = &file.provenance.machine.id;
        let path = match &file.release {
            Some(r) => self.release_path(&file.chapter, machine, &r.crates),
            None => self.results_path(&file.chapter, machine),
        };
        write_atomically(&path, &file.to_bytes()?)?;
        Ok(path)
    }
}

/// The results files directly in `dir` (not published datasets, not hidden
/// files), sorted; none when `dir` does not exist.
/// The results files in `dir` (not published datasets), sorted. A link in
/// the place of one, or of `dir` (a chapter's folder, or its releases), is
/// refused (`refuse_link`).
fn json_files(dir: &Path) -> Result<Vec<PathBuf>> {
    refuse_link(dir)?;
    if !dir.exists() {
        return Ok(Vec::new());
    }
    let mut files = Vec::new();
    for entry in fs::read_dir(dir).with_context(|| format!("cannot list {}", dir.display()))? {
        let path = entry?.path();
        let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
        if name.ends_with(".json") {
            refuse_link(&path)?;
        }
        if path.is_file()
            && name.ends_with(".json")
            && !name.starts_with("published-")
            && !name.starts_with('.')
        {
            files.push(path);
        }
    }
    files.sort();
    Ok(files)
}

#[cfg(test)]
mod tests;
