//! What several exhibits share: the set-up every results caption states,
//! how the page names a work level, and throughput from a burst's time.
use harness_page::Run;

use mutex_swap::run::Data;
use mutex_swap::HEAVY_WORK;

/// "light" or "heavy": how the page names a work level.
pub fn work_kind(work_rounds: u32) -> &'static str {
    if work_rounds == HEAVY_WORK {
        "heavy"
    } else {
        "light"
    }
}

/// The set-up every results caption states.
pub fn runtime_note(run: &Run<Data>) -> String {
    format!(
        "producers: tokio multi-thread runtime, {} worker threads; consumer: current-thread \
         runtime on its own OS thread; {} messages per burst; machine {}",
        run.data.worker_threads,
        harness_core::fmt::thousands(run.data.messages_per_burst),
        run.machine()
    )
}

/// Messages per second, from the time of one burst.
pub fn rate(messages: u64, ns: f64) -> f64 {
    messages as f64 / (ns * 1e-9)
}

/// Millions of messages per second, as the tables give throughput.
pub fn million_per_s(messages: u64, ns: f64) -> f64 {
    rate(messages, ns) / 1e6
}
