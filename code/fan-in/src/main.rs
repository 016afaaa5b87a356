fn main() -> std::process::ExitCode {
    harness::chapter_main::<fan_in::book::FanIn>()
}
