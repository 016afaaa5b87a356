use super::*;

/// A machine as a run's provenance records it (core detects nothing).
fn machine(id: &str) -> Machine {
    Machine {
        id: id.into(),
        cpu: "Test CPU".into(),
        arch: std::env::consts::ARCH.into(),
        cores: 2,
        memory_bytes: 1 << 30,
        os: "Linux".into(),
        kernel: "6.0".into(),
        tcp_congestion_control: None,
        memory_return: None,
    }
}

fn sample() -> ResultsFile<Vec<u32>> {
    ResultsFile::new(
        "alloc-probe",
        Provenance {
            machine: machine("m"),
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
    .unwrap()
}

#[test]
fn schema_3_round_trips_through_a_file_with_its_checksum() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::new(dir.path());
    let original = sample();
    let path = store.write(&original).unwrap();
    assert!(path.ends_with("alloc-probe/m.json"));
    let back: ResultsFile<Vec<u32>> = read_results(&path, "alloc-probe").unwrap();
    assert_eq!(back.data, original.data);
    assert_eq!(back.provenance, original.provenance);
    assert_eq!(back.schema_version, 3);
    assert!(back.checksum_matches().unwrap());
    assert_eq!(
        store.machine_files("alloc-probe").unwrap(),
        vec![path.clone()]
    );
    // Edited after measurement: read, but the checksum says so.
    let text = fs::read_to_string(&path)
        .unwrap()
        .replacen("\n    2,", "\n    7,", 1);
    fs::write(&path, text).unwrap();
    let edited: ResultsFile<Vec<u32>> = read_results(&path, "alloc-probe").unwrap();
    assert_eq!(edited.data, vec![1, 7, 3]);
    assert!(!edited.checksum_matches().unwrap());
}

#[test]
fn a_field_added_with_a_default_leaves_an_older_files_checksum_intact() {
    #[derive(Serialize, Deserialize)]
    struct Old {
        a: u32,
    }
    #[derive(Serialize, Deserialize)]
    struct New {
        a: u32,
        #[serde(default)]
        b: Vec<u32>,
    }
    let dir = tempfile::tempdir().unwrap();
    let store = Store::new(dir.path());
    let file = ResultsFile::new(
        "alloc-probe",
        Provenance {
            profile: Profile::Smoke,
            ..sample().provenance
        },
        Old { a: 1 },
    )
    .unwrap();
    let path = store.write(&file).unwrap();
    let newer: ResultsFile<New> = read_results(&path, "alloc-probe").unwrap();
    assert!(newer.data.b.is_empty());
    assert!(
        newer.checksum_matches().unwrap(),
        "read as the newer layout, still as measured"
    );
}

#[test]
fn floats_read_back_bit_for_bit_so_the_checksum_holds() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::new(dir.path());
    let p = sample().provenance;
    let data = vec![1.3598829412924753_f64, 0.1 + 0.2, 1e-300, 123456.789e10];
    let file = ResultsFile::new("alloc-probe", p, data.clone()).unwrap();
    let path = store.write(&file).unwrap();
    let back: ResultsFile<Vec<f64>> = read_results(&path, "alloc-probe").unwrap();
    assert_eq!(back.data, data);
    assert!(back.checksum_matches().unwrap());
}

#[test]
fn schema_1_is_refused_with_the_way_out() {
    let mut v = serde_json::to_value(sample()).unwrap();
    v["schema_version"] = 1.into();
    let msg = error_of(&v.to_string());
    assert!(
        msg.contains("is schema 1, which this harness no longer reads: re-measure it with scripts/fresh, or convert it with `code/target/release/harness convert"),
        "{msg}"
    );
}

#[test]
fn the_name_the_folder_and_the_machine_must_agree() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::new(dir.path());
    let path = store.write(&sample()).unwrap();
    let copy = path.with_file_name("other.json");
    fs::copy(&path, &copy).unwrap();
    let msg = format!(
        "{:#}",
        read_results::<Vec<u32>>(&copy, "alloc-probe").unwrap_err()
    );
    assert!(msg.contains("holds results of machine \"m\": a results file must be named after its machine (m.json)"), "{msg}");
    let mut bad = sample();
    bad.provenance.machine.id = "<script>".into();
    let text = serde_json::to_string(&bad).unwrap();
    let hostile = dir.path().join("alloc-probe").join("<script>.json");
    fs::write(&hostile, text).unwrap();
    let msg = format!(
        "{:#}",
        read_results::<Vec<u32>>(&hostile, "alloc-probe").unwrap_err()
    );
    assert!(
        msg.contains("machine id \"<script>\" must be lowercase"),
        "{msg}"
    );
    let mut arch = sample();
    arch.provenance.machine.arch = "x86<img src=x onerror=alert(1)>".into();
    fs::write(&path, serde_json::to_string(&arch).unwrap()).unwrap();
    let msg = format!(
        "{:#}",
        read_results::<Vec<u32>>(&path, "alloc-probe").unwrap_err()
    );
    assert!(msg.contains("architecture"), "{msg}");
    // A chapter's file in another chapter's folder.
    let moved = dir.path().join("fan-in").join("m.json");
    fs::create_dir_all(moved.parent().unwrap()).unwrap();
    fs::write(&moved, serde_json::to_string(&sample()).unwrap()).unwrap();
    let msg = format!(
        "{:#}",
        read_results::<Vec<u32>>(&moved, "alloc-probe").unwrap_err()
    );
    assert!(
        msg.contains("lies in the folder of chapter \"fan-in\""),
        "{msg}"
    );
}

#[test]
fn an_impossible_value_is_named_with_its_file_and_field() {
    let mut v = serde_json::to_value(sample()).unwrap();
    v["provenance"]["steal_share"] = 7.5.into();
    let msg = error_of(&v.to_string());
    assert!(
        msg.contains("holds an impossible value: provenance.steal_share = 7.5"),
        "{msg}"
    );
    let mut v = serde_json::to_value(sample()).unwrap();
    v["provenance"]["cores_apart"] = serde_json::json!({"gate_ns": null});
    let msg = error_of(&v.to_string());
    assert!(msg.contains("at `provenance.cores_apart"), "{msg}");
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
    v["chapter"] = "mutex-swap".into();
    assert!(error_of(&v.to_string()).contains("chapter \"mutex-swap\""));
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

fn judged(file: ResultsFile<Vec<u32>>) -> ResultsFile<Vec<u32>> {
    use crate::analysis::{Analysis, Named, StoredVerdict};
    use crate::claims::{Claim, Outcome, Verdict};
    let mut a = Analysis {
        judged_by: "page-hash".into(),
        ..Analysis::default()
    };
    a.estimates.insert(
        "a ÷ b".into(),
        Named::new(
            crate::values::Estimate::new(1.5, 1.25, 1.75).unwrap(),
            "ratio",
            "ratio median",
        ),
    );
    a.headline.push("a ÷ b".into());
    let v = Verdict::new(&Claim::for_test("C-1", "a"), "m", Outcome::Holds, "1.5×");
    a.verdicts.push(StoredVerdict::of(&v, vec!["a ÷ b".into()]));
    file.with_analysis(a).unwrap()
}

#[test]
fn the_analysis_is_written_read_back_and_outside_the_checksum() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::new(dir.path());
    let original = judged(sample());
    let sum = original.checksum.clone();
    let path = store.write(&original).unwrap();
    let text = fs::read_to_string(&path).unwrap();
    assert!(text.contains("\"schema_version\": 3") && !text.contains("\"derived\""));
    let back: ResultsFile<Vec<u32>> = read_results(&path, "alloc-probe").unwrap();
    assert_eq!(back.analysis, original.analysis);
    assert!(back.checksum_matches().unwrap());
    // The checksum is the data's alone: the same as the unjudged file's.
    assert_eq!(sum, sample().checksum);
}

/// The file's text with `from` replaced, written back; then the error of reading it.
fn refused(file: &ResultsFile<Vec<u32>>, from: &str, to: &str) -> String {
    let dir = tempfile::tempdir().unwrap();
    let path = Store::new(dir.path()).write(file).unwrap();
    let text = fs::read_to_string(&path).unwrap();
    assert!(text.contains(from), "{from} not in {text}");
    fs::write(&path, text.replacen(from, to, 1)).unwrap();
    let err = read_results::<Vec<u32>>(&path, "alloc-probe").unwrap_err();
    let msg = format!("{err:#}");
    assert!(msg.contains(&path.display().to_string()), "{msg}");
    msg
}

#[test]
fn a_bad_analysis_is_refused_naming_the_file_and_the_field() {
    let file = judged(sample());
    let msg = refused(
        &file,
        "\"headline\": [\n      \"a ÷ b\"",
        "\"headline\": [\n      \"gone\"",
    );
    assert!(
        msg.contains("analysis.headline[0]") && msg.contains("\"gone\""),
        "{msg}"
    );
    let msg = refused(&file, "\"lower\": 1.25", "\"lower\": 1.6");
    assert!(
        msg.contains("analysis.estimates[\"a ÷ b\"]") && msg.contains("does not contain"),
        "{msg}"
    );
    let msg = refused(&file, "\"outcome\": \"holds\"", "\"outcome\": \"mostly\"");
    assert!(
        msg.contains("analysis.verdicts[0].outcome") && msg.contains("mostly"),
        "{msg}"
    );
}

#[test]
fn a_schema_2_file_is_read_as_schema_3_and_keeps_its_edited_mark() {
    let dir = tempfile::tempdir().unwrap();
    let file = sample();
    let mut v = serde_json::to_value(&file).unwrap();
    let derived = serde_json::json!({"k": {"point_ns": 1.0, "lower_ns": 0.5, "upper_ns": 2.0}});
    v["schema_version"] = 2.into();
    v["derived"] = derived.clone();
    v["checksum"] = checksum_v2(&v["data"], &derived).unwrap().into();
    let path = dir.path().join("alloc-probe").join("m.json");
    write_atomically(&path, v.to_string().as_bytes()).unwrap();
    assert!(value_checksum_matches(&v).unwrap());
    let back: ResultsFile<Vec<u32>> = read_results(&path, "alloc-probe").unwrap();
    assert_eq!(back.schema_version, 3);
    assert!(back.analysis.is_none());
    assert!(back.checksum_matches().unwrap());
    // Sealed by schema 3's rule: the same checksum as a fresh file's.
    assert_eq!(back.checksum, file.checksum);
    assert!(!String::from_utf8(back.to_bytes().unwrap())
        .unwrap()
        .contains("derived"));
    // Edited after measurement (data changed, checksum not): still edited.
    v["data"] = serde_json::json!([1, 7, 3]);
    write_atomically(&path, v.to_string().as_bytes()).unwrap();
    let edited: ResultsFile<Vec<u32>> = read_results(&path, "alloc-probe").unwrap();
    assert!(!edited.checksum_matches().unwrap());
}

#[cfg(unix)]
#[test]
fn a_link_in_place_of_a_results_file_or_folder_is_refused_naming_both_ends() {
    let dir = tempfile::tempdir().unwrap();
    let outside = tempfile::tempdir().unwrap();
    // A valid file elsewhere, linked into the store under its own name.
    let elsewhere = Store::new(outside.path()).write(&sample()).unwrap();
    let store = Store::new(dir.path().join("results"));
    fs::create_dir_all(store.chapter_dir("alloc-probe")).unwrap();
    let link = store.results_path("alloc-probe", "m");
    std::os::unix::fs::symlink(&elsewhere, &link).unwrap();
    for e in [
        format!(
            "{:#}",
            store.load_all::<Vec<u32>>("alloc-probe").unwrap_err()
        ),
        format!(
            "{:#}",
            read_results::<Vec<u32>>(&link, "alloc-probe").unwrap_err()
        ),
    ] {
        assert!(
            e.contains(&format!(
                "{} is a symbolic link to {}",
                link.display(),
                elsewhere.display()
            )),
            "{e}"
        );
    }
    // A chapter's folder linked elsewhere is refused too.
    fs::remove_dir_all(store.chapter_dir("alloc-probe")).unwrap();
    std::os::unix::fs::symlink(
        elsewhere.parent().unwrap(),
        store.chapter_dir("alloc-probe"),
    )
    .unwrap();
    let e = format!(
        "{:#}",
        store.load_all::<Vec<u32>>("alloc-probe").unwrap_err()
    );
    assert!(e.contains("is a symbolic link to"), "{e}");
}
