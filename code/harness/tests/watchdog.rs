//! The step watchdog must not touch the heap while it watches: the
//! alloc-probe chapter counts every live byte, and a watchdog that copied
//! the step's name on each tick once added 25 bytes to one of its counts.
use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use harness_measure::Progress;

struct Counting;

static ALLOCATIONS: AtomicU64 = AtomicU64::new(0);

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        unsafe { System.alloc(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

#[test]
fn a_watching_watchdog_allocates_nothing() {
    let progress = Progress::hidden("alloc-probe").with_watchdog(Duration::from_secs(600));
    progress.step("a step with a name long enough to need the heap");
    // Let the watchdog start and tick once before counting.
    std::thread::sleep(Duration::from_millis(250));
    let before = ALLOCATIONS.load(Ordering::Relaxed);
    // Five ticks of the watchdog; this thread only sleeps.
    std::thread::sleep(Duration::from_millis(550));
    let during = ALLOCATIONS.load(Ordering::Relaxed) - before;
    assert_eq!(
        during, 0,
        "the watchdog allocated {during} times in five ticks"
    );
    progress.finish();
}
