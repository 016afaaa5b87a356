fn main() -> std::process::ExitCode {
    harness::chapter_main::<mutex_swap::run::MutexSwap, mutex_swap::run::MutexSwap>()
}
