//! Where a run happened: the provenance every results file carries.
use std::fs;
use std::process::Command;

use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Machine {
    /// Stable, readable id; names the results file. `BOOK_MACHINE_ID` overrides it.
    pub id: String,
    pub cpu: String,
    pub arch: String,
    pub cores: usize,
    pub memory_bytes: u64,
    pub os: String,
    pub kernel: String,
}

impl Machine {
    pub fn detect() -> Machine {
        let arch = std::env::consts::ARCH.to_string();
        let cpu = cpu_model().unwrap_or_else(|| format!("unknown {arch} CPU"));
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        let id = std::env::var("BOOK_MACHINE_ID")
            .ok()
            .filter(|s| !s.trim().is_empty())
            .map(|s| slug(&s))
            .unwrap_or_else(|| default_id(&arch, &cpu, cores));
        Machine {
            id,
            cpu,
            arch,
            cores,
            memory_bytes: memory_bytes().unwrap_or(0),
            os: os_name().unwrap_or_else(|| std::env::consts::OS.to_string()),
            kernel: kernel().unwrap_or_else(|| "unknown".into()),
        }
    }
}

/// `x86_64-amd-epyc-7b13-2c`: the same hardware gets the same id on every run.
pub fn default_id(arch: &str, cpu: &str, cores: usize) -> String {
    let model = cpu.split('@').next().unwrap_or(cpu);
    let model: String = model
        .replace("(R)", " ")
        .replace("(TM)", " ")
        .replace("(tm)", " ")
        .split_whitespace()
        .filter(|w| {
            !matches!(
                w.to_ascii_lowercase().as_str(),
                "cpu" | "processor" | "core" | "with" | "radeon" | "graphics"
            ) && !w.to_ascii_lowercase().ends_with("-core")
        })
        .collect::<Vec<_>>()
        .join(" ");
    let mut id = slug(&format!("{arch} {model}"));
    id.truncate(48);
    format!("{}-{cores}c", id.trim_end_matches('-'))
}

/// Lower-case letters, digits and single dashes.
pub fn slug(s: &str) -> String {
    let mut out = String::new();
    for c in s.chars() {
        if c.is_ascii_alphanumeric() || c == '_' {
            out.push(c.to_ascii_lowercase());
        } else if !out.ends_with('-') && !out.is_empty() {
            out.push('-');
        }
    }
    out.trim_end_matches('-').to_string()
}

fn cpuinfo_field(name: &str) -> Option<String> {
    let text = fs::read_to_string("/proc/cpuinfo").ok()?;
    text.lines()
        .filter_map(|l| l.split_once(':'))
        .find(|(k, _)| k.trim() == name)
        .map(|(_, v)| v.trim().to_string())
        .filter(|v| !v.is_empty())
}

fn command_output(cmd: &str, args: &[&str]) -> Option<String> {
    let out = Command::new(cmd).args(args).output().ok()?;
    out.status.success().then_some(())?;
    let s = String::from_utf8(out.stdout).ok()?.trim().to_string();
    (!s.is_empty()).then_some(s)
}

fn cpu_model() -> Option<String> {
    cpuinfo_field("model name")
        .or_else(|| {
            // arm64 Linux has no "model name"; lscpu knows the core's name.
            command_output("lscpu", &[]).and_then(|s| {
                s.lines()
                    .filter_map(|l| l.split_once(':'))
                    .find(|(k, _)| k.trim() == "Model name")
                    .map(|(_, v)| v.trim().to_string())
            })
        })
        .or_else(|| command_output("sysctl", &["-n", "machdep.cpu.brand_string"]))
}

fn memory_bytes() -> Option<u64> {
    let text = fs::read_to_string("/proc/meminfo").ok();
    if let Some(text) = text {
        let kb = text
            .lines()
            .find(|l| l.starts_with("MemTotal:"))?
            .split_whitespace()
            .nth(1)?
            .parse::<u64>()
            .ok()?;
        return Some(kb * 1024);
    }
    command_output("sysctl", &["-n", "hw.memsize"])?
        .parse()
        .ok()
}

fn os_name() -> Option<String> {
    let text = fs::read_to_string("/etc/os-release").ok();
    if let Some(text) = text {
        return text
            .lines()
            .find_map(|l| l.strip_prefix("PRETTY_NAME="))
            .map(|v| v.trim_matches('"').to_string());
    }
    command_output("sw_vers", &["-productVersion"]).map(|v| format!("macOS {v}"))
}

fn kernel() -> Option<String> {
    fs::read_to_string("/proc/sys/kernel/osrelease")
        .ok()
        .map(|s| s.trim().to_string())
        .or_else(|| command_output("uname", &["-r"]))
}

/// One-minute load average when a run starts, so a reader can see a busy machine.
pub fn load_average() -> Option<f64> {
    fs::read_to_string("/proc/loadavg")
        .ok()?
        .split_whitespace()
        .next()?
        .parse()
        .ok()
}

pub fn rustc_version() -> &'static str {
    env!("HARNESS_RUSTC_VERSION")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_readable_slugs() {
        assert_eq!(
            default_id("x86_64", "AMD EPYC 7B13 64-Core Processor", 2),
            "x86_64-amd-epyc-7b13-2c"
        );
        assert_eq!(
            default_id("x86_64", "Intel(R) Xeon(R) CPU @ 2.20GHz", 4),
            "x86_64-intel-xeon-4c"
        );
        assert_eq!(
            default_id("aarch64", "Neoverse-N1", 4),
            "aarch64-neoverse-n1-4c"
        );
    }

    #[test]
    fn detect_fills_every_field() {
        let m = Machine::detect();
        assert!(!m.id.is_empty() && m.cores >= 1);
        assert_eq!(m.arch, std::env::consts::ARCH);
    }
}
