//! Experiment A's bursts for callgrind to count (`harness_measure::counts`): tokio
//! mpsc in one task on a current-thread runtime, and crossbeam on the
//! calling thread, both single-threaded; the compared crates (flume's two
//! ends, async-channel) the same way at the smallest and largest payload. A count is the instructions the
//! burst executes: the same on every run of one binary, whatever else the
//! machine is doing, and blind to cache misses, which is the point of
//! showing it beside the time.
use harness_core::Profile;
use harness_measure::counts::{counted, Counted};

use crate::async_channel_bounded::AsyncChannelBounded;
use crate::crossbeam_bounded::CrossbeamBounded;
use crate::flume_async::FlumeAsync;
use crate::flume_sync::FlumeSync;
use crate::payload::{burst_checksum, Payload};
use crate::sweep::{AsyncBurst, SyncBurst};
use crate::tokio_mpsc::TokioMpsc;
use crate::{BURST, CAPACITY};

// ANCHOR: counted
/// `bursts` bursts of an async channel (tokio's, and the compared async
/// ends) awaited in one `block_on` (entering the runtime is not counted per
/// burst); panics unless every burst's sum is right.
fn async_bursts<P: Payload, C: AsyncBurst<P>>(mut chan: C, bursts: u64, what: &str) {
    let rt = crate::sweep::current_thread_runtime().expect("a current-thread runtime");
    let mut stock = P::stock(BURST);
    let right = counted(|| {
        rt.block_on(async {
            let mut right = 0;
            for _ in 0..bursts {
                right += u64::from(chan.burst(&mut stock, BURST).await == burst_checksum(BURST));
            }
            right
        })
    });
    assert_eq!(right, bursts, "a {what} burst returned the wrong sum");
    assert!(chan.is_drained(), "messages were left in the channel");
}

/// The same for a sync channel (crossbeam's, and the compared sync ends),
/// on the calling thread.
fn sync_bursts<P: Payload, C: SyncBurst<P>>(mut chan: C, bursts: u64, what: &str) {
    let mut stock = P::stock(BURST);
    let right = counted(|| {
        let mut right = 0;
        for _ in 0..bursts {
            right += u64::from(chan.burst(&mut stock, BURST) == burst_checksum(BURST));
        }
        right
    });
    assert_eq!(right, bursts, "a {what} burst returned the wrong sum");
    assert!(chan.is_drained(), "messages were left in the channel");
}

fn tokio_bursts<P: Payload>(bursts: u64) {
    async_bursts::<P, _>(TokioMpsc::<P>::new(CAPACITY), bursts, "tokio");
}

fn crossbeam_bursts<P: Payload>(bursts: u64) {
    sync_bursts::<P, _>(CrossbeamBounded::<P>::new(CAPACITY), bursts, "crossbeam");
}
// ANCHOR_END: counted

fn flume_sync_bursts<P: Payload>(bursts: u64) {
    sync_bursts::<P, _>(FlumeSync::<P>::new(CAPACITY), bursts, "flume (sync)");
}

fn flume_async_bursts<P: Payload>(bursts: u64) {
    async_bursts::<P, _>(FlumeAsync::<P>::new(CAPACITY), bursts, "flume (async)");
}

fn async_channel_bursts<P: Payload>(bursts: u64) {
    async_bursts::<P, _>(
        AsyncChannelBounded::<P>::new(CAPACITY),
        bursts,
        "async-channel",
    );
}

/// What a case counts: its channel, payload carry and size.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Case {
    pub name: &'static str,
    pub channel: &'static str,
    pub carry: &'static str,
    pub bytes: usize,
}

macro_rules! cases {
    ($(($name:literal, $channel:literal, $carry:literal, $bytes:literal, $run:expr)),* $(,)?) => {
        /// Every case, one operation = one burst of `BURST` sends and receives.
        pub const COUNTED: &[Counted] = &[$(Counted {
            name: $name,
            about: concat!("one burst of ", $channel, ", ", $carry, " ", $bytes, " B"),
            run: $run,
        }),*];
        pub const CASES: &[Case] = &[$(Case {
            name: $name,
            channel: $channel,
            carry: $carry,
            bytes: $bytes,
        }),*];
    };
}

cases!(
    ("tokio-8", "tokio", "array", 8, tokio_bursts::<[u8; 8]>),
    (
        "crossbeam-8",
        "crossbeam",
        "array",
        8,
        crossbeam_bursts::<[u8; 8]>
    ),
    (
        "tokio-1024",
        "tokio",
        "array",
        1024,
        tokio_bursts::<[u8; 1024]>
    ),
    (
        "crossbeam-1024",
        "crossbeam",
        "array",
        1024,
        crossbeam_bursts::<[u8; 1024]>
    ),
    (
        "tokio-4096",
        "tokio",
        "array",
        4096,
        tokio_bursts::<[u8; 4096]>
    ),
    (
        "crossbeam-4096",
        "crossbeam",
        "array",
        4096,
        crossbeam_bursts::<[u8; 4096]>
    ),
    (
        "tokio-32768",
        "tokio",
        "array",
        32768,
        tokio_bursts::<[u8; 32768]>
    ),
    (
        "crossbeam-32768",
        "crossbeam",
        "array",
        32768,
        crossbeam_bursts::<[u8; 32768]>
    ),
    (
        "tokio-boxed-32768",
        "tokio",
        "boxed",
        32768,
        tokio_bursts::<Box<[u8; 32768]>>
    ),
    (
        "crossbeam-boxed-32768",
        "crossbeam",
        "boxed",
        32768,
        crossbeam_bursts::<Box<[u8; 32768]>>
    ),
    (
        "flume-sync-8",
        "flume-sync",
        "array",
        8,
        flume_sync_bursts::<[u8; 8]>
    ),
    (
        "flume-async-8",
        "flume-async",
        "array",
        8,
        flume_async_bursts::<[u8; 8]>
    ),
    (
        "async-channel-8",
        "async-channel",
        "array",
        8,
        async_channel_bursts::<[u8; 8]>
    ),
    (
        "flume-sync-32768",
        "flume-sync",
        "array",
        32768,
        flume_sync_bursts::<[u8; 32768]>
    ),
    (
        "flume-async-32768",
        "flume-async",
        "array",
        32768,
        flume_async_bursts::<[u8; 32768]>
    ),
    (
        "async-channel-32768",
        "async-channel",
        "array",
        32768,
        async_channel_bursts::<[u8; 32768]>
    ),
);

/// The case named `name`.
pub fn case(name: &str) -> Option<&'static Case> {
    CASES.iter().find(|c| c.name == name)
}

/// The cases a profile counts: Valgrind runs the work tens of times
/// slower, so smoke counts the smallest payload only and quick leaves out
/// the middle sizes, and the compared crates' 32 KiB bursts (each about ten
/// seconds under Valgrind), which only full counts.
pub fn cases_for(profile: Profile) -> Vec<&'static Case> {
    let compared = |c: &Case| crate::Variant::COMPARED.iter().any(|v| v.id() == c.channel);
    CASES
        .iter()
        .filter(|c| match profile {
            Profile::Smoke => c.bytes == 8,
            Profile::Quick => c.bytes == 8 || (c.bytes == 32768 && !compared(c)),
            Profile::Full => true,
        })
        .collect()
}

/// Bursts in the two counts (see `harness_measure::counts::per_op`). The first
/// burst of a channel allocates what later ones reuse, so it is in both
/// counts and the difference is a later burst. Large by-value payloads take
/// seconds per burst under Valgrind, which counts every step of a string
/// copy: from 4 KiB one burst more is enough, and at 32 KiB the first burst
/// is counted alone, its allocations being a few hundred-thousandths of its
/// count (tokio's first burst and its second differ by less than that).
pub fn bursts(case: &Case) -> (u64, u64) {
    match (case.carry, case.bytes) {
        ("array", b) if b >= 32768 => (0, 1),
        ("array", b) if b >= 4096 => (1, 2),
        _ => (2, 4),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_case_checks_its_bursts_and_names_what_it_counts() {
        assert_eq!(COUNTED.len(), CASES.len());
        for (c, k) in CASES.iter().zip(COUNTED) {
            assert_eq!(c.name, k.name);
            assert!(k.about.contains(c.channel) && k.about.contains(c.carry));
            (k.run)(2);
            // Each case has crossbeam's counterpart, and each crossbeam
            // case tokio's.
            let other = if c.channel == "crossbeam" {
                "tokio"
            } else {
                "crossbeam"
            };
            assert!(CASES
                .iter()
                .any(|o| o.channel == other && o.carry == c.carry && o.bytes == c.bytes));
        }
        assert_eq!(case("tokio-8").unwrap().bytes, 8);
        assert_eq!(case("flume-async-32768").unwrap().channel, "flume-async");
        assert!(case("flume-8").is_none());
        // Every compared crate is counted at the smallest and the largest
        // payload, where the page's picks are.
        for v in crate::Variant::COMPARED {
            for bytes in [8, 32768] {
                assert!(CASES
                    .iter()
                    .any(|c| c.channel == v.id() && c.bytes == bytes));
            }
        }
        assert!(cases_for(Profile::Smoke).iter().all(|c| c.bytes == 8));
        assert_eq!(cases_for(Profile::Full).len(), CASES.len());
    }
}
