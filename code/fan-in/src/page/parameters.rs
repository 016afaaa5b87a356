//! What the chapter adds to the harness's parameters exhibit
//! (`harness_page::parameters`): its set-up per profile and per run. The
//! schedule of timings (passes, the short passes of the points FAN-1 and
//! FAN-2 rest on, rigs, sampling, every point) comes from the run's record.
use harness_core::Profile;
use harness_page::parameters::{Parameters, Setting};
use harness_page::{render::blocks::Cell, Run};

use fan_in::plan::{plan, HEAVY_FROM};
use fan_in::run::FanInData;

use super::shared::PUBLISHED_PER_WORKER;
use super::FanIn;

/// "1, 8, 64": a list of worker counts.
fn list(ws: &[usize]) -> String {
    ws.iter()
        .map(|w| w.to_string())
        .collect::<Vec<_>>()
        .join(", ")
}

impl Parameters for FanIn {
    const ABOUT: &'static str = "Every point is one design at one worker count into one sink, \
                                 each burst validated; the deciding points are the ones \
                                 FAN-1 and FAN-2 rest on (std swap and mpsc unbounded over \
                                 TCP below the heavy counts), and the second rig of each pass \
                                 is the free-placement control.";

    fn per_profile(profile: Profile) -> Vec<Setting> {
        let plan = plan(profile);
        let method = fan_in::method::plan(profile);
        vec![
            Setting::new("Worker counts", list(&plan.workers)),
            Setting::new(
                "Heavy points (first and last pass only)",
                format!(
                    "mpsc unbounded and bounded from {HEAVY_FROM} workers: {} samples, {} ms \
                     warm-up, {} ms measuring",
                    plan.heavy.samples,
                    plan.heavy.warm_up.as_millis(),
                    plan.heavy.measurement.as_millis()
                ),
            ),
            Setting::new(
                "Worker counts of the flume and async-channel inboxes",
                list(&plan.crate_workers),
            ),
            Setting::new(
                "Worker counts also measured into the in-memory sink",
                list(&plan.memory_workers),
            ),
            Setting::new(
                "Free-placement control (TCP; floor, std swap, mpsc unbounded)",
                format!("{} workers", list(&plan.free_workers)),
            ),
            Setting::new(
                "Ladder and variations",
                format!(
                    "{} workers, one pass of {} samples, {} ms measuring per point",
                    list(&method.workers),
                    method.sampling.samples,
                    method.sampling.measurement.as_millis()
                ),
            ),
            Setting::new(
                "Locks counted per setting",
                format!(
                    "{} bursts of {} workers",
                    method.counted_bursts, method.counted_workers
                ),
            ),
        ]
    }

    fn per_run(run: &Run<FanInData>) -> Vec<Setting> {
        let d = &run.data;
        vec![
            Setting::new("Runtime", d.runtime()),
            Setting::new(
                "Messages per worker (one byte each)",
                Cell::count(d.per_worker as u64),
            ),
            Setting::new(
                "Bounded inbox capacity (design 2)",
                Cell::count(d.bounded_capacity as u64),
            ),
            Setting::new(
                "recv_many limit per call (design 3)",
                Cell::count(d.recv_many_limit as u64),
            ),
            Setting::new(
                "Chunk a worker batches before sending (design 6)",
                Cell::bytes(d.chunk_bytes as u64),
            ),
            Setting::new(
                "Bytes design 6 gathers before a write while producers still add",
                Cell::bytes(d.write_bytes as u64),
            ),
            Setting::new("Thread placement", d.placement.describe()),
            Setting::new(
                "Worker counts of the ladder and the variations",
                list(&d.method.workers),
            ),
            Setting::new(
                "Messages per worker in the published bench",
                Cell::count(PUBLISHED_PER_WORKER as u64),
            ),
        ]
    }
}
