//! What tells two hosts apart when their CPUs share a name: two VMs of one
//! class both read "AMD EPYC, 2 cores" and so share a machine id, yet one
//! may be a different CPU generation with other caches, and measure 40 %
//! apart. A results file records its host beside the provenance (`host`),
//! and a run never silently replaces a file whose host differs or is not
//! known (files measured before hosts were recorded).
//!
//! This lives outside `measure/` on purpose: the host is read when the
//! finished run is written, moments after measuring on the same machine,
//! so recording it changes no measured code and no fingerprint. It is not
//! part of the checksum (which covers `data` and `derived`).
use std::fmt;
use std::path::Path;

use anyhow::{bail, Result};
use serde::{Deserialize, Serialize};

/// Set to `1` to confirm that a run is on the same host as the file it
/// replaces when the file cannot tell (it records no host, or the host's
/// description changed with a kernel or hypervisor update).
pub const SAME_HOST_ENV: &str = "BOOK_SAME_HOST";

/// The CPU as the kernel reports it: vendor, family, model and stepping
/// (`/proc/cpuinfo`; on arm64 the implementer, variant, part and revision),
/// the first core's cache sizes (`/sys/devices/system/cpu/cpu0/cache/`)
/// and the number of cores this process may use. `None` for what the
/// system does not say.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Host {
    pub vendor: Option<String>,
    pub family: Option<u64>,
    pub model: Option<u64>,
    pub stepping: Option<u64>,
    pub l1d_bytes: Option<u64>,
    pub l2_bytes: Option<u64>,
    pub l3_bytes: Option<u64>,
    pub cores: u64,
}

impl Host {
    /// This host.
    pub fn detect() -> Host {
        let cpuinfo = std::fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
        let mut host = from_cpuinfo(&cpuinfo);
        let (l1d, l2, l3) = caches(Path::new("/sys/devices/system/cpu/cpu0/cache"));
        host.l1d_bytes = l1d;
        host.l2_bytes = l2;
        host.l3_bytes = l3;
        host.cores = std::thread::available_parallelism().map_or(1, |n| n.get()) as u64;
        host
    }
}

impl fmt::Display for Host {
    /// `AuthenticAMD family 25 model 17 stepping 1, L1d 32 KiB, L2 1 MiB,
    /// L3 32 MiB, 2 cores`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let num = |v: Option<u64>| v.map_or("?".to_string(), |v| v.to_string());
        let size = |v: Option<u64>| v.map_or("?".to_string(), |b| crate::fmt::size(b as f64));
        write!(
            f,
            "{} family {} model {} stepping {}, L1d {}, L2 {}, L3 {}, {} cores",
            self.vendor.as_deref().unwrap_or("unknown vendor"),
            num(self.family),
            num(self.model),
            num(self.stepping),
            size(self.l1d_bytes),
            size(self.l2_bytes),
            size(self.l3_bytes),
            self.cores
        )
    }
}

/// Vendor, family, model and stepping of the first processor listed.
pub fn from_cpuinfo(text: &str) -> Host {
    let block = text.split("\n\n").next().unwrap_or("");
    let field = |name: &str| {
        block.lines().find_map(|l| {
            let (k, v) = l.split_once(':')?;
            (k.trim() == name).then(|| v.trim().to_string())
        })
    };
    let number = |name: &str| {
        field(name).and_then(|v| match v.strip_prefix("0x") {
            Some(hex) => u64::from_str_radix(hex, 16).ok(),
            None => v.parse().ok(),
        })
    };
    let clean = |s: String| {
        let s: String = s
            .chars()
            .filter(|c| !c.is_control() && !crate::results::is_bidi_control(*c))
            .take(64)
            .collect();
        (!s.is_empty()).then_some(s)
    };
    if field("vendor_id").is_some() {
        Host {
            vendor: field("vendor_id").and_then(clean),
            family: number("cpu family"),
            model: number("model"),
            stepping: number("stepping"),
            ..Host::default()
        }
    } else {
        Host {
            vendor: field("CPU implementer")
                .map(|i| format!("arm implementer {i}"))
                .and_then(clean),
            family: number("CPU variant"),
            model: number("CPU part"),
            stepping: number("CPU revision"),
            ..Host::default()
        }
    }
}

/// Sizes of the L1 data, L2 and L3 caches under a `cache/` folder of sysfs.
pub fn caches(dir: &Path) -> (Option<u64>, Option<u64>, Option<u64>) {
    let (mut l1d, mut l2, mut l3) = (None, None, None);
    let Ok(entries) = std::fs::read_dir(dir) else {
        return (None, None, None);
    };
    for entry in entries.flatten() {
        let d = entry.path();
        let read = |name: &str| {
            std::fs::read_to_string(d.join(name))
                .ok()
                .map(|s| s.trim().to_string())
        };
        let size = read("size").and_then(|s| parse_size(&s));
        match (read("level").as_deref(), read("type").as_deref()) {
            (Some("1"), Some("Data")) => l1d = size,
            (Some("2"), _) => l2 = size,
            (Some("3"), _) => l3 = size,
            _ => {}
        }
    }
    (l1d, l2, l3)
}

/// `32K`, `1024K`, `32M`, `512` as bytes.
fn parse_size(s: &str) -> Option<u64> {
    let (digits, unit) = s.split_at(s.find(|c: char| !c.is_ascii_digit()).unwrap_or(s.len()));
    let n: u64 = digits.parse().ok()?;
    let k = match unit.trim() {
        "" => 1,
        "K" | "KB" | "KiB" => 1 << 10,
        "M" | "MB" | "MiB" => 1 << 20,
        "G" | "GB" | "GiB" => 1 << 30,
        _ => return None,
    };
    n.checked_mul(k)
}

/// `host ...`, or what an unknown host reads as.
pub fn describe(host: Option<&Host>) -> String {
    match host {
        Some(h) => format!("host {h}"),
        None => "a host it does not record (measured before hosts were recorded)".to_string(),
    }
}

/// Whether a run on `now` may replace the results at `path`, measured on
/// `before` (`None`: the file records no host) under the same machine id.
/// Refused unless the hosts agree, or `BOOK_SAME_HOST=1` confirms it; the
/// error names both hosts and both ways on.
pub fn may_replace(path: &Path, id: &str, before: Option<&Host>, now: &Host) -> Result<()> {
    if before == Some(now) {
        return Ok(());
    }
    if std::env::var(SAME_HOST_ENV).is_ok_and(|v| v == "1") {
        return Ok(());
    }
    let was = describe(before);
    bail!(
        "refusing to replace {}: it was measured on {was}, and this is host {now}, under the \
         same machine id {id:?}. Two hosts under one id would mix their numbers. If this is \
         another host, give it its own id, which names its results file and is recorded in \
         it: BOOK_MACHINE_ID=NAME (e.g. {id}-b) before the command. If it is the same host, \
         confirm it with {SAME_HOST_ENV}=1 before the command.",
        path.display()
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    const EPYC: &str = "processor\t: 0\nvendor_id\t: AuthenticAMD\ncpu family\t: 25\n\
        model\t\t: 17\nmodel name\t: AMD EPYC\nstepping\t: 1\n\nprocessor\t: 1\nvendor_id\t: Other\n";

    #[test]
    fn a_host_is_read_from_cpuinfo_and_sysfs() {
        let h = from_cpuinfo(EPYC);
        assert_eq!(h.vendor.as_deref(), Some("AuthenticAMD"));
        assert_eq!(
            (h.family, h.model, h.stepping),
            (Some(25), Some(17), Some(1))
        );
        let arm = from_cpuinfo("processor\t: 0\nCPU implementer\t: 0x41\nCPU variant\t: 0x3\nCPU part\t: 0xd0c\nCPU revision\t: 1\n");
        assert_eq!(
            (arm.family, arm.model, arm.stepping),
            (Some(3), Some(0xd0c), Some(1))
        );

        let dir = tempfile::tempdir().unwrap();
        for (i, level, kind, size) in [
            (0, "1", "Data", "32K"),
            (1, "1", "Instruction", "32K"),
            (2, "2", "Unified", "1024K"),
            (3, "3", "Unified", "32768K"),
        ] {
            let d = dir.path().join(format!("index{i}"));
            std::fs::create_dir_all(&d).unwrap();
            std::fs::write(d.join("level"), level).unwrap();
            std::fs::write(d.join("type"), kind).unwrap();
            std::fs::write(d.join("size"), format!("{size}\n")).unwrap();
        }
        assert_eq!(
            caches(dir.path()),
            (Some(32 << 10), Some(1 << 20), Some(32 << 20))
        );
    }

    #[test]
    fn another_or_unknown_host_never_replaces_silently() {
        let ours = Host {
            l2_bytes: Some(1 << 20),
            l3_bytes: Some(32 << 20),
            cores: 2,
            ..from_cpuinfo(EPYC)
        };
        let theirs = Host {
            model: Some(1),
            l2_bytes: Some(512 << 10),
            ..ours.clone()
        };
        let p = Path::new("r/x.json");
        may_replace(p, "x86_64-amd-epyc-2c", Some(&ours), &ours).unwrap();
        let e = may_replace(p, "x86_64-amd-epyc-2c", Some(&theirs), &ours)
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("model 1 stepping 1, L1d ?, L2 512 KiB")
                && e.contains("model 17 stepping 1, L1d ?, L2 1 MiB")
                && e.contains("BOOK_MACHINE_ID=NAME")
                && e.contains("BOOK_SAME_HOST=1"),
            "{e}"
        );
        let e = may_replace(p, "x86_64-amd-epyc-2c", None, &ours)
            .unwrap_err()
            .to_string();
        assert!(e.contains("does not record"), "{e}");
    }
}
