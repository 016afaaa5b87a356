//! The gate a run's timings wait at, and where a run finds it: the
//! environment `harness measure` sets, else `machines.toml`.
use std::path::Path;
use std::time::Duration;

use anyhow::{bail, Context, Result};
use serde::Deserialize;

/// Environment variables through which `harness measure` hands the gate to
/// a chapter's process (and tests set it directly).
pub const GATE_ENV: &str = "BOOK_CORE_GATE_NS";
pub const PATIENCE_ENV: &str = "BOOK_CORE_GATE_WAIT_S";
/// How long a timing waits at the gate unless `PATIENCE_ENV` says otherwise.
pub const DEFAULT_PATIENCE: Duration = Duration::from_secs(60);
/// What is left of the run's budget (`chapter::run_budget`) for the chapter
/// about to measure, in seconds: `harness measure` shares one budget among
/// the chapters it runs.
pub const BUDGET_ENV: &str = "BOOK_CORE_GATE_BUDGET_S";

/// Reads a budget in seconds as `BUDGET_ENV` carries it.
pub fn parse_budget(value: &str) -> Result<Duration> {
    let v = value.trim();
    match v.parse::<f64>() {
        Ok(s) if s.is_finite() && s >= 0.0 => Ok(Duration::from_secs_f64(s)),
        _ => bail!("{v:?} is not a number of seconds (zero or more)"),
    }
}

/// Timings start only when a check finds the round trip at or below
/// `limit_ns`, waiting up to `patience` for it. The run's budget (see
/// `Gatekeeper::new`) caps the waiting: after that, timings go ahead and
/// count as beyond the gate when the cores are far, so a machine stuck
/// apart cannot stretch a quick run into a long one.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Gate {
    pub limit_ns: f64,
    pub patience: Duration,
}

/// Reads a gate value as given on the command line, in `machines.toml` or
/// in `GATE_ENV`: a round trip in nanoseconds, or `none`.
pub fn parse_limit(value: &str) -> Result<Option<f64>> {
    let v = value.trim();
    if v.is_empty() || v.eq_ignore_ascii_case("none") {
        return Ok(None);
    }
    match v.parse::<f64>() {
        Ok(ns) if ns.is_finite() && ns > 0.0 => Ok(Some(ns)),
        _ => bail!("{v:?} is not a round trip in nanoseconds (a positive number) or \"none\""),
    }
}

/// What `machines.toml` says about one machine.
#[derive(Clone, Debug, Default, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MachineSettings {
    /// The gate for this machine (see the module docs), in nanoseconds.
    pub core_gate_ns: Option<f64>,
}

/// The settings `machines_file` holds for `machine_id` (none if the file or
/// the entry is missing). A file that does not parse is an error naming it.
pub fn machine_settings(machines_file: &Path, machine_id: &str) -> Result<MachineSettings> {
    let text = match std::fs::read_to_string(machines_file) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Default::default()),
        Err(e) => {
            return Err(e).with_context(|| format!("cannot read {}", machines_file.display()))
        }
    };
    let mut all: std::collections::BTreeMap<String, MachineSettings> = toml::from_str(&text)
        .with_context(|| format!("{} is not a valid machines file", machines_file.display()))?;
    let settings = all.remove(machine_id).unwrap_or_default();
    if let Some(ns) = settings.core_gate_ns {
        if !(ns.is_finite() && ns > 0.0) {
            bail!(
                "{}: core_gate_ns for {machine_id} must be a positive number of nanoseconds",
                machines_file.display()
            );
        }
    }
    Ok(settings)
}

/// `code/machines.toml`: measuring conditions per machine id.
pub fn machines_file() -> std::path::PathBuf {
    harness_core::code_dir().join("machines.toml")
}

/// The gate this process measures under: `GATE_ENV` when set (that is how
/// `harness measure` passes on `--core-gate`), else this machine's entry in
/// `machines.toml`, else none.
pub fn gate_for(machine_id: &str) -> Result<Option<Gate>> {
    let limit = match std::env::var(GATE_ENV) {
        Ok(v) => parse_limit(&v).with_context(|| format!("{GATE_ENV}={v}"))?,
        Err(std::env::VarError::NotPresent) => {
            machine_settings(&machines_file(), machine_id)?.core_gate_ns
        }
        Err(e) => bail!("{GATE_ENV}: {e}"),
    };
    let patience = match std::env::var(PATIENCE_ENV) {
        Ok(v) => {
            let secs: f64 = v
                .trim()
                .parse()
                .ok()
                .filter(|s: &f64| s.is_finite() && *s >= 0.0)
                .with_context(|| format!("{PATIENCE_ENV}={v} is not a number of seconds"))?;
            Duration::from_secs_f64(secs)
        }
        Err(_) => DEFAULT_PATIENCE,
    };
    Ok(limit.map(|limit_ns| Gate { limit_ns, patience }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gate_values_parse_or_fail_clearly() {
        assert_eq!(parse_limit("330").unwrap(), Some(330.0));
        assert_eq!(parse_limit(" none ").unwrap(), None);
        assert_eq!(parse_limit("").unwrap(), None);
        for bad in ["-5", "0", "fast", "NaN", "inf"] {
            let err = parse_limit(bad).unwrap_err().to_string();
            assert!(err.contains("not a round trip"), "{bad}: {err}");
        }
    }

    #[test]
    fn budgets_parse_or_fail_clearly() {
        assert_eq!(
            parse_budget(" 12.5 ").unwrap(),
            Duration::from_millis(12_500)
        );
        assert_eq!(parse_budget("0").unwrap(), Duration::ZERO);
        for bad in ["-0.5", "soon", "inf", ""] {
            let err = parse_budget(bad).unwrap_err().to_string();
            assert!(err.contains("is not a number of seconds"), "{bad:?}: {err}");
        }
    }

    #[test]
    fn machines_files_name_themselves_when_wrong() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("machines.toml");
        // Missing file or entry: no settings.
        assert_eq!(
            machine_settings(&file, "m").unwrap(),
            MachineSettings::default()
        );
        std::fs::write(&file, "[m]\ncore_gate_ns = 330\n[other]\n").unwrap();
        assert_eq!(
            machine_settings(&file, "m").unwrap().core_gate_ns,
            Some(330.0)
        );
        assert_eq!(
            machine_settings(&file, "nobody").unwrap().core_gate_ns,
            None
        );
        for bad in [
            "[m]\ncore_gate = 330\n",
            "[m]\ncore_gate_ns = -1\n",
            "not toml [",
        ] {
            std::fs::write(&file, bad).unwrap();
            let err = format!("{:#}", machine_settings(&file, "m").unwrap_err());
            assert!(err.contains("machines.toml"), "{bad}: {err}");
        }
    }
}
