//! What creating a channel costs in instructions, counted: one case per
//! scenario and channel that callgrind counts (`harness_measure::counts`), exactly,
//! on one thread, from each of several starting heaps
//! (`harness_measure::counts::LAYOUTS`). The page's side is the binary's `page::counts`.
use anyhow::Result;
use serde::{Deserialize, Serialize};

use harness_measure::counts::{counted, per_op_layouts, Counted, PerOp, LAYOUTS};
use harness_measure::Lab;

use crate::probe::allocate_plainly;
use crate::{Channel, Scenario, CREATE_COUNTS, SCENARIOS};

/// Instructions per create-and-drop of one channel in one scenario, from
/// each starting heap.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CreationCount {
    pub scenario: String,
    pub channel: Channel,
    /// The starting heaps counted from (`harness_measure::counts::heap_layout`)...
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
pub(crate) fn measure(lab: &Lab) -> Result<Vec<CreationCount>> {
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
