//! The own-design exhibits: the book's worker chunks against the std swap and
//! the floor at every worker count, the targets the design is held to and
//! whether the run meets them, and where its CPU time goes beside the
//! floor's.
use anyhow::Result;
use harness_core::{Estimate, Outcome, Unit};
use harness_measure::stats;
use harness_page::render::flame::{self, GROUPS};
use harness_page::{render::blocks::Block, render::blocks::Cell, render::blocks::Table, Book, Run};

use super::shared::{on, on_rig, time_per_burst, STAT};
use fan_in::method::SwapProfile;
use fan_in::run::FanInData;
use fan_in::Design;

/// A target for the design: a ratio measured at every worker count from
/// `from` up, which must stay on the right side of `line`.
pub(super) struct Target {
    pub what: &'static str,
    pub from: usize,
    pub line: f64,
    /// `true`: the ratio must be at least `line`; `false`: at most.
    pub at_least: bool,
}

// ANCHOR: targets
/// What the design aims for (issue 44): twice the published swap's speed
/// wherever there are enough workers for the swap's lock to matter, and
/// within a fifth of the floor, which no inbox can beat.
pub(super) const TARGETS: [Target; 2] = [
    Target {
        what: "speed over the std Mutex swap (swap ÷ chunks)",
        from: 256,
        line: 2.0,
        at_least: true,
    },
    Target {
        what: "time over the floor (chunks ÷ floor)",
        from: 64,
        line: 1.2,
        at_least: false,
    },
];
// ANCHOR_END: targets

impl Target {
    /// The target's ratio at `workers`, bootstrapped from both designs'
    /// samples, or `None` where the run lacks a design there.
    pub fn ratio(&self, d: &FanInData, workers: usize) -> Option<Estimate> {
        let chunks = d.tcp(Design::WorkerChunks, workers).ok()?;
        let (num, den) = if self.at_least {
            (d.tcp(Design::StdMutexSwap, workers).ok()?, chunks)
        } else {
            (chunks, d.tcp(Design::Floor, workers).ok()?)
        };
        Some(stats::ratio(&num.timing, &den.timing, STAT))
    }

    /// Met where the whole interval is on the right side of the line, not
    /// met where it is wholly on the wrong side, inconclusive otherwise.
    pub fn outcome(&self, r: &Estimate) -> Outcome {
        let above = r.at_least(self.line);
        Outcome::decided(if self.at_least {
            above
        } else {
            above.map(|a| !a)
        })
    }

    /// The counts measured, each with its ratio, from `from` up.
    pub fn rows(&self, d: &FanInData) -> Vec<(usize, Estimate)> {
        d.workers
            .iter()
            .filter(|&&w| w >= self.from)
            .filter_map(|&w| Some((w, self.ratio(d, w)?)))
            .collect()
    }
}

fn met(o: Outcome) -> &'static str {
    match o {
        Outcome::Holds => "met",
        Outcome::DoesNotHold => "not met",
        _ => "undecided (an interval straddles the line)",
    }
}

pub(super) fn own_design(book: &Book<FanInData>) -> Result<Vec<Block>> {
    let mut blocks = Vec::new();
    for run in &book.runs {
        blocks.push(Block::Table(times(run)?));
        blocks.push(Block::Table(targets(run)));
    }
    Ok(blocks)
}

fn times(run: &Run<FanInData>) -> Result<Table> {
    let d = &run.data;
    let writes = if d.write_bytes == 0 {
        "a write per wake-up".to_string()
    } else {
        format!("writes of up to {} bytes", d.write_bytes)
    };
    let mut t = Table::new(
        format!(
            "Worker chunks ({} bytes per chunk, {writes}) against the std Mutex swap and the \
             floor, loopback TCP sink, on {}. Speedup = swap ÷ chunks, chunks ÷ floor its \
             time over the floor's, each with a 95 % interval bootstrapped from both \
             designs' samples.",
            d.chunk_bytes,
            on_rig(run)
        ),
        &[
            "Workers",
            "Worker chunks",
            "std Mutex swap",
            "Speedup over the swap",
            "Floor",
            "Chunks ÷ floor",
            "Chunks' writes per burst",
        ],
    );
    for &w in &d.workers {
        let chunks = d.tcp(Design::WorkerChunks, w)?;
        let swap = d.tcp(Design::StdMutexSwap, w)?;
        let floor = d.tcp(Design::Floor, w)?;
        t.push(vec![
            Cell::count(w as u64),
            Cell::time(time_per_burst(chunks)),
            Cell::time(time_per_burst(swap)),
            Cell::times(&stats::ratio(&swap.timing, &chunks.timing, STAT)),
            Cell::time(time_per_burst(floor)),
            Cell::times(&stats::ratio(&chunks.timing, &floor.timing, STAT)),
            Cell::Number(chunks.writes_per_burst, Unit::Plain),
        ]);
    }
    Ok(t)
}

/// One row per target: the counts it covers, the count where the design
/// does worst against it, how many counts miss it, and whether the run
/// meets it.
fn targets(run: &Run<FanInData>) -> Table {
    let d = &run.data;
    let mut t = Table::new(
        format!(
            "The design's targets, on {}: met where every count's interval lies on the \
             right side of the line, not met where one lies wholly on the wrong side, \
             undecided where none does but one straddles it.",
            on(run)
        ),
        &[
            "Target",
            "Line",
            "From workers",
            "Counts measured",
            "Worst count",
            "Ratio there",
            "Counts not met",
            "Outcome",
        ],
    )
    .left(&[0, 7]);
    for target in &TARGETS {
        let rows = target.rows(d);
        let head = [
            Cell::from(format!(
                "{}, {}",
                target.what,
                if target.at_least {
                    "at least"
                } else {
                    "at most"
                }
            )),
            Cell::ratio(target.line),
            Cell::count(target.from as u64),
            Cell::count(rows.len() as u64),
        ];
        // The count whose ratio is furthest toward the wrong side.
        let worst = rows.iter().min_by(|(_, a), (_, b)| {
            let key = |e: &Estimate| {
                if target.at_least {
                    e.point_ns
                } else {
                    -e.point_ns
                }
            };
            key(a).total_cmp(&key(b))
        });
        let tail = match worst {
            None => vec![
                Cell::from("–"),
                Cell::from("–"),
                Cell::from("–"),
                Cell::from("not measured: no count from there up in this run"),
            ],
            Some((w, r)) => {
                let outcomes: Vec<Outcome> = rows.iter().map(|(_, r)| target.outcome(r)).collect();
                let missed = outcomes
                    .iter()
                    .filter(|&&o| o == Outcome::DoesNotHold)
                    .count();
                vec![
                    Cell::count(*w as u64),
                    Cell::times(r),
                    Cell::count(missed as u64),
                    Cell::from(met(Outcome::all_of(&outcomes))),
                ]
            }
        };
        t.push(head.into_iter().chain(tail).collect());
    }
    t
}

/// Where the design's CPU time goes beside the floor's: both profiled at
/// the method's largest count, samples per thousand bursts by frame group.
pub(super) fn own_profile(book: &Book<FanInData>) -> Result<Vec<Block>> {
    let mut blocks = Vec::new();
    for run in &book.runs {
        let d = &run.data;
        let profiles = &d.method.design_profiles;
        let (Some(design), Some(floor)) = (
            profiles.iter().find(|p| p.design == Design::WorkerChunks),
            profiles.iter().find(|p| p.design == Design::Floor),
        ) else {
            blocks.push(Block::not_in_run(
                "fan-in",
                run.machine(),
                "The profiles of the book's design and the floor",
            ));
            continue;
        };
        let caption = format!(
            "CPU profiles of the book's design and of the floor at {} workers of {} messages \
             into the loopback TCP sink, on {}, threads pinned, sampled as the profiles above.",
            design.workers,
            d.per_worker,
            on(run),
        );
        blocks.extend(flame::exhibit(&[&design.stacks, &floor.stacks], &caption)?);
        blocks.push(Block::Table(per_burst(run, design, floor)));
    }
    Ok(blocks)
}

/// Samples per thousand bursts, group by group: the groups where the
/// design's column exceeds the floor's are where its extra CPU time goes.
fn per_burst(run: &Run<FanInData>, design: &SwapProfile, floor: &SwapProfile) -> Table {
    let per = |p: &SwapProfile| -> Vec<f64> {
        flame::groups(&p.stacks)
            .into_iter()
            .map(|(_, share)| 1000.0 * share * p.stacks.samples as f64 / p.bursts.max(1) as f64)
            .collect()
    };
    let (a, b) = (per(design), per(floor));
    let mut t = Table::new(
        format!(
            "CPU samples per 1,000 bursts by frame group, the book's design beside the floor, at {} \
             workers on {} ({} and {} bursts profiled). Samples are of CPU time on every \
             thread, so a group's difference is CPU the design spends there beyond the \
             floor; time a thread spends asleep is in neither.",
            design.workers,
            on(run),
            design.bursts,
            floor.bursts
        ),
        &["Frame group", "Worker chunks", "Floor", "Chunks − floor"],
    );
    for (g, name) in GROUPS.iter().enumerate() {
        t.push(vec![
            Cell::from(*name),
            Cell::Number(a[g], Unit::Plain),
            Cell::Number(b[g], Unit::Plain),
            Cell::Number(a[g] - b[g], Unit::Plain),
        ]);
    }
    let (sa, sb): (f64, f64) = (a.iter().sum(), b.iter().sum());
    t.push(vec![
        Cell::from("all"),
        Cell::Number(sa, Unit::Plain),
        Cell::Number(sb, Unit::Plain),
        Cell::Number(sa - sb, Unit::Plain),
    ]);
    t
}
