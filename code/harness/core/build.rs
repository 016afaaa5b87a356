//! Records the compiler that builds the book's binaries: it is part of every
//! results file's provenance and of the freshness fingerprint.
use std::process::Command;

fn main() {
    let rustc = std::env::var("RUSTC").unwrap_or_else(|_| "rustc".into());
    let version = Command::new(&rustc)
        .arg("-V")
        .output()
        .ok()
        .and_then(|o| String::from_utf8(o.stdout).ok())
        .map(|s| s.trim().to_string())
        .unwrap_or_else(|| "unknown rustc".into());
    println!("cargo:rustc-env=HARNESS_RUSTC_VERSION={version}");
    println!("cargo:rerun-if-env-changed=RUSTC");
    // The flags and profile overrides this build runs under: part of the
    // freshness fingerprint (`results::fingerprint::Compiled`). Separated by
    // 0x1f, as cargo passes the flags.
    let flags = std::env::var("CARGO_ENCODED_RUSTFLAGS").unwrap_or_default();
    println!(
        "cargo:rustc-env=HARNESS_BUILD_RUSTFLAGS={}",
        flags.replace('\n', " ")
    );
    let mut overrides: Vec<String> = std::env::vars()
        .filter(|(k, _)| k.starts_with("CARGO_PROFILE_RELEASE_"))
        .map(|(k, v)| format!("{k}={}", v.replace(['\n', '\x1f'], " ")))
        .collect();
    overrides.sort();
    println!(
        "cargo:rustc-env=HARNESS_BUILD_PROFILE_ENV={}",
        overrides.join("\x1f")
    );
    for var in [
        "RUSTFLAGS",
        "CARGO_ENCODED_RUSTFLAGS",
        "CARGO_BUILD_RUSTFLAGS",
    ] {
        println!("cargo:rerun-if-env-changed={var}");
    }
    for key in [
        "OPT_LEVEL",
        "DEBUG",
        "DEBUG_ASSERTIONS",
        "OVERFLOW_CHECKS",
        "LTO",
        "PANIC",
        "INCREMENTAL",
        "CODEGEN_UNITS",
        "CODEGEN_BACKEND",
        "RPATH",
        "STRIP",
        "SPLIT_DEBUGINFO",
        "TRIM_PATHS",
    ] {
        println!("cargo:rerun-if-env-changed=CARGO_PROFILE_RELEASE_{key}");
    }
}
