//! The machine a run happened on, as its provenance records it, and the
//! compiler that built the book's binaries. Detecting them is measuring's
//! (`harness-measure`'s `machine::detect`).
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
    /// The kernel's TCP congestion control (`bbr`, `cubic`): how loopback
    /// segments coalesce depends on it, and fan-in's socket rows with them.
    /// `None` off Linux.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tcp_congestion_control: Option<String>,
    /// How the kernel hands memory the guest is not using back to its host
    /// (`memory_return`): a first touch of such memory costs more than a
    /// touch of memory the guest kept, so runs after an idle spell can copy
    /// more slowly. `None` off Linux.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub memory_return: Option<String>,
}

/// The compiler that built this binary (`rustc -V`, recorded by the build
/// script): part of every results file's provenance and of the fingerprint.
pub fn rustc_version() -> &'static str {
    env!("HARNESS_RUSTC_VERSION")
}
