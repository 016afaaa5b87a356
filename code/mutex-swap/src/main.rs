//! The chapter's binary: its experiment (the library's `run::MutexSwap`)
//! and its page (`page::MutexSwap`, only here) composed into the command
//! line every chapter shares (`measure`, `judge`, `render`, ...).
use std::process::ExitCode;

mod page;

fn main() -> ExitCode {
    harness::chapter_main::<mutex_swap::run::MutexSwap, page::MutexSwap>()
}
