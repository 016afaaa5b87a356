//! The chapter as the book sees it: claims as data, the sweep, the checks on
//! stored results, and the exhibits rendered from them.
use std::collections::{BTreeMap, BTreeSet};

use anyhow::{anyhow, bail, ensure, Result};
use harness::fmt::{nanos, ratio, sig3};
use harness::timing::{self, Estimate, Statistic, Timing};
use harness::{
    Axis, Block, Book, Chapter, Claim, Exhibit, ExhibitKind, Figure, Outcome, Point, Profile,
    Progress, Run, Series, Table, Verdict,
};
use serde::{Deserialize, Serialize};

use crate::experiment::{plan, time_point, worker_threads, Measured, Rig, FREE_DESIGNS};
use crate::placement::{Pins, Placement};
use crate::sink::SinkKind;
use crate::{Design, BOUNDED_CAPACITY, CHUNK_BYTES, PER_WORKER, RECV_MANY_LIMIT};

pub struct FanIn;

/// Everything one run measured, with the parameters it ran under.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct FanInData {
    pub runtime_flavor: String,
    pub worker_threads: usize,
    pub per_worker: usize,
    pub bounded_capacity: usize,
    pub recv_many_limit: usize,
    pub chunk_bytes: usize,
    pub workers: Vec<usize>,
    /// Passes over the sweep pooled into each point (see `Plan::passes`);
    /// files from before passes hold one.
    #[serde(default = "one_pass")]
    pub passes: usize,
    /// Short passes after each pass over the points FAN-1 and FAN-2 are
    /// decided on (`Plan::decisive_extra`); 0 in files from before them.
    #[serde(default)]
    pub decisive_extra: usize,
    /// Criterion samples per point and pass (heavy points excepted).
    pub samples_per_point: usize,
    pub points: Vec<Measured>,
    /// Where the threads of `points` ran (see `placement`); files from
    /// before the chapter pinned them ran free.
    #[serde(default = "free_placement")]
    pub placement: Placement,
    /// The free-placement control: a few worker counts measured again with
    /// the scheduler choosing (TCP sink, `FREE_DESIGNS`). Empty where the
    /// main sweep itself ran free.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub free_points: Vec<Measured>,
}

fn one_pass() -> usize {
    1
}

fn free_placement() -> Placement {
    Placement::Free
}

impl FanInData {
    pub fn get(&self, sink: SinkKind, design: Design, workers: usize) -> Option<&Measured> {
        self.points
            .iter()
            .find(|m| m.sink == sink && m.design == design && m.workers == workers)
    }

    fn tcp(&self, design: Design, workers: usize) -> Result<&Measured> {
        self.get(SinkKind::Tcp, design, workers)
            .ok_or_else(|| anyhow!("no TCP result for {} at {workers} workers", design.id()))
    }

    /// "multi-thread runtime, 2 worker threads": every caption states it.
    pub fn runtime(&self) -> String {
        format!(
            "tokio {} runtime, {} worker threads",
            self.runtime_flavor, self.worker_threads
        )
    }
}

/// The published burst times, one row per worker count (microseconds).
#[derive(Clone, Debug, Deserialize)]
struct PublishedRow {
    workers: usize,
    std_mutex_us: f64,
    tokio_mpsc_us: f64,
    tokio_mutex_us: f64,
}

/// Messages each worker sent in the published bench (`SAMPLE_SIZE` in its
/// benches/bench.rs); the dataset stores times only.
const PUBLISHED_PER_WORKER: f64 = 1000.0;

const SOURCE: &str =
    "[the post accompanying buffered-mpsc](https://github.com/JuxhinDB/buffered-mpsc)";

// ANCHOR: claims
const CLAIMS: &[Claim] = &[
    Claim {
        id: "FAN-1",
        statement:
            "With very few workers, the std::sync::Mutex swap is slower than the mpsc design.",
        source: SOURCE,
        rule: "Over the TCP sink at the fewest workers measured, the std Mutex swap's median \
               burst time is above mpsc unbounded's, with the 95 % intervals apart \
               (overlapping intervals: inconclusive).",
    },
    Claim {
        id: "FAN-2",
        statement: "As workers grow, the std::sync::Mutex swap soon beats mpsc, by a wide margin \
                    at thousands of workers.",
        source: SOURCE,
        rule: "Over the TCP sink, the std Mutex swap is faster than mpsc unbounded, intervals \
               apart, at every measured worker count from 8 up, and mpsc ÷ swap (medians, 95 % \
               interval bootstrapped from both designs' samples) is at least 10× at the largest count \
               (which must be in the thousands). Does not hold if the swap is slower, intervals \
               apart, at one of these counts or the ratio's interval lies wholly below 10×; \
               inconclusive if intervals overlap or the ratio's interval straddles 10×.",
    },
    Claim {
        id: "FAN-3",
        statement:
            "Using tokio::sync::Mutex for the swap is roughly 25x slower than std::sync::Mutex.",
        source: SOURCE,
        rule: "Over the TCP sink, the geometric mean across worker counts of tokio swap ÷ std \
               swap (medians; its 95 % interval bootstrapped by \
               resampling every count's timings at once) lies within a factor 2 of 25× (12.5× to 50×). Does not \
               hold if the bounds lie wholly outside that range; inconclusive if they straddle \
               an end of it.",
    },
    Claim {
        id: "FAN-4",
        statement: "Swapping the buffer drains many messages per pass, which is why it wins \
                    (batching).",
        source: SOURCE,
        rule: "At the largest worker count over the TCP sink, the std Mutex swap hands the socket \
               at least 16 messages per write call, beats mpsc unbounded with the intervals \
               apart, and mpsc with recv_many (a channel that also writes in batches) removes at \
               least 90 % of the time by which mpsc unbounded trails the swap (medians; the \
               share's bounds are its extremes over the three 95 % intervals). Does not hold if \
               fewer messages per call, if mpsc unbounded is faster with the intervals apart, or \
               if the share's bounds lie wholly below 90 %; inconclusive if the swap's and mpsc's \
               intervals overlap or the share's bounds straddle 90 %.",
    },
];
// ANCHOR_END: claims

/// Colours follow the order of the series: the published rows come last and
/// land on the colour of the design they measured (the palette has seven).
const FIGURE_ORDER: [Design; 7] = [
    Design::MpscUnbounded,
    Design::StdMutexSwap,
    Design::TokioMutexSwap,
    Design::MpscBounded,
    Design::MpscRecvMany,
    Design::WorkerChunks,
    Design::Floor,
];

impl Chapter for FanIn {
    type Data = FanInData;

    const NAME: &'static str = "fan-in";
    const MEASURED_CRATES: &'static [&'static str] = &["tokio"];
    const EXHIBITS: &'static [Exhibit] = &[
        Exhibit {
            name: "parameters",
            kind: ExhibitKind::Table,
            about: "runtime, message counts, capacities and the sweep of each profile",
        },
        Exhibit {
            name: "burst-figure",
            kind: ExhibitKind::Figure,
            about: "log-log: workers vs time per burst over TCP, every design, published dashed",
        },
        Exhibit {
            name: "delta-table",
            kind: ExhibitKind::Table,
            about: "std swap vs mpsc: published times and delta beside measured ones",
        },
        Exhibit {
            name: "designs-table",
            kind: ExhibitKind::Table,
            about: "time per burst over TCP, every design and worker count, with intervals",
        },
        Exhibit {
            name: "split-table",
            kind: ExhibitKind::Table,
            about: "channel vs socket: in-memory and TCP times at the largest worker count",
        },
        Exhibit {
            name: "memory-figure",
            kind: ExhibitKind::Figure,
            about: "log-log: workers vs time per burst into the in-memory sink",
        },
        Exhibit {
            name: "own-design",
            kind: ExhibitKind::Table,
            about: "the book's design against the std swap and the floor",
        },
        Exhibit {
            name: "placement-table",
            kind: ExhibitKind::Table,
            about: "pinned against free thread placement at a few worker counts, with each \
                    placement's spread between passes",
        },
        Exhibit {
            name: "verdicts",
            kind: ExhibitKind::Verdicts,
            about: "FAN-1..FAN-4",
        },
    ];
    const CLAIMS: &'static [Claim] = CLAIMS;

    fn measure(profile: Profile, progress: &Progress) -> Result<FanInData> {
        let mut plan = plan(profile);
        let placement = if Pins::for_this_thread().is_some() {
            Placement::Pinned
        } else {
            // Nothing to contrast the control with.
            progress.note("this OS cannot pin threads: every point runs with free placement");
            plan.free_workers.clear();
            Placement::Free
        };
        let scratch = tempfile::tempdir()?;
        progress.set_total(plan.timings(SinkKind::ALL.len()) as u64);
        let mut passes: BTreeMap<(SinkKind, Design, usize), Vec<Measured>> = BTreeMap::new();
        let mut free_passes: BTreeMap<(Design, usize), Vec<Measured>> = BTreeMap::new();
        // One timing of one point in one pass, announced as a step; `None`
        // for the heavy points a later pass skips.
        // `short` numbers a short pass after pass `pass` (from 1), 0 for the
        // full pass itself.
        let time = |rig: &mut Rig,
                    pass: usize,
                    short: usize,
                    (design, kind, workers): (Design, SinkKind, usize)| {
            if !plan.measures_in(pass, design, workers) {
                return Ok(None);
            }
            progress.step(format!(
                "pass {}/{}{}, {}{}, {workers} workers, {}",
                pass + 1,
                plan.passes,
                if short == 0 {
                    String::new()
                } else {
                    format!(", short pass {short}/{}", plan.decisive_extra)
                },
                match rig.placement() {
                    Placement::Free if placement == Placement::Pinned => "free placement, ",
                    _ => "",
                },
                kind.label(),
                design.label()
            ));
            let sampling = plan.sampling_for(design, workers);
            // A criterion id of its own for every timing of the run.
            let id = pass * (plan.decisive_extra + 1) + short;
            time_point(rig, scratch.path(), sampling, (design, kind, workers), id).map(Some)
        };
        for pass in 0..plan.passes {
            // A fresh runtime, socket and sink thread each pass.
            let mut rig = Rig::new(placement)?;
            ensure!(
                rig.placement() == placement,
                "pass {}: the rig's threads could not be pinned",
                pass + 1
            );
            for kind in SinkKind::ALL {
                for &workers in &plan.workers {
                    // Designs alternate at each worker count, so a burst of
                    // background load smears over all of them rather than one.
                    for design in Design::ALL {
                        if let Some(m) = time(&mut rig, pass, 0, (design, kind, workers))? {
                            passes.entry((kind, design, workers)).or_default().push(m);
                        }
                    }
                }
            }
            rig.finish()?;
            for short in 1..=plan.decisive_extra {
                let mut rig = Rig::new(placement)?;
                ensure!(
                    rig.placement() == placement,
                    "pass {}, short pass {short}: the rig's threads could not be pinned",
                    pass + 1
                );
                for (design, kind, workers) in plan.decisive_points() {
                    if let Some(m) = time(&mut rig, pass, short, (design, kind, workers))? {
                        passes.entry((kind, design, workers)).or_default().push(m);
                    }
                }
                rig.finish()?;
            }
            if plan.free_workers.is_empty() {
                continue;
            }
            let mut rig = Rig::new(Placement::Free)?;
            for &workers in &plan.free_workers {
                for design in FREE_DESIGNS {
                    if let Some(m) = time(&mut rig, pass, 0, (design, SinkKind::Tcp, workers))? {
                        free_passes.entry((design, workers)).or_default().push(m);
                    }
                }
            }
            rig.finish()?;
        }
        let mut free_points = Vec::new();
        for &workers in &plan.free_workers {
            for design in FREE_DESIGNS {
                if let Some(parts) = free_passes.remove(&(design, workers)) {
                    free_points.push(Measured::pooled(parts)?);
                }
            }
        }
        // In the sweep's order: sink, then workers, then design.
        let mut points = Vec::new();
        for kind in SinkKind::ALL {
            for &workers in &plan.workers {
                for design in Design::ALL {
                    if let Some(parts) = passes.remove(&(kind, design, workers)) {
                        points.push(Measured::pooled(parts)?);
                    }
                }
            }
        }
        Ok(FanInData {
            runtime_flavor: "multi-thread".into(),
            worker_threads: worker_threads(),
            per_worker: PER_WORKER,
            bounded_capacity: BOUNDED_CAPACITY,
            recv_many_limit: RECV_MANY_LIMIT,
            chunk_bytes: CHUNK_BYTES,
            workers: plan.workers,
            passes: plan.passes,
            decisive_extra: plan.decisive_extra,
            samples_per_point: plan.sampling.samples,
            points,
            placement,
            free_points,
        })
    }

    fn check(data: &FanInData) -> Result<()> {
        ensure!(data.worker_threads > 0, "worker_threads is zero");
        ensure!(data.per_worker > 0, "per_worker is zero");
        ensure!(
            data.bounded_capacity > 0 && data.recv_many_limit > 0 && data.chunk_bytes > 0,
            "a capacity, limit or chunk size is zero"
        );
        ensure!(!data.workers.is_empty(), "no worker counts");
        ensure!(data.passes > 0, "passes is zero");
        ensure!(
            data.workers[0] > 0 && data.workers.windows(2).all(|w| w[0] < w[1]),
            "worker counts {:?} are not positive and strictly increasing",
            data.workers
        );
        let mut seen = BTreeSet::new();
        for m in &data.points {
            let what = check_point(data, m, "")?;
            ensure!(
                seen.insert((m.sink, m.design, m.workers)),
                "{what}: measured twice"
            );
        }
        let mut seen_free = BTreeSet::new();
        for m in &data.free_points {
            let what = check_point(data, m, "free placement, ")?;
            ensure!(
                data.placement == Placement::Pinned,
                "{what}: a free-placement control beside a sweep that itself ran free"
            );
            ensure!(
                m.sink == SinkKind::Tcp && FREE_DESIGNS.contains(&m.design),
                "{what}: not a point the free-placement control measures"
            );
            ensure!(
                seen_free.insert((m.design, m.workers)),
                "{what}: measured twice"
            );
        }
        for kind in SinkKind::ALL {
            for design in Design::ALL {
                for &w in &data.workers {
                    if !seen.contains(&(kind, design, w)) {
                        bail!("missing {} / {} / {w} workers", kind.label(), design.id());
                    }
                }
            }
        }
        Ok(())
    }

    fn render(exhibit: &str, book: &Book<FanInData>) -> Result<Vec<Block>> {
        match exhibit {
            "parameters" => parameters(book),
            "burst-figure" => burst_figure(book, SinkKind::Tcp, true),
            "memory-figure" => burst_figure(book, SinkKind::Memory, false),
            "delta-table" => delta_table(book),
            "designs-table" => designs_table(book),
            "split-table" => split_table(book),
            "own-design" => own_design(book),
            "placement-table" => placement_table(book),
            "verdicts" => Ok(vec![Block::Verdicts(
                book.runs.iter().flat_map(verdicts).collect(),
            )]),
            other => bail!("fan-in has no exhibit {other:?}"),
        }
    }

    fn headline(data: &FanInData) -> Vec<(String, Estimate)> {
        decisive_estimates(data)
    }
}

/// The statistic every figure rests on (see `est`).
const STAT: Statistic = Statistic::Median;

/// The figure of merit everywhere: criterion's median of one burst.
/// Checks one measured point against the run's parameters; returns its name
/// for the caller's own messages.
fn check_point(data: &FanInData, m: &Measured, prefix: &str) -> Result<String> {
    let what = format!(
        "{prefix}{} / {} / {} workers",
        m.sink.label(),
        m.design.id(),
        m.workers
    );
    ensure!(
        data.workers.contains(&m.workers),
        "{what}: worker count not in the sweep"
    );
    for (name, e) in [("mean", &m.timing.mean), ("median", &m.timing.median)] {
        ensure!(
            [e.point_ns, e.lower_ns, e.upper_ns]
                .iter()
                .all(|v| v.is_finite() && *v > 0.0),
            "{what}: {name} time is zero, negative or not a number ({e:?})"
        );
        ensure!(
            e.lower_ns <= e.point_ns && e.point_ns <= e.upper_ns,
            "{what}: {name} lies outside its interval ({e:?})"
        );
    }
    ensure!(m.timing.samples > 0, "{what}: no samples");
    ensure!(
        m.bursts >= m.timing.samples as u64,
        "{what}: fewer validated bursts ({}) than samples ({})",
        m.bursts,
        m.timing.samples
    );
    ensure!(
        m.bytes_per_burst == (m.workers * data.per_worker) as u64,
        "{what}: {} bytes per burst, expected {}",
        m.bytes_per_burst,
        m.workers * data.per_worker
    );
    ensure!(
        m.writes_per_burst >= 1.0 && m.writes_per_burst <= m.bytes_per_burst as f64,
        "{what}: {} write calls per burst for {} bytes",
        m.writes_per_burst,
        m.bytes_per_burst
    );
    Ok(what)
}

fn est(m: &Measured) -> &Estimate {
    m.timing.estimate(STAT)
}

/// A ratio tested against 1: `Some(true)` when `a` is slower than `b`
/// (the bootstrapped interval of `a ÷ b` wholly above 1), `Some(false)` when
/// faster, `None` when the interval straddles 1.
fn is_slower(a: &Measured, b: &Measured) -> Option<bool> {
    ratio_of(&a.timing, &b.timing).at_least(1.0)
}

/// `a ÷ b` of two points' medians with its interval. Two points timed in
/// the same passes pair up pass by pass (`timing::paired_ratio`): whatever
/// state the machine held during a pass, both designs met it, and it
/// cancels in that pass's ratio, where pooling every pass's samples first
/// lets those states decide which of two speeds a pooled median lands on.
/// In this chapter's plan, points with as many timings were timed in the
/// same passes, in the same order (`Plan::slots`, tested); points with
/// different counts pool their samples first (`timing::ratio`).
fn ratio_of(a: &Timing, b: &Timing) -> Estimate {
    if a.repeats.len() == b.repeats.len() && a.repeats.len() >= timing::MIN_PAIRS {
        if let Ok(paired) = timing::paired_ratio(a, b, STAT) {
            return paired;
        }
    }
    timing::ratio(a, b, STAT)
}

fn at_least(e: &Estimate, threshold: f64) -> Outcome {
    Outcome::decided(e.at_least(threshold))
}

fn within(e: &Estimate, lo: f64, hi: f64) -> Outcome {
    Outcome::decided(e.within(lo, hi))
}

fn all_of(parts: &[Outcome]) -> Outcome {
    Outcome::all_of(parts)
}

/// "1.23 ms ± 4.0 %".
fn with_spread(e: &Estimate) -> String {
    format!(
        "{} ± {} %",
        nanos(e.point_ns),
        sig3(e.relative_half_width() * 100.0)
    )
}

fn published(book: &Book<FanInData>) -> Result<(Vec<PublishedRow>, String)> {
    let ds = book.published("burst")?;
    Ok((ds.rows()?, ds.citation()))
}

fn largest(data: &FanInData) -> usize {
    *data
        .workers
        .last()
        .expect("checked: at least one worker count")
}

fn parameters(book: &Book<FanInData>) -> Result<Vec<Block>> {
    let run = book.primary();
    let d = &run.data;
    let mut t = Table::new(
        format!(
            "Parameters of the run on {} ({} profile), {}.",
            run.machine(),
            run.provenance.profile,
            d.runtime()
        ),
        &["Parameter", "Value"],
    )
    .left(&[1]);
    let list = |ws: &[usize]| {
        ws.iter()
            .map(|w| w.to_string())
            .collect::<Vec<_>>()
            .join(", ")
    };
    let rows = [
        ("Runtime".to_string(), d.runtime()),
        (
            "Messages per worker (one byte each)".to_string(),
            d.per_worker.to_string(),
        ),
        (
            "Bounded inbox capacity (design 2)".to_string(),
            d.bounded_capacity.to_string(),
        ),
        (
            "recv_many limit per call (design 3)".to_string(),
            d.recv_many_limit.to_string(),
        ),
        (
            "Chunk a worker batches before sending (design 6)".to_string(),
            format!("{} bytes", d.chunk_bytes),
        ),
        (
            "Thread placement".to_string(),
            d.placement.describe().to_string(),
        ),
        ("Worker counts in this run".to_string(), list(&d.workers)),
        (
            "Passes over the sweep in this run (pooled per point)".to_string(),
            if d.decisive_extra == 0 {
                d.passes.to_string()
            } else {
                format!(
                    "{}, each followed by {} short passes over std swap and mpsc unbounded \
                     (TCP sink, below {} workers)",
                    d.passes,
                    d.decisive_extra,
                    crate::experiment::HEAVY_FROM
                )
            },
        ),
        (
            "Criterion samples per point in this run, all passes".to_string(),
            {
                let counts: BTreeSet<usize> = d.points.iter().map(|p| p.timing.samples).collect();
                let (lo, hi) = (counts.first(), counts.last());
                match (lo, hi) {
                    (Some(lo), Some(hi)) if lo != hi => format!("{lo} to {hi}"),
                    _ => d.samples_per_point.to_string(),
                }
            },
        ),
    ];
    for (k, v) in rows {
        t.push(vec![k, v]);
    }
    t.push(vec![
        "Messages per worker in the published bench".to_string(),
        format!("{PUBLISHED_PER_WORKER}"),
    ]);
    for p in Profile::ALL {
        let plan = plan(p);
        t.push(vec![
            format!("Worker counts, {p} profile"),
            format!(
                "{} ({} passes of {} samples, {} ms measuring per point; {} samples, {} ms in \
                 the first and last passes only for mpsc unbounded and bounded from {} workers; \
                 std swap and mpsc unbounded over TCP below that, {} short passes more after \
                 each pass)",
                list(&plan.workers),
                plan.passes,
                plan.sampling.samples,
                plan.sampling.measurement.as_millis(),
                plan.heavy.samples,
                plan.heavy.measurement.as_millis(),
                crate::experiment::HEAVY_FROM,
                plan.decisive_extra
            ),
        ]);
    }
    Ok(vec![Block::Table(t)])
}

fn burst_figure(
    book: &Book<FanInData>,
    kind: SinkKind,
    with_published: bool,
) -> Result<Vec<Block>> {
    let mut blocks = Vec::new();
    for run in &book.runs {
        let d = &run.data;
        let mut series: Vec<Series> = FIGURE_ORDER
            .iter()
            .map(|&design| {
                let points = d
                    .workers
                    .iter()
                    .filter_map(|&w| d.get(kind, design, w))
                    .map(|m| {
                        let e = est(m);
                        Point::with_band(
                            m.workers as f64,
                            e.point_ns / 1e3,
                            e.lower_ns / 1e3,
                            e.upper_ns / 1e3,
                        )
                    })
                    .collect();
                Series::measured(design.label(), points)
            })
            .collect();
        let mut caption = format!(
            "Time per burst into the {}, from spawning the producers until the sink holds all {} \
             bytes of every worker, on {} ({}, {} profile). Median of criterion's samples, pooled \
             over the run's passes, with its 95 % interval.",
            kind.label(),
            d.per_worker,
            run.machine(),
            d.runtime(),
            run.provenance.profile
        );
        if with_published {
            let (rows, citation) = published(book)?;
            let line = |label: &str, design: Design, f: fn(&PublishedRow) -> f64| {
                Series::published(
                    format!("published: {label}"),
                    rows.iter()
                        .map(|r| Point::new(r.workers as f64, f(r)))
                        .collect(),
                )
                .coloured_like(design.label())
            };
            series.push(line("mpsc unbounded", Design::MpscUnbounded, |r| {
                r.tokio_mpsc_us
            }));
            series.push(line("std Mutex swap", Design::StdMutexSwap, |r| {
                r.std_mutex_us
            }));
            series.push(line("tokio Mutex swap", Design::TokioMutexSwap, |r| {
                r.tokio_mutex_us
            }));
            caption.push_str(&format!(
                " Dashed: the published numbers ({citation}; {PUBLISHED_PER_WORKER} messages per \
                 worker, different stop points, see above), same colour as the design they claim to measure."
            ));
        }
        blocks.push(Block::Figure(Figure {
            id: format!("fan-in-{}-{}", kind_id(kind), run.machine()),
            title: format!("Fan-in burst time, {}", kind.label()),
            caption,
            x: Axis::log("producer tasks (workers)"),
            y: Axis::log("time per burst (µs)"),
            series,
        }));
    }
    Ok(blocks)
}

fn kind_id(kind: SinkKind) -> &'static str {
    match kind {
        SinkKind::Tcp => "tcp",
        SinkKind::Memory => "memory",
    }
}

fn delta_table(book: &Book<FanInData>) -> Result<Vec<Block>> {
    let (rows, citation) = published(book)?;
    let mut blocks = Vec::new();
    for run in &book.runs {
        let d = &run.data;
        let mut t = Table::new(
            format!(
                "std Mutex swap against mpsc unbounded (write per message). Published: {citation}, \
                 {PUBLISHED_PER_WORKER} messages per worker. Measured: {} messages per worker into the loopback \
                 TCP sink on {} ({}, {} profile), median ± half the 95 % interval. Delta = mpsc ÷ \
                 swap; above 1× the swap is faster. Per message = the swap's time ÷ (workers × \
                 messages per worker). A dash: worker count not in this profile.",
                d.per_worker,
                run.machine(),
                d.runtime(),
                run.provenance.profile
            ),
            &[
                "Workers",
                "Published swap",
                "Published mpsc",
                "Published delta",
                "Published swap per message",
                "Measured swap",
                "Measured mpsc",
                "Measured delta",
            ],
        );
        let mut all: BTreeSet<usize> = rows.iter().map(|r| r.workers).collect();
        all.extend(d.workers.iter().copied());
        for w in all {
            let p = rows.iter().find(|r| r.workers == w);
            let (ps, pm, pd, pp) = match p {
                Some(r) => (
                    nanos(r.std_mutex_us * 1e3),
                    nanos(r.tokio_mpsc_us * 1e3),
                    ratio(r.tokio_mpsc_us / r.std_mutex_us),
                    nanos(r.std_mutex_us * 1e3 / (r.workers as f64 * PUBLISHED_PER_WORKER)),
                ),
                None => ("—".into(), "—".into(), "—".into(), "—".into()),
            };
            let (ms, mm, md) = match (
                d.get(SinkKind::Tcp, Design::StdMutexSwap, w),
                d.get(SinkKind::Tcp, Design::MpscUnbounded, w),
            ) {
                (Some(s), Some(m)) => (
                    with_spread(est(s)),
                    with_spread(est(m)),
                    ratio(est(m).point_ns / est(s).point_ns),
                ),
                _ => ("—".into(), "—".into(), "—".into()),
            };
            t.push(vec![w.to_string(), ps, pm, pd, pp, ms, mm, md]);
        }
        blocks.push(Block::Table(t));
    }
    Ok(blocks)
}

fn designs_table(book: &Book<FanInData>) -> Result<Vec<Block>> {
    let mut blocks = Vec::new();
    for run in &book.runs {
        let d = &run.data;
        let mut header = vec!["Workers"];
        header.extend(Design::ALL.iter().map(|x| x.label()));
        let mut t = Table::new(
            format!(
                "Time per burst into the loopback TCP sink, {} messages per worker, on {} ({}, {} \
                 profile): median ± half the 95 % interval.",
                d.per_worker,
                run.machine(),
                d.runtime(),
                run.provenance.profile
            ),
            &header,
        );
        for &w in &d.workers {
            let mut row = vec![w.to_string()];
            for design in Design::ALL {
                row.push(with_spread(est(d.tcp(design, w)?)));
            }
            t.push(row);
        }
        blocks.push(Block::Table(t));
    }
    Ok(blocks)
}

fn split_table(book: &Book<FanInData>) -> Result<Vec<Block>> {
    let mut blocks = Vec::new();
    for run in &book.runs {
        let d = &run.data;
        let w = largest(d);
        let mut t = Table::new(
            format!(
                "Channel or socket? The same bursts of {w} workers into the in-memory sink and into \
                 the loopback TCP sink, on {} ({}, {} profile). Socket share = (TCP − memory) ÷ TCP.",
                run.machine(),
                d.runtime(),
                run.provenance.profile
            ),
            &[
                "Design",
                "In-memory sink",
                "TCP sink",
                "Socket share",
                "Write calls per burst",
                "Messages per write",
            ],
        );
        for design in Design::ALL {
            let mem = d
                .get(SinkKind::Memory, design, w)
                .ok_or_else(|| anyhow!("no in-memory result for {} at {w}", design.id()))?;
            let tcp = d.tcp(design, w)?;
            let (m, n) = (est(mem).point_ns, est(tcp).point_ns);
            t.push(vec![
                design.label().to_string(),
                with_spread(est(mem)),
                with_spread(est(tcp)),
                format!("{:.0} %", ((n - m) / n * 100.0).max(0.0)),
                format!("{:.0}", tcp.writes_per_burst),
                sig3(tcp.bytes_per_burst as f64 / tcp.writes_per_burst),
            ]);
        }
        blocks.push(Block::Table(t));
    }
    Ok(blocks)
}

/// Each pass's median of a pooled timing, in pass order.
fn pass_medians(t: &Timing) -> Vec<f64> {
    let mut at = 0;
    let counts = if t.repeats.is_empty() {
        vec![t.per_sample_ns.len()]
    } else {
        t.repeats.clone()
    };
    counts
        .iter()
        .filter_map(|&n| {
            let mut part = t.per_sample_ns.get(at..at + n)?.to_vec();
            at += n;
            (!part.is_empty()).then(|| Statistic::Median.of(&mut part))
        })
        .collect()
}

/// "12.3 µs – 45.6 µs": the lowest and highest median of the `passes` full
/// passes. A point the short passes also measured holds the same number of
/// repeats after each full pass; only each pass's first repeat counts, so a
/// point with more repeats does not look more spread for having them.
fn pass_range(t: &Timing, passes: usize) -> String {
    let mut medians = pass_medians(t);
    if passes > 0 && medians.len() > passes && medians.len() % passes == 0 {
        let step = medians.len() / passes;
        medians = medians.into_iter().step_by(step).collect();
    }
    let lo = medians.iter().copied().fold(f64::INFINITY, f64::min);
    let hi = medians.iter().copied().fold(0.0, f64::max);
    if medians.is_empty() {
        "–".into()
    } else {
        format!("{} – {}", nanos(lo), nanos(hi))
    }
}

/// The free-placement control beside the pinned sweep: the same designs at
/// the same counts, time per burst and how far each placement's passes
/// spread.
fn placement_table(book: &Book<FanInData>) -> Result<Vec<Block>> {
    let mut blocks = Vec::new();
    for run in &book.runs {
        let d = &run.data;
        if d.free_points.is_empty() {
            blocks.push(Block::Text(format!(
                "The run on {} ({} profile) has no free-placement control: its threads ran {}.",
                run.machine(),
                run.provenance.profile,
                d.placement.describe()
            )));
            continue;
        }
        let mut t = Table::new(
            format!(
                "Where the threads sit: time per burst into the loopback TCP sink with the \
                 threads pinned (the rest of the chapter) and free, on {} ({}, {} profile, \
                 {} passes each, medians with 95 % intervals; pass range = the lowest and \
                 highest of the passes' own medians).",
                run.machine(),
                d.runtime(),
                run.provenance.profile,
                d.passes
            ),
            &[
                "Workers",
                "Design",
                "Pinned",
                "Pinned: pass range",
                "Free",
                "Free: pass range",
                "Free ÷ pinned",
            ],
        )
        .left(&[1]);
        for free in &d.free_points {
            let pinned = d.tcp(free.design, free.workers)?;
            t.push(vec![
                free.workers.to_string(),
                free.design.label().to_string(),
                with_spread(est(pinned)),
                pass_range(&pinned.timing, d.passes),
                with_spread(est(free)),
                pass_range(&free.timing, d.passes),
                ratio_ci(&timing::ratio(&free.timing, &pinned.timing, STAT)),
            ]);
        }
        blocks.push(Block::Table(t));
    }
    Ok(blocks)
}

/// The targets the book set its own design: beat the std swap from 128
/// workers up, by 2x at the largest count, and stay within 3x of the floor.
fn own_design(book: &Book<FanInData>) -> Result<Vec<Block>> {
    let mut blocks = Vec::new();
    for run in &book.runs {
        let d = &run.data;
        let mut t = Table::new(
            format!(
                "Worker chunks ({} bytes per chunk) against the std Mutex swap and the floor, \
                 loopback TCP sink, on {} ({}, {} profile). Speedup = swap ÷ chunks, with a 95 % \
                 interval bootstrapped from both designs' samples.",
                d.chunk_bytes,
                run.machine(),
                d.runtime(),
                run.provenance.profile
            ),
            &[
                "Workers",
                "Worker chunks",
                "std Mutex swap",
                "Speedup over the swap",
                "Floor",
                "Chunks ÷ floor",
            ],
        );
        for &w in &d.workers {
            let (mc, ms) = (
                d.tcp(Design::WorkerChunks, w)?,
                d.tcp(Design::StdMutexSwap, w)?,
            );
            let (c, s) = (est(mc), est(ms));
            let f = est(d.tcp(Design::Floor, w)?);
            let speedup = timing::ratio(&ms.timing, &mc.timing, STAT);
            t.push(vec![
                w.to_string(),
                with_spread(c),
                with_spread(s),
                format!(
                    "{} ({}–{})",
                    ratio(speedup.point_ns),
                    sig3(speedup.lower_ns),
                    sig3(speedup.upper_ns)
                ),
                with_spread(f),
                ratio(c.point_ns / f.point_ns),
            ]);
        }
        blocks.push(Block::Table(t));
    }
    Ok(blocks)
}

fn verdicts(run: &Run<FanInData>) -> Vec<Verdict> {
    CLAIMS
        .iter()
        .map(|claim| {
            let decided = match claim.id {
                "FAN-1" => fan_1(&run.data),
                "FAN-2" => fan_2(&run.data),
                "FAN-3" => fan_3(&run.data),
                "FAN-4" => fan_4(&run.data),
                other => Err(anyhow!("no rule for {other}")),
            };
            match decided {
                Ok(Some((outcome, evidence))) => {
                    Verdict::new(claim, run.machine(), outcome, evidence)
                }
                Ok(None) => Verdict::not_measured(
                    claim,
                    format!(
                        "the run on {} does not reach thousands of workers",
                        run.machine()
                    ),
                ),
                Err(e) => Verdict::not_measured(claim, format!("{e:#}")),
            }
        })
        .collect()
}

type Decision = Result<Option<(Outcome, String)>>;

/// Worker counts from which FAN-2 wants the swap ahead.
const FAN2_FROM_WORKERS: usize = 8;
/// FAN-2 is decided only when the sweep reaches thousands of workers.
const FAN2_LARGEST_AT_LEAST: usize = 1000;
const FAN2_MIN_GAP: f64 = 10.0;
const FAN3_RANGE: (f64, f64) = (12.5, 50.0);
const FAN4_MIN_PER_WRITE: f64 = 16.0;
const FAN4_MIN_SHARE: f64 = 0.9;

/// "12.3× [11.0 – 13.9]".
fn ratio_ci(e: &Estimate) -> String {
    format!(
        "{} [{} – {}]",
        ratio(e.point_ns),
        sig3(e.lower_ns),
        sig3(e.upper_ns)
    )
}

/// `a ÷ b` of two designs' TCP figures at `w` workers, bootstrapped.
fn tcp_ratio(d: &FanInData, a: Design, b: Design, w: usize) -> Result<Estimate> {
    Ok(ratio_of(&d.tcp(a, w)?.timing, &d.tcp(b, w)?.timing))
}

/// The FAN-2 count from 8 workers up, below the largest, whose mpsc ÷ swap
/// interval reaches lowest: the one nearest to deciding against the claim.
fn fan_2_closest(d: &FanInData) -> Result<Option<(usize, Estimate)>> {
    let top = largest(d);
    let mut closest: Option<(usize, Estimate)> = None;
    for &w in d
        .workers
        .iter()
        .filter(|&&w| w >= FAN2_FROM_WORKERS && w < top)
    {
        let r = tcp_ratio(d, Design::MpscUnbounded, Design::StdMutexSwap, w)?;
        if closest.is_none_or(|(_, c)| r.lower_ns < c.lower_ns) {
            closest = Some((w, r));
        }
    }
    Ok(closest)
}

/// tokio swap ÷ std swap per worker count, and their geometric mean with a
/// bootstrapped interval (every timing resampled at once).
fn fan_3_ratios(d: &FanInData) -> Result<(Vec<Estimate>, Estimate)> {
    let ratios: Vec<Estimate> = d
        .workers
        .iter()
        .map(|&w| tcp_ratio(d, Design::TokioMutexSwap, Design::StdMutexSwap, w))
        .collect::<Result<_>>()?;
    // Pairs (tokio, std) per worker count, flattened.
    let timings: Vec<&Timing> = d
        .workers
        .iter()
        .map(|&w| {
            Ok([
                &d.tcp(Design::TokioMutexSwap, w)?.timing,
                &d.tcp(Design::StdMutexSwap, w)?.timing,
            ])
        })
        .collect::<Result<Vec<_>>>()?
        .into_iter()
        .flatten()
        .collect();
    let mean = timing::bootstrap(&timings, STAT, |s| {
        let logs: f64 = s.chunks(2).map(|p| (p[0] / p[1]).ln()).sum();
        (logs / (s.len() / 2) as f64).exp()
    })?;
    Ok((ratios, mean))
}

/// The share of mpsc unbounded's excess over the swap that recv_many
/// removes, `(mpsc − recv_many) ÷ (mpsc − swap)`, bootstrapped. `None`
/// unless mpsc is slower than the swap, interval clear of 1.
fn fan_4_share(d: &FanInData, w: usize) -> Result<Option<Estimate>> {
    let swap = d.tcp(Design::StdMutexSwap, w)?;
    let mpsc = d.tcp(Design::MpscUnbounded, w)?;
    let many = d.tcp(Design::MpscRecvMany, w)?;
    if is_slower(mpsc, swap) != Some(true) {
        return Ok(None);
    }
    let share = timing::bootstrap(&[&mpsc.timing, &many.timing, &swap.timing], STAT, |s| {
        (s[0] - s[1]) / (s[0] - s[2])
    })?;
    Ok(Some(share))
}

/// The estimates FAN-1..FAN-4 are decided by (ratios and a share, no unit).
fn decisive_estimates(d: &FanInData) -> Vec<(String, Estimate)> {
    let mut out = Vec::new();
    let first = d.workers[0];
    if let Ok(r) = tcp_ratio(d, Design::StdMutexSwap, Design::MpscUnbounded, first) {
        out.push((
            format!(
                "FAN-1, {first} worker{}: std swap ÷ mpsc unbounded",
                if first == 1 { "" } else { "s" }
            ),
            r,
        ));
    }
    let top = largest(d);
    let fan_2 = top >= FAN2_LARGEST_AT_LEAST;
    if fan_2 {
        if let Ok(Some((w, r))) = fan_2_closest(d) {
            out.push((
                format!("FAN-2, {w} workers (closest call): mpsc unbounded ÷ std swap"),
                r,
            ));
        }
    }
    if let Ok(r) = tcp_ratio(d, Design::MpscUnbounded, Design::StdMutexSwap, top) {
        let claims = if fan_2 { "FAN-2 and FAN-4" } else { "FAN-4" };
        out.push((
            format!("{claims}, {top} workers: mpsc unbounded ÷ std swap"),
            r,
        ));
    }
    if let Ok((_, geo)) = fan_3_ratios(d) {
        out.push((
            "FAN-3: tokio swap ÷ std swap, geometric mean over worker counts".into(),
            geo,
        ));
    }
    if let Ok(Some(share)) = fan_4_share(d, top) {
        out.push((
            format!(
                "FAN-4, {top} workers: share of mpsc's excess over the swap removed by recv_many"
            ),
            share,
        ));
    }
    out
}

fn fan_1(d: &FanInData) -> Decision {
    let w = d.workers[0];
    let (m_swap, m_mpsc) = (
        d.tcp(Design::StdMutexSwap, w)?,
        d.tcp(Design::MpscUnbounded, w)?,
    );
    let outcome = Outcome::decided(is_slower(m_swap, m_mpsc));
    Ok(Some((
        outcome,
        format!(
            "{w} worker(s): swap {}, mpsc {}; swap ÷ mpsc {}",
            with_spread(est(m_swap)),
            with_spread(est(m_mpsc)),
            ratio_ci(&tcp_ratio(
                d,
                Design::StdMutexSwap,
                Design::MpscUnbounded,
                w
            )?)
        ),
    )))
}

fn fan_2(d: &FanInData) -> Decision {
    let top = largest(d);
    if top < FAN2_LARGEST_AT_LEAST {
        return Ok(None);
    }
    let (mut slower, mut unclear) = (Vec::new(), Vec::new());
    for &w in d.workers.iter().filter(|&&w| w >= FAN2_FROM_WORKERS) {
        let swap = d.tcp(Design::StdMutexSwap, w)?;
        let mpsc = d.tcp(Design::MpscUnbounded, w)?;
        match is_slower(swap, mpsc) {
            Some(false) => {}
            Some(true) => slower.push(w.to_string()),
            None => unclear.push(w.to_string()),
        }
    }
    let gap = tcp_ratio(d, Design::MpscUnbounded, Design::StdMutexSwap, top)?;
    let ahead = if !slower.is_empty() {
        Outcome::DoesNotHold
    } else if !unclear.is_empty() {
        Outcome::Inconclusive
    } else {
        Outcome::Holds
    };
    let outcome = all_of(&[ahead, at_least(&gap, FAN2_MIN_GAP)]);
    let mut evidence = format!("at {top} workers mpsc ÷ swap = {}", ratio_ci(&gap));
    if let Some((w, r)) = fan_2_closest(d)? {
        evidence.push_str(&format!("; closest call {w} workers, {}", ratio_ci(&r)));
    }
    if !slower.is_empty() {
        evidence.push_str(&format!(
            "; swap slower, intervals apart, at {} workers",
            slower.join(", ")
        ));
    }
    if !unclear.is_empty() {
        evidence.push_str(&format!(
            "; intervals overlap at {} workers",
            unclear.join(", ")
        ));
    }
    Ok(Some((outcome, evidence)))
}

fn fan_3(d: &FanInData) -> Decision {
    let (ratios, geo) = fan_3_ratios(d)?;
    let (lo, hi) = ratios.iter().fold((f64::INFINITY, 0.0f64), |(a, b), r| {
        (a.min(r.point_ns), b.max(r.point_ns))
    });
    Ok(Some((
        within(&geo, FAN3_RANGE.0, FAN3_RANGE.1),
        format!(
            "tokio ÷ std swap: geometric mean {}, from {} to {} across worker counts",
            ratio_ci(&geo),
            ratio(lo),
            ratio(hi)
        ),
    )))
}

fn fan_4(d: &FanInData) -> Decision {
    let top = largest(d);
    let swap = d.tcp(Design::StdMutexSwap, top)?;
    let per_write = swap.bytes_per_burst as f64 / swap.writes_per_burst;
    let batched = Outcome::from_bool(per_write >= FAN4_MIN_PER_WRITE);
    let t_swap = est(swap);
    let t_mpsc = est(d.tcp(Design::MpscUnbounded, top)?);
    let t_many = est(d.tcp(Design::MpscRecvMany, top)?);
    let times = format!(
        "recv_many {}, swap {}, mpsc {}",
        with_spread(t_many),
        with_spread(t_swap),
        with_spread(t_mpsc)
    );
    let per_call = format!(
        "at {top} workers the swap writes {} messages per call",
        sig3(per_write)
    );
    let Some(share) = fan_4_share(d, top)? else {
        let m_mpsc = d.tcp(Design::MpscUnbounded, top)?;
        let (outcome, why) = match is_slower(m_mpsc, swap) {
            Some(false) => (
                Outcome::DoesNotHold,
                "mpsc is faster than the swap: nothing for batching to explain",
            ),
            _ => (
                all_of(&[batched, Outcome::Inconclusive]),
                "the swap's and mpsc's intervals overlap: whether the swap wins is undecided",
            ),
        };
        return Ok(Some((outcome, format!("{per_call}; {why} ({times})"))));
    };
    Ok(Some((
        all_of(&[batched, at_least(&share, FAN4_MIN_SHARE)]),
        format!(
            "{per_call}; recv_many removes {:.0} % [{:.0} – {:.0} %] of mpsc's excess over the \
             swap ({times})",
            share.point_ns * 100.0,
            share.lower_ns * 100.0,
            share.upper_ns * 100.0
        ),
    )))
}
