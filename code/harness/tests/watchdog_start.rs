//! The watchdog times steps, not the harness's own start-up: a run samples
//! the machine's load for a second before its first step, and a one-second
//! `--timeout` once stopped a healthy run there, naming "start-up".
//! (A file of its own: a watchdog that fires ends the whole test process.)
use std::time::Duration;

use harness_measure::Progress;

#[test]
fn time_before_the_first_phase_is_not_watched() {
    let progress = Progress::hidden("fan-in").with_watchdog(Duration::from_millis(300));
    // Three limits' worth of unwatched start-up; a watchdog that counted it
    // would end this process with exit code 124 and fail the test.
    std::thread::sleep(Duration::from_millis(900));
    progress.phase("start-up");
    std::thread::sleep(Duration::from_millis(100));
    progress.step("the first step");
    std::thread::sleep(Duration::from_millis(100));
    progress.finish();
}
