//! What the chapter adds to the harness's parameters exhibit
//! (`harness_page::parameters`): its set-up per profile and per run. The
//! schedule of timings (rounds, FAN-4's extra rounds, sampling, points)
//! comes from the run's record.
use harness_core::Profile;
use harness_page::parameters::{Parameters, Setting};
use harness_page::{render::blocks::Cell, Run};

use mutex_swap::run::Data;
use mutex_swap::{params, HEAVY_WORK, LIGHT_WORK};

use super::MutexSwap;

impl Parameters for MutexSwap {
    const ABOUT: &'static str = "Every burst sends the same total of messages, split evenly \
                                 over the producers; the deciding points are FAN-4's.";

    fn per_profile(profile: Profile) -> Vec<Setting> {
        let p = params(profile);
        let list = |v: &[u64]| {
            v.iter()
                .map(|n| n.to_string())
                .collect::<Vec<_>>()
                .join(", ")
        };
        vec![
            Setting::new("Producers (throughput, lock hold)", list(&p.producers)),
            Setting::new("Producers (wait strategies)", list(&p.wait_producers)),
            Setting::new("Messages per burst", Cell::count(p.messages_per_burst)),
            Setting::new(
                "CPU profile per consumer",
                Cell::nanos(p.profile_for.as_nanos() as f64),
            ),
        ]
    }

    fn per_run(run: &Run<Data>) -> Vec<Setting> {
        let data = &run.data;
        let work = |rounds: u32| {
            data.work_cost(rounds)
                .map_or(Cell::from("not measured"), |w| {
                    Cell::nanos(w.ns_per_message())
                })
        };
        vec![
            Setting::new("Producer runtime", "multi-thread"),
            Setting::new("Worker threads", Cell::count(data.worker_threads)),
            Setting::new("Consumer", "current-thread runtime on its own OS thread"),
            Setting::new(
                "L1 line (kernel)",
                data.cache_line_bytes
                    .map_or(Cell::from("not reported"), Cell::bytes),
            ),
            Setting::new("Shard alignment", Cell::bytes(data.shard_align_bytes)),
            Setting::new("Consumer work per message (light)", work(LIGHT_WORK)),
            Setting::new("Consumer work per message (heavy)", work(HEAVY_WORK)),
        ]
    }
}
