//! The chapter's binary: its experiment (the library's `run::MutexCost`)
//! and its page (`page::MutexCost`, only here) composed into the command
//! line every chapter shares (`measure`, `judge`, `render`, ...).
use std::process::ExitCode;

mod page;

// The allocator is chosen per process (see `allocator`): the system's,
// unless a sample process of the sensitivity grid was started for mimalloc.
#[global_allocator]
static ALLOCATOR: mutex_cost::allocator::Chosen = mutex_cost::allocator::Chosen;

fn main() -> ExitCode {
    // A sample of the sensitivity grid runs in a process of its own.
    if let Some(request) = std::env::var_os(mutex_cost::probe::REQUEST_ENV) {
        return mutex_cost::probe::serve(&request);
    }
    harness::chapter_main::<mutex_cost::run::MutexCost, page::MutexCost>()
}
