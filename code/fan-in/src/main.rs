fn main() -> std::process::ExitCode {
    harness::chapter_main::<fan_in::run::FanIn, fan_in::run::FanIn>()
}
