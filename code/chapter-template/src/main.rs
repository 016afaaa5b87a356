use std::process::ExitCode;

use chapter_template::book::Template;

fn main() -> ExitCode {
    harness::chapter_main::<Template>()
}
