//! The chapter: its experiments, its claim, and the exhibits the page shows.
use std::collections::BTreeSet;

use anyhow::{bail, ensure, Context, Result};
use harness::chapter::{Exhibit, ExhibitKind};
use harness::fmt::{nanos, ratio, sig3};
use harness::published::Dataset;
use harness::render::html_escape;
use harness::timing::{self, Estimate, Statistic, Timing};
use harness::{
    Axis, Block, Book, Chapter, Claim, Figure, Outcome, Point, Profile, Progress, Run, Series,
    Table, Verdict,
};
use serde::{Deserialize, Serialize};

use crate::cpu::cache_line_bytes;
use crate::experiment::{time_bursts, worker_threads, Passes, PointSpec};
use crate::inbox::Sink;
use crate::sharded_swap::SHARD_ALIGN;
use crate::{params, Design, Wait, HEAVY_WORK, LIGHT_WORK};

pub struct MutexSwap;

/// Which question a measured point answers.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Experiment {
    /// Every swap design across producer counts, Notify consumer.
    Throughput,
    /// Every swap design against every wait strategy, at a few producer counts.
    Wait,
    /// The std swap's critical section moved: draining under the lock, and
    /// one message per lock (compared with the throughput experiment's std swap).
    LockHold,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Measured {
    pub experiment: Experiment,
    pub design: Design,
    pub wait: Wait,
    pub producers: u64,
    /// Rounds of hashing the consumer does per message.
    pub work_rounds: u32,
    /// Criterion's estimates of one burst's timed region.
    pub timing: Timing,
    /// The consumer's counts over every round of the point.
    pub passes: Passes,
    /// The same counts round by round (they merge into `passes`); empty in
    /// files from before rounds were kept apart.
    #[serde(default)]
    pub rounds: Vec<Passes>,
}

impl Measured {
    /// Messages per pass with a 95% interval drawn over the rounds: the
    /// batch swings with when the consumer thread gets a core, and a round
    /// is one stretch of the run. `None` for files without rounds or with
    /// one round.
    pub fn batch(&self) -> Option<Estimate> {
        let rounds: Vec<(f64, f64)> = self
            .rounds
            .iter()
            .map(|r| (r.messages as f64, r.passes_with_messages as f64))
            .collect();
        harness::timing::ratio_of_sums(&rounds).ok()
    }
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Data {
    /// Worker threads of the producers' multi-thread runtime.
    pub worker_threads: u64,
    pub messages_per_burst: u64,
    /// The L1 coherency line size the kernel reported, if any.
    pub cache_line_bytes: Option<u64>,
    /// The alignment the sharded design gives each shard.
    pub shard_align_bytes: u64,
    /// What the consumer's work per message costs on its own, per work level.
    pub work_cost: Vec<WorkCost>,
    /// Rounds pooled into every point (`Params::repeats`); files from
    /// before rounds hold one.
    #[serde(default = "one_round")]
    pub repeats: usize,
    /// Rounds pooled into each point FAN-4 is decided on
    /// (`Params::decisive_repeats`); 0 in files from before they had more.
    #[serde(default)]
    pub decisive_repeats: usize,
    pub points: Vec<Measured>,
}

fn one_round() -> usize {
    1
}

/// The consumer's per-message work timed alone: one iteration hashes
/// `messages` messages into a sink.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct WorkCost {
    pub work_rounds: u32,
    pub messages: u64,
    pub timing: Timing,
}

impl WorkCost {
    pub fn ns_per_message(&self) -> f64 {
        self.timing.mean.point_ns / self.messages as f64
    }
}

const WORK_COST_MESSAGES: u64 = 1024;

/// Published reference: the fan-in chapter's dataset, burst time per design.
#[derive(Deserialize)]
struct PublishedBurst {
    workers: u64,
    std_mutex_us: f64,
    tokio_mutex_us: f64,
}
/// Messages each published worker sent (the published bench's sample size).
const PUBLISHED_MESSAGES_PER_WORKER: u64 = 1000;

const SOURCE: &str =
    "[buffered-mpsc: mpsc vs mutex-swap fan-in](https://github.com/JuxhinDB/buffered-mpsc)";

/// The smallest mean batch the rule of FAN-4 accepts as "many messages per pass".
const FAN4_MIN_BATCH: f64 = 10.0;
/// FAN-4 looks at producer counts from here up: "at scale".
const FAN4_FROM_PRODUCERS: u64 = 128;

const CLAIMS: &[Claim] = &[Claim {
    id: "FAN-4",
    statement:
        "Swapping the buffer drains many messages per pass, which is why the swap wins (batching).",
    source: SOURCE,
    rule: "At every producer count of 128 or more that was measured: the std::sync::Mutex \
           swap with the Notify consumer moves at least 10 messages per non-empty pass on \
           average, the 95% interval drawn over the point's rounds lying entirely at or above \
           10, and the same std::sync::Mutex taking one message per lock (no batching) has a \
           longer burst time, the bootstrapped 95% interval of the ratio lying entirely above \
           1. Does not hold if a batch's interval lies entirely below 10 or a ratio's entirely \
           below 1; inconclusive if an interval straddles its threshold or a point has no \
           per-round counts.",
}];

const EXHIBITS: &[Exhibit] = &[
    Exhibit {
        name: "parameters",
        kind: ExhibitKind::Table,
        about: "experiment parameters per profile and the measured machine's runtime set-up",
    },
    Exhibit {
        name: "throughput",
        kind: ExhibitKind::Figure,
        about: "messages per second against producer count, per design (log-log)",
    },
    Exhibit {
        name: "throughput-table",
        kind: ExhibitKind::Table,
        about: "the throughput figure's numbers with their confidence intervals",
    },
    Exhibit {
        name: "batching",
        kind: ExhibitKind::Table,
        about: "messages per consumer pass against producer count, per design",
    },
    Exhibit {
        name: "wait",
        kind: ExhibitKind::Table,
        about: "burst time and consumer CPU per design and wait strategy",
    },
    Exhibit {
        name: "busy-cost",
        kind: ExhibitKind::Text,
        about: "how much a busy-polling consumer slows the producers, against Notify",
    },
    Exhibit {
        name: "lock-hold",
        kind: ExhibitKind::Table,
        about: "swap-only critical section against draining under the lock",
    },
    Exhibit {
        name: "verdicts",
        kind: ExhibitKind::Verdicts,
        about: "verdict on FAN-4",
    },
];

type Planned = (Experiment, Design, Wait, u64, u32);

/// Every point a profile measures, in order.
fn plan(profile: Profile) -> Vec<Planned> {
    let p = params(profile);
    let mut plan = Vec::new();
    for &producers in &p.producers {
        for design in Design::SWAPS {
            plan.push((
                Experiment::Throughput,
                design,
                Wait::Notify,
                producers,
                LIGHT_WORK,
            ));
        }
        for design in Design::CRITICAL_SECTIONS {
            plan.push((
                Experiment::LockHold,
                design,
                Wait::Notify,
                producers,
                LIGHT_WORK,
            ));
        }
        for design in [Design::StdMutexSwap, Design::StdMutexDrainLocked] {
            plan.push((
                Experiment::LockHold,
                design,
                Wait::Notify,
                producers,
                HEAVY_WORK,
            ));
        }
    }
    for &producers in &p.wait_producers {
        for design in Design::SWAPS {
            for wait in Wait::ALL {
                plan.push((Experiment::Wait, design, wait, producers, LIGHT_WORK));
            }
        }
    }
    plan
}

fn work_cost(
    scratch: &std::path::Path,
    sampling: harness::timing::Sampling,
    work_rounds: u32,
) -> Result<WorkCost> {
    let timing =
        harness::timing::measure(scratch, sampling, &format!("work-{work_rounds}"), |b| {
            b.iter(|| {
                let mut sink = Sink::with_work(work_rounds);
                for m in 0..WORK_COST_MESSAGES {
                    sink.accept(std::hint::black_box(m));
                }
                std::hint::black_box(sink)
            })
        })?;
    Ok(WorkCost {
        work_rounds,
        messages: WORK_COST_MESSAGES,
        timing,
    })
}

impl Chapter for MutexSwap {
    type Data = Data;
    const NAME: &'static str = "mutex-swap";
    const MEASURED_CRATES: &'static [&'static str] = &["tokio", "parking_lot"];
    const EXHIBITS: &'static [Exhibit] = EXHIBITS;
    const CLAIMS: &'static [Claim] = CLAIMS;

    fn measure(profile: Profile, progress: &Progress) -> Result<Data> {
        let p = params(profile);
        let scratch = tempfile::tempdir().context("cannot create criterion's scratch folder")?;
        let plan = plan(profile);
        let rounds_of = |&(experiment, design, wait, producers, work_rounds): &Planned| {
            if is_decisive(experiment, design, wait, producers, work_rounds) {
                p.decisive_repeats.max(p.repeats)
            } else {
                p.repeats
            }
        };
        let all_rounds = plan.iter().map(rounds_of).max().unwrap_or(p.repeats);
        progress.set_total(plan.iter().map(rounds_of).sum::<usize>() as u64 + 2);
        let mut work = Vec::new();
        for rounds in [LIGHT_WORK, HEAVY_WORK] {
            progress.step(format!("consumer work alone, {rounds} rounds"));
            work.push(work_cost(scratch.path(), p.sampling, rounds)?);
        }
        // Round after round over the whole plan, so each point's timings are
        // spread over the run; pooled per point afterwards.
        let mut rounds: Vec<Vec<(Timing, Passes)>> = vec![Vec::new(); plan.len()];
        for round in 0..all_rounds {
            for (i, planned) in plan.iter().enumerate() {
                let &(experiment, design, wait, producers, work_rounds) = planned;
                let of = rounds_of(planned);
                if round >= of {
                    continue;
                }
                let id = format!(
                    "{experiment:?}-{}-{}-{producers}-work{work_rounds}-round{round}",
                    design.name(),
                    wait.name()
                );
                progress.step(format!("round {}/{of}: {id}", round + 1));
                let spec = PointSpec {
                    design,
                    wait,
                    producers,
                    messages: p.messages_per_burst,
                    work_rounds,
                };
                rounds[i].push(time_bursts(scratch.path(), p.sampling, &id, spec)?);
            }
        }
        let mut points = Vec::with_capacity(plan.len());
        for ((experiment, design, wait, producers, work_rounds), parts) in
            plan.into_iter().zip(rounds)
        {
            let (timings, rounds): (Vec<Timing>, Vec<Passes>) = parts.into_iter().unzip();
            let passes = rounds
                .iter()
                .fold(Passes::default(), |all, round| all.merge(round));
            points.push(Measured {
                experiment,
                design,
                wait,
                producers,
                work_rounds,
                timing: Timing::pooled(timings)?,
                passes,
                rounds,
            });
        }
        Ok(Data {
            worker_threads: worker_threads() as u64,
            messages_per_burst: p.messages_per_burst,
            cache_line_bytes: cache_line_bytes(),
            shard_align_bytes: SHARD_ALIGN as u64,
            work_cost: work,
            repeats: p.repeats,
            decisive_repeats: p.decisive_repeats.max(p.repeats),
            points,
        })
    }

    fn check(data: &Data) -> Result<()> {
        ensure!(data.worker_threads > 0, "worker_threads is zero");
        ensure!(data.messages_per_burst > 0, "messages_per_burst is zero");
        ensure!(data.shard_align_bytes > 0, "shard_align_bytes is zero");
        ensure!(!data.points.is_empty(), "no measured points");
        ensure!(data.repeats > 0, "repeats is zero");
        for rounds in [LIGHT_WORK, HEAVY_WORK] {
            let w = data
                .work_cost
                .iter()
                .find(|w| w.work_rounds == rounds)
                .with_context(|| format!("no cost measured for {rounds} rounds of work"))?;
            ensure!(
                w.messages > 0
                    && w.timing.mean.point_ns > 0.0
                    && w.timing.mean.point_ns.is_finite(),
                "the cost of {rounds} rounds of work is not a positive time"
            );
        }
        for m in &data.points {
            let what = format!(
                "{:?} point {} / {} / {} producers",
                m.experiment,
                m.design.name(),
                m.wait.name(),
                m.producers
            );
            ensure!(m.producers > 0, "{what}: zero producers");
            ensure!(
                [LIGHT_WORK, HEAVY_WORK].contains(&m.work_rounds),
                "{what}: unknown work level of {} rounds",
                m.work_rounds
            );
            ensure!(
                data.messages_per_burst % m.producers == 0,
                "{what}: {} messages do not split over the producers",
                data.messages_per_burst
            );
            for (name, e) in [("mean", &m.timing.mean), ("median", &m.timing.median)] {
                ensure!(
                    e.point_ns.is_finite() && e.point_ns > 0.0 && e.lower_ns > 0.0,
                    "{what}: {name} time {} ns is not a positive duration",
                    e.point_ns
                );
                ensure!(
                    e.lower_ns <= e.point_ns && e.point_ns <= e.upper_ns,
                    "{what}: {name} estimate lies outside its confidence interval"
                );
            }
            ensure!(m.timing.samples > 0, "{what}: no samples");
            let ps = &m.passes;
            ensure!(ps.bursts > 0, "{what}: no bursts counted");
            ensure!(
                ps.messages == ps.bursts * data.messages_per_burst,
                "{what}: {} messages over {} bursts, expected {} per burst",
                ps.messages,
                ps.bursts,
                data.messages_per_burst
            );
            ensure!(
                ps.passes_with_messages > 0 && ps.passes_with_messages <= ps.messages,
                "{what}: {} passes with messages for {} messages",
                ps.passes_with_messages,
                ps.messages
            );
            ensure!(
                ps.max_batch > 0 && ps.max_batch <= data.messages_per_burst,
                "{what}: largest batch {} is impossible",
                ps.max_batch
            );
            ensure!(
                ps.consumer_cpu_ns > 0 && ps.wall_ns > 0,
                "{what}: zero consumer CPU or wall time"
            );
            if !m.rounds.is_empty() {
                ensure!(
                    m.rounds.len() == m.timing.repeats.len(),
                    "{what}: counts for {} rounds, timings for {}",
                    m.rounds.len(),
                    m.timing.repeats.len()
                );
                let merged = m
                    .rounds
                    .iter()
                    .fold(Passes::default(), |all, round| all.merge(round));
                ensure!(
                    merged == *ps,
                    "{what}: the rounds' counts do not add up to the point's"
                );
            }
        }
        // Shapes: every design at every producer count of its experiment.
        let producers_of = |exp: Experiment| -> BTreeSet<u64> {
            data.points
                .iter()
                .filter(|m| m.experiment == exp)
                .map(|m| m.producers)
                .collect()
        };
        let grid = producers_of(Experiment::Throughput);
        ensure!(!grid.is_empty(), "no throughput points");
        for &n in &grid {
            for design in Design::SWAPS {
                ensure!(
                    find(data, Experiment::Throughput, design, Wait::Notify, n).is_some(),
                    "throughput experiment lacks {} at {n} producers",
                    design.name()
                );
            }
            for design in Design::CRITICAL_SECTIONS {
                ensure!(
                    find(data, Experiment::LockHold, design, Wait::Notify, n).is_some(),
                    "lock-hold experiment lacks {} at {n} producers",
                    design.name()
                );
            }
            for design in [Design::StdMutexSwap, Design::StdMutexDrainLocked] {
                ensure!(
                    find_work(
                        data,
                        Experiment::LockHold,
                        design,
                        Wait::Notify,
                        n,
                        HEAVY_WORK
                    )
                    .is_some(),
                    "lock-hold experiment lacks {} with heavy work at {n} producers",
                    design.name()
                );
            }
        }
        let wait_grid = producers_of(Experiment::Wait);
        ensure!(!wait_grid.is_empty(), "no wait-strategy points");
        for &n in &wait_grid {
            for design in Design::SWAPS {
                for wait in Wait::ALL {
                    ensure!(
                        find(data, Experiment::Wait, design, wait, n).is_some(),
                        "wait experiment lacks {} with {} at {n} producers",
                        design.name(),
                        wait.name()
                    );
                }
            }
        }
        let mut seen = BTreeSet::new();
        for m in &data.points {
            let key = (
                format!("{:?}", m.experiment),
                m.design.name(),
                m.wait.name(),
                m.producers,
                m.work_rounds,
            );
            ensure!(seen.insert(key), "point measured twice: {m:?}");
        }
        Ok(())
    }

    fn render(exhibit: &str, book: &Book<Data>) -> Result<Vec<Block>> {
        match exhibit {
            "parameters" => Ok(parameters(book)),
            "throughput" => throughput_figure(book),
            "throughput-table" => Ok(vec![throughput_table(book.primary())]),
            "batching" => Ok(vec![batching_table(book.primary())]),
            "wait" => wait_tables(book.primary()),
            "busy-cost" => busy_cost(book.primary()),
            "lock-hold" => lock_hold_table(book.primary()),
            "verdicts" => Ok(vec![Block::Verdicts(
                book.runs.iter().map(fan4_verdict).collect(),
            )]),
            other => bail!("exhibit {other:?} is declared but not rendered"),
        }
    }

    fn headline(data: &Data) -> Vec<(String, Estimate)> {
        decisive_estimates(data)
    }
}

/// The point with the light consumer work.
fn find(
    data: &Data,
    experiment: Experiment,
    design: Design,
    wait: Wait,
    producers: u64,
) -> Option<&Measured> {
    find_work(data, experiment, design, wait, producers, LIGHT_WORK)
}

fn find_work(
    data: &Data,
    experiment: Experiment,
    design: Design,
    wait: Wait,
    producers: u64,
    work_rounds: u32,
) -> Option<&Measured> {
    data.points.iter().find(|m| {
        m.experiment == experiment
            && m.design == design
            && m.wait == wait
            && m.producers == producers
            && m.work_rounds == work_rounds
    })
}

fn grid(data: &Data, experiment: Experiment) -> Vec<u64> {
    let set: BTreeSet<u64> = data
        .points
        .iter()
        .filter(|m| m.experiment == experiment)
        .map(|m| m.producers)
        .collect();
    set.into_iter().collect()
}

fn runtime_note(run: &Run<Data>) -> String {
    format!(
        "producers: tokio multi-thread runtime, {} worker threads; consumer: current-thread \
         runtime on its own OS thread; {} messages per burst; machine {}",
        run.data.worker_threads,
        harness::fmt::thousands(run.data.messages_per_burst),
        run.machine()
    )
}

/// Messages per second, from the time of one burst.
fn rate(messages: u64, ns: f64) -> f64 {
    messages as f64 / (ns * 1e-9)
}

fn rate_text(per_s: f64) -> String {
    if per_s >= 1e9 {
        format!("{} G/s", sig3(per_s / 1e9))
    } else if per_s >= 1e6 {
        format!("{} M/s", sig3(per_s / 1e6))
    } else if per_s >= 1e3 {
        format!("{} k/s", sig3(per_s / 1e3))
    } else {
        format!("{} /s", sig3(per_s))
    }
}

fn percent(fraction: f64) -> String {
    format!("{:.0} %", fraction * 100.0)
}

fn time_ci(e: &Estimate) -> String {
    format!(
        "{} [{} – {}]",
        nanos(e.point_ns),
        nanos(e.lower_ns),
        nanos(e.upper_ns)
    )
}

fn ratio_ci(r: &Estimate) -> String {
    format!(
        "{} [{} – {}]",
        ratio(r.point_ns),
        sig3(r.lower_ns),
        sig3(r.upper_ns)
    )
}

fn parameters(book: &Book<Data>) -> Vec<Block> {
    let mut profiles = Table::new(
        "Experiment parameters per profile (smoke runs only in tests). Every burst sends the same \
         total of messages, split evenly over the producers.",
        &[
            "Profile",
            "Producers (throughput, lock hold)",
            "Producers (wait strategies)",
            "Messages per burst",
            "Rounds",
            "Criterion samples per round",
            "Warm-up",
            "Measurement",
            "Points",
        ],
    )
    .left(&[1, 2]);
    for profile in Profile::ALL {
        let p = params(profile);
        let list = |v: &[u64]| {
            v.iter()
                .map(|n| n.to_string())
                .collect::<Vec<_>>()
                .join(", ")
        };
        profiles.push(vec![
            profile.to_string(),
            list(&p.producers),
            list(&p.wait_producers),
            harness::fmt::thousands(p.messages_per_burst),
            rounds_label(p.repeats, p.decisive_repeats),
            p.sampling.samples.to_string(),
            format!("{} ms", p.sampling.warm_up.as_millis()),
            format!("{} ms", p.sampling.measurement.as_millis()),
            plan(profile).len().to_string(),
        ]);
    }
    let mut machines = Table::new(
        "The runtime set-up each machine's results were measured with, as detected by the run.",
        &[
            "Machine",
            "Profile",
            "Producer runtime",
            "Consumer",
            "L1 line (kernel)",
            "Shard alignment",
            "Consumer work per message",
            "Rounds pooled per point",
        ],
    )
    .left(&[1, 2, 3, 6]);
    for run in &book.runs {
        machines.push(vec![
            run.machine().to_string(),
            run.provenance.profile.to_string(),
            format!("multi-thread, {} workers", run.data.worker_threads),
            "current-thread runtime on its own OS thread".into(),
            run.data
                .cache_line_bytes
                .map_or("not reported".into(), |b| format!("{b} B")),
            format!("{} B", run.data.shard_align_bytes),
            format!(
                "{}; {}",
                work_label(&run.data, LIGHT_WORK),
                work_label(&run.data, HEAVY_WORK)
            ),
            rounds_label(run.data.repeats, run.data.decisive_repeats),
        ]);
    }
    vec![Block::Table(profiles), Block::Table(machines)]
}

/// "2; FAN-4's points 10" (or just "2" when they get no more).
fn rounds_label(repeats: usize, decisive: usize) -> String {
    if decisive > repeats {
        format!("{repeats}; FAN-4's points {decisive}")
    } else {
        repeats.to_string()
    }
}

fn throughput_figure(book: &Book<Data>) -> Result<Vec<Block>> {
    let run = book.primary();
    let data = &run.data;
    let n = data.messages_per_burst;
    let mut series = Vec::new();
    for design in Design::SWAPS {
        let points = grid(data, Experiment::Throughput)
            .into_iter()
            .filter_map(|p| find(data, Experiment::Throughput, design, Wait::Notify, p))
            .map(|m| {
                let e = &m.timing.mean;
                Point::with_band(
                    m.producers as f64,
                    rate(n, e.point_ns),
                    rate(n, e.upper_ns),
                    rate(n, e.lower_ns),
                )
            })
            .collect();
        series.push(Series::measured(design.label(), points));
    }
    let published = fan_in_published(book)?;
    let rows: Vec<PublishedBurst> = published.rows()?;
    let published_rate = |w: u64, us: f64| rate(w * PUBLISHED_MESSAGES_PER_WORKER, us * 1e3);
    series.push(Series::published(
        format!("published: std Mutex swap ({})", published.source.machine),
        rows.iter()
            .map(|r| Point::new(r.workers as f64, published_rate(r.workers, r.std_mutex_us)))
            .collect(),
    ));
    series.push(Series::published(
        format!("published: tokio Mutex swap ({})", published.source.machine),
        rows.iter()
            .map(|r| {
                Point::new(
                    r.workers as f64,
                    published_rate(r.workers, r.tokio_mutex_us),
                )
            })
            .collect(),
    ));
    // The caption sits inside an HTML block, where markdown links stay literal.
    let source = format!(
        "<a href=\"{}\">{}</a>, {}",
        html_escape(&published.source.url),
        html_escape(&published.source.title),
        html_escape(&published.source.machine)
    );
    Ok(vec![Block::Figure(Figure {
        id: "mutex-swap-throughput".into(),
        title: "Messages per second through one consumer".into(),
        caption: format!(
            "Throughput of one burst against producer count, Notify consumer; bands are \
             criterion's 95% interval of the mean. {}. Dashed: published burst times of the \
             fan-in post ({source}), converted at {} messages per worker; their consumer did \
             not drain the buffer (see the text).",
            runtime_note(run),
            PUBLISHED_MESSAGES_PER_WORKER
        ),
        x: Axis::log("producer tasks"),
        y: Axis::log("messages per second"),
        series,
    })])
}

fn fan_in_published(book: &Book<Data>) -> Result<Dataset> {
    // The published numbers belong to the fan-in post; this chapter reads
    // them from the fan-in chapter's folder rather than keeping a copy.
    Dataset::load(
        &book
            .store
            .chapter_dir("fan-in")
            .join("published-burst.json"),
    )
}

fn throughput_table(run: &Run<Data>) -> Block {
    let data = &run.data;
    let mut header = vec!["Producers".to_string()];
    header.extend(Design::SWAPS.iter().map(|d| d.label().to_string()));
    let header_refs: Vec<&str> = header.iter().map(String::as_str).collect();
    let mut t = Table::new(
        format!(
            "Messages per second, mean over a burst (criterion's 95% interval in brackets), \
             Notify consumer. {}.",
            runtime_note(run)
        ),
        &header_refs,
    );
    for p in grid(data, Experiment::Throughput) {
        let mut row = vec![harness::fmt::thousands(p)];
        for design in Design::SWAPS {
            row.push(
                find(data, Experiment::Throughput, design, Wait::Notify, p).map_or(
                    "—".into(),
                    |m| {
                        let n = data.messages_per_burst;
                        format!(
                            "{} [{} – {}]",
                            rate_text(rate(n, m.timing.mean.point_ns)),
                            rate_text(rate(n, m.timing.mean.upper_ns)),
                            rate_text(rate(n, m.timing.mean.lower_ns))
                        )
                    },
                ),
            );
        }
        t.push(row);
    }
    Block::Table(t)
}

fn batching_table(run: &Run<Data>) -> Block {
    let data = &run.data;
    let mut header = vec!["Producers".to_string()];
    header.extend(Design::SWAPS.iter().map(|d| d.label().to_string()));
    let header_refs: Vec<&str> = header.iter().map(String::as_str).collect();
    let mut t = Table::new(
        format!(
            "Mean messages the consumer moves per pass that found any, its 95% interval drawn \
             over the point's rounds in square brackets, the largest single pass in round \
             brackets; Notify consumer. For the sharded design a pass visits every shard. {}.",
            runtime_note(run)
        ),
        &header_refs,
    );
    for p in grid(data, Experiment::Throughput) {
        let mut row = vec![harness::fmt::thousands(p)];
        for design in Design::SWAPS {
            row.push(
                find(data, Experiment::Throughput, design, Wait::Notify, p).map_or(
                    "—".into(),
                    |m| {
                        let interval = m.batch().map_or(String::new(), |b| {
                            format!(" [{} – {}]", sig3(b.lower_ns), sig3(b.upper_ns))
                        });
                        format!(
                            "{}{interval} ({})",
                            sig3(m.passes.messages_per_pass()),
                            harness::fmt::thousands(m.passes.max_batch)
                        )
                    },
                ),
            );
        }
        t.push(row);
    }
    Block::Table(t)
}

fn wait_tables(run: &Run<Data>) -> Result<Vec<Block>> {
    let data = &run.data;
    let mut blocks = Vec::new();
    for p in grid(data, Experiment::Wait) {
        let mut t = Table::new(
            format!(
                "{p} producers: burst time (mean, 95% interval), the consumer's CPU time per \
                 burst and as a share of one core over the burst, passes, and the slowdown \
                 against the same design with the Notify consumer. {}.",
                runtime_note(run)
            ),
            &[
                "Design",
                "Consumer waits by",
                "Burst time",
                "Throughput",
                "Consumer CPU per burst",
                "Consumer share of a core",
                "Messages per pass",
                "Empty passes per burst",
                "Burst time vs Notify",
            ],
        )
        .left(&[1]);
        for design in Design::SWAPS {
            let notify = find(data, Experiment::Wait, design, Wait::Notify, p)
                .context("missing Notify point")?;
            for wait in Wait::ALL {
                let m = find(data, Experiment::Wait, design, wait, p)
                    .with_context(|| format!("missing {} point", wait.name()))?;
                t.push(vec![
                    design.label().into(),
                    wait.label().into(),
                    time_ci(&m.timing.mean),
                    rate_text(rate(data.messages_per_burst, m.timing.mean.point_ns)),
                    nanos(m.passes.consumer_cpu_per_burst_ns()),
                    percent(m.passes.consumer_core_share()),
                    sig3(m.passes.messages_per_pass()),
                    sig3(m.passes.empty_passes_per_burst()),
                    if wait == Wait::Notify {
                        "—".into()
                    } else {
                        ratio_ci(&timing::ratio(&m.timing, &notify.timing, Statistic::Mean))
                    },
                ]);
            }
        }
        blocks.push(Block::Table(t));
    }
    Ok(blocks)
}

fn busy_cost(run: &Run<Data>) -> Result<Vec<Block>> {
    let data = &run.data;
    let mut text = String::new();
    for p in grid(data, Experiment::Wait) {
        let mut worst: Option<(f64, Design, Estimate)> = None;
        let mut parts = Vec::new();
        for design in Design::SWAPS {
            let busy = find(data, Experiment::Wait, design, Wait::BusyPoll, p)
                .context("missing busy-poll point")?;
            let notify = find(data, Experiment::Wait, design, Wait::Notify, p)
                .context("missing Notify point")?;
            let r = timing::ratio(&busy.timing, &notify.timing, Statistic::Mean);
            parts.push(format!("{} {}", design.label(), ratio(r.point_ns)));
            if worst.is_none_or(|(w, _, _)| r.point_ns > w) {
                worst = Some((r.point_ns, design, r));
            }
        }
        let std_busy = find(
            data,
            Experiment::Wait,
            Design::StdMutexSwap,
            Wait::BusyPoll,
            p,
        )
        .context("missing std busy-poll point")?;
        let std_notify = find(
            data,
            Experiment::Wait,
            Design::StdMutexSwap,
            Wait::Notify,
            p,
        )
        .context("missing std Notify point")?;
        let std_ratio = timing::ratio(&std_busy.timing, &std_notify.timing, Statistic::Mean);
        let (_, worst_design, worst_ratio) = worst.context("no designs")?;
        text.push_str(&format!(
            "On {machine} ({workers} worker threads for the producers), with {p} producers, a \
             busy-polling consumer made the std Mutex swap's burst take **{r}** as long as \
             with a Notify consumer (bootstrapped 95% interval {lo}–{hi}), while using {busy_share} \
             of a core against {notify_share} for Notify. Across designs the busy/Notify ratio \
             was: {parts}; the largest was {wd} at {wr}.\n\n",
            machine = run.machine(),
            workers = data.worker_threads,
            r = ratio(std_ratio.point_ns),
            lo = sig3(std_ratio.lower_ns),
            hi = sig3(std_ratio.upper_ns),
            busy_share = percent(std_busy.passes.consumer_core_share()),
            notify_share = percent(std_notify.passes.consumer_core_share()),
            parts = parts.join(", "),
            wd = worst_design.label(),
            wr = ratio(worst_ratio.point_ns),
        ));
    }
    Ok(vec![Block::Text(text.trim_end().to_string())])
}

fn work_label(data: &Data, rounds: u32) -> String {
    let kind = if rounds == HEAVY_WORK {
        "heavy"
    } else {
        "light"
    };
    match data.work_cost.iter().find(|w| w.work_rounds == rounds) {
        Some(w) => format!("{kind} ({} per message)", nanos(w.ns_per_message())),
        None => kind.to_string(),
    }
}

fn lock_hold_table(run: &Run<Data>) -> Result<Vec<Block>> {
    let data = &run.data;
    let mut t = Table::new(
        format!(
            "One std Mutex inbox, three critical sections: the consumer swaps and works outside \
             the lock; works on the batch while holding the lock; or takes one message per lock \
             acquisition. Consumer work per message light or heavy (its cost alone in brackets). \
             Burst time (mean, 95% interval), the consumer's mean messages per non-empty pass, \
             and each variant's burst time against the swap's (95% interval bootstrapped from both runs' samples). \
             Notify consumer. {}.",
            runtime_note(run)
        ),
        &[
            "Consumer work",
            "Producers",
            "Swap, work outside the lock",
            "Work under the lock",
            "One message per lock",
            "Messages per pass (swap / under lock)",
            "Under lock vs swap",
            "One per lock vs swap",
        ],
    )
    .left(&[0]);
    for rounds in [LIGHT_WORK, HEAVY_WORK] {
        for p in grid(data, Experiment::LockHold) {
            let swap = if rounds == LIGHT_WORK {
                find(
                    data,
                    Experiment::Throughput,
                    Design::StdMutexSwap,
                    Wait::Notify,
                    p,
                )
            } else {
                find_work(
                    data,
                    Experiment::LockHold,
                    Design::StdMutexSwap,
                    Wait::Notify,
                    p,
                    rounds,
                )
            }
            .with_context(|| format!("no std swap point at {p} producers"))?;
            let locked = find_work(
                data,
                Experiment::LockHold,
                Design::StdMutexDrainLocked,
                Wait::Notify,
                p,
                rounds,
            )
            .with_context(|| format!("no drained-under-lock point at {p} producers"))?;
            let pop_one = find_work(
                data,
                Experiment::LockHold,
                Design::StdMutexPopOne,
                Wait::Notify,
                p,
                rounds,
            );
            t.push(vec![
                work_label(data, rounds),
                harness::fmt::thousands(p),
                time_ci(&swap.timing.mean),
                time_ci(&locked.timing.mean),
                pop_one.map_or("not measured".into(), |m| time_ci(&m.timing.mean)),
                format!(
                    "{} / {}",
                    sig3(swap.passes.messages_per_pass()),
                    sig3(locked.passes.messages_per_pass())
                ),
                ratio_ci(&timing::ratio(
                    &locked.timing,
                    &swap.timing,
                    Statistic::Mean,
                )),
                pop_one.map_or("—".into(), |m| {
                    ratio_ci(&timing::ratio(&m.timing, &swap.timing, Statistic::Mean))
                }),
            ]);
        }
    }
    Ok(vec![Block::Table(t)])
}

/// FAN-4's points: at every producer count from 128 up with both, the std
/// swap (throughput experiment) and one message per lock, with the ratio of
/// their mean burst times (one per lock ÷ swap, bootstrapped interval).
/// Whether FAN-4 is decided on this point (see `fan4_points`), so that it
/// gets `Params::decisive_repeats` rounds.
fn is_decisive(
    experiment: Experiment,
    design: Design,
    wait: Wait,
    producers: u64,
    work_rounds: u32,
) -> bool {
    producers >= FAN4_FROM_PRODUCERS
        && wait == Wait::Notify
        && work_rounds == LIGHT_WORK
        && matches!(
            (experiment, design),
            (Experiment::Throughput, Design::StdMutexSwap)
                | (Experiment::LockHold, Design::StdMutexPopOne)
        )
}

fn fan4_points(data: &Data) -> Vec<(&Measured, &Measured, Estimate)> {
    grid(data, Experiment::Throughput)
        .into_iter()
        .filter(|&p| p >= FAN4_FROM_PRODUCERS)
        .filter_map(|p| {
            let swap = find(
                data,
                Experiment::Throughput,
                Design::StdMutexSwap,
                Wait::Notify,
                p,
            )?;
            let pop_one = find(
                data,
                Experiment::LockHold,
                Design::StdMutexPopOne,
                Wait::Notify,
                p,
            )?;
            Some((
                swap,
                pop_one,
                timing::ratio(&pop_one.timing, &swap.timing, Statistic::Mean),
            ))
        })
        .collect()
}

/// FAN-4's ratios at the largest producer count and, when another count
/// comes nearer to 1, at that closest call too.
fn decisive_estimates(data: &Data) -> Vec<(String, Estimate)> {
    let points = fan4_points(data);
    let Some((largest, _, top)) = points.last() else {
        return Vec::new();
    };
    let name = |p: u64, note: &str| {
        format!(
            "FAN-4, {} producers{note}: one message per lock ÷ std swap",
            harness::fmt::thousands(p)
        )
    };
    let mut out = Vec::new();
    if let Some((swap, _, r)) = points
        .iter()
        .min_by(|a, b| a.2.lower_ns.total_cmp(&b.2.lower_ns))
    {
        if swap.producers != largest.producers {
            out.push((name(swap.producers, " (closest call)"), *r));
        }
    }
    out.push((name(largest.producers, ""), *top));
    out
}

fn fan4_verdict(run: &Run<Data>) -> Verdict {
    let claim = &CLAIMS[0];
    let at_scale = fan4_points(&run.data);
    if at_scale.is_empty() {
        return Verdict::not_measured(
            claim,
            format!(
                "{} has no std Mutex swap and one-per-lock points at {FAN4_FROM_PRODUCERS} \
                 producers or more",
                run.machine()
            ),
        );
    }
    let (mut refuted, mut undecided) = (false, false);
    let mut evidence = Vec::new();
    for (swap, _, r) in &at_scale {
        let batch = swap.batch();
        match batch.map(|b| b.at_least(FAN4_MIN_BATCH)) {
            Some(Some(true)) => {}
            Some(Some(false)) => refuted = true,
            Some(None) | None => undecided = true,
        }
        refuted |= r.upper_ns < 1.0;
        undecided |= r.lower_ns <= 1.0 && r.upper_ns >= 1.0;
        let batch = batch.map_or_else(
            || {
                format!(
                    "{} (no per-round counts)",
                    sig3(swap.passes.messages_per_pass())
                )
            },
            |b| {
                format!(
                    "{} [{} – {}]",
                    sig3(b.point_ns),
                    sig3(b.lower_ns),
                    sig3(b.upper_ns)
                )
            },
        );
        evidence.push(format!(
            "{} producers: {batch} messages per pass; one per lock {} the swap's time [{} – {}]",
            swap.producers,
            ratio(r.point_ns),
            sig3(r.lower_ns),
            sig3(r.upper_ns)
        ));
    }
    let outcome = if refuted {
        Outcome::DoesNotHold
    } else if undecided {
        Outcome::Inconclusive
    } else {
        Outcome::Holds
    };
    Verdict::new(claim, run.machine(), outcome, evidence.join("; "))
}
