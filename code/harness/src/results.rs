//! The results file: schema, provenance, loading with clear errors, atomic writes.
use std::collections::BTreeMap;
use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

use crate::machine::Machine;
use crate::profile::Profile;

pub const SCHEMA: &str = "async-rust-measured/results";
pub const SCHEMA_VERSION: u32 = 1;

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
    pub load_average_at_start: Option<f64>,
    /// Cores' worth of CPU other work used in the second before measuring
    /// (`machine::busy_cores`); absent from files made before it existed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub busy_cores_at_start: Option<f64>,
    /// How far apart the cores were around each timing, and the gate the
    /// timings waited at (`cores`); absent from files made before it existed
    /// and from runs on one core.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cores_apart: Option<crate::cores::CoresApart>,
    /// Share of all CPU time, from the start of measuring to its end, that
    /// the hypervisor gave to something else while this guest wanted it
    /// (`steal` in `/proc/stat`; 0 on bare metal). Absent off Linux and from
    /// files made before it was recorded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub steal_share: Option<f64>,
}

impl Provenance {
    /// Whether the code that made these results is still the code in `code/`:
    /// the one staleness test used by render, `list` and `measure --stale`.
    pub fn is_current(&self, chapter: &str) -> Result<bool> {
        let now = crate::fingerprint::fingerprint(&crate::code_dir(), chapter, self.profile)?;
        Ok(now == self.fingerprint)
    }
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct ResultsFile<D> {
    pub schema: String,
    pub schema_version: u32,
    pub chapter: String,
    pub provenance: Provenance,
    pub data: D,
}

impl<D> ResultsFile<D> {
    pub fn new(chapter: &str, provenance: Provenance, data: D) -> Self {
        ResultsFile {
            schema: SCHEMA.into(),
            schema_version: SCHEMA_VERSION,
            chapter: chapter.into(),
            provenance,
            data,
        }
    }
}

/// Reads a results file, checking, in order, that it is JSON, that it is a
/// results file of this book, of this schema version, of this chapter, and
/// that its data has the chapter's layout. Every error names the file.
pub fn read_results<D: DeserializeOwned>(path: &Path, chapter: &str) -> Result<ResultsFile<D>> {
    let text = fs::read_to_string(path)
        .with_context(|| format!("cannot read results file {}", path.display()))?;
    let value: serde_json::Value = serde_json::from_str(&text)
        .with_context(|| format!("results file {} is not valid JSON", path.display()))?;
    let schema = value.get("schema").and_then(|s| s.as_str());
    if schema != Some(SCHEMA) {
        bail!(
            "{} is not a results file of this book (schema {:?}, expected {SCHEMA:?})",
            path.display(),
            schema.unwrap_or("missing")
        );
    }
    let version = value.get("schema_version").and_then(|v| v.as_u64());
    if version != Some(SCHEMA_VERSION as u64) {
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
    serde_json::from_value(value).with_context(|| {
        format!(
            "{} does not have the layout of chapter {chapter:?}'s results",
            path.display()
        )
    })
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
}

impl Store {
    pub fn new(root: impl Into<PathBuf>) -> Self {
        Store { root: root.into() }
    }

    /// `BOOK_RESULTS_DIR`, else `code/results` beside the harness crate.
    pub fn default_root() -> PathBuf {
        std::env::var_os("BOOK_RESULTS_DIR")
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
            .unwrap_or_else(|| crate::code_dir().join("results"))
    }

    pub fn chapter_dir(&self, chapter: &str) -> PathBuf {
        self.root.join(chapter)
    }

    pub fn results_path(&self, chapter: &str, machine_id: &str) -> PathBuf {
        self.chapter_dir(chapter).join(format!("{machine_id}.json"))
    }

    /// Paths of every machine's results for a chapter, sorted.
    pub fn machine_files(&self, chapter: &str) -> Result<Vec<PathBuf>> {
        let dir = self.chapter_dir(chapter);
        if !dir.exists() {
            return Ok(Vec::new());
        }
        let mut files = Vec::new();
        for entry in fs::read_dir(&dir).with_context(|| format!("cannot list {}", dir.display()))? {
            let path = entry?.path();
            let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
            if name.ends_with(".json") && !name.starts_with("published-") && !name.starts_with('.')
            {
                files.push(path);
            }
        }
        files.sort();
        Ok(files)
    }

    pub fn load_all<D: DeserializeOwned>(
        &self,
        chapter: &str,
    ) -> Result<Vec<(PathBuf, ResultsFile<D>)>> {
        self.machine_files(chapter)?
            .into_iter()
            .map(|p| read_results(&p, chapter).map(|r| (p, r)))
            .collect()
    }

    pub fn write<D: Serialize>(&self, file: &ResultsFile<D>) -> Result<PathBuf> {
        let path = self.results_path(&file.chapter, &file.provenance.machine.id);
        let mut bytes = serde_json::to_vec_pretty(file)?;
        bytes.push(b'\n');
        write_atomically(&path, &bytes)?;
        Ok(path)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> ResultsFile<Vec<u32>> {
        ResultsFile::new(
            "alloc-probe",
            Provenance {
                machine: Machine::detect(),
                rustc: "rustc 1.0".into(),
                crates: BTreeMap::from([("tokio".into(), "1.0.0".into())]),
                fingerprint: "abc".into(),
                profile: Profile::Smoke,
                date: "2026-01-01T00:00:00Z".into(),
                wall_time_s: 1.5,
                load_average_at_start: Some(0.25),
                busy_cores_at_start: Some(0.05),
                cores_apart: None,
                steal_share: Some(0.012),
            },
            vec![1, 2, 3],
        )
    }

    #[test]
    fn files_from_before_busy_cores_still_load() {
        let mut json = serde_json::to_value(sample()).unwrap();
        json["provenance"]
            .as_object_mut()
            .unwrap()
            .remove("busy_cores_at_start")
            .expect("the field is written when known");
        let back: ResultsFile<Vec<u32>> = serde_json::from_value(json).unwrap();
        assert_eq!(back.provenance.busy_cores_at_start, None);
        assert_eq!(back.provenance.load_average_at_start, Some(0.25));
    }

    #[test]
    fn steal_round_trips_and_files_from_before_it_load_without() {
        let json = serde_json::to_value(sample()).unwrap();
        assert_eq!(json["provenance"]["steal_share"], 0.012);
        let back: ResultsFile<Vec<u32>> = serde_json::from_value(json.clone()).unwrap();
        assert_eq!(back.provenance, sample().provenance);
        let mut older = json;
        older["provenance"]
            .as_object_mut()
            .unwrap()
            .remove("steal_share");
        let back: ResultsFile<Vec<u32>> = serde_json::from_value(older).unwrap();
        assert_eq!(back.provenance.steal_share, None);
        // And a file without it is written without it, not with a null.
        let text = serde_json::to_string(&back).unwrap();
        assert!(!text.contains("steal_share"), "{text}");
    }

    #[test]
    fn results_round_trip_through_a_file() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::new(dir.path());
        let original = sample();
        let path = store.write(&original).unwrap();
        let back: ResultsFile<Vec<u32>> = read_results(&path, "alloc-probe").unwrap();
        assert_eq!(back.data, original.data);
        assert_eq!(back.provenance, original.provenance);
        assert_eq!(store.machine_files("alloc-probe").unwrap(), vec![path]);
    }

    fn write_raw(dir: &Path, text: &str) -> PathBuf {
        let path = dir.join("alloc-probe").join("m.json");
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(&path, text).unwrap();
        path
    }

    fn error_of(text: &str) -> String {
        let dir = tempfile::tempdir().unwrap();
        let path = write_raw(dir.path(), text);
        let err = read_results::<Vec<u32>>(&path, "alloc-probe").unwrap_err();
        let msg = format!("{err:#}");
        assert!(msg.contains(&path.display().to_string()), "{msg}");
        msg
    }

    #[test]
    fn bad_files_are_rejected_with_their_name_and_reason() {
        assert!(error_of("{ not json").contains("not valid JSON"));
        assert!(error_of(r#"{"hello": 1}"#).contains("not a results file"));
        let mut v = serde_json::to_value(sample()).unwrap();
        v["schema_version"] = 99.into();
        assert!(error_of(&v.to_string()).contains("schema version 99"));
        v["schema_version"] = SCHEMA_VERSION.into();
        v["chapter"] = "fan-in".into();
        assert!(error_of(&v.to_string()).contains("chapter \"fan-in\""));
        v["chapter"] = "alloc-probe".into();
        v["data"] = "oops".into();
        assert!(error_of(&v.to_string()).contains("layout"));
    }

    #[test]
    fn an_atomic_write_leaves_no_temporary_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("x.json");
        write_atomically(&path, b"one").unwrap();
        write_atomically(&path, b"two").unwrap();
        assert_eq!(fs::read_to_string(&path).unwrap(), "two");
        assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 1);
    }
}
