//! A sample of published rounds in a fresh process of the chapter binary.
//! The allocator is chosen when a process starts (`allocator::Chosen`), and
//! its heap carries whatever the rounds before left in it, so every sample of
//! the sensitivity grid gets a process of its own: the same start for every
//! row, and repeats that differ only in what the machine did.
use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode, Stdio};

use anyhow::{bail, ensure, Context, Result};
use serde::{Deserialize, Serialize};

use crate::allocator::{Allocator, ALLOCATOR_ENV};
use crate::drivers::{run_rounds, Driver, Lock, RoundCost};
use crate::experiments::RuntimeUsed;

/// Set (to a JSON `Request`) in a process started to run one sample.
pub const REQUEST_ENV: &str = "MUTEX_COST_PROBE";

/// The chapter binary to start, when it is not the running one.
pub const BINARY_ENV: &str = "MUTEX_COST_BIN";

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Request {
    pub allocator: Allocator,
    pub lock: Lock,
    pub driver: Driver,
    pub runtime: RuntimeUsed,
    pub futures: usize,
    pub rounds: usize,
}

/// The chapter binary: this one, or the one cargo built beside a test binary
/// (`target/<profile>/deps/<test>` next to `target/<profile>/mutex-cost`).
fn binary() -> Result<PathBuf> {
    if let Some(path) = std::env::var_os(BINARY_ENV) {
        return Ok(path.into());
    }
    let exe = std::env::current_exe().context("cannot find the running binary")?;
    let name = format!("mutex-cost{}", std::env::consts::EXE_SUFFIX);
    if exe.file_name() == Some(OsStr::new(&name)) {
        return Ok(exe);
    }
    let beside = exe
        .parent()
        .and_then(Path::parent)
        .map(|dir| dir.join(&name))
        .filter(|p| p.is_file());
    beside.with_context(|| {
        format!(
            "{} is not the chapter binary and none was built beside it: set {BINARY_ENV}",
            exe.display()
        )
    })
}

/// Runs `request` in a fresh process and returns each round's cost.
pub fn in_fresh_process(request: &Request) -> Result<Vec<RoundCost>> {
    ensure!(
        request.allocator.available(),
        "{} is not available on this platform",
        request.allocator.label()
    );
    let allocator = match request.allocator {
        Allocator::Mimalloc => "mimalloc",
        Allocator::System | Allocator::SystemKept => "system",
    };
    let out = Command::new(binary()?)
        .env(REQUEST_ENV, serde_json::to_string(request)?)
        .env(ALLOCATOR_ENV, allocator)
        // The sample's parent is this process, not the harness above it.
        .env_remove(harness_measure::process::PARENT_ENV)
        .stdin(Stdio::null())
        .output()
        .context("cannot start the chapter binary for a sample")?;
    if !out.status.success() {
        bail!(
            "the sample process failed ({}): {}",
            out.status,
            String::from_utf8_lossy(&out.stderr).trim()
        );
    }
    let costs: Vec<RoundCost> = serde_json::from_slice(&out.stdout)
        .context("the sample process answered something other than its rounds")?;
    ensure!(
        costs.len() == request.rounds,
        "asked for {} rounds, got {}",
        request.rounds,
        costs.len()
    );
    Ok(costs)
}

fn run(request: &OsStr) -> Result<String> {
    harness_measure::process::die_with_parent()?;
    let request: Request =
        serde_json::from_str(request.to_str().context("the request is not UTF-8")?)
            .context("the request does not parse")?;
    request.allocator.prepare()?;
    let costs = run_rounds(
        request.lock,
        request.driver,
        &request.runtime,
        request.futures,
        request.rounds,
    )?;
    Ok(serde_json::to_string(&costs)?)
}

/// The whole of a sample process: `main` hands over when `REQUEST_ENV` is set.
/// Answers the rounds' costs as JSON on stdout, or the error on stderr.
pub fn serve(request: &OsStr) -> ExitCode {
    match run(request) {
        Ok(json) => {
            println!("{json}");
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("mutex-cost sample: {e:#}");
            ExitCode::FAILURE
        }
    }
}
