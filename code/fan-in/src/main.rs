//! The chapter's binary: its experiment (the library's `run::FanIn`) and its
//! page (`page::FanIn`, only here) composed into the command line every
//! chapter shares (`measure`, `judge`, `render`, ...).
use std::process::ExitCode;

mod page;

fn main() -> ExitCode {
    harness::chapter_main::<fan_in::run::FanIn, page::FanIn>()
}
