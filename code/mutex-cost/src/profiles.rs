//! Where the CPU time of a round goes: the std and the tokio counter sampled
//! (`harness_measure::stacks::record`) while rounds run back to back, in the two
//! shapes the verdicts are decided on. Recorded outside any timing; every
//! round is checked as a timed one is.
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::{ensure, Result};
use harness_measure::stacks::Stacks;
use harness_measure::Lab;
use serde::{Deserialize, Serialize};

use crate::experiments::RuntimeUsed;
use crate::workload::{expected_value, join_all_round, spawned_round};
use crate::{Counter, Variant};

/// Where the futures of a profiled round run.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ProfiledShape {
    /// The published round: `join_all` polled by the `block_on` thread (MUT-1).
    JoinAll,
    /// The contended round: `CONTENDING_TASKS` spawned tasks on every worker (MUT-2).
    Spawned,
}

impl ProfiledShape {
    pub const ALL: [ProfiledShape; 2] = [ProfiledShape::JoinAll, ProfiledShape::Spawned];

    pub fn label(self) -> &'static str {
        match self {
            ProfiledShape::JoinAll => "published join_all round",
            ProfiledShape::Spawned => "contended round",
        }
    }
}

/// The two locks every profile compares, std first.
pub const PROFILED_VARIANTS: [Variant; 2] = [Variant::StdMutex, Variant::TokioMutex];

/// Rounds of one lock in one shape, run for a fixed time under the sampler.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct RoundProfile {
    pub shape: ProfiledShape,
    pub variant: Variant,
    pub futures: usize,
    pub runtime: RuntimeUsed,
    /// Rounds run while sampling, each one checked to end at its expected value.
    pub rounds_validated: u64,
    pub stacks: Stacks,
}

/// The heading a profile goes under on the page (and its name in the data).
pub fn profile_name(shape: ProfiledShape, variant: Variant, futures: usize) -> String {
    format!(
        "{}, {}, {} futures",
        variant.label(),
        shape.label(),
        harness_core::fmt::thousands(futures as u64)
    )
}

/// Profiles of both locks in both shapes: the published round at
/// `join_all_futures`, the contended one at `spawned_futures` on every core,
/// each sampled for `run_for`.
pub fn record_all(
    lab: &Lab,
    join_all_futures: usize,
    spawned_futures: usize,
    run_for: Duration,
) -> Result<Vec<RoundProfile>> {
    let mut out = Vec::new();
    for shape in ProfiledShape::ALL {
        let futures = match shape {
            ProfiledShape::JoinAll => join_all_futures,
            ProfiledShape::Spawned => spawned_futures,
        };
        for variant in PROFILED_VARIANTS {
            let name = profile_name(shape, variant, futures);
            lab.progress().step(format!("CPU profile: {name}"));
            out.push(record_one(lab, shape, variant, futures, run_for, &name)?);
        }
    }
    Ok(out)
}

/// One lock in one shape under the sampler (std and tokio only: the actor
/// is not a lock).
pub fn record_one(
    lab: &Lab,
    shape: ProfiledShape,
    variant: Variant,
    futures: usize,
    run_for: Duration,
    name: &str,
) -> Result<RoundProfile> {
    // The published runtime: one worker per core, as every profiled round had.
    let runtime = RuntimeUsed::multi_thread(crate::cores());
    let rt = runtime.build()?;
    anyhow::ensure!(
        variant != Variant::Actor,
        "the actor is not profiled: it holds no lock"
    );
    let (rounds_validated, stacks) = harness_measure::stacks::record(
        lab,
        name,
        || with_counter!(variant, C => rounds_for::<C>(&rt, shape, futures, run_for)),
    )?;
    Ok(RoundProfile {
        shape,
        variant,
        futures,
        runtime,
        rounds_validated,
        stacks,
    })
}

/// Rounds back to back until `run_for` has passed (at least one), each
/// checked to end at `expected_value(futures)`; returns how many ran.
fn rounds_for<C: Counter>(
    rt: &tokio::runtime::Runtime,
    shape: ProfiledShape,
    futures: usize,
    run_for: Duration,
) -> Result<u64> {
    let expected = expected_value(futures);
    rt.block_on(async {
        let start = Instant::now();
        let mut rounds = 0u64;
        while rounds == 0 || start.elapsed() < run_for {
            let counter = Arc::new(C::start());
            let value = match shape {
                ProfiledShape::JoinAll => join_all_round(counter, futures).await,
                ProfiledShape::Spawned => {
                    spawned_round(counter.clone(), futures, crate::CONTENDING_TASKS).await?;
                    counter.value().await
                }
            };
            ensure!(
                value == expected,
                "{} round of {futures} futures ended at {value}, not {expected}",
                shape.label()
            );
            rounds += 1;
        }
        Ok(rounds)
    })
}
