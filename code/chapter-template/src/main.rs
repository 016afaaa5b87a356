//! The chapter's binary: its experiment (the library's `run::Template`) and
//! its page (`page::Template`, only here) composed into the command line
//! every chapter shares (`measure`, `judge`, `render`, ...).
use std::process::ExitCode;

mod page;

fn main() -> ExitCode {
    harness::chapter_main::<chapter_template::run::Template, page::Template>()
}
