//! `harness list` (`scripts/fresh --status`): every results file and
//! whether it is current.
use std::process::ExitCode;

use anyhow::Result;

use harness_core::registry;
use harness_core::results::{read_results, Store};

pub(crate) fn list(store: &Store) -> Result<ExitCode> {
    for c in registry::chapters()? {
        println!("{:<16} {}", c.name, c.title);
        // The published results, then the replicate pair (the method page's).
        let replicates = harness_page::agreement::replicates_dir(&store.root);
        let folders = [
            ("", store.clone()),
            ("replicate a: ", Store::new(replicates.join("a"))),
            ("replicate b: ", Store::new(replicates.join("b"))),
        ];
        for (label, folder) in folders {
            for path in folder.machine_files(&c.name)? {
                match read_results::<serde_json::Value>(&path, &c.name) {
                    Ok(file) => {
                        let p = &file.provenance;
                        let mut fresh = if p.is_current(&c.name)? {
                            "current".to_string()
                        } else {
                            "STALE".to_string()
                        };
                        if !file.checksum_matches()? {
                            fresh.push_str(", EDITED after measurement (checksum differs)");
                        }
                        println!(
                            "  {:<34} {:<6} {}  {fresh}",
                            format!("{label}{}", p.machine.id),
                            p.profile,
                            p.date
                        );
                    }
                    Err(e) => println!("  {label}UNREADABLE {e:#}"),
                }
            }
        }
        // Release variants (`scripts/fresh --with`): stale only when the
        // chapter's code changed, whatever the committed lock says.
        for path in store.release_files(&c.name)? {
            match read_results::<serde_json::Value>(&path, &c.name) {
                Ok(file) => {
                    let releases: Vec<String> = file
                        .release
                        .iter()
                        .flat_map(|r| r.crates.iter().map(|(c, v)| format!("{c} {v}")))
                        .collect();
                    let fresh = match (&file.release, file.is_current()?) {
                        (None, _) => "NOT A RELEASE VARIANT (no release record)",
                        (Some(_), true) => "current",
                        (Some(_), false) => "STALE",
                    };
                    let p = &file.provenance;
                    println!(
                        "  {:<34} {:<6} {}  {fresh}",
                        format!("release {}: {}", releases.join(", "), p.machine.id),
                        p.profile,
                        p.date
                    );
                }
                Err(e) => println!("  release UNREADABLE {e:#}"),
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}
