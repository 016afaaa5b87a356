//! The chapter as the page shows it: the exhibits, and the words they
//! share. The claims and their verdicts are in [`claims`], the checks an
//! imported results file must pass in [`check`]. Everything here reads
//! results and nothing here measures: it is left out of the results'
//! fingerprint, so a change to a caption or a rule makes no result stale.
//! What a run stores, and the run itself, are `channel_latency::run`.
mod burst_shapes;
mod burst_times;
mod check;
mod claims;
mod coordination;
mod instructions;
mod large_payloads;
mod layouts;
mod other_ways;
mod parameters;
mod profile_exhibit;
mod published;
mod queue_ladder;
mod queueing;
mod ratio;
mod reader;
#[cfg(test)]
mod tests;

use anyhow::Result;
use harness_core::{Claim, Estimate, Verdict};
use harness_measure::stats::{ratio as ratio_of, Statistic};
use harness_page::page::verdicts_by_run;
use harness_page::render::escape;
use harness_page::{
    render::blocks::Block, render::blocks::Point, Book, Exhibit, ExhibitKind, Judge, Judged, Page,
    Run,
};

use channel_latency::{Carry, Variant};

use channel_latency::run::{BurstProfile, Data, BP_CHANNELS};

/// The page of the chapter; its experiment is `channel_latency::ChannelLatency`.
pub struct ChannelLatency;

impl Page for ChannelLatency {
    type Data = Data;
    type Experiment = channel_latency::ChannelLatency;
    const CLAIMS: &'static [Claim] = claims::CLAIMS;
    const EXHIBITS: &'static [Exhibit<Data>] = EXHIBITS;

    fn check(data: &Data) -> Result<()> {
        check::check(data)
    }

    /// The fair ratio at every size (the headline), and each claim the
    /// run's architecture can decide, its map's estimates named.
    fn judge(run: &Judged<Data>, j: &mut Judge) -> Result<()> {
        claims::judge(run, j)
    }

    /// Claim by claim, each machine's verdict as judged, with a "not
    /// measured" line where no machine of the architecture a claim speaks
    /// of has results, and each verdict's badge in the reader's words.
    fn verdicts(book: &Book<Data>) -> Result<Vec<Verdict>> {
        verdicts(book)
    }
}

/// One verdict per claim and machine that can decide it, claim by claim;
/// "not measured" where none can. Read-only: it assembles what was judged.
fn verdicts(book: &Book<Data>) -> Result<Vec<Verdict>> {
    use claims::{claim, is_arm64, is_x86_64};
    type Judged<'b> = (&'b Run<Data>, Vec<Verdict>);
    let by_run = verdicts_by_run(book, claims::CLAIMS)?;
    let judged = |(_, verdicts): &&Judged, id: &str| -> Vec<Verdict> {
        verdicts
            .iter()
            .filter(|v| v.claim.id == id)
            .cloned()
            .collect()
    };
    let x86: Vec<&Judged> = by_run.iter().filter(|(r, _)| is_x86_64(r.arch())).collect();
    let arm: Vec<&Judged> = by_run.iter().filter(|(r, _)| is_arm64(r.arch())).collect();
    let every: Vec<&Judged> = by_run.iter().collect();
    let mut out = Vec::new();
    for id in ["LAT-1", "LAT-2"] {
        if x86.is_empty() {
            out.push(Verdict::not_measured(claim(id), claims::NO_X86));
        }
        for run in &x86 {
            out.extend(judged(run, id));
        }
    }
    for run in &every {
        out.extend(judged(run, "LAT-3"));
    }
    if arm.is_empty() {
        out.push(Verdict::not_measured(
            claim("LAT-3"),
            "no arm64 results yet: the arm64 half of the claim is open",
        ));
    }
    if x86.is_empty() {
        out.push(Verdict::not_measured(
            claim("LAT-3"),
            "no x86-64 results yet: the x86-64 half of the claim is open",
        ));
    }
    if arm.is_empty() {
        out.push(Verdict::not_measured(claim("LAT-4"), claims::NO_ARM64));
    }
    for run in &arm {
        out.extend(judged(run, "LAT-4"));
    }
    for id in ["LAT-5", "LAT-6"] {
        for run in &every {
            out.extend(judged(run, id));
        }
    }
    Ok(out
        .into_iter()
        .map(|v| {
            let run = book
                .runs
                .iter()
                .find(|r| v.machine.as_deref() == Some(r.machine()));
            match run {
                Some(run) => reader::read(book, run, v),
                None => v,
            }
        })
        .collect())
}

/// The verdicts exhibit.
fn verdicts_exhibit(book: &Book<Data>) -> Result<Vec<Block>> {
    Ok(vec![Block::Verdicts(ChannelLatency::verdicts(book)?)])
}

/// What the page reads from a run's data beyond its fields (the data is the library's, so the page's own reads are a trait of its own).
pub(super) trait Reads {
    fn bp_channels(&self) -> Vec<&'static str>;
    fn tokio_over_crossbeam(&self, bytes: usize) -> Result<Estimate>;
    fn alone_ratio(&self, carry: Carry, bytes: usize) -> Result<Estimate>;
}

impl Reads for Data {
    /// Experiment B's channels in this run, in table order: the published
    /// pair, then the compared crates when the run measured them.
    fn bp_channels(&self) -> Vec<&'static str> {
        channel_latency::run::bp_all()
            .filter(|&c| BP_CHANNELS.contains(&c) || self.runs.iter().any(|r| r.channel == c))
            .collect()
    }

    /// The ratio the verdicts rest on: tokio's time per burst over
    /// crossbeam's for a `[u8; N]` payload, timed head to head.
    fn tokio_over_crossbeam(&self, bytes: usize) -> Result<Estimate> {
        self.head_to_head(bytes)?.ratio()
    }

    /// tokio's median time per burst over crossbeam's, each timed alone by
    /// the sweep, with a 95 % interval bootstrapped from both points' samples.
    fn alone_ratio(&self, carry: Carry, bytes: usize) -> Result<Estimate> {
        Ok(ratio_of(
            &self.point(Variant::TokioMpsc, carry, bytes)?.timing,
            &self.point(Variant::Crossbeam, carry, bytes)?.timing,
            Statistic::Median,
        ))
    }
}

const EXHIBITS: &[Exhibit<Data>] = &[
    Exhibit {
        name: "in-short",
        kind: ExhibitKind::Text,
        about: "the answer in plain words, its numbers beside the post's",
        render: reader::in_short,
    },
    Exhibit {
        name: "summary-list",
        kind: ExhibitKind::Text,
        about: "what to use, each with its number and verdict (gathered by the What to use page)",
        render: reader::summary_list,
    },
    harness_page::parameters::exhibit::<ChannelLatency>(),
    Exhibit {
        name: "published-setup",
        kind: ExhibitKind::Table,
        about: "the published runs' set-up beside this book's",
        render: parameters::published_setup,
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
        name: "burst-shapes",
        kind: ExhibitKind::Table,
        about: "the 8 B burst in a minimal reconstruction's shape beside the book's: times and instructions",
        render: burst_shapes::table,
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
        render: verdicts_exhibit,
    },
];

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

/// The headline's name for the fair ratio at `bytes`: tokio's time per
/// burst over crossbeam's, head to head (precision and `harness compare`
/// line runs up by it; the answer marks it).
fn headline_name(bytes: usize) -> String {
    format!("tokio mpsc ÷ crossbeam-channel, {}", size_label(bytes))
}

fn size_label(bytes: usize) -> String {
    harness_core::Unit::Size.show(bytes as f64)
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
