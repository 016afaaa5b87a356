//! The published round measured along the method choices that move its
//! ratio: allocator × driver × lock. Every sample is a fresh process of the
//! chapter binary (`probe`), and the samples take turns through the whole
//! grid, so each row's repeats come from different stretches of the run.
use anyhow::{ensure, Result};
use harness_measure::timing::Timing;
use serde::{Deserialize, Serialize};

use crate::allocator::Allocator;
use crate::drivers::{Driver, Lock, RoundCost};
use crate::experiments::RuntimeUsed;
use crate::probe::{in_fresh_process, Request};

/// One driver on one runtime, and the locks measured under it.
#[derive(Clone, Debug)]
pub struct Setting {
    pub driver: Driver,
    pub runtime: RuntimeUsed,
    pub locks: Vec<Lock>,
}

/// The grid of one profile.
#[derive(Clone, Debug)]
pub struct Grid {
    pub allocators: Vec<Allocator>,
    pub settings: Vec<Setting>,
    pub futures: usize,
    /// Fresh processes per cell: the repeats of its timing.
    pub processes: usize,
    /// Rounds each process runs before the timed ones (the first is kept
    /// apart as the cold round).
    pub warm_up_rounds: usize,
    pub rounds: usize,
}

impl Grid {
    /// The published driver (criterion's `to_async` on a runtime with a worker
    /// per core) carries every lock; the other drivers compare std and tokio.
    pub fn settings(cores: usize) -> Vec<Setting> {
        let both = vec![Lock::Std, Lock::Tokio];
        let all_cores = RuntimeUsed::multi_thread(cores);
        vec![
            Setting {
                driver: Driver::LoopedInBlockOn,
                runtime: all_cores.clone(),
                locks: Lock::ALL.to_vec(),
            },
            Setting {
                driver: Driver::BlockOnPerRound,
                runtime: all_cores.clone(),
                locks: both.clone(),
            },
            Setting {
                driver: Driver::SpawnedTask,
                runtime: all_cores,
                locks: both.clone(),
            },
            Setting {
                driver: Driver::SpawnedTask,
                runtime: RuntimeUsed::multi_thread(1),
                locks: both.clone(),
            },
            Setting {
                driver: Driver::LoopedInBlockOn,
                runtime: RuntimeUsed::current_thread(),
                locks: both,
            },
        ]
    }

    /// Every (allocator, setting, lock) cell, in the order samples visit them.
    pub fn cells(&self) -> Vec<(Allocator, &Setting, Lock)> {
        let mut out = Vec::new();
        for &allocator in self.allocators.iter().filter(|a| a.available()) {
            for setting in &self.settings {
                for &lock in &setting.locks {
                    out.push((allocator, setting, lock));
                }
            }
        }
        out
    }

    pub fn samples(&self) -> usize {
        self.cells().len() * self.processes
    }
}

/// One cell of the grid, every process's rounds pooled.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct SampledRounds {
    pub allocator: Allocator,
    pub lock: Lock,
    pub driver: Driver,
    pub runtime: RuntimeUsed,
    pub futures: usize,
    pub warm_up_rounds: usize,
    /// Nanoseconds per round after the warm-up, one repeat per process.
    pub timing: Timing,
    /// Each process's first round, in nanoseconds: the allocator and the
    /// runtime start cold.
    pub first_round_ns: Vec<f64>,
    /// Minor page faults per timed round, over all processes.
    pub minor_faults_per_round: f64,
    /// Minor page faults of the first rounds, per round.
    pub first_round_minor_faults: f64,
    /// Context switches per timed round, over all processes.
    pub context_switches_per_round: f64,
    pub rounds_validated: u64,
}

fn per_round(costs: &[RoundCost], of: impl Fn(&RoundCost) -> u64) -> f64 {
    costs.iter().map(of).sum::<u64>() as f64 / costs.len().max(1) as f64
}

fn pooled(
    (allocator, setting, lock): (Allocator, &Setting, Lock),
    grid: &Grid,
    processes: Vec<Vec<RoundCost>>,
) -> Result<SampledRounds> {
    let warm = grid.warm_up_rounds;
    ensure!(
        processes.iter().all(|p| p.len() == warm + grid.rounds),
        "a process ran the wrong number of rounds"
    );
    let timed: Vec<RoundCost> = processes.iter().flat_map(|p| p[warm..].to_vec()).collect();
    let firsts: Vec<RoundCost> = processes
        .iter()
        .filter_map(|p| p.first().copied())
        .collect();
    let repeats = processes
        .iter()
        .map(|p| Timing::of_samples(p[warm..].iter().map(|c| c.ns as f64).collect()))
        .collect::<Result<Vec<_>>>()?;
    Ok(SampledRounds {
        allocator,
        lock,
        driver: setting.driver,
        runtime: setting.runtime.clone(),
        futures: grid.futures,
        warm_up_rounds: warm,
        timing: Timing::pooled(repeats)?,
        first_round_ns: firsts.iter().map(|c| c.ns as f64).collect(),
        minor_faults_per_round: per_round(&timed, |c| c.minor_faults),
        first_round_minor_faults: per_round(&firsts, |c| c.minor_faults),
        context_switches_per_round: per_round(&timed, |c| c.context_switches),
        rounds_validated: processes.iter().map(|p| p.len() as u64).sum(),
    })
}

/// Runs the whole grid: `processes` passes over every cell, one fresh
/// process per cell and pass; `step` is told of each sample before it runs.
pub fn run(grid: &Grid, mut step: impl FnMut(String)) -> Result<Vec<SampledRounds>> {
    ensure!(
        grid.rounds > 0 && grid.warm_up_rounds > 0 && grid.processes > 0,
        "the grid needs a warm-up round, a timed round and a process per cell"
    );
    let cells = grid.cells();
    let mut samples: Vec<Vec<Vec<RoundCost>>> = cells.iter().map(|_| Vec::new()).collect();
    for pass in 0..grid.processes {
        for ((allocator, setting, lock), out) in cells.iter().zip(&mut samples) {
            step(format!(
                "sensitivity, {}, {}, {}, {}, process {} of {}",
                allocator.label(),
                setting.driver.label(),
                setting.runtime.describe(),
                lock.label(),
                pass + 1,
                grid.processes
            ));
            out.push(in_fresh_process(&Request {
                allocator: *allocator,
                lock: *lock,
                driver: setting.driver,
                runtime: setting.runtime.clone(),
                futures: grid.futures,
                rounds: grid.warm_up_rounds + grid.rounds,
            })?);
        }
    }
    cells
        .into_iter()
        .zip(samples)
        .map(|(cell, processes)| pooled(cell, grid, processes))
        .collect()
}
