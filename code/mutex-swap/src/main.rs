fn main() -> std::process::ExitCode {
    harness::chapter_main::<mutex_swap::run::MutexSwap>()
}
