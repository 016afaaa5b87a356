//! The chapter as the book sees it: what a run stores, the exhibits its page
//! shows, and the words they share. The claims and their verdicts are in
//! [`claims`], the checks an imported results file must pass in [`check`],
//! the run itself in [`measure`].
mod burst_times;
mod check;
mod claims;
mod coordination;
mod instructions;
mod large_payloads;
mod layouts;
mod measure;
mod other_ways;
mod parameters;
mod profile_exhibit;
mod published;
mod queue_ladder;
mod queueing;
mod ratio;

use anyhow::Result;
use harness::render::escape;
use harness::stats::{ratio as ratio_of, Statistic};
use harness::timing::Timing;
use harness::{grid, Chapter, Claim, Estimate, Exhibit, ExhibitKind, Lab, PerOp, Point, Run};
use serde::{Deserialize, Serialize};

use crate::backpressure;
use crate::backpressure_ladder::LadderRun;
use crate::head_to_head::HeadToHead;
use crate::methods::MethodPoint;
use crate::sweep::{self, MemcpyPoint};
use crate::{Carry, Variant, PAYLOAD_SIZES};

pub struct ChannelLatency;

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
}

/// One sampled profile of bursts run back to back.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct BurstProfile {
    pub channel: String,
    pub bytes: usize,
    /// Bursts run (and checked) while the profiler sampled.
    pub bursts: u64,
    pub stacks: harness::stacks::Stacks,
}

/// Experiment B's channels, in table order.
const BP_CHANNELS: [&str; 2] = ["tokio", "kanal-async"];

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

    /// The ratio the verdicts rest on: tokio's time per burst over
    /// crossbeam's for a `[u8; N]` payload, timed head to head.
    pub fn tokio_over_crossbeam(&self, bytes: usize) -> Result<Estimate> {
        self.head_to_head(bytes)?.ratio()
    }

    pub fn head_to_head(&self, bytes: usize) -> Result<&HeadToHead> {
        grid::find(&self.head_to_head, "the head-to-head timing", bytes, |h| {
            h.bytes
        })
    }

    /// tokio's median time per burst over crossbeam's, each timed alone by
    /// the sweep, with a 95 % interval bootstrapped from both points' samples.
    pub fn alone_ratio(&self, carry: Carry, bytes: usize) -> Result<Estimate> {
        Ok(ratio_of(
            &self.point(Variant::TokioMpsc, carry, bytes)?.timing,
            &self.point(Variant::Crossbeam, carry, bytes)?.timing,
            Statistic::Median,
        ))
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

const EXHIBITS: &[Exhibit<Data>] = &[
    Exhibit {
        name: "parameters",
        kind: ExhibitKind::Table,
        about: "experiment parameters per profile",
        render: parameters::parameters,
    },
    Exhibit {
        name: "sweep-table",
        kind: ExhibitKind::Table,
        about: "time per burst, every channel and size, [u8; N]",
        render: burst_times::table,
    },
    Exhibit {
        name: "sweep-figure",
        kind: ExhibitKind::Figure,
        about: "time per burst vs payload, log-log, with the published x86-64 series",
        render: burst_times::figure,
    },
    Exhibit {
        name: "copy-vs-coordination",
        kind: ExhibitKind::Table,
        about: "[u8; N] vs Box<[u8; N]>: copying vs coordinating",
        render: coordination::copy_vs_coordination,
    },
    Exhibit {
        name: "polls",
        kind: ExhibitKind::Text,
        about: "how often the runtime polled one burst (tokio's cooperative budget)",
        render: coordination::polls,
    },
    Exhibit {
        name: "ratio-figure",
        kind: ExhibitKind::Figure,
        about: "tokio/crossbeam ratio vs payload, one line per machine, published dashed",
        render: ratio::figure,
    },
    Exhibit {
        name: "ratio-table",
        kind: ExhibitKind::Table,
        about: "tokio/crossbeam ratio per machine with intervals, and the published ratios",
        render: ratio::table,
    },
    Exhibit {
        name: "seed-ladder",
        kind: ExhibitKind::Table,
        about: "tokio/crossbeam ratio: the published seed read four ways, then the ladder to the fair ratio",
        render: other_ways::seed_and_ladder,
    },
    Exhibit {
        name: "sweep-sensitivity",
        kind: ExhibitKind::Table,
        about: "tokio/crossbeam ratio: the fair experiment with one choice made differently",
        render: other_ways::sensitivity,
    },
    Exhibit {
        name: "page-faults",
        kind: ExhibitKind::Table,
        about: "page faults per burst, every way of measuring experiment A",
        render: other_ways::faults,
    },
    Exhibit {
        name: "stack-offsets",
        kind: ExhibitKind::Table,
        about: "time per burst by stack offset, from the head-to-head timing",
        render: layouts::table,
    },
    Exhibit {
        name: "instructions",
        kind: ExhibitKind::Table,
        about: "instructions per message (callgrind) beside the time ratios",
        render: instructions::table,
    },
    Exhibit {
        name: "profiles",
        kind: ExhibitKind::Figure,
        about: "sampled CPU profiles of tokio's and crossbeam's bursts at 8 B and 32 KiB",
        render: profile_exhibit::render,
    },
    Exhibit {
        name: "large-payloads",
        kind: ExhibitKind::Table,
        about: "working set, memcpy speed and ratios per size: why the large sizes swing",
        render: large_payloads::table,
    },
    Exhibit {
        name: "backpressure-table",
        kind: ExhibitKind::Table,
        about: "back-pressure latency percentiles, both ways of measuring, published means",
        render: queueing::table,
    },
    Exhibit {
        name: "backpressure-figure",
        kind: ExhibitKind::Figure,
        about: "mean latency vs bound, 100 tasks, both ways of measuring",
        render: queueing::figure,
    },
    Exhibit {
        name: "littles-law",
        kind: ExhibitKind::Table,
        about: "Little's law: messages in flight implied by throughput and mean latency",
        render: queueing::littles_law,
    },
    Exhibit {
        name: "backpressure-ladder",
        kind: ExhibitKind::Table,
        about: "tokio/kanal latency ratio from the published method to the fair one, every setting",
        render: queue_ladder::table,
    },
    Exhibit {
        name: "sampling",
        kind: ExhibitKind::Table,
        about: "what each run's sampling bought: interval widths and wall time",
        render: parameters::sampling,
    },
    Exhibit {
        name: "verdicts",
        kind: ExhibitKind::Verdicts,
        about: "LAT-1..LAT-6",
        render: claims::verdicts,
    },
];

impl Chapter for ChannelLatency {
    type Data = Data;
    const NAME: &'static str = "channel-latency";
    const MEASURED_CRATES: &'static [&'static str] = &[
        "tokio",
        "crossbeam-channel",
        "kanal",
        "criterion",
        "hdrhistogram",
    ];
    const CLAIMS: &'static [Claim] = claims::CLAIMS;
    const EXHIBITS: &'static [Exhibit<Data>] = EXHIBITS;
    const COUNTED: &'static [harness::Counted] = crate::counted::COUNTED;

    fn measure(lab: &Lab) -> Result<Data> {
        measure::measure(lab)
    }

    fn check(data: &Data) -> Result<()> {
        check::check(data)
    }

    /// The ratios LAT-1..LAT-4 rest on: tokio's burst time over crossbeam's,
    /// head to head, at every size.
    fn headline(data: &Data) -> Vec<(String, Estimate)> {
        PAYLOAD_SIZES
            .into_iter()
            .filter_map(|bytes| {
                let r = data.tokio_over_crossbeam(bytes).ok()?;
                Some((
                    format!("tokio mpsc ÷ crossbeam-channel, {}", size_label(bytes)),
                    r,
                ))
            })
            .collect()
    }
}

// ------------------------------------------------ words the exhibits share

fn runtime_a(d: &Data) -> String {
    format!(
        "sync channels on one thread; async channels in one task on a tokio {} runtime",
        escape(
            d.sweep
                .runtime
                .split(' ')
                .next()
                .unwrap_or("current_thread")
        )
    )
}

fn runtime_b(d: &Data) -> String {
    format!(
        "tokio {} runtime, {} worker threads",
        escape(&d.backpressure.runtime),
        d.backpressure.worker_threads
    )
}

fn size_label(bytes: usize) -> String {
    harness::Unit::Size.show(bytes as f64)
}

fn machine_of(run: &Run<Data>) -> String {
    format!("{} ({})", run.machine(), run.arch())
}

/// A figure's point at `x` with its band, every figure divided by `scale`.
fn band(x: f64, e: &Estimate, scale: f64) -> Point {
    Point::with_band(
        x,
        e.point_ns / scale,
        e.lower_ns / scale,
        e.upper_ns / scale,
    )
}
