use std::process::ExitCode;

use alloc_probe::book::AllocProbe;

// dhat counts every allocation made through it; with no profiler running
// it only forwards to the system allocator.
#[global_allocator]
static ALLOC: dhat::Alloc = dhat::Alloc;

fn main() -> ExitCode {
    harness::chapter_main::<AllocProbe>()
}
