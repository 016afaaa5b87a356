use std::process::ExitCode;

use chapter_template::run::Template;

fn main() -> ExitCode {
    harness::chapter_main::<Template, Template>()
}
