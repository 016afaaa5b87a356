//! The answer under the chapter's question prints the bytes the results
//! hold, and changes when they do.
use harness::fixtures::json as serde_json;
use harness::fixtures::{committed_results, edited_results};
use std::process::Command;

fn in_short(results: &std::path::Path) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_alloc-probe"))
        .args(["render", "in-short", "--results"])
        .arg(results)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// The bytes at creation of a bounded tokio channel of 8-byte messages,
/// as the results file holds them.
fn created(data: &serde_json::Value) -> u64 {
    data["grid"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["channel"] == "tokio-bounded" && p["msg_size"] == 8)
        .unwrap()["footprint"]["created"]
        .as_u64()
        .unwrap()
}

#[test]
fn the_answer_prints_the_results_bytes_and_follows_an_edit() {
    let (results, file) = committed_results("alloc-probe");
    let v: serde_json::Value = serde_json::from_slice(&std::fs::read(&file).unwrap()).unwrap();
    let bytes = created(&v["data"]);
    let before = in_short(&results);
    assert!(before.contains("data-answer=\"alloc-probe\""), "{before}");
    assert!(
        before.contains(&format!(
            "data-exact=\"\">{}<",
            harness_core::fmt::bytes(bytes)
        )),
        "{before}"
    );
    // Every stage of every tokio channel of 8-byte messages holds 64 bytes more.
    let (dir, _) = edited_results("alloc-probe", |data| {
        for list in ["grid", "sweep"] {
            for p in data[list].as_array_mut().unwrap() {
                if p["channel"] != "tokio-bounded" || p["msg_size"] != 8 {
                    continue;
                }
                for stage in ["created", "after_32", "after_33", "full", "drained"] {
                    if let Some(b) = p["footprint"][stage].as_u64() {
                        p["footprint"][stage] = (b + 64).into();
                    }
                }
            }
        }
    });
    let after = in_short(dir.path());
    assert!(
        after.contains(&format!(
            "data-exact=\"\">{}<",
            harness_core::fmt::bytes(bytes + 64)
        )),
        "{after}"
    );
    assert_ne!(before, after);
}
