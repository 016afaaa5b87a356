//! The chapter as the book sees it: what a run stores, the published claims
//! as data, the checks an imported results file must pass, and the exhibits.
use std::collections::BTreeSet;

use anyhow::{bail, ensure, Context, Result};
use harness::chapter::{Book, Exhibit, ExhibitKind, Run};
use harness::claims::{Claim, Outcome, Verdict};
use harness::exhibit::{Axis, Block, Figure, Point, Series, Table};
use harness::fmt::{nanos, ratio, sig3, thousands};
use harness::timing::{self, Estimate, Statistic, Timing};
use harness::{Chapter, Profile, Progress};
use serde::{Deserialize, Serialize};

use crate::backpressure::{self, Latencies};
use crate::head_to_head::{self, HeadToHead};
use crate::sweep::{self, MemcpyPoint};
use crate::{
    backpressure_messages, head_to_head_windows, sweep_repeats, sweep_sampling, Carry, Variant,
    BOUNDS, BURST, CAPACITY, HANG_LIMIT, PAYLOAD_SIZES, TASKS,
};

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
    /// Interleaved runs of every point, pooled (`sweep_repeats`); 1 in files
    /// made before repeats.
    #[serde(default = "one")]
    pub repeats: usize,
    /// Windows of the head-to-head timing at each size, and bursts of each
    /// channel per window; 0 in files made before it.
    #[serde(default)]
    pub head_to_head_windows: usize,
    #[serde(default)]
    pub head_to_head_pairs: usize,
}

fn one() -> usize {
    1
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

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Data {
    pub sweep: SweepSetup,
    pub points: Vec<sweep::Point>,
    pub memcpy: Vec<MemcpyPoint>,
    /// tokio against crossbeam, timed head to head at every size; empty in
    /// files made before it.
    #[serde(default)]
    pub head_to_head: Vec<HeadToHead>,
    pub backpressure: BackpressureSetup,
    pub runs: Vec<backpressure::Run>,
}

/// Experiment B's channels, in table order.
const BP_CHANNELS: [&str; 2] = ["tokio", "kanal-async"];

impl Data {
    pub fn point(&self, variant: Variant, carry: Carry, bytes: usize) -> Option<&sweep::Point> {
        self.points
            .iter()
            .find(|p| p.variant == variant.id() && p.carry == carry.id() && p.bytes == bytes)
    }

    /// Criterion's median time per burst: on a machine shared with other work,
    /// the median resists the interference that stretches a mean.
    pub fn median(&self, variant: Variant, carry: Carry, bytes: usize) -> Option<Estimate> {
        self.point(variant, carry, bytes).map(|p| p.timing.median)
    }

    /// The ratio the verdicts rest on: tokio's time per burst over
    /// crossbeam's for a `[u8; N]` payload, timed head to head; in a file
    /// made before that timing, the sweep's ratio (`alone_ratio`).
    pub fn tokio_over_crossbeam(&self, bytes: usize) -> Option<Estimate> {
        match self.head_to_head(bytes) {
            Some(h) => h.ratio().ok(),
            None => self.alone_ratio(Carry::Array, bytes),
        }
    }

    pub fn head_to_head(&self, bytes: usize) -> Option<&HeadToHead> {
        self.head_to_head.iter().find(|h| h.bytes == bytes)
    }

    /// tokio's median time per burst over crossbeam's, each timed alone by
    /// the sweep, with a 95 % interval bootstrapped from both points' samples.
    pub fn alone_ratio(&self, carry: Carry, bytes: usize) -> Option<Estimate> {
        Some(timing::ratio(
            &self.point(Variant::TokioMpsc, carry, bytes)?.timing,
            &self.point(Variant::Crossbeam, carry, bytes)?.timing,
            Statistic::Median,
        ))
    }

    pub fn memcpy(&self, bytes: usize) -> Option<&Timing> {
        self.memcpy
            .iter()
            .find(|m| m.bytes == bytes)
            .map(|m| &m.timing)
    }

    pub fn bp(&self, channel: &str, tasks: usize, bound: usize) -> Option<&backpressure::Run> {
        self.runs
            .iter()
            .find(|r| r.channel == channel && r.tasks == tasks && r.bound == bound)
    }
}

#[derive(Deserialize)]
struct PublishedPayload {
    payload_bytes: usize,
    tokio_arm64_us: f64,
    crossbeam_arm64_us: f64,
    tokio_x86_64_us: f64,
    crossbeam_x86_64_us: f64,
}

#[derive(Deserialize)]
struct PublishedBackpressure {
    tasks: usize,
    bound: usize,
    tokio_mean_ns: f64,
    kanal_mean_ns: f64,
}

const SWEEP_POST: &str =
    "[tokio's async tax vs crossbeam](https://punkeel.com/posts/tokio-mpsc-sweep)";
const BP_POST: &str =
    "[Rust training book, async channels (RustUtahChannels)](https://github.com/thebracket/RustUtahChannels)";

// ANCHOR: claims
const CLAIMS: &[Claim] = &[
    Claim {
        id: "LAT-1",
        statement: "On x86-64, tokio mpsc and crossbeam-channel take about the same time at 1 KB and 4 KB payloads.",
        source: SWEEP_POST,
        rule: "On each x86-64 machine, the 95 % interval of the tokio/crossbeam ratio of median burst times ([u8; N] payload) lies wholly within 0.9 to 1.1 at both 1024 B and 4096 B; \
               it does not hold if either ratio's interval lies wholly outside that range; otherwise inconclusive.",
    },
    Claim {
        id: "LAT-2",
        statement: "On x86-64, the smallest payload (8 B) shows the largest tokio/crossbeam ratio, about 1.9x.",
        source: SWEEP_POST,
        rule: "On each x86-64 machine, the ratio at 8 B is the largest of the eight sizes and is at least 1.5: it holds if the 8 B interval lies wholly above 1.5 and above every other size's interval; \
               it does not hold if another size's interval lies wholly above the 8 B interval, or the 8 B interval lies wholly below 1.5; otherwise inconclusive.",
    },
    Claim {
        id: "LAT-3",
        statement: "At 32 KB the tokio/crossbeam ratio settles near 1.3x on both architectures.",
        source: SWEEP_POST,
        rule: "On each machine, the 95 % interval of the ratio at 32768 B lies wholly within 1.15 to 1.45 (1.3 ± 0.15); it does not hold if the interval lies wholly outside; \
               otherwise inconclusive. Both architectures need results.",
    },
    Claim {
        id: "LAT-4",
        statement: "On arm64, tokio mpsc is slower than crossbeam-channel at every payload size.",
        source: SWEEP_POST,
        rule: "On each arm64 machine, the lower end of the ratio's 95 % interval is above 1 at all eight sizes; \
               it does not hold if some size's interval lies wholly below 1; otherwise inconclusive.",
    },
    Claim {
        id: "LAT-5",
        statement: "Under back-pressure, kanal's async channel has lower latency than tokio's at every tasks x bound setting.",
        source: BP_POST,
        rule: "On each machine, kanal's mean latency (published method: stamped before send().await) is at least 5 % below tokio's at every tasks x bound setting; \
               any setting where it is at least 5 % above means it does not hold; otherwise inconclusive.",
    },
    Claim {
        id: "LAT-6",
        statement: "Latency grows with the channel bound (larger queues, longer waits).",
        source: BP_POST,
        rule: "On each machine, for both channels and both task counts, the mean latency (published method) rises by more than 5 % at each step of the bound (1, 100, 1000).",
    },
];
// ANCHOR_END: claims

const EXHIBITS: &[Exhibit] = &[
    Exhibit {
        name: "parameters",
        kind: ExhibitKind::Table,
        about: "experiment parameters per profile",
    },
    Exhibit {
        name: "sweep-table",
        kind: ExhibitKind::Table,
        about: "time per burst, every channel and size, [u8; N]",
    },
    Exhibit {
        name: "sweep-figure",
        kind: ExhibitKind::Figure,
        about: "time per burst vs payload, log-log, with the published x86-64 series",
    },
    Exhibit {
        name: "copy-vs-coordination",
        kind: ExhibitKind::Table,
        about: "[u8; N] vs Box<[u8; N]>: copying vs coordinating",
    },
    Exhibit {
        name: "polls",
        kind: ExhibitKind::Text,
        about: "how often the runtime polled one burst (tokio's cooperative budget)",
    },
    Exhibit {
        name: "ratio-figure",
        kind: ExhibitKind::Figure,
        about: "tokio/crossbeam ratio vs payload, one line per machine, published dashed",
    },
    Exhibit {
        name: "ratio-table",
        kind: ExhibitKind::Table,
        about: "tokio/crossbeam ratio per machine with intervals, and the published ratios",
    },
    Exhibit {
        name: "backpressure-table",
        kind: ExhibitKind::Table,
        about: "back-pressure latency percentiles, both ways of measuring, published means",
    },
    Exhibit {
        name: "backpressure-figure",
        kind: ExhibitKind::Figure,
        about: "mean latency vs bound, 100 tasks, both ways of measuring",
    },
    Exhibit {
        name: "littles-law",
        kind: ExhibitKind::Table,
        about: "Little's law: messages in flight implied by throughput and mean latency",
    },
    Exhibit {
        name: "sampling",
        kind: ExhibitKind::Table,
        about: "what each run's sampling bought: interval widths and wall time",
    },
    Exhibit {
        name: "verdicts",
        kind: ExhibitKind::Verdicts,
        about: "LAT-1..LAT-6",
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
    const EXHIBITS: &'static [Exhibit] = EXHIBITS;
    const CLAIMS: &'static [Claim] = CLAIMS;

    fn measure(profile: Profile, progress: &Progress) -> Result<Data> {
        measure(profile, progress)
    }

    fn check(data: &Data) -> Result<()> {
        check(data)
    }

    /// The medians LAT-1..LAT-4 rest on: tokio's and crossbeam's burst time at every size.
    fn headline(data: &Data) -> Vec<(String, Estimate)> {
        // The verdicts rest on tokio ÷ crossbeam at each payload size.
        PAYLOAD_SIZES
            .into_iter()
            .filter_map(|bytes| {
                let r = data.tokio_over_crossbeam(bytes)?;
                Some((
                    format!("tokio mpsc ÷ crossbeam-channel, {}", size_label(bytes)),
                    r,
                ))
            })
            .collect()
    }

    fn render(exhibit: &str, book: &Book<Data>) -> Result<Vec<Block>> {
        match exhibit {
            "parameters" => parameters(book),
            "sweep-table" => sweep_table(book.primary()),
            "sweep-figure" => sweep_figure(book),
            "copy-vs-coordination" => copy_vs_coordination(book.primary()),
            "polls" => polls(book),
            "ratio-figure" => ratio_figure(book),
            "ratio-table" => ratio_table(book),
            "backpressure-table" => backpressure_table(book),
            "backpressure-figure" => backpressure_figure(book),
            "littles-law" => littles_law(book),
            "sampling" => sampling(book),
            "verdicts" => Ok(vec![Block::Verdicts(verdicts(book)?)]),
            other => bail!("exhibit {other:?} has no renderer"),
        }
    }
}

// ---------------------------------------------------------------- measure

fn measure(profile: Profile, progress: &Progress) -> Result<Data> {
    let sampling = sweep_sampling(profile);
    let repeats = sweep_repeats(profile);
    let per_point = backpressure_messages(profile);
    let scratch = tempfile::tempdir().context("creating criterion's scratch folder")?;
    let rt = sweep::current_thread_runtime()?;
    let windows = head_to_head_windows(profile);
    let per_size = Variant::ALL.len() * Carry::ALL.len() + 1;
    let sweep_steps = PAYLOAD_SIZES.len() * (repeats * per_size + windows);
    let bp_steps = TASKS.len() * BOUNDS.len() * BP_CHANNELS.len();
    progress.set_total((sweep_steps + bp_steps) as u64);

    // Pass after pass over every size, every variant once per size in each
    // pass: a size's repeats are spread over the whole sweep, so they draw
    // several of the machine's spells rather than the one its turn fell in,
    // and the variants a ratio compares still sit side by side in time.
    let mut parts: Vec<Vec<Vec<sweep::Point>>> =
        vec![vec![Vec::new(); per_size - 1]; PAYLOAD_SIZES.len()];
    let mut floors: Vec<Vec<MemcpyPoint>> = vec![Vec::new(); PAYLOAD_SIZES.len()];
    for repeat in 1..=repeats {
        for (size, bytes) in PAYLOAD_SIZES.into_iter().enumerate() {
            let mut slot = parts[size].iter_mut();
            for variant in Variant::ALL {
                for carry in Carry::ALL {
                    progress.step(format_args!(
                        "A: {} {} {bytes} B (repeat {repeat} of {repeats})",
                        variant.label(),
                        carry.id()
                    ));
                    let point =
                        sweep::measure_point(variant, carry, bytes, &rt, scratch.path(), sampling)?;
                    slot.next()
                        .expect("a slot per variant and carry")
                        .push(point);
                }
            }
            progress.step(format_args!(
                "A: memcpy {BURST} x {bytes} B (repeat {repeat} of {repeats})"
            ));
            floors[size].push(sweep::measure_memcpy(bytes, scratch.path(), sampling)?);
        }
    }
    let mut points = Vec::new();
    let mut memcpy = Vec::new();
    for (size_parts, size_floors) in parts.into_iter().zip(floors) {
        for repeats_of_one in size_parts {
            points.push(sweep::Point::pooled(repeats_of_one)?);
        }
        memcpy.push(MemcpyPoint::pooled(size_floors)?);
    }

    // The ratio the verdicts rest on, head to head, in passes over every
    // size like the sweep: a size's windows are spread over this stretch.
    let mut duels: Vec<Vec<head_to_head::Window>> = vec![Vec::new(); PAYLOAD_SIZES.len()];
    for window in 1..=windows {
        for (size, bytes) in PAYLOAD_SIZES.into_iter().enumerate() {
            progress.step(format_args!(
                "A: tokio against crossbeam, {bytes} B (window {window} of {windows})"
            ));
            duels[size].push(head_to_head::window(bytes, window - 1, &rt)?);
        }
    }
    let head_to_head = PAYLOAD_SIZES
        .into_iter()
        .zip(duels)
        .map(|(bytes, w)| HeadToHead::pooled(bytes, w))
        .collect::<Result<Vec<_>>>()?;
    drop(rt);

    let mut runs = Vec::new();
    for tasks in TASKS {
        let per_task = (per_point / tasks).max(1);
        for bound in BOUNDS {
            for channel in BP_CHANNELS {
                progress.step(format_args!(
                    "B: {channel}, {tasks} tasks x {per_task}, bound {bound}"
                ));
                let run = match channel {
                    "tokio" => {
                        backpressure::run::<backpressure::Tokio>(tasks, per_task, bound, HANG_LIMIT)
                    }
                    _ => backpressure::run::<backpressure::KanalAsync>(
                        tasks, per_task, bound, HANG_LIMIT,
                    ),
                }?;
                runs.push(run);
            }
        }
    }

    Ok(Data {
        sweep: SweepSetup {
            burst: BURST,
            capacity: CAPACITY,
            sizes: PAYLOAD_SIZES.to_vec(),
            runtime: "current_thread (one task)".into(),
            samples: sampling.samples,
            warm_up_ms: sampling.warm_up.as_millis() as u64,
            measurement_ms: sampling.measurement.as_millis() as u64,
            pointer_width_bits: usize::BITS as usize,
            repeats,
            head_to_head_windows: windows,
            head_to_head_pairs: head_to_head::PAIRS,
        },
        points,
        memcpy,
        head_to_head,
        backpressure: BackpressureSetup {
            runtime: "multi_thread".into(),
            worker_threads: backpressure::worker_threads(),
            tasks: TASKS.to_vec(),
            bounds: BOUNDS.to_vec(),
            messages_per_point: per_point,
        },
        runs,
    })
}

// ---------------------------------------------------------------- check

fn check_estimate(what: &str, e: &Estimate) -> Result<()> {
    ensure!(
        e.point_ns.is_finite() && e.lower_ns.is_finite() && e.upper_ns.is_finite(),
        "{what}: a time is not a finite number"
    );
    ensure!(
        e.point_ns > 0.0 && e.lower_ns > 0.0,
        "{what}: time {} ns is zero or negative",
        e.point_ns
    );
    ensure!(
        e.lower_ns <= e.point_ns && e.point_ns <= e.upper_ns,
        "{what}: estimate {} ns lies outside its interval {}..{} ns",
        e.point_ns,
        e.lower_ns,
        e.upper_ns
    );
    Ok(())
}

fn check_timing(what: &str, t: &Timing) -> Result<()> {
    check_estimate(&format!("{what} (mean)"), &t.mean)?;
    check_estimate(&format!("{what} (median)"), &t.median)?;
    ensure!(
        t.samples >= 10 && t.iterations >= t.samples as u64,
        "{what}: {} samples of {} iterations are too few",
        t.samples,
        t.iterations
    );
    Ok(())
}

fn check_latencies(what: &str, l: &Latencies, received: u64) -> Result<()> {
    ensure!(
        l.count == received,
        "{what}: {} latencies for {received} messages",
        l.count
    );
    ensure!(
        l.mean_ns.is_finite() && l.mean_ns > 0.0 && l.p50_ns > 0,
        "{what}: latency is zero, negative or not a number"
    );
    ensure!(
        l.p50_ns <= l.p90_ns
            && l.p90_ns <= l.p99_ns
            && l.p99_ns <= l.p999_ns
            && l.p999_ns <= l.max_ns,
        "{what}: percentiles are not in order (p50 {} p90 {} p99 {} p99.9 {} max {})",
        l.p50_ns,
        l.p90_ns,
        l.p99_ns,
        l.p999_ns,
        l.max_ns
    );
    ensure!(
        l.mean_ns <= l.max_ns as f64 * 1.001,
        "{what}: mean {} ns exceeds max {} ns",
        l.mean_ns,
        l.max_ns
    );
    Ok(())
}

/// The head-to-head timing: absent from files made before it, and otherwise
/// one point per size, each of exactly the windows and pairs the setup
/// states, every burst checked, and a ratio that can be computed.
fn check_head_to_head(data: &Data) -> Result<()> {
    let s = &data.sweep;
    let (windows, pairs) = (s.head_to_head_windows, s.head_to_head_pairs);
    if windows == 0 {
        ensure!(
            data.head_to_head.is_empty(),
            "experiment A has head-to-head points but its setup records no windows"
        );
        return Ok(());
    }
    ensure!(
        pairs > 0,
        "experiment A's head-to-head setup records no bursts per window"
    );
    ensure!(
        data.head_to_head.len() == PAYLOAD_SIZES.len(),
        "experiment A has {} head-to-head points, expected {}",
        data.head_to_head.len(),
        PAYLOAD_SIZES.len()
    );
    for bytes in PAYLOAD_SIZES {
        let what = format!("head to head at {bytes} B");
        let h = data
            .head_to_head(bytes)
            .with_context(|| format!("experiment A lacks the {what}"))?;
        for (name, t) in [("tokio", &h.tokio), ("crossbeam", &h.crossbeam)] {
            ensure!(
                t.repeats.len() == windows && t.repeats.iter().all(|&n| n == pairs),
                "{what}: {name} has windows of {:?} bursts, expected {windows} of {pairs}",
                t.repeats
            );
            check_timing(&format!("{what}, {name}"), t)?;
        }
        let expected = 2 * (pairs as u64 + 1) * windows as u64;
        ensure!(
            h.bursts_checked == expected,
            "{what}: {} bursts checked, expected {expected}",
            h.bursts_checked
        );
        h.ratio()?;
    }
    Ok(())
}

fn check(data: &Data) -> Result<()> {
    let s = &data.sweep;
    ensure!(
        s.burst == BURST && s.capacity == CAPACITY,
        "experiment A ran bursts of {} through capacity {}, expected {BURST} through {CAPACITY}",
        s.burst,
        s.capacity
    );
    ensure!(
        s.sizes == PAYLOAD_SIZES,
        "experiment A payload sizes {:?} differ from {PAYLOAD_SIZES:?}",
        s.sizes
    );
    let mut seen = BTreeSet::new();
    for p in &data.points {
        let what = format!("experiment A point {} {} {} B", p.variant, p.carry, p.bytes);
        let variant =
            Variant::from_id(&p.variant).with_context(|| format!("{what}: unknown variant"))?;
        Carry::from_id(&p.carry).with_context(|| format!("{what}: unknown payload carry"))?;
        ensure!(
            PAYLOAD_SIZES.contains(&p.bytes),
            "{what}: size not in the sweep"
        );
        ensure!(
            seen.insert((p.variant.clone(), p.carry.clone(), p.bytes)),
            "{what}: appears twice"
        );
        check_timing(&what, &p.timing)?;
        ensure!(
            p.bursts_checked >= p.timing.iterations,
            "{what}: {} bursts checked, fewer than the {} criterion timed",
            p.bursts_checked,
            p.timing.iterations
        );
        ensure!(p.message_size > 0, "{what}: message size is zero");
        match (variant.is_async(), p.polls_per_burst) {
            (true, Some(n)) if n >= 1 => {}
            (true, _) => bail!("{what}: an async variant must record its polls per burst"),
            (false, None) => {}
            (false, Some(_)) => bail!("{what}: a sync variant records no polls"),
        }
    }
    for variant in Variant::ALL {
        for carry in Carry::ALL {
            for bytes in PAYLOAD_SIZES {
                ensure!(
                    data.point(variant, carry, bytes).is_some(),
                    "experiment A lacks {} {} {bytes} B",
                    variant.id(),
                    carry.id()
                );
            }
        }
    }
    ensure!(
        data.memcpy.len() == PAYLOAD_SIZES.len(),
        "experiment A has {} memcpy floors, expected {}",
        data.memcpy.len(),
        PAYLOAD_SIZES.len()
    );
    for bytes in PAYLOAD_SIZES {
        let t = data
            .memcpy(bytes)
            .with_context(|| format!("experiment A lacks the memcpy floor at {bytes} B"))?;
        check_timing(&format!("memcpy floor {bytes} B"), t)?;
    }
    check_head_to_head(data)?;

    let b = &data.backpressure;
    ensure!(
        b.worker_threads > 0,
        "experiment B ran on zero worker threads"
    );
    ensure!(
        b.tasks == TASKS && b.bounds == BOUNDS,
        "experiment B grid {:?} x {:?} differs from {TASKS:?} x {BOUNDS:?}",
        b.tasks,
        b.bounds
    );
    ensure!(
        data.runs.len() == TASKS.len() * BOUNDS.len() * BP_CHANNELS.len(),
        "experiment B has {} runs, expected {}",
        data.runs.len(),
        TASKS.len() * BOUNDS.len() * BP_CHANNELS.len()
    );
    for tasks in TASKS {
        for bound in BOUNDS {
            for channel in BP_CHANNELS {
                let what = format!("experiment B {channel}, {tasks} tasks, bound {bound}");
                let r = data
                    .bp(channel, tasks, bound)
                    .with_context(|| format!("{what}: missing"))?;
                let total = (r.tasks * r.messages_per_task) as u64;
                ensure!(
                    total > 0 && r.received == total,
                    "{what}: received {} of {total} messages",
                    r.received
                );
                ensure!(r.wall_ns > 0, "{what}: wall time is zero");
                check_latencies(&format!("{what}, before send"), &r.before_send, r.received)?;
                check_latencies(
                    &format!("{what}, enqueue to dequeue"),
                    &r.enqueue_to_dequeue,
                    r.received,
                )?;
                ensure!(
                    r.dequeued_before_send_returned <= r.received,
                    "{what}: more early dequeues than messages"
                );
            }
        }
    }
    Ok(())
}

// ---------------------------------------------------------------- render helpers

fn runtime_a(d: &Data) -> String {
    format!(
        "sync channels on one thread; async channels in one task on a tokio {} runtime",
        d.sweep
            .runtime
            .split(' ')
            .next()
            .unwrap_or("current_thread")
    )
}

fn runtime_b(d: &Data) -> String {
    format!(
        "tokio {} runtime, {} worker threads",
        d.backpressure.runtime, d.backpressure.worker_threads
    )
}

fn with_ci(e: &Estimate) -> String {
    format!(
        "{} ±{:.1} %",
        nanos(e.point_ns),
        e.relative_half_width() * 100.0
    )
}

fn ratio_ci(e: &Estimate) -> String {
    format!(
        "{} ({}–{})",
        ratio(e.point_ns),
        sig3(e.lower_ns),
        sig3(e.upper_ns)
    )
}

fn size_label(bytes: usize) -> String {
    if bytes >= 1024 {
        format!("{} KiB", bytes / 1024)
    } else {
        format!("{bytes} B")
    }
}

fn machine_of(run: &Run<Data>) -> String {
    format!("{} ({})", run.machine(), run.arch())
}

fn is_x86_64(run: &Run<Data>) -> bool {
    run.arch() == "x86_64"
}

fn is_arm64(run: &Run<Data>) -> bool {
    run.arch() == "aarch64" || run.arch() == "arm64"
}

fn published_payload(book: &Book<Data>) -> Result<(Vec<PublishedPayload>, String)> {
    let ds = book.published("payload")?;
    Ok((ds.rows()?, ds.citation()))
}

fn published_bp(book: &Book<Data>) -> Result<(Vec<PublishedBackpressure>, String)> {
    let ds = book.published("backpressure")?;
    Ok((ds.rows()?, ds.citation()))
}

fn need<T>(v: Option<T>, what: impl FnOnce() -> String) -> Result<T> {
    v.with_context(what)
}

// ---------------------------------------------------------------- exhibits

fn parameters(book: &Book<Data>) -> Result<Vec<Block>> {
    let run = book.primary();
    let d = &run.data;
    let mut t = Table::new(
        format!(
            "Parameters per profile. Experiment A: {}. Experiment B: {} on {}.",
            runtime_a(d),
            runtime_b(d),
            machine_of(run)
        ),
        &["", "smoke", "quick", "full", "published"],
    )
    .left(&[1, 2, 3, 4]);
    let sampling = |p: Profile| {
        let s = sweep_sampling(p);
        format!(
            "{} × ({} samples, {} ms warm-up, {} ms measuring), interleaved",
            sweep_repeats(p),
            s.samples,
            s.warm_up.as_millis(),
            s.measurement.as_millis()
        )
    };
    t.push(vec![
        "A: one burst".into(),
        format!("{BURST} sends, then {BURST} receives, capacity {CAPACITY}"),
        "same".into(),
        "same".into(),
        "same".into(),
    ]);
    t.push(vec![
        "A: payload sizes".into(),
        PAYLOAD_SIZES.map(|b| b.to_string()).join(", ") + " B",
        "same".into(),
        "same".into(),
        "same".into(),
    ]);
    t.push(vec![
        "A: criterion per point".into(),
        sampling(Profile::Smoke),
        sampling(Profile::Quick),
        sampling(Profile::Full),
        book.published("payload")?.description,
    ]);
    let duel = |p: Profile| {
        format!(
            "{} windows × {} bursts of each channel, alternating",
            head_to_head_windows(p),
            head_to_head::PAIRS
        )
    };
    t.push(vec![
        "A: tokio against crossbeam, head to head".into(),
        duel(Profile::Smoke),
        duel(Profile::Quick),
        duel(Profile::Full),
        "–".into(),
    ]);
    let per_task = |p: Profile, tasks: usize| thousands((backpressure_messages(p) / tasks) as u64);
    let bp = book.published("backpressure")?;
    let bp_rows: Vec<PublishedBackpressure> = bp.rows()?;
    t.push(vec![
        "B: messages per point".into(),
        thousands(backpressure_messages(Profile::Smoke) as u64),
        thousands(backpressure_messages(Profile::Quick) as u64),
        thousands(backpressure_messages(Profile::Full) as u64),
        bp.description.clone(),
    ]);
    for tasks in TASKS {
        t.push(vec![
            format!("B: messages per task, {tasks} tasks"),
            per_task(Profile::Smoke, tasks),
            per_task(Profile::Quick, tasks),
            per_task(Profile::Full, tasks),
            "see above".into(),
        ]);
    }
    let published_grid = TASKS
        .iter()
        .map(|&tasks| {
            let bounds: Vec<String> = bp_rows
                .iter()
                .filter(|r| r.tasks == tasks)
                .map(|r| r.bound.to_string())
                .collect();
            let bounds = if bounds.is_empty() {
                "none".to_string()
            } else {
                bounds.join(", ")
            };
            format!("{tasks} tasks: {bounds}")
        })
        .collect::<Vec<_>>()
        .join("; ");
    t.push(vec![
        "B: tasks and bounds".into(),
        format!(
            "{} tasks x bounds {}",
            TASKS.map(|t| t.to_string()).join(", "),
            BOUNDS.map(|b| b.to_string()).join(", ")
        ),
        "same".into(),
        "same".into(),
        published_grid,
    ]);
    Ok(vec![Block::Table(t)])
}

fn sweep_table(run: &Run<Data>) -> Result<Vec<Block>> {
    let d = &run.data;
    let mut header: Vec<&str> = vec!["payload"];
    header.extend(Variant::ALL.iter().map(|v| v.label()));
    header.push("memcpy floor");
    let mut t = Table::new(
        format!(
            "Median time per burst of {BURST} sends and {BURST} receives of [u8; N], ± half-width of criterion's 95 % interval on the median, on {}. {}.",
            machine_of(run),
            runtime_a(d)
        ),
        &header,
    );
    for bytes in PAYLOAD_SIZES {
        let mut row = vec![size_label(bytes)];
        for v in Variant::ALL {
            let e = need(d.median(v, Carry::Array, bytes), || {
                format!("no {} point at {bytes} B", v.id())
            })?;
            row.push(with_ci(&e));
        }
        let m = need(d.memcpy(bytes), || format!("no memcpy floor at {bytes} B"))?;
        row.push(with_ci(&m.median));
        t.push(row);
    }
    Ok(vec![Block::Table(t)])
}

fn band(x: f64, e: &Estimate, scale: f64) -> Point {
    Point::with_band(
        x,
        e.point_ns / scale,
        e.lower_ns / scale,
        e.upper_ns / scale,
    )
}

fn sweep_figure(book: &Book<Data>) -> Result<Vec<Block>> {
    let run = book.primary();
    let d = &run.data;
    let shown = [
        Variant::TokioMpsc,
        Variant::Crossbeam,
        Variant::KanalAsync,
        Variant::StdSyncChannel,
        Variant::VecFloor,
    ];
    let mut series = Vec::new();
    for v in shown {
        let points = PAYLOAD_SIZES
            .iter()
            .filter_map(|&b| {
                d.median(v, Carry::Array, b)
                    .map(|e| band(b as f64, &e, 1e3))
            })
            .collect();
        series.push(Series::measured(v.label(), points));
    }
    series.push(Series::measured(
        "memcpy floor",
        d.memcpy
            .iter()
            .map(|m| band(m.bytes as f64, &m.timing.median, 1e3))
            .collect(),
    ));
    let (rows, citation) = published_payload(book)?;
    series.push(Series::published(
        "tokio mpsc, published (x86-64)",
        rows.iter()
            .map(|r| Point::new(r.payload_bytes as f64, r.tokio_x86_64_us))
            .collect(),
    ));
    series.push(Series::published(
        "crossbeam, published (x86-64)",
        rows.iter()
            .map(|r| Point::new(r.payload_bytes as f64, r.crossbeam_x86_64_us))
            .collect(),
    ));
    Ok(vec![Block::Figure(Figure {
        id: "latency-sweep".into(),
        title: "Time per burst vs payload size".into(),
        caption: format!(
            "Median time per burst ({BURST} sends, then {BURST} receives of [u8; N], capacity {CAPACITY}) on {}; bands are criterion's 95 % intervals on the median. {}. Dashed: published x86-64 numbers from {citation}.",
            machine_of(run),
            runtime_a(d)
        ),
        x: Axis::log("payload (bytes)"),
        y: Axis::log("µs per burst"),
        series,
    })])
}

fn copy_vs_coordination(run: &Run<Data>) -> Result<Vec<Block>> {
    let d = &run.data;
    let mut t = Table::new(
        format!(
            "The same bursts with the payload by value ([u8; N]) and boxed (Box<[u8; N]>, only a pointer moves), median per burst with each channel timed alone by the sweep, and the ratios of those medians, on {}. {}. The last column is the share of tokio's by-value time that a plain Vec burst also spends (building, storing and reading the messages).",
            machine_of(run),
            runtime_a(d)
        ),
        &[
            "payload",
            "tokio [u8; N]",
            "tokio Box",
            "crossbeam [u8; N]",
            "crossbeam Box",
            "tokio/crossbeam [u8; N]",
            "tokio/crossbeam Box",
            "Vec floor [u8; N]",
            "floor / tokio",
        ],
    );
    for bytes in PAYLOAD_SIZES {
        let get = |v: Variant, c: Carry| {
            need(d.median(v, c, bytes), || {
                format!("no {} {} point at {bytes} B", v.id(), c.id())
            })
        };
        let ta = get(Variant::TokioMpsc, Carry::Array)?;
        let tb = get(Variant::TokioMpsc, Carry::Boxed)?;
        let ca = get(Variant::Crossbeam, Carry::Array)?;
        let cb = get(Variant::Crossbeam, Carry::Boxed)?;
        let floor = get(Variant::VecFloor, Carry::Array)?;
        t.push(vec![
            size_label(bytes),
            nanos(ta.point_ns),
            nanos(tb.point_ns),
            nanos(ca.point_ns),
            nanos(cb.point_ns),
            ratio_ci(&need(d.alone_ratio(Carry::Array, bytes), || {
                format!("no array ratio at {bytes} B")
            })?),
            ratio_ci(&need(d.alone_ratio(Carry::Boxed, bytes), || {
                format!("no boxed ratio at {bytes} B")
            })?),
            nanos(floor.point_ns),
            format!("{:.0} %", floor.point_ns / ta.point_ns * 100.0),
        ]);
    }
    Ok(vec![Block::Table(t)])
}

fn polls(book: &Book<Data>) -> Result<Vec<Block>> {
    let mut out = Vec::new();
    for run in &book.runs {
        let d = &run.data;
        let counts = |v: Variant| -> BTreeSet<u64> {
            d.points
                .iter()
                .filter(|p| p.variant == v.id())
                .filter_map(|p| p.polls_per_burst)
                .collect()
        };
        let show = |s: BTreeSet<u64>| {
            if s.len() == 1 && s.contains(&1) {
                return "once".to_string();
            }
            let counts = s.iter().map(|n| thousands(*n)).collect::<Vec<_>>();
            format!("{} times", counts.join(" or "))
        };
        let tokio = counts(Variant::TokioMpsc);
        let kanal = counts(Variant::KanalAsync);
        let ops = 2 * BURST as u64;
        let per_yield = tokio
            .iter()
            .next()
            .filter(|&&n| n > 1)
            .map(|&n| format!("about one forced yield every {} operations", ops / (n - 1)))
            .unwrap_or_else(|| "no forced yield".into());
        out.push(Block::Text(format!(
            "On {}, one burst ({} sends and {} receives, every one able to complete at once) was polled {} by the current-thread runtime with tokio mpsc ({per_yield}), and {} with kanal's async channel, over all payload sizes and both payload kinds. Pointer width: {} bits.",
            machine_of(run),
            thousands(BURST as u64),
            thousands(BURST as u64),
            show(tokio),
            show(kanal),
            d.sweep.pointer_width_bits
        )));
    }
    Ok(out)
}

fn ratio_figure(book: &Book<Data>) -> Result<Vec<Block>> {
    let mut series = Vec::new();
    for run in &book.runs {
        let points = PAYLOAD_SIZES
            .iter()
            .filter_map(|&b| {
                run.data
                    .tokio_over_crossbeam(b)
                    .map(|e| band(b as f64, &e, 1.0))
            })
            .collect();
        series.push(Series::measured(machine_of(run), points));
    }
    let (rows, citation) = published_payload(book)?;
    series.push(Series::published(
        "published x86-64 (Ryzen 9 9900X)",
        rows.iter()
            .map(|r| {
                Point::new(
                    r.payload_bytes as f64,
                    r.tokio_x86_64_us / r.crossbeam_x86_64_us,
                )
            })
            .collect(),
    ));
    series.push(Series::published(
        "published arm64 (Ampere A1)",
        rows.iter()
            .map(|r| {
                Point::new(
                    r.payload_bytes as f64,
                    r.tokio_arm64_us / r.crossbeam_arm64_us,
                )
            })
            .collect(),
    ));
    let runtime = runtime_a(&book.primary().data);
    Ok(vec![Block::Figure(Figure {
        id: "latency-ratio".into(),
        title: "tokio mpsc time / crossbeam time, per machine".into(),
        caption: format!(
            "Ratio of burst times, [u8; N] payload; solid lines are this book's machines, timed head to head where the file has it, with bootstrapped 95 % bands, dashed lines the published machines ({citation}). {runtime}. Above the line at 1, tokio is slower."
        ),
        x: Axis::log("payload (bytes)"),
        y: Axis::linear("tokio / crossbeam"),
        series,
    })])
}

fn ratio_table(book: &Book<Data>) -> Result<Vec<Block>> {
    let (rows, citation) = published_payload(book)?;
    let mut header = vec![
        "payload".to_string(),
        "published x86-64".into(),
        "published arm64".into(),
    ];
    header.extend(book.runs.iter().map(|run| {
        let how = if run.data.head_to_head.is_empty() {
            "timed alone"
        } else {
            "head to head"
        };
        format!("{}, {how}", machine_of(run))
    }));
    let primary = book.primary();
    header.push(format!("{}, timed alone", machine_of(primary)));
    let header_ref: Vec<&str> = header.iter().map(String::as_str).collect();
    let mut t = Table::new(
        format!(
            "tokio/crossbeam ratio of burst times, [u8; N], with the 95 % interval in brackets. Head to head: the two channels' bursts alternate in one loop, and the cell is the geometric mean over windows of each window's ratio of medians, its interval drawn by windows; the verdicts rest on it. Timed alone: the sweep's ratio of each channel's median, its interval bootstrapped from both points' samples (a file made before the head-to-head timing has only this). Published ratios are computed from {citation}. {}.",
            runtime_a(&primary.data)
        ),
        &header_ref,
    );
    for bytes in PAYLOAD_SIZES {
        let published = rows.iter().find(|r| r.payload_bytes == bytes);
        let mut row = vec![
            size_label(bytes),
            published.map_or("–".into(), |r| {
                ratio(r.tokio_x86_64_us / r.crossbeam_x86_64_us)
            }),
            published.map_or("–".into(), |r| {
                ratio(r.tokio_arm64_us / r.crossbeam_arm64_us)
            }),
        ];
        for run in &book.runs {
            row.push(
                run.data
                    .tokio_over_crossbeam(bytes)
                    .map_or("–".into(), |e| ratio_ci(&e)),
            );
        }
        row.push(
            primary
                .data
                .alone_ratio(Carry::Array, bytes)
                .map_or("–".into(), |e| ratio_ci(&e)),
        );
        t.push(row);
    }
    Ok(vec![Block::Table(t)])
}

fn backpressure_table(book: &Book<Data>) -> Result<Vec<Block>> {
    let run = book.primary();
    let d = &run.data;
    let (published, citation) = published_bp(book)?;
    let mut t = Table::new(
        format!(
            "Latency per message under back-pressure on {}, {}. \"Before send\" is the published method (stamped before send().await, so it includes waiting for room); \"in queue\" runs from the completed send to the dequeue; a message the receiver took before its producer's send().await returned counts as 1 ns in the queue (last column: how many). {} messages per point. Published means from {citation}.",
            machine_of(run),
            runtime_b(d),
            thousands(d.backpressure.messages_per_point as u64)
        ),
        &[
            "tasks",
            "bound",
            "channel",
            "published mean",
            "before send: mean",
            "p50",
            "p99",
            "p99.9",
            "max",
            "in queue: mean",
            "p50",
            "p99",
            "taken before send returned",
        ],
    )
    .left(&[2]);
    for tasks in TASKS {
        for bound in BOUNDS {
            for channel in BP_CHANNELS {
                let r = need(d.bp(channel, tasks, bound), || {
                    format!("no {channel} run at {tasks} tasks, bound {bound}")
                })?;
                let p = published
                    .iter()
                    .find(|p| p.tasks == tasks && p.bound == bound)
                    .map_or("–".into(), |p| {
                        nanos(if channel == "tokio" {
                            p.tokio_mean_ns
                        } else {
                            p.kanal_mean_ns
                        })
                    });
                let (b, q) = (&r.before_send, &r.enqueue_to_dequeue);
                t.push(vec![
                    tasks.to_string(),
                    bound.to_string(),
                    channel.to_string(),
                    p,
                    nanos(b.mean_ns),
                    nanos(b.p50_ns as f64),
                    nanos(b.p99_ns as f64),
                    nanos(b.p999_ns as f64),
                    nanos(b.max_ns as f64),
                    nanos(q.mean_ns),
                    nanos(q.p50_ns as f64),
                    nanos(q.p99_ns as f64),
                    format!(
                        "{:.1} %",
                        r.dequeued_before_send_returned as f64 / r.received as f64 * 100.0
                    ),
                ]);
            }
        }
    }
    Ok(vec![Block::Table(t)])
}

fn backpressure_figure(book: &Book<Data>) -> Result<Vec<Block>> {
    let run = book.primary();
    let d = &run.data;
    let tasks = TASKS[0];
    let mut series = Vec::new();
    for (label, pick) in [
        (
            "before send",
            (|r: &backpressure::Run| r.before_send) as fn(&backpressure::Run) -> Latencies,
        ),
        ("in queue", |r: &backpressure::Run| r.enqueue_to_dequeue),
    ] {
        for channel in BP_CHANNELS {
            let points = BOUNDS
                .iter()
                .filter_map(|&bound| d.bp(channel, tasks, bound))
                .map(|r| {
                    let l = pick(r);
                    Point::with_band(
                        r.bound as f64,
                        l.mean_ns / 1e3,
                        l.p50_ns as f64 / 1e3,
                        l.p99_ns as f64 / 1e3,
                    )
                })
                .collect();
            series.push(Series::measured(format!("{channel}, {label}"), points));
        }
    }
    let (published, citation) = published_bp(book)?;
    let at = |f: fn(&PublishedBackpressure) -> f64| -> Vec<Point> {
        published
            .iter()
            .filter(|p| p.tasks == tasks)
            .map(|p| Point::new(p.bound as f64, f(p) / 1e3))
            .collect()
    };
    series.push(Series::published(
        "tokio, published (before send)",
        at(|p| p.tokio_mean_ns),
    ));
    series.push(Series::published(
        "kanal-async, published (before send)",
        at(|p| p.kanal_mean_ns),
    ));
    Ok(vec![Block::Figure(Figure {
        id: "latency-backpressure".into(),
        title: format!("Mean latency vs channel bound, {tasks} producer tasks"),
        caption: format!(
            "Mean latency per message with {tasks} producer tasks on {}, {}; bands run from p50 to p99. \"Before send\" is the published method, \"in queue\" starts when the send completed. Dashed: published means ({citation}).",
            machine_of(run),
            runtime_b(d)
        ),
        x: Axis::log("channel bound"),
        y: Axis::log("µs per message"),
        series,
    })])
}

fn littles_law(book: &Book<Data>) -> Result<Vec<Block>> {
    let run = book.primary();
    let d = &run.data;
    let (published, citation) = published_bp(book)?;
    let mut t = Table::new(
        format!(
            "Little's law on the published method: the average number of stamped, not yet received messages equals throughput x mean latency. \
             At most tasks + bound can exist (every producer holds one stamped message, waiting or queued, and the queue is full). \
             Measured on {}, {}. The last two columns divide the published means by tasks + bound ({citation}): if they stay flat across settings, the published latency was that queue length times a fixed per-message time.",
            machine_of(run),
            runtime_b(d)
        ),
        &[
            "tasks",
            "bound",
            "channel",
            "throughput",
            "mean (before send)",
            "in flight = throughput x mean",
            "tasks + bound",
            "published tokio / (tasks + bound)",
            "published kanal / (tasks + bound)",
        ],
    )
    .left(&[2]);
    for tasks in TASKS {
        for bound in BOUNDS {
            for channel in BP_CHANNELS {
                let r = need(d.bp(channel, tasks, bound), || {
                    format!("no {channel} run at {tasks} tasks, bound {bound}")
                })?;
                let in_flight = (tasks + bound) as f64;
                let p = published
                    .iter()
                    .find(|p| p.tasks == tasks && p.bound == bound);
                t.push(vec![
                    tasks.to_string(),
                    bound.to_string(),
                    channel.to_string(),
                    format!("{} msg/s", thousands(r.throughput().round() as u64)),
                    nanos(r.before_send.mean_ns),
                    sig3(r.throughput() * r.before_send.mean_ns / 1e9),
                    thousands((tasks + bound) as u64),
                    p.map_or("–".into(), |p| nanos(p.tokio_mean_ns / in_flight)),
                    p.map_or("–".into(), |p| nanos(p.kanal_mean_ns / in_flight)),
                ]);
            }
        }
    }
    Ok(vec![Block::Table(t)])
}

fn sampling(book: &Book<Data>) -> Result<Vec<Block>> {
    let mut t = Table::new(
        format!(
            "What each results file's sampling bought in experiment A: the half-width of criterion's 95 % interval on the median, relative to the median, over all {} points; and the whole run's wall time. The published run: {}.",
            PAYLOAD_SIZES.len() * (Variant::ALL.len() * Carry::ALL.len() + 1),
            book.published("payload")?.description
        ),
        &[
            "machine",
            "profile",
            "criterion per point",
            "median half-width",
            "90th percentile",
            "widest",
            "wall time (A and B)",
        ],
    )
    .left(&[0, 1, 2]);
    for run in &book.runs {
        let d = &run.data;
        let mut widths: Vec<f64> = d
            .points
            .iter()
            .map(|p| p.timing.median.relative_half_width())
            .chain(
                d.memcpy
                    .iter()
                    .map(|m| m.timing.median.relative_half_width()),
            )
            .collect();
        widths.sort_by(f64::total_cmp);
        let at = |q: f64| widths[((widths.len() - 1) as f64 * q).round() as usize] * 100.0;
        t.push(vec![
            machine_of(run),
            run.provenance.profile.to_string(),
            format!(
                "{} × ({} samples, {} ms warm-up, {} ms measuring)",
                d.sweep.repeats, d.sweep.samples, d.sweep.warm_up_ms, d.sweep.measurement_ms
            ),
            format!("±{:.1} %", at(0.5)),
            format!("±{:.1} %", at(0.9)),
            format!("±{:.1} %", at(1.0)),
            format!("{:.0} s", run.provenance.wall_time_s),
        ]);
    }
    Ok(vec![Block::Table(t)])
}

// ---------------------------------------------------------------- verdicts

fn claim(id: &str) -> &'static Claim {
    CLAIMS
        .iter()
        .find(|c| c.id == id)
        .expect("claim is defined")
}

fn ratio_or_err(run: &Run<Data>, bytes: usize) -> Result<Estimate> {
    run.data
        .tokio_over_crossbeam(bytes)
        .with_context(|| format!("{}: no tokio/crossbeam ratio at {bytes} B", run.machine()))
}

/// Holds when the whole interval lies in `lo..=hi`, does not hold when it
/// lies wholly outside, and is inconclusive when it straddles a bound.
fn in_range(e: &Estimate, lo: f64, hi: f64) -> Outcome {
    match e.within(lo, hi) {
        Some(true) => Outcome::Holds,
        Some(false) => Outcome::DoesNotHold,
        None => Outcome::Inconclusive,
    }
}

/// The weaker of two outcomes: a claim made of two parts holds only if both do.
fn both(a: Outcome, b: Outcome) -> Outcome {
    Outcome::all_of(&[a, b])
}

fn lat1(run: &Run<Data>) -> Result<Verdict> {
    let (a, b) = (ratio_or_err(run, 1024)?, ratio_or_err(run, 4096)?);
    Ok(Verdict::new(
        claim("LAT-1"),
        run.machine(),
        both(in_range(&a, 0.9, 1.1), in_range(&b, 0.9, 1.1)),
        format!(
            "ratio {} at 1 KiB and {} at 4 KiB",
            ratio_ci(&a),
            ratio_ci(&b)
        ),
    ))
}

fn lat2(run: &Run<Data>) -> Result<Verdict> {
    let ratios = PAYLOAD_SIZES
        .iter()
        .map(|&b| Ok((b, ratio_or_err(run, b)?)))
        .collect::<Result<Vec<_>>>()?;
    let (top_bytes, top) = ratios
        .iter()
        .max_by(|a, b| a.1.point_ns.total_cmp(&b.1.point_ns))
        .copied()
        .expect("eight sizes");
    let at8 = ratios[0].1;
    let clearly_larger = ratios[1..].iter().any(|(_, r)| r.lower_ns > at8.upper_ns);
    let clearly_largest = ratios[1..].iter().all(|(_, r)| at8.lower_ns > r.upper_ns);
    let outcome = if clearly_largest && at8.lower_ns >= 1.5 {
        Outcome::Holds
    } else if clearly_larger || at8.upper_ns < 1.5 {
        Outcome::DoesNotHold
    } else {
        Outcome::Inconclusive
    };
    Ok(Verdict::new(
        claim("LAT-2"),
        run.machine(),
        outcome,
        format!(
            "ratio {} at 8 B; largest {} at {}",
            ratio_ci(&at8),
            ratio_ci(&top),
            size_label(top_bytes)
        ),
    ))
}

fn lat3(run: &Run<Data>) -> Result<Verdict> {
    let r = ratio_or_err(run, 32768)?;
    Ok(Verdict::new(
        claim("LAT-3"),
        run.machine(),
        in_range(&r, 1.15, 1.45),
        format!("ratio {} at 32 KiB ({})", ratio_ci(&r), run.arch()),
    ))
}

fn lat4(run: &Run<Data>) -> Result<Verdict> {
    let ratios = PAYLOAD_SIZES
        .iter()
        .map(|&b| Ok((b, ratio_or_err(run, b)?)))
        .collect::<Result<Vec<_>>>()?;
    let (b, r) = ratios
        .iter()
        .min_by(|x, y| x.1.lower_ns.total_cmp(&y.1.lower_ns))
        .copied()
        .expect("eight sizes");
    let outcome = if r.lower_ns > 1.0 {
        Outcome::Holds
    } else if ratios.iter().any(|(_, e)| e.upper_ns < 1.0) {
        Outcome::DoesNotHold
    } else {
        Outcome::Inconclusive
    };
    Ok(Verdict::new(
        claim("LAT-4"),
        run.machine(),
        outcome,
        format!("lowest interval {} at {}", ratio_ci(&r), size_label(b)),
    ))
}

fn bp_mean(run: &Run<Data>, channel: &str, tasks: usize, bound: usize) -> Result<f64> {
    Ok(run
        .data
        .bp(channel, tasks, bound)
        .with_context(|| {
            format!(
                "{}: no {channel} run at {tasks} tasks, bound {bound}",
                run.machine()
            )
        })?
        .before_send
        .mean_ns)
}

fn lat5(run: &Run<Data>) -> Result<Verdict> {
    let mut rel = Vec::new();
    for tasks in TASKS {
        for bound in BOUNDS {
            let k = bp_mean(run, "kanal-async", tasks, bound)?;
            let t = bp_mean(run, "tokio", tasks, bound)?;
            rel.push((tasks, bound, k / t));
        }
    }
    let outcome = if rel.iter().all(|r| r.2 <= 0.95) {
        Outcome::Holds
    } else if rel.iter().any(|r| r.2 >= 1.05) {
        Outcome::DoesNotHold
    } else {
        Outcome::Inconclusive
    };
    let lo = rel.iter().min_by(|a, b| a.2.total_cmp(&b.2)).expect("grid");
    let hi = rel.iter().max_by(|a, b| a.2.total_cmp(&b.2)).expect("grid");
    Ok(Verdict::new(
        claim("LAT-5"),
        run.machine(),
        outcome,
        format!(
            "kanal's mean is {} % of tokio's ({} tasks, bound {}) to {} % ({} tasks, bound {})",
            sig3(lo.2 * 100.0),
            lo.0,
            lo.1,
            sig3(hi.2 * 100.0),
            hi.0,
            hi.1
        ),
    ))
}

fn lat6(run: &Run<Data>) -> Result<Verdict> {
    let mut failures = Vec::new();
    let mut steps = Vec::new();
    for channel in BP_CHANNELS {
        for tasks in TASKS {
            let means = BOUNDS
                .iter()
                .map(|&b| bp_mean(run, channel, tasks, b))
                .collect::<Result<Vec<_>>>()?;
            let growth: Vec<f64> = means.windows(2).map(|w| w[1] / w[0]).collect();
            steps.extend(growth.iter().copied());
            if growth.iter().any(|g| *g <= 1.05) {
                failures.push(format!(
                    "{channel} at {tasks} tasks: {}",
                    means
                        .iter()
                        .map(|m| nanos(*m))
                        .collect::<Vec<_>>()
                        .join(" → ")
                ));
            }
        }
    }
    let smallest = steps.iter().copied().fold(f64::INFINITY, f64::min);
    let evidence = if failures.is_empty() {
        format!(
            "every step of the bound raises the mean, by at least {}; queueing, see the Little's law table",
            ratio(smallest)
        )
    } else {
        format!("no clear rise for {}", failures.join("; "))
    };
    Ok(Verdict::new(
        claim("LAT-6"),
        run.machine(),
        Outcome::from_bool(failures.is_empty()),
        evidence,
    ))
}

/// One verdict per claim and machine that can decide it; "not measured" where none can.
pub fn verdicts(book: &Book<Data>) -> Result<Vec<Verdict>> {
    let mut out = Vec::new();
    let x86: Vec<_> = book.runs.iter().filter(|r| is_x86_64(r)).collect();
    let arm: Vec<_> = book.runs.iter().filter(|r| is_arm64(r)).collect();
    for (id, f) in [
        ("LAT-1", lat1 as fn(&Run<Data>) -> Result<Verdict>),
        ("LAT-2", lat2),
    ] {
        if x86.is_empty() {
            out.push(Verdict::not_measured(claim(id), "no x86-64 results yet"));
        }
        for run in &x86 {
            out.push(f(run)?);
        }
    }
    for run in &book.runs {
        out.push(lat3(run)?);
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
        out.push(Verdict::not_measured(
            claim("LAT-4"),
            "no arm64 results yet (run the measure-latency workflow and import its file)",
        ));
    }
    for run in &arm {
        out.push(lat4(run)?);
    }
    for run in &book.runs {
        out.push(lat5(run)?);
    }
    for run in &book.runs {
        out.push(lat6(run)?);
    }
    Ok(out)
}
