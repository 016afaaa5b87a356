//! What creating a channel costs in instructions: callgrind counts each
//! channel's create-and-drop (`harness_measure::counts`), exactly, on one thread,
//! with the message and capacity of each many-channel scenario, from each
//! of several starting heaps (`harness_measure::counts::LAYOUTS`): creation is
//! mostly allocation, and the allocator's work depends on the heap it finds.
use anyhow::{ensure, Result};

use harness_core::fmt::ratio;
use harness_core::Unit;
use harness_page::{render::blocks::Block, render::blocks::Cell, render::blocks::Table, Book, Run};

use super::machine_caption;
use alloc_probe::run::{case_of, AllocData, CreationCount};
use alloc_probe::{Channel, Scenario, CREATE_COUNTS, SCENARIOS};

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
