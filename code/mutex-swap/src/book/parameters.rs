//! The parameters exhibit: what each profile measures, and the set-up each
//! machine's results were measured with.
use anyhow::Result;
use harness::{Block, Book, Cell, Profile, Table};

use super::Data;
use crate::run::plan;
use crate::{params, HEAVY_WORK, LIGHT_WORK};

pub fn render(book: &Book<Data>) -> Result<Vec<Block>> {
    Ok(vec![Block::Table(profiles()), Block::Table(machines(book))])
}

fn profiles() -> Table {
    let mut t = Table::new(
        "Experiment parameters per profile (smoke runs only in tests). Every burst sends the same \
         total of messages, split evenly over the producers.",
        &[
            "Profile",
            "Producers (throughput, lock hold)",
            "Producers (wait strategies)",
            "Messages per burst",
            "Rounds",
            "Rounds, FAN-4's points",
            "Criterion samples per round",
            "Warm-up",
            "Measurement",
            "Points",
            "CPU profile per consumer",
        ],
    )
    .left(&[1, 2])
    .settings();
    for profile in Profile::ALL {
        let p = params(profile);
        let list = |v: &[u64]| {
            v.iter()
                .map(|n| n.to_string())
                .collect::<Vec<_>>()
                .join(", ")
        };
        t.push(vec![
            Cell::from(profile.to_string()),
            list(&p.producers).into(),
            list(&p.wait_producers).into(),
            Cell::count(p.messages_per_burst),
            Cell::count(p.repeats as u64),
            Cell::count(p.decisive_repeats.max(p.repeats) as u64),
            Cell::count(p.sampling.samples as u64),
            Cell::nanos(p.sampling.warm_up.as_nanos() as f64),
            Cell::nanos(p.sampling.measurement.as_nanos() as f64),
            Cell::count(plan(profile).len() as u64),
            Cell::nanos(p.profile_for.as_nanos() as f64),
        ]);
    }
    t
}

fn machines(book: &Book<Data>) -> Table {
    let mut t = Table::new(
        "The runtime set-up each machine's results were measured with, as detected by the run.",
        &[
            "Machine",
            "Profile",
            "Producer runtime",
            "Worker threads",
            "Consumer",
            "L1 line (kernel)",
            "Shard alignment",
            "Consumer work per message (light)",
            "Consumer work per message (heavy)",
            "Rounds pooled per point",
            "Rounds, FAN-4's points",
        ],
    )
    .left(&[1, 2, 4])
    .settings();
    for run in &book.runs {
        let data = &run.data;
        let work = |rounds: u32| {
            data.work_cost(rounds)
                .map_or(Cell::from("not measured"), |w| {
                    Cell::nanos(w.ns_per_message())
                })
        };
        t.push(vec![
            Cell::from(run.machine()),
            run.provenance.profile.to_string().into(),
            "multi-thread".into(),
            Cell::count(data.worker_threads),
            "current-thread runtime on its own OS thread".into(),
            data.cache_line_bytes
                .map_or(Cell::from("not reported"), Cell::bytes),
            Cell::bytes(data.shard_align_bytes),
            work(LIGHT_WORK),
            work(HEAVY_WORK),
            Cell::count(data.repeats as u64),
            Cell::count(data.decisive_repeats as u64),
        ]);
    }
    t
}
