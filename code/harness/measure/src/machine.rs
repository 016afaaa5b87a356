//! Where a run happened: the provenance every results file carries, and
//! the machine's load around it. Linux's /proc is read through `procfs`.
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

pub use harness_core::machine::{rustc_version, Machine};

/// This machine, as a run's provenance records it.
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
        tcp_congestion_control: tcp_congestion_control(),
        memory_return: memory_return(Path::new("/sys")),
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

/// The first core's `model name` in /proc/cpuinfo (x86; arm64 has none).
/// Linux only.
fn cpuinfo_model() -> Option<String> {
    #[cfg(target_os = "linux")]
    {
        use procfs::Current;
        procfs::CpuInfo::current()
            .ok()?
            .model_name(0)
            .map(str::to_string)
            .filter(|v| !v.is_empty())
    }
    #[cfg(not(target_os = "linux"))]
    None
}

fn command_output(cmd: &str, args: &[&str]) -> Option<String> {
    let out = Command::new(cmd).args(args).output().ok()?;
    out.status.success().then_some(())?;
    let s = String::from_utf8(out.stdout).ok()?.trim().to_string();
    (!s.is_empty()).then_some(s)
}

fn cpu_model() -> Option<String> {
    cpuinfo_model()
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
    #[cfg(target_os = "linux")]
    {
        use procfs::Current;
        // In bytes: procfs turns the file's kB into bytes.
        if let Ok(m) = procfs::Meminfo::current() {
            return Some(m.mem_total);
        }
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

/// Linux's `net.ipv4.tcp_congestion_control`; `None` elsewhere.
fn tcp_congestion_control() -> Option<String> {
    fs::read_to_string("/proc/sys/net/ipv4/tcp_congestion_control")
        .ok()
        .map(|s| s.trim().to_string())
        .filter(|s| !s.is_empty())
}

/// What under `sys` (Linux's `/sys`) returns the guest's unused memory to
/// its host: free page reporting negotiated by a virtio balloon (feature
/// bit 5), with the smallest block it reports, and the actions of running
/// DAMON schemes (a `pageout` scheme pushes idle memory out). `"none found"`
/// when `sys` has none of them; `None` without a `sys` to read.
pub fn memory_return(sys: &Path) -> Option<String> {
    if !sys.join("kernel").is_dir() {
        return None;
    }
    let read = |p: PathBuf| fs::read_to_string(p).ok().map(|s| s.trim().to_string());
    let mut found = Vec::new();
    let reporting = subdirs(&sys.join("bus/virtio/drivers/virtio_balloon"))
        .into_iter()
        .filter_map(|d| read(d.join("features")))
        .any(|bits| bits.as_bytes().get(5) == Some(&b'1'));
    if reporting {
        let order = read(sys.join("module/page_reporting/parameters/page_reporting_order"))
            .and_then(|o| o.parse::<u32>().ok())
            .filter(|&o| o < 30);
        found.push(match order {
            Some(o) => format!(
                "free page reporting to the host, in blocks of {} or more",
                harness_core::fmt::bytes_h((4096u64 << o) as f64)
            ),
            None => "free page reporting to the host".into(),
        });
    }
    let mut actions = Vec::new();
    for kdamond in subdirs(&sys.join("kernel/mm/damon/admin/kdamonds")) {
        if read(kdamond.join("state")).as_deref() != Some("on") {
            continue;
        }
        for context in subdirs(&kdamond.join("contexts")) {
            for scheme in subdirs(&context.join("schemes")) {
                if let Some(action) = read(scheme.join("action")) {
                    if !actions.contains(&action) {
                        actions.push(action);
                    }
                }
            }
        }
    }
    found.extend(
        actions
            .into_iter()
            .map(|a| format!("a DAMON scheme that does {a}")),
    );
    if read(sys.join("module/damon_reclaim/parameters/enabled")).as_deref() == Some("Y") {
        found.push("DAMON_RECLAIM".into());
    }
    Some(if found.is_empty() {
        "none found".into()
    } else {
        found.join("; ")
    })
}

/// The numbered entries of a sysfs folder (`0`, `1`, `virtio0`), sorted;
/// none when it cannot be listed.
fn subdirs(dir: &Path) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = fs::read_dir(dir)
        .map(|entries| {
            entries
                .filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| {
                    p.is_dir()
                        && p.file_name()
                            .and_then(|n| n.to_str())
                            .is_some_and(|n| n.ends_with(|c: char| c.is_ascii_digit()))
                })
                .collect()
        })
        .unwrap_or_default();
    out.sort();
    out
}

/// One-minute load average when a run starts, so a reader can see a busy
/// machine. Read by hand: `procfs::LoadAverage` holds it as an `f32`, which
/// would record 0.13 as 0.12999999523162842.
pub fn load_average() -> Option<f64> {
    fs::read_to_string("/proc/loadavg")
        .ok()?
        .split_whitespace()
        .next()?
        .parse()
        .ok()
}

/// How many cores' worth of CPU time other work took during `window`, read
/// from `/proc/stat` while this process sleeps: 0 on an idle machine, the core
/// count on a saturated one. Time the hypervisor gave to other guests (steal)
/// counts as busy. Unlike the one-minute load average, it is not inflated by a
/// chapter that finished a second ago, which is what a fresh run of several
/// chapters would otherwise report as a busy machine. Linux only.
pub fn busy_cores(window: Duration) -> Option<f64> {
    #[cfg(target_os = "linux")]
    {
        let first = kernel_stats()?;
        std::thread::sleep(window);
        let second = kernel_stats()?;
        // The aggregate line covers every CPU the kernel has, which may be
        // more than this process may use, so scale by the kernel's own count.
        busy_between(
            cpu_times(&first.total)?,
            cpu_times(&second.total)?,
            second.cpu_time.len().max(1),
        )
    }
    #[cfg(not(target_os = "linux"))]
    {
        let _ = window;
        None
    }
}

/// `/proc/stat`, parsed.
#[cfg(target_os = "linux")]
fn kernel_stats() -> Option<procfs::KernelStats> {
    use procfs::CurrentSI;
    procfs::KernelStats::current().ok()
}

/// (all jiffies, idle jiffies) from the aggregate `cpu` line of `/proc/stat`.
/// Guest time is already inside user time, so only the first eight columns
/// are summed; idle counts idle and iowait. `None` on kernels without
/// iowait.
#[cfg(target_os = "linux")]
fn cpu_times(t: &procfs::CpuTime) -> Option<(u64, u64)> {
    let iowait = t.iowait?;
    let rest = [t.irq, t.softirq, t.steal].into_iter().flatten();
    let all = t.user + t.nice + t.system + t.idle + iowait + rest.sum::<u64>();
    Some((all, t.idle + iowait))
}

#[cfg(target_os = "linux")]
fn busy_between(before: (u64, u64), after: (u64, u64), cores: usize) -> Option<f64> {
    let total = after.0.checked_sub(before.0)?;
    let idle = after.1.checked_sub(before.1)?;
    if total == 0 {
        return None;
    }
    let busy = total.saturating_sub(idle) as f64 / total as f64;
    Some(busy * cores as f64)
}

/// The aggregate CPU counters of `/proc/stat`, in jiffies: everything, and
/// the time the hypervisor ran something else while a vCPU wanted to run
/// (steal). Linux only; `None` elsewhere.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CpuCounters {
    pub total: u64,
    pub steal: u64,
}

impl CpuCounters {
    pub fn read() -> Option<CpuCounters> {
        #[cfg(target_os = "linux")]
        return CpuCounters::of(&kernel_stats()?.total);
        #[cfg(not(target_os = "linux"))]
        None
    }

    /// The first eight columns of the aggregate `cpu` line (user, nice,
    /// system, idle, iowait, irq, softirq, steal) and the last of them;
    /// `None` on kernels before 2.6.11, which have no steal column.
    #[cfg(target_os = "linux")]
    fn of(t: &procfs::CpuTime) -> Option<CpuCounters> {
        let (iowait, irq, softirq, steal) = (t.iowait?, t.irq?, t.softirq?, t.steal?);
        Some(CpuCounters {
            total: t.user + t.nice + t.system + t.idle + iowait + irq + softirq + steal,
            steal,
        })
    }

    /// The share of all CPU time from `self` to `later` that was stolen: 0
    /// on bare metal, and on a virtual machine the part of the run during
    /// which the host kept a vCPU of this guest off its core. `None` when no
    /// time passed or the counters went backwards.
    pub fn steal_share_until(&self, later: &CpuCounters) -> Option<f64> {
        self.steal_share_over(later, 1)
    }

    /// `steal_share_until`, but only over at least `min_jiffies` of CPU
    /// time. The counters tick in jiffies (10 ms on most kernels), so over a
    /// short window one tick more or less of steal is a large share of it.
    pub fn steal_share_over(&self, later: &CpuCounters, min_jiffies: u64) -> Option<f64> {
        let total = later.total.checked_sub(self.total)?;
        let steal = later.steal.checked_sub(self.steal)?;
        (total >= min_jiffies.max(1)).then(|| steal as f64 / total as f64)
    }

    /// The least share of the time from `self` to `later` that was surely
    /// stolen. Each reading rounds the kernel's nanoseconds down to a whole
    /// jiffy, so the difference of two can count one tick more than
    /// happened; this does not count it. Same `None`s as `steal_share_over`.
    pub fn steal_share_at_least(&self, later: &CpuCounters, min_jiffies: u64) -> Option<f64> {
        let share = self.steal_share_over(later, min_jiffies)?;
        let total = (later.total - self.total) as f64;
        Some((share - 1.0 / total).max(0.0))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `/proc/stat` with these cpu lines, parsed as the kernel's would be.
    #[cfg(target_os = "linux")]
    fn stat(cpu_lines: &str) -> Option<procfs::KernelStats> {
        use procfs::FromBufReadSI;
        let text = format!("{cpu_lines}intr 1 2 3\nctxt 1\nbtime 1\nprocesses 1\n");
        let info = procfs::ExplicitSystemInfo {
            boot_time_secs: 1,
            ticks_per_second: 100,
            page_size: 4096,
            is_little_endian: cfg!(target_endian = "little"),
        };
        procfs::KernelStats::from_buf_read(text.as_bytes(), &info).ok()
    }

    #[cfg(target_os = "linux")]
    fn counters(cpu_lines: &str) -> Option<CpuCounters> {
        CpuCounters::of(&stat(cpu_lines)?.total)
    }

    #[test]
    #[cfg(target_os = "linux")]
    fn steal_is_the_eighth_column_over_all_time() {
        let a = counters("cpu  100 0 50 800 50 0 0 0 0 0\ncpu0 1 0 0 0 0 0 0 0\n").unwrap();
        let b = counters("cpu  200 0 100 830 70 0 0 100 40 0\n").unwrap();
        assert_eq!(
            a,
            CpuCounters {
                total: 1000,
                steal: 0
            }
        );
        assert_eq!(
            b,
            CpuCounters {
                total: 1300,
                steal: 100
            }
        );
        // 300 jiffies passed, 100 of them stolen.
        let share = a.steal_share_until(&b).unwrap();
        assert!((share - 1.0 / 3.0).abs() < 1e-12, "{share}");
        // Too short a window to say: one tick would be a third of it.
        assert_eq!(a.steal_share_over(&b, 301), None);
        assert!(a.steal_share_over(&b, 300).is_some());
        // At least 99 of those 300 were surely stolen; one tick may be rounding.
        let least = a.steal_share_at_least(&b, 300).unwrap();
        assert!((least - 99.0 / 300.0).abs() < 1e-12, "{least}");
        assert_eq!(a.steal_share_at_least(&b, 301), None);
        let one_tick = CpuCounters {
            total: 1020,
            steal: 1,
        };
        assert_eq!(a.steal_share_at_least(&one_tick, 20), Some(0.0));
        // No time passed, counters went backwards, no steal column at all.
        assert_eq!(a.steal_share_until(&a), None);
        assert_eq!(a.steal_share_over(&a, 0), None);
        assert_eq!(b.steal_share_until(&a), None);
        assert_eq!(counters("cpu  1 2 3 4 5 6 7\n"), None);
        assert_eq!(counters(""), None);
    }

    #[test]
    #[cfg(target_os = "linux")]
    fn busy_cores_come_from_the_cpu_line() {
        let a = stat("cpu  100 0 50 800 50 0 0 0 0 0\ncpu0 50 0 25 400 25 0 0 0 0 0\n").unwrap();
        // 200 more jiffies, 50 of them idle or iowait: 75 % busy.
        let b =
            stat("cpu  200 0 100 830 70 0 0 0 40 0\ncpu0 100 0 50 415 35 0 0 0 20 0\n").unwrap();
        let (ta, ia) = cpu_times(&a.total).unwrap();
        let (tb, ib) = cpu_times(&b.total).unwrap();
        assert_eq!((ta, ia), (1000, 850));
        assert_eq!((tb, ib), (1200, 900));
        assert_eq!(b.cpu_time.len(), 1);
        let three = "cpu  1 1 1 1\ncpu0 1 1 1 1\ncpu1 1 1 1 1\ncpu12 1 1 1 1\n";
        assert_eq!(stat(three).unwrap().cpu_time.len(), 3);
        assert_eq!(busy_between((ta, ia), (tb, ib), 2), Some(1.5));
        // An idle interval and a clock that did not move.
        assert_eq!(busy_between((ta, ia), (ta + 100, ia + 100), 4), Some(0.0));
        assert_eq!(busy_between((ta, ia), (ta, ia), 2), None);
        // Counters that went backwards, a file without a cpu line, a column
        // that is not a number, a kernel without iowait.
        assert_eq!(busy_between((tb, ib), (ta, ia), 2), None);
        assert!(stat("").is_none());
        assert!(stat("cpu  1 2 x 4 5\n").is_none());
        assert_eq!(cpu_times(&stat("cpu  1 2 3 4\n").unwrap().total), None);
    }

    #[test]
    fn the_running_kernel_is_read_where_there_is_one() {
        // On Linux every reading works and agrees with the machine; off
        // Linux there is none.
        let linux = cfg!(target_os = "linux");
        assert_eq!(CpuCounters::read().is_some(), linux);
        assert_eq!(busy_cores(Duration::from_millis(50)).is_some(), linux);
        if linux {
            let busy = busy_cores(Duration::from_millis(50)).unwrap();
            assert!(busy.is_finite() && busy >= 0.0, "{busy}");
            assert!(memory_bytes().unwrap() > 1 << 20);
            assert!(load_average().is_some());
        }
    }

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
        let m = detect();
        assert!(!m.id.is_empty() && m.cores >= 1);
        assert_eq!(m.arch, std::env::consts::ARCH);
        // On Linux the kernel names its congestion control; what it says is
        // what the file records.
        if let Ok(cc) = fs::read_to_string("/proc/sys/net/ipv4/tcp_congestion_control") {
            assert_eq!(m.tcp_congestion_control.as_deref(), Some(cc.trim()));
        }
        // Where there is a sysfs, what returns memory to the host is recorded,
        // if only as "none found".
        assert_eq!(m.memory_return.is_some(), Path::new("/sys/kernel").is_dir());
    }

    #[test]
    fn memory_returned_to_the_host_is_read_from_sysfs() {
        let dir = tempfile::tempdir().unwrap();
        let sys = dir.path();
        assert_eq!(memory_return(&sys.join("absent")), None);
        fs::create_dir_all(sys.join("kernel")).unwrap();
        assert_eq!(memory_return(sys).as_deref(), Some("none found"));
        let put = |rel: &str, text: &str| {
            let p = sys.join(rel);
            fs::create_dir_all(p.parent().unwrap()).unwrap();
            fs::write(p, text).unwrap();
        };
        // A balloon without reporting (bit 5 clear) returns nothing by itself.
        put(
            "bus/virtio/drivers/virtio_balloon/virtio0/features",
            "0110000000\n",
        );
        put("kernel/mm/damon/admin/kdamonds/0/state", "off\n");
        put(
            "kernel/mm/damon/admin/kdamonds/0/contexts/0/schemes/0/action",
            "pageout\n",
        );
        assert_eq!(memory_return(sys).as_deref(), Some("none found"));
        put(
            "bus/virtio/drivers/virtio_balloon/virtio0/features",
            "0110010100\n",
        );
        put(
            "module/page_reporting/parameters/page_reporting_order",
            "9\n",
        );
        put("kernel/mm/damon/admin/kdamonds/0/state", "on\n");
        put(
            "kernel/mm/damon/admin/kdamonds/0/contexts/0/schemes/1/action",
            "pageout\n",
        );
        put("module/damon_reclaim/parameters/enabled", "Y\n");
        assert_eq!(
            memory_return(sys).as_deref(),
            Some(
                "free page reporting to the host, in blocks of 2.0 MiB or more; \
                 a DAMON scheme that does pageout; DAMON_RECLAIM"
            )
        );
    }

    #[test]
    fn the_congestion_control_is_optional_in_files() {
        let mut m = detect();
        m.tcp_congestion_control = None;
        let text = serde_json::to_string(&m).unwrap();
        assert!(!text.contains("tcp_congestion_control"), "{text}");
        let back: Machine = serde_json::from_str(&text).unwrap();
        assert_eq!(back, m);
        m.tcp_congestion_control = Some("cubic".into());
        let back: Machine = serde_json::from_str(&serde_json::to_string(&m).unwrap()).unwrap();
        assert_eq!(back.tcp_congestion_control.as_deref(), Some("cubic"));
        // So is what returns memory to the host.
        m.memory_return = None;
        let text = serde_json::to_string(&m).unwrap();
        assert!(!text.contains("memory_return"), "{text}");
        m.memory_return = Some("none found".into());
        let back: Machine = serde_json::from_str(&serde_json::to_string(&m).unwrap()).unwrap();
        assert_eq!(back.memory_return.as_deref(), Some("none found"));
    }
}
