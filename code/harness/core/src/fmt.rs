//! Number formatting shared by every chapter, so pages read alike.

/// `1234567` -> `1,234,567`.
pub fn thousands(n: u64) -> String {
    let s = n.to_string();
    let mut out = String::with_capacity(s.len() + s.len() / 3);
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// Exact bytes with separators: `33,312 B`.
pub fn bytes(n: u64) -> String {
    format!("{} B", thousands(n))
}

/// Bytes in binary units for large totals: `12.8 MiB`.
pub fn bytes_h(n: f64) -> String {
    match binary(n) {
        (v, "B") => format!("{} B", v.round() as i64),
        (v, unit) => format!("{v:.1} {unit}"),
    }
}

/// `n` bytes as a value in the largest binary unit it reaches.
fn binary(n: f64) -> (f64, &'static str) {
    const UNITS: [&str; 4] = ["B", "KiB", "MiB", "GiB"];
    let mut v = n;
    let mut unit = 0;
    while v.abs() >= 1024.0 && unit + 1 < UNITS.len() {
        v /= 1024.0;
        unit += 1;
    }
    (v, UNITS[unit])
}

/// A size in the binary unit that reads best, whole units without
/// decimals: `8 B`, `1 KiB`, `32 KiB`, `81.5 MiB`.
pub fn size(n: f64) -> String {
    match binary(n) {
        (v, unit) if v.fract() == 0.0 => format!("{v:.0} {unit}"),
        (v, unit) => format!("{v:.1} {unit}"),
    }
}

/// A duration given in nanoseconds, in the unit that reads best: `812 ns`, `3.41 µs`, `12.0 ms`.
pub fn nanos(ns: f64) -> String {
    let (v, unit) = if ns.abs() < 1e3 {
        (ns, "ns")
    } else if ns.abs() < 1e6 {
        (ns / 1e3, "µs")
    } else if ns.abs() < 1e9 {
        (ns / 1e6, "ms")
    } else {
        (ns / 1e9, "s")
    };
    format!("{} {unit}", sig3(v))
}

/// Three significant figures without scientific notation.
pub fn sig3(v: f64) -> String {
    let a = v.abs();
    if a >= 100.0 {
        format!("{v:.0}")
    } else if a >= 10.0 {
        format!("{v:.1}")
    } else {
        format!("{v:.2}")
    }
}

/// `2.31×`.
pub fn ratio(r: f64) -> String {
    format!("{}×", sig3(r))
}

/// `+12.5 %` / `-3.0 %`.
pub fn percent_delta(fraction: f64) -> String {
    format!("{:+.1} %", fraction * 100.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_read_as_intended() {
        assert_eq!(thousands(1_050_112), "1,050,112");
        assert_eq!(thousands(800), "800");
        assert_eq!(bytes(33_312), "33,312 B");
        assert_eq!(bytes_h(13_120_000.0), "12.5 MiB");
        assert_eq!(nanos(812.0), "812 ns");
        assert_eq!(nanos(3_410.0), "3.41 µs");
        assert_eq!(nanos(12_000_000.0), "12.0 ms");
        assert_eq!(ratio(2.3149), "2.31×");
        assert_eq!(percent_delta(-0.03), "-3.0 %");
    }
}
