//! Experiment A measured other ways than the fair sweep. The post that
//! published the payload sweep gave no code, only its seed: criterion, a
//! burst of sends then receives through a bounded channel, payloads from
//! 8 B to 32 KB. A [`Method`] is one way of filling in what the seed leaves
//! open, one step of the ladder from that seed to the book's sweep, or one
//! runtime setting a reproducer could choose differently.
//!
//! Each method's tokio bursts are timed head to head with crossbeam's timed
//! the same way (same clock, same channel set-up, on the measuring thread),
//! in windows like the fair ratio's (`head_to_head`): in each window the two
//! take turns, sample by sample, so whatever state the machine is in lands
//! on both. A *sample* is what criterion's clock would cover: for the seed's
//! readings, several bursts back to back; for the others, one burst. Every
//! burst is checked; after the timed samples, a few more bursts run untimed
//! to count the page faults one burst takes.
use std::hint::black_box;
use std::time::{Duration, Instant};

use anyhow::{ensure, Context, Result};
use harness_core::{Estimate, Profile};
use harness_measure::stats::{paired_ratio, Statistic};
use harness_measure::timing::Timing;
use serde::{Deserialize, Serialize};
use tokio::runtime::Runtime;

use crate::crossbeam_bounded::CrossbeamBounded;
use crate::drivers::{Driver, Flavour, Runtimes};
use crate::payload::{self, burst_checksum, ForSize, Payload};
use crate::stack;
use crate::tokio_mpsc::TokioMpsc;
use crate::{BURST, CAPACITY};

/// What a method stands for on the verdict maps.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    /// One reading of the published seed (the unknowns filled in one way).
    Seed,
    /// A step of the ladder from the seed to the book's sweep.
    Ladder,
    /// The book's sweep with one runtime choice made differently.
    Sensitivity,
}

/// What one timed sample covers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Timed {
    /// Several bursts back to back under one clock, as criterion's `iter`
    /// and `to_async` loops time an iteration count (what the seed implies).
    Sample,
    /// One burst, as the sweep times it; `rotate`: at the next stack offset
    /// each time (`stack::shifted`), else all at one.
    Burst { rotate: bool },
}

/// One way of timing tokio's bursts; crossbeam, its partner, is timed the
/// same way (`fresh`, `timed`) on the measuring thread.
#[derive(Clone, Copy, Debug)]
pub struct Method {
    pub id: &'static str,
    pub role: Role,
    /// How the page names it, as a condition ("channel built before timing").
    pub label: &'static str,
    pub driver: Driver,
    /// The channel is built (and dropped) inside the timed region, per burst.
    pub fresh: bool,
    pub timed: Timed,
}

const MULTI: Flavour = Flavour::MultiThread { workers: None };
const MULTI_ONE: Flavour = Flavour::MultiThread { workers: Some(1) };
const CURRENT: Flavour = Flavour::CurrentThread;

// ANCHOR: methods
/// Every method, in the order the page lists them.
pub const METHODS: &[Method] = &[
    // The seed: criterion's clock around a sample of bursts; the channel is
    // made and dropped inside each one. Unknown: the runtime's flavour, and
    // whether criterion's `to_async` or a `block_on` per burst drove it.
    Method {
        id: "seed-to-async-multi",
        role: Role::Seed,
        label: "seed read as criterion to_async on a multi-thread runtime",
        driver: Driver::ToAsync(MULTI),
        fresh: true,
        timed: Timed::Sample,
    },
    Method {
        id: "seed-to-async-current",
        role: Role::Seed,
        label: "seed read as criterion to_async on a current-thread runtime",
        driver: Driver::ToAsync(CURRENT),
        fresh: true,
        timed: Timed::Sample,
    },
    Method {
        id: "seed-block-on-multi",
        role: Role::Seed,
        label: "seed read as block_on per burst on a multi-thread runtime",
        driver: Driver::BlockOn(MULTI),
        fresh: true,
        timed: Timed::Sample,
    },
    Method {
        id: "seed-block-on-current",
        role: Role::Seed,
        label: "seed read as block_on per burst on a current-thread runtime",
        driver: Driver::BlockOn(CURRENT),
        fresh: true,
        timed: Timed::Sample,
    },
    // The ladder, from the first reading of the seed towards the sweep.
    Method {
        id: "reused-to-async-multi",
        role: Role::Ladder,
        label: "channel built before timing",
        driver: Driver::ToAsync(MULTI),
        fresh: false,
        timed: Timed::Sample,
    },
    Method {
        id: "per-burst-current",
        role: Role::Ladder,
        label: "each burst timed alone, one block_on per burst on a current-thread runtime",
        driver: Driver::BlockOn(CURRENT),
        fresh: false,
        timed: Timed::Burst { rotate: false },
    },
    // The next step, stack offsets rotated from burst to burst, is the fair
    // experiment (`head_to_head`). Sensitivity: the fair experiment with
    // tokio's runtime chosen differently.
    Method {
        id: "multi-block-on",
        role: Role::Sensitivity,
        label: "multi-thread runtime, burst polled by block_on",
        driver: Driver::BlockOn(MULTI),
        fresh: false,
        timed: Timed::Burst { rotate: true },
    },
    Method {
        id: "multi-one-spawned",
        role: Role::Sensitivity,
        label: "multi-thread runtime with one worker, burst spawned as a task",
        driver: Driver::Spawned(MULTI_ONE),
        fresh: false,
        timed: Timed::Burst { rotate: true },
    },
    Method {
        id: "multi-spawned",
        role: Role::Sensitivity,
        label: "multi-thread runtime with a worker per core, burst spawned as a task",
        driver: Driver::Spawned(MULTI),
        fresh: false,
        timed: Timed::Burst { rotate: true },
    },
];
// ANCHOR_END: methods

/// The method with this id.
pub fn method(id: &str) -> Option<&'static Method> {
    METHODS.iter().find(|m| m.id == id)
}

/// Untimed bursts of each channel run after timing to count page faults.
pub const FAULT_BURSTS: u64 = 4;

/// Bursts in one sample of a `Timed::Sample` method. criterion's loop runs
/// hundreds of the small bursts per sample and a few of the large ones.
pub fn sample_bursts(bytes: usize) -> u64 {
    if bytes <= 4096 {
        4
    } else {
        1
    }
}

/// Windows per method and size (at least `harness_measure::stats::MIN_PAIRS`, the
/// fewest a paired ratio draws an interval from), and samples of each
/// channel per window.
pub fn windows(profile: Profile) -> (usize, usize) {
    profile.pick((4, 2), (4, 6), (6, 8))
}

/// One method at one `[u8; N]` size: tokio's and crossbeam's samples, window
/// by window, in nanoseconds per burst.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct MethodPoint {
    pub method: String,
    pub bytes: usize,
    pub tokio: Timing,
    pub crossbeam: Timing,
    /// Bursts run (timed, untimed and for the fault count) and checked.
    pub bursts_checked: u64,
    /// Minor page faults per burst over `FAULT_BURSTS` untimed bursts after
    /// the first window's timing (the whole process's: a spawned burst's
    /// worker counts too). `None` in the windows that did not count.
    pub tokio_faults_per_burst: Option<f64>,
    pub crossbeam_faults_per_burst: Option<f64>,
}

impl MethodPoint {
    /// tokio's time per burst over crossbeam's: the geometric mean over
    /// windows of each window's ratio of `statistic`, with its interval.
    pub fn ratio(&self, statistic: Statistic) -> Result<Estimate> {
        paired_ratio(&self.tokio, &self.crossbeam, statistic)
            .with_context(|| format!("{} at {} B", self.method, self.bytes))
    }

    /// Windows of one method and size as one point, in the order timed.
    pub fn pooled(windows: Vec<MethodPoint>) -> Result<MethodPoint> {
        let first = windows.first().context("no windows to pool")?.clone();
        ensure!(
            windows
                .iter()
                .all(|w| w.method == first.method && w.bytes == first.bytes),
            "windows of different methods cannot be pooled"
        );
        let tokio_faults_per_burst = windows.iter().find_map(|w| w.tokio_faults_per_burst);
        let crossbeam_faults_per_burst = windows.iter().find_map(|w| w.crossbeam_faults_per_burst);
        let bursts_checked = windows.iter().map(|w| w.bursts_checked).sum();
        let (tokio, crossbeam): (Vec<_>, Vec<_>) =
            windows.into_iter().map(|w| (w.tokio, w.crossbeam)).unzip();
        Ok(MethodPoint {
            tokio: Timing::pooled(tokio)?,
            crossbeam: Timing::pooled(crossbeam)?,
            bursts_checked,
            tokio_faults_per_burst,
            crossbeam_faults_per_burst,
            ..first
        })
    }
}

/// Minor page faults this process has taken so far.
fn minor_faults() -> i64 {
    // SAFETY: getrusage only writes the struct it is given.
    unsafe {
        let mut usage: libc::rusage = std::mem::zeroed();
        libc::getrusage(libc::RUSAGE_SELF, &mut usage);
        usage.ru_minflt
    }
}

/// Times window number `index` of `m` at `bytes` (one of `PAYLOAD_SIZES`),
/// `pairs` samples of each channel.
pub fn window(
    m: &Method,
    bytes: usize,
    index: usize,
    pairs: usize,
    rts: &Runtimes,
) -> Result<MethodPoint> {
    struct At<'a>(&'a Method, usize, usize, &'a Runtimes);
    impl ForSize for At<'_> {
        type Out = MethodPoint;
        fn run<const N: usize>(self) -> Result<MethodPoint> {
            window_of::<[u8; N]>(self.0, self.1, self.2, self.3)
        }
    }
    payload::for_size(bytes, At(m, index, pairs, rts))
}

/// Counts the bursts a window ran and how many returned the wrong sum.
#[derive(Default)]
struct Tally {
    bursts: u64,
    wrong: u64,
}

impl Tally {
    fn add(&mut self, sum: u64) {
        self.bursts += 1;
        self.wrong += u64::from(sum != burst_checksum(BURST));
    }
}

/// Runs `f` at stack step `turn` when the method rotates, else at step 0.
fn at<R>(timed: Timed, turn: u64, f: impl FnOnce() -> R) -> R {
    match timed {
        Timed::Burst { rotate: true } => stack::shifted(turn, f),
        _ => stack::shifted(0, f),
    }
}

/// One crossbeam burst on a fresh channel or on `chan`.
fn crossbeam_burst<P: Payload>(
    fresh: bool,
    chan: &mut CrossbeamBounded<P>,
    stock: &mut P::Stock,
) -> u64 {
    if fresh {
        CrossbeamBounded::<P>::new(CAPACITY).burst(stock, BURST)
    } else {
        chan.burst(stock, BURST)
    }
}

/// One tokio burst on a fresh channel or on `chan`.
async fn tokio_burst<P: Payload>(
    fresh: bool,
    chan: &mut TokioMpsc<P>,
    stock: &mut P::Stock,
) -> u64 {
    if fresh {
        TokioMpsc::<P>::new(CAPACITY).burst(stock, BURST).await
    } else {
        chan.burst(stock, BURST).await
    }
}

/// The channel and stock tokio's side drives, in an Option so that a
/// spawned burst can take both into its task and give them back.
type Held<P> = Option<(TokioMpsc<P>, <P as Payload>::Stock)>;

/// `k` tokio bursts driven as `driver` says, and their time under one
/// clock: taken inside the task for a spawned burst, around the `block_on`
/// loop for the others (for `ToAsync`, inside the one `block_on`).
fn tokio_sample<P: Payload>(
    rt: &Runtime,
    driver: Driver,
    fresh: bool,
    k: u64,
    held: &mut Held<P>,
    tally: &mut Tally,
) -> Duration
where
    P::Stock: 'static,
{
    let (mut chan, mut stock) = held.take().expect("the channel is back");
    let (took, sums, chan, stock) = match driver {
        Driver::ToAsync(_) => rt.block_on(async move {
            let start = Instant::now();
            let mut sums = Vec::with_capacity(k as usize);
            for _ in 0..k {
                sums.push(black_box(tokio_burst(fresh, &mut chan, &mut stock).await));
            }
            (start.elapsed(), sums, chan, stock)
        }),
        Driver::BlockOn(_) => {
            let start = Instant::now();
            let mut sums = Vec::with_capacity(k as usize);
            for _ in 0..k {
                sums.push(black_box(
                    rt.block_on(tokio_burst(fresh, &mut chan, &mut stock)),
                ));
            }
            (start.elapsed(), sums, chan, stock)
        }
        Driver::Spawned(_) => {
            let mut took = Duration::ZERO;
            let mut sums = Vec::with_capacity(k as usize);
            for _ in 0..k {
                let (t, sum, c, s) = rt.block_on(async move {
                    tokio::spawn(async move {
                        let start = Instant::now();
                        let sum = tokio_burst(fresh, &mut chan, &mut stock).await;
                        (start.elapsed(), sum, chan, stock)
                    })
                    .await
                    .expect("the burst task panicked")
                });
                (chan, stock) = (c, s);
                took += t;
                sums.push(sum);
            }
            (took, sums, chan, stock)
        }
        Driver::Thread => unreachable!("tokio runs on a runtime"),
    };
    *held = Some((chan, stock));
    sums.into_iter().for_each(|s| tally.add(s));
    took
}

fn window_of<P: Payload>(
    m: &Method,
    index: usize,
    pairs: usize,
    rts: &Runtimes,
) -> Result<MethodPoint>
where
    P::Stock: 'static,
{
    let id = format!("{} at {} B, window {index}", m.id, P::BYTES);
    let rt = rts.of(m
        .driver
        .flavour()
        .context("a tokio method runs on a runtime")?);
    let k = match m.timed {
        Timed::Sample => sample_bursts(P::BYTES),
        Timed::Burst { .. } => 1,
    };
    let mut held: Held<P> = Some((TokioMpsc::<P>::new(CAPACITY), P::stock(BURST)));
    let mut partner = CrossbeamBounded::<P>::new(CAPACITY);
    let mut stock = P::stock(BURST);
    let mut tally = Tally::default();
    let mut tokio = |turn: u64, tally: &mut Tally| {
        at(m.timed, turn, || {
            tokio_sample(rt, m.driver, m.fresh, k, &mut held, tally)
        })
    };
    let mut crossbeam = |turn: u64, tally: &mut Tally| {
        at(m.timed, turn, || {
            let start = Instant::now();
            let mut sums = [0; 8];
            for sum in sums.iter_mut().take(k as usize) {
                *sum = black_box(crossbeam_burst(m.fresh, &mut partner, &mut stock));
            }
            let took = start.elapsed();
            sums.iter().take(k as usize).for_each(|&s| tally.add(s));
            took
        })
    };
    // Untimed: each side once, to touch its memory.
    tokio(0, &mut tally);
    crossbeam(0, &mut tally);
    let per_burst = |d: Duration| d.as_nanos() as f64 / k as f64;
    let (mut tokio_ns, mut crossbeam_ns) = (Vec::new(), Vec::new());
    for pair in 0..pairs {
        let turn = (index * pairs + pair) as u64;
        // Neither channel always runs right after the other.
        if pair % 2 == 0 {
            tokio_ns.push(per_burst(tokio(turn, &mut tally)));
            crossbeam_ns.push(per_burst(crossbeam(turn, &mut tally)));
        } else {
            crossbeam_ns.push(per_burst(crossbeam(turn, &mut tally)));
            tokio_ns.push(per_burst(tokio(turn, &mut tally)));
        }
    }
    // Faults are counted in the first window of a point only: a property
    // of the method, not of the moment.
    let faults = |tally: &mut Tally, side: &mut dyn FnMut(u64, &mut Tally) -> Duration| {
        if index > 0 {
            return None;
        }
        let before = minor_faults();
        for turn in 0..FAULT_BURSTS.div_ceil(k) {
            side(turn, tally);
        }
        Some((minor_faults() - before) as f64 / (FAULT_BURSTS.div_ceil(k) * k) as f64)
    };
    let tokio_faults_per_burst = faults(&mut tally, &mut tokio);
    let crossbeam_faults_per_burst = faults(&mut tally, &mut crossbeam);
    ensure!(
        tally.wrong == 0,
        "{id}: {} of {} bursts returned the wrong checksum",
        tally.wrong,
        tally.bursts
    );
    let (mut chan, _) = held.context("the channel came back")?;
    ensure!(
        chan.is_drained() && partner.is_drained(),
        "{id}: messages were left in a channel"
    );
    Ok(MethodPoint {
        method: m.id.to_string(),
        bytes: P::BYTES,
        tokio: Timing::of_samples(tokio_ns).with_context(|| format!("{id}: tokio"))?,
        crossbeam: Timing::of_samples(crossbeam_ns).with_context(|| format!("{id}: crossbeam"))?,
        bursts_checked: tally.bursts,
        tokio_faults_per_burst,
        crossbeam_faults_per_burst,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_seed_is_read_four_ways_and_ids_are_unique() {
        for m in METHODS {
            assert_eq!(method(m.id).unwrap().id, m.id, "ids are unique");
            assert!(
                m.driver.flavour().is_some(),
                "{} runs tokio on a runtime",
                m.id
            );
            assert_eq!(m.fresh, m.role == Role::Seed, "{}", m.id);
        }
        let seeds: Vec<_> = METHODS.iter().filter(|m| m.role == Role::Seed).collect();
        assert_eq!(
            seeds.len(),
            4,
            "two flavours x two ways criterion drives them"
        );
        assert!(seeds.iter().all(|m| m.timed == Timed::Sample));
    }

    #[test]
    fn every_window_checks_every_burst_and_pools_into_a_ratio() {
        let rts = Runtimes::new().unwrap();
        for m in METHODS {
            let windows: Vec<_> = (0..4).map(|i| window(m, 64, i, 3, &rts).unwrap()).collect();
            let k = if m.timed == Timed::Sample {
                sample_bursts(64)
            } else {
                1
            };
            for (i, w) in windows.iter().enumerate() {
                assert_eq!((w.method.as_str(), w.bytes), (m.id, 64));
                assert_eq!(w.tokio.per_sample_ns.len(), 3);
                assert_eq!(w.crossbeam.per_sample_ns.len(), 3);
                // Timed and untimed samples of both sides, and in the first
                // window the fault count's.
                let faults = if i == 0 {
                    FAULT_BURSTS.div_ceil(k) * k
                } else {
                    0
                };
                assert_eq!(w.bursts_checked, 2 * (4 * k + faults), "{}", m.id);
                assert_eq!(w.tokio_faults_per_burst.is_some(), i == 0);
            }
            let p = MethodPoint::pooled(windows).unwrap();
            assert_eq!(p.tokio.repeats, vec![3; 4]);
            assert!(p.tokio_faults_per_burst.unwrap() >= 0.0);
            let r = p.ratio(Statistic::Median).unwrap();
            assert!(r.lower_ns <= r.point_ns && r.point_ns <= r.upper_ns && r.point_ns > 0.0);
        }
        assert!(window(&METHODS[0], 100, 0, 2, &rts).is_err());
        assert!(MethodPoint::pooled(Vec::new()).is_err());
    }
}
