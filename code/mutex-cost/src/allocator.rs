//! The allocator under the rounds: a method choice that moves the published
//! ratio, because a `join_all` round allocates every future it joins (a
//! tokio Mutex round's futures are about four times the size of a std Mutex
//! round's). Each setting runs in a process of its own (see `probe`): glibc
//! as it comes, glibc told to keep freed memory, and mimalloc.
use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicU8, Ordering};

use serde::{Deserialize, Serialize};

/// Names the allocator of a process that `Chosen` serves; read once, at the
/// process's first allocation.
const ALLOCATOR_ENV_C: &std::ffi::CStr = c"MUTEX_COST_ALLOCATOR";
pub const ALLOCATOR_ENV: &str = match ALLOCATOR_ENV_C.to_str() {
    Ok(name) => name,
    Err(_) => panic!("the variable's name is ASCII"),
};

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Allocator {
    /// The platform's malloc with its defaults (glibc on Linux): freed memory
    /// at the top of the heap, and large blocks, go back to the OS.
    System,
    /// The same malloc told to keep what it frees (glibc's trim and mmap
    /// thresholds raised), so a round reuses the pages of the last one.
    SystemKept,
    Mimalloc,
}

impl Allocator {
    pub const ALL: [Allocator; 3] = [
        Allocator::System,
        Allocator::SystemKept,
        Allocator::Mimalloc,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Allocator::System => "system",
            Allocator::SystemKept => "system_kept",
            Allocator::Mimalloc => "mimalloc",
        }
    }

    pub fn label(self) -> &'static str {
        match self {
            Allocator::System => "system malloc, defaults",
            Allocator::SystemKept => "system malloc, freed memory kept",
            Allocator::Mimalloc => "mimalloc",
        }
    }

    /// Whether this platform can give the setting (keeping freed memory is
    /// a glibc knob).
    pub fn available(self) -> bool {
        self != Allocator::SystemKept || cfg!(all(target_os = "linux", target_env = "gnu"))
    }

    /// Called first thing in a process that measures under this setting.
    pub fn prepare(self) -> anyhow::Result<()> {
        anyhow::ensure!(
            mimalloc_serves() == (self == Allocator::Mimalloc),
            "the process should measure under {} but {ALLOCATOR_ENV} chose otherwise at start-up",
            self.label()
        );
        match self {
            Allocator::SystemKept => keep_freed_memory(),
            Allocator::System | Allocator::Mimalloc => Ok(()),
        }
    }
}

#[cfg(all(target_os = "linux", target_env = "gnu"))]
fn keep_freed_memory() -> anyhow::Result<()> {
    // glibc's largest mmap threshold on 64-bit is 32 MiB: every block of a
    // round, the Vec of 100,000 futures included, then comes from the heap.
    const MMAP_THRESHOLD: libc::c_int = 32 << 20;
    const TRIM_THRESHOLD: libc::c_int = 1 << 30;
    // Safety: mallopt only changes malloc's parameters; it is called before
    // the process starts any thread of its own.
    let ok = unsafe {
        libc::mallopt(libc::M_MMAP_THRESHOLD, MMAP_THRESHOLD) == 1
            && libc::mallopt(libc::M_TRIM_THRESHOLD, TRIM_THRESHOLD) == 1
    };
    anyhow::ensure!(ok, "glibc refused the trim or mmap threshold");
    Ok(())
}

#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
fn keep_freed_memory() -> anyhow::Result<()> {
    anyhow::bail!("keeping freed memory is a glibc setting; this platform has no glibc")
}

const UNDECIDED: u8 = 0;
const SYSTEM: u8 = 1;
const MIMALLOC: u8 = 2;
static SERVING: AtomicU8 = AtomicU8::new(UNDECIDED);

fn decide() -> u8 {
    match SERVING.load(Ordering::Relaxed) {
        UNDECIDED => {
            // getenv does not allocate, so it is safe inside the allocator.
            // Safety: a NUL-terminated name; the pointer is only compared.
            let set = unsafe { libc::getenv(ALLOCATOR_ENV_C.as_ptr()) };
            let is_mimalloc = !set.is_null()
                // Safety: getenv returned a NUL-terminated string.
                && unsafe { std::ffi::CStr::from_ptr(set) }.to_bytes() == b"mimalloc";
            let choice = if is_mimalloc { MIMALLOC } else { SYSTEM };
            // Every thread that races here computes the same answer.
            SERVING.store(choice, Ordering::Relaxed);
            choice
        }
        chosen => chosen,
    }
}

/// Whether this process's allocations go to mimalloc.
pub fn mimalloc_serves() -> bool {
    decide() == MIMALLOC
}

// ANCHOR: chosen
/// The chapter binary's global allocator: the system's, or mimalloc when the
/// process was started with `MUTEX_COST_ALLOCATOR=mimalloc`. The choice is
/// made at the first allocation and never changes, so every block is freed
/// by the allocator that made it; the cost is one predictable branch.
pub struct Chosen;

// Safety: every call goes to one allocator for the life of the process, and
// both uphold GlobalAlloc's contract.
unsafe impl GlobalAlloc for Chosen {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        if decide() == MIMALLOC {
            mimalloc::MiMalloc.alloc(layout)
        } else {
            System.alloc(layout)
        }
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        if decide() == MIMALLOC {
            mimalloc::MiMalloc.alloc_zeroed(layout)
        } else {
            System.alloc_zeroed(layout)
        }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        if decide() == MIMALLOC {
            mimalloc::MiMalloc.dealloc(ptr, layout)
        } else {
            System.dealloc(ptr, layout)
        }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        if decide() == MIMALLOC {
            mimalloc::MiMalloc.realloc(ptr, layout, new_size)
        } else {
            System.realloc(ptr, layout, new_size)
        }
    }
}
// ANCHOR_END: chosen
