//! What one run of the chapter keeps: the results' data model (set-ups,
//! points, runs, the recorded schedules) and the lookups every reader of
//! it shares. The bottom of `run`: `measure` fills it, the experiment's
//! contract (`super`) names it, and it imports neither.
use anyhow::Result;
use harness_core::{grid, Estimate};
use harness_measure::schedule::RecordedSchedule;
use harness_measure::timing::Timing;
use harness_measure::PerOp;
use serde::{Deserialize, Serialize};

use crate::backpressure;
use crate::backpressure_ladder::LadderRun;
use crate::head_to_head::HeadToHead;
use crate::methods::MethodPoint;
use crate::sweep::{self, MemcpyPoint};
use crate::{Carry, Variant};

/// How experiment A was run.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SweepSetup {
    pub burst: usize,
    pub capacity: usize,
    pub sizes: Vec<usize>,
    pub runtime: String,
    /// Criterion's samples per repeat (see `repeats`).
    pub samples: usize,
    pub warm_up_ms: u64,
    pub measurement_ms: u64,
    pub pointer_width_bits: usize,
    /// Interleaved runs of every point, pooled (`sweep_repeats`).
    pub repeats: usize,
    /// Windows of the head-to-head timing at each size, and bursts of each
    /// channel per window.
    pub head_to_head_windows: usize,
    pub head_to_head_pairs: usize,
}

/// How experiment B was run.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct BackpressureSetup {
    pub runtime: String,
    pub worker_threads: usize,
    pub tasks: Vec<usize>,
    pub bounds: Vec<usize>,
    pub messages_per_point: usize,
}

/// How experiment A was measured the other ways (`methods::METHODS`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct MethodsSetup {
    /// Windows per method and size, and samples of each channel per window.
    pub windows: usize,
    pub pairs: usize,
    /// Bursts per sample of the seed's readings, per size.
    pub sample_bursts: Vec<u64>,
    /// Worker threads of the multi-thread runtime with one per core.
    pub cores: usize,
    pub fault_bursts: u64,
    /// The machine's largest CPU cache (`cache::last_level_bytes`).
    pub cache_bytes: Option<u64>,
}

/// How experiment B's ladder was run (`backpressure_ladder`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LadderSetup {
    pub repeats: usize,
    pub messages_per_run: usize,
    pub pause_ms: u64,
    pub worker_threads: usize,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Data {
    pub sweep: SweepSetup,
    pub points: Vec<sweep::Point>,
    pub memcpy: Vec<MemcpyPoint>,
    /// tokio against crossbeam, timed head to head at every size.
    pub head_to_head: Vec<HeadToHead>,
    pub backpressure: BackpressureSetup,
    pub runs: Vec<backpressure::Run>,
    /// Experiment A the seed's ways, the ladder's and the sensitivity
    /// settings'.
    pub methods: Vec<MethodPoint>,
    pub methods_setup: Option<MethodsSetup>,
    /// Instructions per burst, counted by callgrind (`counted::COUNTED`).
    pub instructions: Vec<PerOp>,
    /// Experiment B from the published method to the fair one.
    pub ladder: Vec<LadderRun>,
    pub ladder_setup: Option<LadderSetup>,
    /// Sampled CPU profiles of tokio's and crossbeam's bursts
    /// (`profiles::PROFILED`), outside any timing.
    pub profiles: Vec<BurstProfile>,
    /// The 8 B burst in a minimal reconstruction's shape beside the book's
    /// (`burst_shapes`); `None` in a run from before them.
    pub shapes: Option<crate::burst_shapes::Shapes>,
    /// The schedules the run timed through (`SCHEDULES`: the sweep, the
    /// head-to-head windows, the other ways, B's ladder), as recorded;
    /// empty in a run from before them.
    #[serde(default)]
    pub schedules: Vec<RecordedSchedule>,
}

/// One sampled profile of bursts run back to back.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct BurstProfile {
    pub channel: String,
    pub bytes: usize,
    /// Bursts run (and checked) while the profiler sampled.
    pub bursts: u64,
    pub stacks: harness_measure::stacks::Stacks,
}

/// Experiment B's channels, in table order.
pub const BP_CHANNELS: [&str; 2] = ["tokio", "kanal-async"];

/// Experiment B's comparisons (issue 44) beside the published pair above,
/// which its claims and its ladder compare: flume's async end and
/// async-channel, measured in the fair grid only (not on the ladder), and
/// absent from results files from before them.
pub const BP_COMPARED: [&str; 2] = ["flume-async", "async-channel"];

/// Every channel of experiment B's fair grid, in table order.
pub fn bp_all() -> impl Iterator<Item = &'static str> {
    BP_CHANNELS.into_iter().chain(BP_COMPARED)
}

impl Data {
    pub fn point(&self, variant: Variant, carry: Carry, bytes: usize) -> Result<&sweep::Point> {
        grid::find(
            &self.points,
            "experiment A",
            (variant.id().to_string(), carry.id().to_string(), bytes),
            |p| (p.variant.clone(), p.carry.clone(), p.bytes),
        )
    }

    /// Criterion's median time per burst: on a machine shared with other work,
    /// the median resists the interference that stretches a mean.
    pub fn median(&self, variant: Variant, carry: Carry, bytes: usize) -> Result<Estimate> {
        Ok(self.point(variant, carry, bytes)?.timing.median)
    }

    pub fn head_to_head(&self, bytes: usize) -> Result<&HeadToHead> {
        grid::find(&self.head_to_head, "the head-to-head timing", bytes, |h| {
            h.bytes
        })
    }

    pub fn memcpy(&self, bytes: usize) -> Result<&Timing> {
        Ok(&grid::find(&self.memcpy, "the memcpy floor", bytes, |m| m.bytes)?.timing)
    }

    pub fn bp(&self, channel: &str, tasks: usize, bound: usize) -> Result<&backpressure::Run> {
        grid::find(
            &self.runs,
            "experiment B",
            (channel.to_string(), tasks, bound),
            |r| (r.channel.clone(), r.tasks, r.bound),
        )
    }
}
