//! The machine's largest CPU cache, so the page can say which bursts fit in
//! it rather than assume a size. Read from Linux's sysfs; `None` elsewhere.
use std::path::Path;

/// The size in bytes of the highest-level cache CPU 0 reports.
pub fn last_level_bytes() -> Option<u64> {
    largest(Path::new("/sys/devices/system/cpu/cpu0/cache"))
}

fn largest(dir: &Path) -> Option<u64> {
    let mut best: Option<(u32, u64)> = None;
    for entry in std::fs::read_dir(dir).ok()?.flatten() {
        let read = |name: &str| std::fs::read_to_string(entry.path().join(name)).ok();
        let (Some(level), Some(size)) = (read("level"), read("size")) else {
            continue;
        };
        let (Ok(level), Some(bytes)) = (level.trim().parse::<u32>(), parse_size(size.trim()))
        else {
            continue;
        };
        if best.is_none_or(|(l, _)| level > l) {
            best = Some((level, bytes));
        }
    }
    best.map(|(_, bytes)| bytes)
}

/// sysfs writes sizes as `32768K`, `2048K`, `64M` or plain bytes.
fn parse_size(s: &str) -> Option<u64> {
    let (digits, unit) = match s.char_indices().find(|(_, c)| !c.is_ascii_digit()) {
        Some((at, _)) => s.split_at(at),
        None => (s, ""),
    };
    let n: u64 = digits.parse().ok()?;
    let scale = match unit {
        "" => 1,
        "K" => 1 << 10,
        "M" => 1 << 20,
        "G" => 1 << 30,
        _ => return None,
    };
    n.checked_mul(scale).filter(|&b| b > 0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_are_read_in_sysfs_units_and_the_highest_level_wins() {
        assert_eq!(parse_size("32768K"), Some(32 << 20));
        assert_eq!(parse_size("64M"), Some(64 << 20));
        assert_eq!(parse_size("512"), Some(512));
        assert_eq!(parse_size("12X"), None);
        assert_eq!(parse_size("0K"), None);
        let dir = tempfile::tempdir().unwrap();
        for (i, (level, size)) in [("1", "48K"), ("3", "32768K"), ("2", "2048K")]
            .iter()
            .enumerate()
        {
            let d = dir.path().join(format!("index{i}"));
            std::fs::create_dir(&d).unwrap();
            std::fs::write(d.join("level"), level).unwrap();
            std::fs::write(d.join("size"), size).unwrap();
        }
        assert_eq!(largest(dir.path()), Some(32 << 20));
        assert_eq!(largest(&dir.path().join("missing")), None);
    }
}
