//! The chapter's binary: its experiment (the library's `run::AllocProbe`)
//! and its page (`page::AllocProbe`, only here) composed into the command
//! line every chapter shares.
use std::process::ExitCode;

mod page;

// dhat counts every allocation made through it; with no profiler running
// it only forwards to the system allocator (see `probe::Alloc`).
#[global_allocator]
static ALLOC: alloc_probe::probe::Alloc = alloc_probe::probe::Alloc;

fn main() -> ExitCode {
    harness::chapter_main::<alloc_probe::run::AllocProbe, page::AllocProbe>()
}
