// Which parts of tokio's co-op API the tokio in the lock file offers, for a
// chapter's build script to `include!`. The chapters are measured against
// older tokio releases too (`scripts/fresh CHAPTER --with tokio@VERSION`),
// and two of tokio's public co-op functions are younger than the posts:
//
// - `tokio::task::coop::has_budget_remaining`, tokio 1.44.0: cfg
//   `tokio_budget_query`;
// - `tokio::task::coop::poll_proceed`, tokio 1.47.0: cfg `tokio_poll_proceed`.
//
// Each release is also passed to the crate as an environment variable
// (`TOKIO_BUDGET_QUERY_SINCE`, `TOKIO_POLL_PROCEED_SINCE`, and the release
// resolved, `TOKIO_RESOLVED`), so the page can say what a release lacks
// from the same place the build decides it.

/// (cfg, environment variable, first tokio release that has it).
const TOKIO_COOP_FEATURES: [(&str, &str, [u64; 3]); 2] = [
    ("tokio_budget_query", "TOKIO_BUDGET_QUERY_SINCE", [1, 44, 0]),
    ("tokio_poll_proceed", "TOKIO_POLL_PROCEED_SINCE", [1, 47, 0]),
];

/// The tokio release in the workspace's lock file, `None` without a lock
/// (the crate built outside its workspace: then every feature is assumed).
fn resolved_tokio(lock: &std::path::Path) -> Option<[u64; 3]> {
    let text = std::fs::read_to_string(lock).ok()?;
    let mut lines = text.lines();
    while let Some(line) = lines.next() {
        if line.trim() == "name = \"tokio\"" {
            let version = lines.next()?.trim().strip_prefix("version = \"")?;
            let mut parts = version.trim_end_matches('"').split(['.', '-', '+']);
            let mut out = [0; 3];
            for slot in &mut out {
                *slot = parts.next()?.parse().ok()?;
            }
            return Some(out);
        }
    }
    None
}

fn emit_tokio_coop_cfgs() {
    let dir = std::path::PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR").unwrap());
    let lock = dir.join("../Cargo.lock");
    println!("cargo::rerun-if-changed={}", lock.display());
    println!("cargo::rerun-if-changed=build.rs");
    println!("cargo::rerun-if-changed=../build-support/tokio_coop.rs");
    let resolved = resolved_tokio(&lock);
    if let Some([a, b, c]) = resolved {
        println!("cargo::rustc-env=TOKIO_RESOLVED={a}.{b}.{c}");
    } else {
        println!("cargo::rustc-env=TOKIO_RESOLVED=unknown");
    }
    for (cfg, var, since) in TOKIO_COOP_FEATURES {
        println!("cargo::rustc-check-cfg=cfg({cfg})");
        println!("cargo::rustc-env={var}={}.{}.{}", since[0], since[1], since[2]);
        if resolved.is_none_or(|r| r >= since) {
            println!("cargo::rustc-cfg={cfg}");
        }
    }
}
