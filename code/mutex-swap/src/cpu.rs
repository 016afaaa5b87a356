//! The calling thread's CPU time.
//!
//! `clock_gettime(CLOCK_THREAD_CPUTIME_ID)` rather than
//! `getrusage(RUSAGE_THREAD)`: both read the scheduler's accounting of this
//! thread alone, but getrusage reports it in whole microseconds, while the
//! clock keeps the scheduler's nanoseconds, and RUSAGE_THREAD is Linux-only.

/// Nanoseconds of CPU time this thread has used since it started.
pub fn thread_cpu_ns() -> u64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // Safety: `ts` is a valid, writable timespec for the call's duration.
    let rc = unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    assert_eq!(rc, 0, "CLOCK_THREAD_CPUTIME_ID is not available");
    ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64
}

/// The coherency line size the kernel reports for the first CPU's L1 data
/// cache, if it reports one (Linux sysfs).
pub fn cache_line_bytes() -> Option<u64> {
    std::fs::read_to_string("/sys/devices/system/cpu/cpu0/cache/index0/coherency_line_size")
        .ok()?
        .trim()
        .parse()
        .ok()
}
