//! What the results know about releases of the measured crates: the names
//! and versions a results file may record, and the gaps a chapter declares
//! at older releases.

/// Something a chapter measures only from one release of a crate on, and
/// what a run at an older release shows instead.
#[derive(Clone, Copy, Debug)]
pub struct ReleaseGap {
    pub krate: &'static str,
    /// The first release that has what is needed (`1.47.0`).
    pub since: &'static str,
    /// What an older release lacks, and what stands in its place: the end
    /// of a sentence that starts "at tokio 1.36.0, ".
    pub lacks: &'static str,
}

/// A crate's name as the registry allows it: ASCII letters, digits, `-`, `_`.
pub fn is_crate_name(s: &str) -> bool {
    !s.is_empty()
        && s.len() <= 64
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
}

/// A full version (`1.37.0`, `0.1.0-pre8`): three numbers, then an
/// optional pre-release or build tag of letters, digits, `.`, `-`, `+`.
pub fn is_version(s: &str) -> bool {
    let core = s.split(['-', '+']).next().unwrap_or("");
    let parts: Vec<&str> = core.split('.').collect();
    s.len() <= 64
        && parts.len() == 3
        && parts
            .iter()
            .all(|p| !p.is_empty() && p.chars().all(|c| c.is_ascii_digit()))
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || ".-+".contains(c))
}
