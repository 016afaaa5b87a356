use std::process::ExitCode;

use alloc_probe::run::AllocProbe;

// dhat counts every allocation made through it; with no profiler running
// it only forwards to the system allocator (see `probe::Alloc`).
#[global_allocator]
static ALLOC: alloc_probe::probe::Alloc = alloc_probe::probe::Alloc;

fn main() -> ExitCode {
    harness::chapter_main::<AllocProbe, AllocProbe>()
}
