//! What creating a channel costs in instructions: callgrind counts each
//! channel's create-and-drop (`harness::counts`), exactly, on one thread,
//! with the message and capacity of each many-channel scenario, from each
//! of several starting heaps (`harness::counts::LAYOUTS`): creation is
//! mostly allocation, and the allocator's work depends on the heap it finds.
use anyhow::{ensure, Result};
use serde::{Deserialize, Serialize};

use harness::counts::{counted, per_op_layouts, Counted, PerOp, LAYOUTS};
use harness::fmt::ratio;
use harness::{Block, Book, Cell, Lab, Run, Table, Unit};

use super::{machine_caption, AllocData};
use crate::probe::allocate_plainly;
use crate::{Channel, Scenario, CREATE_COUNTS, SCENARIOS};

/// Instructions per create-and-drop of one channel in one scenario, from
/// each starting heap.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CreationCount {
    pub scenario: String,
    pub channel: Channel,
    /// The starting heaps counted from (`harness::counts::heap_layout`)...
    pub layouts: Vec<u32>,
    /// ...and the count from each, in the same order.
    pub counts: Vec<PerOp>,
}

/// One counted case per scenario and channel, in the order of `SCENARIOS`
/// then `Channel::ALL`, named `create-<scenario>-<channel>` (see the test).
pub const COUNTED: &[Counted] = &[
    case("create-health-tokio-bounded", |n| create(0, 0, n)),
    case("create-health-tokio-unbounded", |n| create(0, 1, n)),
    case("create-health-futures-mpsc", |n| create(0, 2, n)),
    case("create-health-crossbeam-bounded", |n| create(0, 3, n)),
    case("create-health-kanal-sync", |n| create(0, 4, n)),
    case("create-health-kanal-async", |n| create(0, 5, n)),
    case("create-health-std-sync-channel", |n| create(0, 6, n)),
    case("create-health-flume-bounded", |n| create(0, 7, n)),
    case("create-requests-tokio-bounded", |n| create(1, 0, n)),
    case("create-requests-tokio-unbounded", |n| create(1, 1, n)),
    case("create-requests-futures-mpsc", |n| create(1, 2, n)),
    case("create-requests-crossbeam-bounded", |n| create(1, 3, n)),
    case("create-requests-kanal-sync", |n| create(1, 4, n)),
    case("create-requests-kanal-async", |n| create(1, 5, n)),
    case("create-requests-std-sync-channel", |n| create(1, 6, n)),
    case("create-requests-flume-bounded", |n| create(1, 7, n)),
];

const fn case(name: &'static str, run: fn(u64)) -> Counted {
    Counted {
        name,
        about: "creates and drops n channels of the scenario's message and capacity, one at a time",
        run,
    }
}

/// The counted case of `channel` in scenario number `scenario`.
pub fn case_of(scenario: usize, channel: Channel) -> &'static Counted {
    let c = Channel::ALL
        .iter()
        .position(|&c| c == channel)
        .expect("every channel is in Channel::ALL");
    &COUNTED[scenario * Channel::ALL.len() + c]
}

/// Creates and drops `n` channels inside the counted region. Runs in the
/// binary's `count` subcommand, where no dhat profiler runs: allocation goes
/// to the system's allocator, as in a program without dhat.
fn create(scenario: usize, channel: usize, n: u64) {
    let Scenario {
        msg_size, capacity, ..
    } = SCENARIOS[scenario];
    let channel = Channel::ALL[channel];
    let make: fn(Channel, u64, usize) = match msg_size {
        24 => |c, n, cap| c.create::<[u8; 24]>(n, cap),
        250 => |c, n, cap| c.create::<[u8; 250]>(n, cap),
        other => panic!("no counted case has {other}-byte messages"),
    };
    allocate_plainly();
    counted(|| make(channel, n, capacity));
}

/// The channels a smoke run counts: tokio's and the two the page compares
/// it with.
const SMOKE_CHANNELS: [Channel; 3] = [
    Channel::TokioBounded,
    Channel::CrossbeamBounded,
    Channel::FuturesMpsc,
];

/// Counts every channel's creation in every scenario from every starting
/// heap under callgrind (two processes under Valgrind each time, at once:
/// about half a second). A smoke run only exercises the code: the first
/// scenario, three channels, the first starting heap.
pub(super) fn measure(lab: &Lab) -> Result<Vec<CreationCount>> {
    let (small, large) = CREATE_COUNTS;
    let profile = lab.profile();
    let layouts = profile.pick(&LAYOUTS[..1], &LAYOUTS[..], &LAYOUTS[..]);
    let scenarios = profile.pick(&SCENARIOS[..1], &SCENARIOS[..], &SCENARIOS[..]);
    let channels = profile.pick(&SMOKE_CHANNELS[..], &Channel::ALL[..], &Channel::ALL[..]);
    let mut out = Vec::new();
    for (i, s) in scenarios.iter().enumerate() {
        lab.progress().step(format!(
            "instructions to create each channel (callgrind): {} scenario",
            s.name
        ));
        for &channel in channels {
            let counts = per_op_layouts(lab, case_of(i, channel).name, small, large, layouts)?;
            out.push(CreationCount {
                scenario: s.name.to_string(),
                channel,
                layouts: layouts.to_vec(),
                counts,
            });
        }
    }
    Ok(out)
}

/// What a results file's counts must show: scenarios the chapter has, each
/// counted channel once per scenario and tokio's among them (the ratios
/// divide by it), every count from the same starting heaps, under its case's
/// name, more instructions for more channels, and `per_op` the difference it
/// says it is.
pub(super) fn check(counts: &[CreationCount]) -> Result<()> {
    ensure!(
        !counts.is_empty(),
        "no instruction counts: every run counts the channels' creation with callgrind"
    );
    for k in counts {
        ensure!(
            SCENARIOS.iter().any(|s| s.name == k.scenario),
            "instruction counts of scenario {:?}, which the chapter does not have",
            k.scenario
        );
    }
    for (i, s) in SCENARIOS.iter().enumerate() {
        if !counts.iter().any(|k| k.scenario == s.name) {
            continue;
        }
        for channel in Channel::ALL {
            let found: Vec<&CreationCount> = counts
                .iter()
                .filter(|k| k.scenario == s.name && k.channel == channel)
                .collect();
            let label = channel.label();
            let needed = usize::from(channel == Channel::TokioBounded);
            ensure!(
                found.len() <= 1 && found.len() >= needed,
                "scenario {}: {} instruction counts of {label}, expected {}",
                s.name,
                found.len(),
                if needed == 1 { "one" } else { "at most one" }
            );
            let Some(&k) = found.first() else {
                continue;
            };
            ensure!(
                !k.layouts.is_empty()
                    && k.layouts.len() == k.counts.len()
                    && k.layouts == counts[0].layouts,
                "scenario {}: the instruction counts of {label} are from starting heaps {:?} \
                 ({} counts) where the first channel's are from {:?}",
                s.name,
                k.layouts,
                k.counts.len(),
                counts[0].layouts
            );
            for (layout, c) in k.layouts.iter().zip(&k.counts) {
                let at = format!("scenario {}, starting heap {layout}", s.name);
                ensure!(
                    c.name == case_of(i, channel).name,
                    "{at}: the instruction count of {label} is of case {:?}",
                    c.name
                );
                ensure!(
                    c.large > c.small && c.instructions_large > c.instructions_small,
                    "{at}: {} creations of {label} executed {} instructions, {} executed {}; \
                     more must execute more",
                    c.large,
                    c.instructions_large,
                    c.small,
                    c.instructions_small
                );
                let per_op = (c.instructions_large - c.instructions_small) as f64
                    / (c.large - c.small) as f64;
                ensure!(
                    c.per_op == per_op,
                    "{at}: the instruction count of {label} says {} per creation where its \
                     counts give {per_op}",
                    c.per_op
                );
            }
        }
    }
    Ok(())
}

pub(super) fn render(book: &Book<AllocData>) -> Result<Vec<Block>> {
    let mut blocks = Vec::new();
    for run in &book.runs {
        for s in SCENARIOS.iter().filter(|s| !channels_in(run, s).is_empty()) {
            blocks.push(Block::Table(table(run, s)));
        }
        let words = ratios(run);
        if !words.is_empty() {
            blocks.push(Block::Text(words));
        }
    }
    Ok(blocks)
}

/// The channels counted in scenario `s`, in the order of `Channel::ALL`.
fn channels_in(run: &Run<AllocData>, s: &Scenario) -> Vec<Channel> {
    Channel::ALL
        .into_iter()
        .filter(|&c| {
            run.data
                .creation_counts
                .iter()
                .any(|k| k.scenario == s.name && k.channel == c)
        })
        .collect()
}

/// Instructions per creation of `channel` in scenario `s`, from each
/// starting heap (empty if absent, which `check` rules out for a run that
/// has counts at all).
fn per_op_of(run: &Run<AllocData>, s: &Scenario, channel: Channel) -> Vec<f64> {
    run.data
        .creation_counts
        .iter()
        .find(|k| k.scenario == s.name && k.channel == channel)
        .map_or_else(Vec::new, |k| k.counts.iter().map(|c| c.per_op).collect())
}

/// The fewest and the most of `values`.
fn span(values: impl IntoIterator<Item = f64>) -> (f64, f64) {
    values
        .into_iter()
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), v| {
            (lo.min(v), hi.max(v))
        })
}

/// tokio bounded's count over `channel`'s, starting heap by starting heap:
/// the lowest and the highest.
fn tokio_over(run: &Run<AllocData>, s: &Scenario, channel: Channel) -> (f64, f64) {
    let tokio = per_op_of(run, s, Channel::TokioBounded);
    let other = per_op_of(run, s, channel);
    span(tokio.iter().zip(&other).map(|(t, o)| t / o))
}

fn table(run: &Run<AllocData>, s: &Scenario) -> Table {
    let (small, large) = CREATE_COUNTS;
    let heaps = match run.data.creation_counts[0].layouts.len() {
        1 => "from one starting heap".to_string(),
        n => format!("fewest and most over {n} starting heaps"),
    };
    let mut t = Table::new(
        format!(
            "Instructions executed to create and drop one channel of `[u8; {}]` with capacity {} \
             (the {} scenario), counted by callgrind on {}: the count of {large} creations less \
             that of {small}, divided by {}, on one thread with the system's allocator; {heaps}, \
             each ratio comparing two channels counted from the same starting heap.",
            s.msg_size,
            s.capacity,
            s.name,
            machine_caption(run),
            large - small
        ),
        &[
            "channel",
            "instructions, fewest",
            "most",
            "tokio bounded ÷ this, lowest",
            "highest",
        ],
    );
    for channel in channels_in(run, s) {
        let (fewest, most) = span(per_op_of(run, s, channel));
        let (low, high) = tokio_over(run, s, channel);
        t.push(vec![
            Cell::from(channel.label()),
            Cell::Number(fewest.round(), Unit::Plain),
            Cell::Number(most.round(), Unit::Plain),
            Cell::ratio(low),
            Cell::ratio(high),
        ]);
    }
    t
}

/// `2.31×`, or `between 0.82× and 1.10×` when the starting heaps disagree.
fn ratio_span((low, high): (f64, f64)) -> String {
    if ratio(low) == ratio(high) {
        ratio(low)
    } else {
        format!("between {} and {}", ratio(low), ratio(high))
    }
}

/// The ratios the chapter's story turns on, in words: tokio's bounded
/// channel against crossbeam's and futures-channel's, in each scenario
/// that counted them.
fn ratios(run: &Run<AllocData>) -> String {
    let parts: Vec<String> = SCENARIOS
        .iter()
        .filter_map(|s| {
            let have = channels_in(run, s);
            let mut clauses = Vec::new();
            if have.contains(&Channel::CrossbeamBounded) {
                let crossbeam = tokio_over(run, s, Channel::CrossbeamBounded);
                let depends = if crossbeam.0 < 1.0 && crossbeam.1 > 1.0 {
                    " (which of tokio and crossbeam executes fewer depends on the heap)"
                } else {
                    ""
                };
                clauses.push(format!(
                    "{} the instructions of crossbeam-channel's bounded channel{depends}",
                    ratio_span(crossbeam)
                ));
            }
            if have.contains(&Channel::FuturesMpsc) {
                clauses.push(format!(
                    "{} {} of futures-channel's",
                    ratio_span(tokio_over(run, s, Channel::FuturesMpsc)),
                    if clauses.is_empty() {
                        "the instructions"
                    } else {
                        "those"
                    }
                ));
            }
            (!clauses.is_empty())
                .then(|| format!("in the {} scenario, {}", s.name, clauses.join(" and ")))
        })
        .collect();
    if parts.is_empty() {
        return String::new();
    }
    format!(
        "On {}, creating and dropping tokio's bounded channel executes {}.",
        run.machine(),
        parts.join("; ")
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_channel_has_its_case_in_every_scenario() {
        assert_eq!(COUNTED.len(), SCENARIOS.len() * Channel::ALL.len());
        for (i, s) in SCENARIOS.iter().enumerate() {
            for channel in Channel::ALL {
                assert_eq!(
                    case_of(i, channel).name,
                    format!("create-{}-{}", s.name, channel.slug())
                );
            }
        }
    }
}
