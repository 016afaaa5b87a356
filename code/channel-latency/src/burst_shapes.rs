//! Experiment A's 8 B burst in two shapes, side by side in one process: a
//! minimal reconstruction, as a reader checking the book would write it
//! (`minimal_tokio`, `minimal_crossbeam`), and the book's own (`tokio_mpsc`,
//! `crossbeam_bounded`, driven as `head_to_head` drives them).
//!
//! What differs is everything around the channel. The minimal tokio burst
//! runs on a current-thread runtime without the IO and time drivers, every
//! burst awaited inside one `block_on`, a bare `[u8; 8]` for a message, at
//! whatever stack offset the process started at. The book's enables both
//! drivers (as `#[tokio::main]` does), enters the runtime once per burst,
//! builds each message from a stock, and moves each burst to another stack
//! offset (`stack::shifted`). crossbeam's two shapes differ only in the
//! message and the offsets: the control.
//!
//! The four take turns in *windows*: each window builds fresh channels, runs
//! one untimed burst of each shape, then times `bursts` bursts of one shape
//! after another, the shape that goes first moving on from window to window.
//! A shape's time is the median of its bursts; a ratio of two shapes pairs
//! them window by window. Callgrind counts one burst of each shape too.
use std::time::Instant;

use anyhow::{ensure, Context, Result};
use harness_core::{Estimate, Profile};
use harness_measure::counts::{counted, Counted};
use harness_measure::stats::{paired_ratio, Statistic};
use harness_measure::timing::Timing;
use harness_measure::{Lab, PerOp};
use serde::{Deserialize, Serialize};
use tokio::runtime::{Builder, Runtime};

use crate::crossbeam_bounded::CrossbeamBounded;
use crate::delivered::Delivered;
use crate::minimal_crossbeam::MinimalCrossbeam;
use crate::minimal_tokio::MinimalTokio;
use crate::payload::{burst_checksum, Payload};
use crate::stack;
use crate::tokio_mpsc::TokioMpsc;
use crate::{BURST, CAPACITY};

/// The payload both shapes carry: the size the book and the reconstruction
/// disagreed at.
pub const BYTES: usize = 8;

/// One shape of one channel's burst.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Shape {
    TokioMinimal,
    TokioBook,
    CrossbeamMinimal,
    CrossbeamBook,
}

impl Shape {
    pub const ALL: [Shape; 4] = [
        Shape::TokioMinimal,
        Shape::TokioBook,
        Shape::CrossbeamMinimal,
        Shape::CrossbeamBook,
    ];

    /// The id stored in results files, and the name callgrind counts it by.
    pub fn id(self) -> &'static str {
        match self {
            Shape::TokioMinimal => "tokio-minimal",
            Shape::TokioBook => "tokio-book",
            Shape::CrossbeamMinimal => "crossbeam-minimal",
            Shape::CrossbeamBook => "crossbeam-book",
        }
    }

    pub fn from_id(id: &str) -> Option<Shape> {
        Shape::ALL.into_iter().find(|s| s.id() == id)
    }

    /// Whether the shape counts the messages it receives (the minimal
    /// bursts); the book's bursts prove theirs by the sum of their sequence
    /// numbers, as everywhere in experiment A.
    pub fn counts_messages(self) -> bool {
        matches!(self, Shape::TokioMinimal | Shape::CrossbeamMinimal)
    }
}

/// Windows, and timed bursts of each shape per window.
pub fn rounds(profile: Profile) -> (usize, usize) {
    profile.pick((4, 8), (8, 25), (16, 25))
}

/// Progress steps `measure` takes: a window each, a count per shape.
pub fn steps(profile: Profile) -> usize {
    rounds(profile).0 + Shape::ALL.len()
}

/// One shape's bursts: nanoseconds per burst, one repeat per window.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ShapeTiming {
    pub shape: String,
    pub timing: Timing,
    /// Bursts run and checked, the untimed ones included.
    pub bursts_checked: u64,
    /// Messages the shape counted as it received them (0 for the book's
    /// shapes, which check each burst's sum instead).
    pub messages_counted: u64,
    /// Instructions per burst, counted by callgrind.
    pub instructions: Option<PerOp>,
}

/// The four shapes of the 8 B burst, timed window by window.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Shapes {
    pub bytes: usize,
    pub windows: usize,
    pub bursts_per_window: usize,
    pub shapes: Vec<ShapeTiming>,
}

impl Shapes {
    pub fn of(&self, s: Shape) -> Result<&ShapeTiming> {
        self.shapes
            .iter()
            .find(|t| t.shape == s.id())
            .with_context(|| format!("the burst shapes lack {}", s.id()))
    }

    /// `a`'s median time per burst over `b`'s: the geometric mean of the
    /// windows' ratios, with its 95 % interval.
    pub fn ratio(&self, a: Shape, b: Shape) -> Result<Estimate> {
        paired_ratio(&self.of(a)?.timing, &self.of(b)?.timing, Statistic::Median)
            .with_context(|| format!("{} over {}", a.id(), b.id()))
    }

    /// `a`'s instructions per burst over `b`'s, when both were counted.
    pub fn instructions_ratio(&self, a: Shape, b: Shape) -> Option<f64> {
        let per = |s| self.of(s).ok()?.instructions.as_ref().map(|p| p.per_op);
        Some(per(a)? / per(b)?)
    }
}

/// The runtimes of the two tokio shapes.
pub struct ShapeRuntimes {
    /// The minimal reconstruction's: no drivers.
    pub bare: Runtime,
    /// The book's: `sweep::current_thread_runtime`, both drivers on.
    pub book: Runtime,
}

impl ShapeRuntimes {
    pub fn new() -> Result<ShapeRuntimes> {
        Ok(ShapeRuntimes {
            bare: Builder::new_current_thread()
                .build()
                .context("building a current-thread runtime without drivers")?,
            book: crate::sweep::current_thread_runtime()?,
        })
    }
}

/// One shape's bursts in one window.
#[derive(Clone, Debug, Default)]
pub struct Part {
    /// Nanoseconds of each timed burst.
    pub ns: Vec<f64>,
    pub bursts: u64,
    pub messages: u64,
    /// Bursts that did not deliver every message once.
    pub wrong: u64,
}

impl Part {
    fn minimal(&mut self, timed: bool, ns: f64, got: Delivered) {
        self.count(timed, ns, got.is_burst_of(BURST as u64));
        self.messages += got.messages;
    }

    fn book(&mut self, timed: bool, ns: f64, sum: u64) {
        self.count(timed, ns, sum == burst_checksum(BURST));
    }

    fn count(&mut self, timed: bool, ns: f64, right: bool) {
        if timed {
            self.ns.push(ns);
        }
        self.bursts += 1;
        self.wrong += u64::from(!right);
    }
}

fn nanos(start: Instant) -> f64 {
    start.elapsed().as_nanos() as f64
}

// ANCHOR: shapes
/// The minimal shape: every burst awaited inside one `block_on`, a clock
/// around each, the first burst untimed.
fn tokio_minimal(rt: &Runtime, chan: &mut MinimalTokio, bursts: usize, part: &mut Part) {
    rt.block_on(async {
        for i in 0..=bursts {
            let start = Instant::now();
            let got = chan.burst(BURST as u64).await;
            part.minimal(i > 0, nanos(start), got);
        }
    });
}

/// The book's shape (`head_to_head`): one `block_on` per burst on a runtime
/// with both drivers, the burst at its own stack offset.
fn tokio_book(
    rt: &Runtime,
    chan: &mut TokioMpsc<[u8; 8]>,
    stock: &mut <[u8; 8] as Payload>::Stock,
    first_turn: u64,
    bursts: usize,
    part: &mut Part,
) {
    for i in 0..=bursts {
        let (ns, sum) = stack::shifted(first_turn + i as u64, || {
            rt.block_on(async {
                let start = Instant::now();
                let sum = chan.burst(stock, BURST).await;
                (nanos(start), sum)
            })
        });
        part.book(i > 0, ns, sum);
    }
}
// ANCHOR_END: shapes

fn crossbeam_minimal(chan: &mut MinimalCrossbeam, bursts: usize, part: &mut Part) {
    for i in 0..=bursts {
        let start = Instant::now();
        let got = chan.burst(BURST as u64);
        part.minimal(i > 0, nanos(start), got);
    }
}

fn crossbeam_book(
    chan: &mut CrossbeamBounded<[u8; 8]>,
    stock: &mut <[u8; 8] as Payload>::Stock,
    first_turn: u64,
    bursts: usize,
    part: &mut Part,
) {
    for i in 0..=bursts {
        let (ns, sum) = stack::shifted(first_turn + i as u64, || {
            let start = Instant::now();
            let sum = chan.burst(stock, BURST);
            (nanos(start), sum)
        });
        part.book(i > 0, ns, sum);
    }
}

/// Window number `index`: fresh channels, then each shape's bursts in turn,
/// starting with shape `index % 4`. Parts in `Shape::ALL` order.
pub fn window(index: usize, bursts: usize, rts: &ShapeRuntimes) -> Result<Vec<Part>> {
    let mut tokio_min = MinimalTokio::new(CAPACITY);
    let mut tokio_book_chan = TokioMpsc::<[u8; 8]>::new(CAPACITY);
    let mut cb_min = MinimalCrossbeam::new(CAPACITY);
    let mut cb_book = CrossbeamBounded::<[u8; 8]>::new(CAPACITY);
    let mut stock = <[u8; 8]>::stock(BURST);
    let turn = (index * (bursts + 1)) as u64;
    let mut parts = vec![Part::default(); Shape::ALL.len()];
    for k in 0..Shape::ALL.len() {
        let s = (index + k) % Shape::ALL.len();
        let part = &mut parts[s];
        match Shape::ALL[s] {
            Shape::TokioMinimal => tokio_minimal(&rts.bare, &mut tokio_min, bursts, part),
            Shape::TokioBook => tokio_book(
                &rts.book,
                &mut tokio_book_chan,
                &mut stock,
                turn,
                bursts,
                part,
            ),
            Shape::CrossbeamMinimal => crossbeam_minimal(&mut cb_min, bursts, part),
            Shape::CrossbeamBook => crossbeam_book(&mut cb_book, &mut stock, turn, bursts, part),
        }
    }
    for (s, p) in Shape::ALL.iter().zip(&parts) {
        ensure!(
            p.wrong == 0,
            "burst shapes, window {index}: {} of {} bursts of {} did not deliver every message once",
            p.wrong,
            p.bursts,
            s.id()
        );
    }
    ensure!(
        tokio_min.is_drained()
            && tokio_book_chan.is_drained()
            && cb_min.is_drained()
            && cb_book.is_drained(),
        "burst shapes, window {index}: messages were left in a channel"
    );
    Ok(parts)
}

/// The four shapes, window after window, then each counted by callgrind.
pub fn measure(lab: &Lab) -> Result<Shapes> {
    let (windows, bursts) = rounds(lab.profile());
    let rts = ShapeRuntimes::new()?;
    let mut parts: Vec<Vec<Part>> = vec![Vec::new(); Shape::ALL.len()];
    for index in 0..windows {
        lab.progress().step(format_args!(
            "A at 8 B: the minimal reconstruction's burst beside the book's (window {} of {windows})",
            index + 1
        ));
        for (all, p) in parts.iter_mut().zip(window(index, bursts, &rts)?) {
            all.push(p);
        }
    }
    let mut shapes = Vec::new();
    for (s, parts) in Shape::ALL.into_iter().zip(parts) {
        lab.progress()
            .step(format_args!("instructions counted (callgrind), {}", s.id()));
        let (small, large) = COUNTED_BURSTS;
        shapes.push(ShapeTiming {
            shape: s.id().to_string(),
            bursts_checked: parts.iter().map(|p| p.bursts).sum(),
            messages_counted: parts.iter().map(|p| p.messages).sum(),
            timing: Timing::pooled(
                parts
                    .into_iter()
                    .map(|p| Timing::of_samples(p.ns))
                    .collect::<Result<_>>()?,
            )
            .with_context(|| s.id())?,
            instructions: Some(harness_measure::counts::per_op(lab, s.id(), small, large)?),
        });
    }
    Ok(Shapes {
        bytes: BYTES,
        windows,
        bursts_per_window: bursts,
        shapes,
    })
}

/// What a results file must show: absent (a run from before the shapes), or
/// every shape once, every burst checked, every minimal burst's messages
/// counted.
pub fn check(shapes: Option<&Shapes>) -> Result<()> {
    let Some(s) = shapes else { return Ok(()) };
    ensure!(
        s.bytes == BYTES,
        "the burst shapes ran at {} B, not {BYTES} B",
        s.bytes
    );
    ensure!(
        s.windows >= harness_measure::stats::MIN_PAIRS && s.bursts_per_window > 0,
        "the burst shapes ran {} windows of {} bursts, too few for an interval",
        s.windows,
        s.bursts_per_window
    );
    ensure!(
        s.shapes.len() == Shape::ALL.len(),
        "{} burst shapes, expected {}",
        s.shapes.len(),
        Shape::ALL.len()
    );
    let timed = (s.windows * s.bursts_per_window) as u64;
    for shape in Shape::ALL {
        let t = s.of(shape)?;
        let what = format!("burst shape {}", shape.id());
        ensure!(
            t.timing.repeats.len() == s.windows
                && t.timing.repeats.iter().all(|&n| n == s.bursts_per_window),
            "{what}: timed {:?} bursts per window, expected {} windows of {}",
            t.timing.repeats,
            s.windows,
            s.bursts_per_window
        );
        // One untimed burst per window besides the timed ones.
        let bursts = timed + s.windows as u64;
        ensure!(
            t.bursts_checked == bursts,
            "{what}: {} bursts checked, expected {bursts}",
            t.bursts_checked
        );
        let messages = if shape.counts_messages() {
            bursts * BURST as u64
        } else {
            0
        };
        ensure!(
            t.messages_counted == messages,
            "{what}: {} messages counted, expected {messages}",
            t.messages_counted
        );
        if let Some(p) = &t.instructions {
            ensure!(p.name == shape.id(), "{what}: counts {}", p.name);
        }
    }
    Ok(())
}

// ----------------------------------------------------- counted by callgrind

/// Bursts in callgrind's two counts of a shape (`harness_measure::counts::per_op`).
const COUNTED_BURSTS: (u64, u64) = (2, 4);

/// The timed bursts of a loop that runs `bursts` in all (the first untimed):
/// callgrind counts the loop the clock runs in.
fn untimed_first(bursts: u64) -> usize {
    assert!(bursts > 0, "a count runs at least one burst");
    bursts as usize - 1
}

fn count_tokio_minimal(bursts: u64) {
    let rt = ShapeRuntimes::new().expect("the runtimes build");
    let mut chan = MinimalTokio::new(CAPACITY);
    let mut part = Part::default();
    counted(|| tokio_minimal(&rt.bare, &mut chan, untimed_first(bursts), &mut part));
    assert_eq!(
        (part.bursts, part.wrong),
        (bursts, 0),
        "a tokio burst lost messages"
    );
}

fn count_tokio_book(bursts: u64) {
    let rt = ShapeRuntimes::new().expect("the runtimes build");
    let mut chan = TokioMpsc::<[u8; 8]>::new(CAPACITY);
    let mut stock = <[u8; 8]>::stock(BURST);
    let mut part = Part::default();
    counted(|| {
        tokio_book(
            &rt.book,
            &mut chan,
            &mut stock,
            0,
            untimed_first(bursts),
            &mut part,
        )
    });
    assert_eq!(
        (part.bursts, part.wrong),
        (bursts, 0),
        "a tokio burst lost messages"
    );
}

fn count_crossbeam_minimal(bursts: u64) {
    let mut chan = MinimalCrossbeam::new(CAPACITY);
    let mut part = Part::default();
    counted(|| crossbeam_minimal(&mut chan, untimed_first(bursts), &mut part));
    assert_eq!(
        (part.bursts, part.wrong),
        (bursts, 0),
        "a crossbeam burst lost messages"
    );
}

fn count_crossbeam_book(bursts: u64) {
    let mut chan = CrossbeamBounded::<[u8; 8]>::new(CAPACITY);
    let mut stock = <[u8; 8]>::stock(BURST);
    let mut part = Part::default();
    counted(|| crossbeam_book(&mut chan, &mut stock, 0, untimed_first(bursts), &mut part));
    assert_eq!(
        (part.bursts, part.wrong),
        (bursts, 0),
        "a crossbeam burst lost messages"
    );
}

/// The shapes' counted cases, named by shape id.
pub const COUNTED: [Counted; 4] = [
    Counted {
        name: "tokio-minimal",
        about: "one 8 B burst of tokio, the minimal reconstruction's shape",
        run: count_tokio_minimal,
    },
    Counted {
        name: "tokio-book",
        about: "one 8 B burst of tokio, the book's shape",
        run: count_tokio_book,
    },
    Counted {
        name: "crossbeam-minimal",
        about: "one 8 B burst of crossbeam, the minimal reconstruction's shape",
        run: count_crossbeam_minimal,
    },
    Counted {
        name: "crossbeam-book",
        about: "one 8 B burst of crossbeam, the book's shape",
        run: count_crossbeam_book,
    },
];

/// Every case the chapter counts: experiment A's, then the shapes'.
pub const CHAPTER_COUNTED: [Counted; crate::counted::COUNTED.len() + COUNTED.len()] =
    with_shapes(crate::counted::COUNTED);

/// `cases` followed by the shapes' cases.
pub const fn with_shapes<const N: usize>(cases: &[Counted]) -> [Counted; N] {
    assert!(N == cases.len() + COUNTED.len());
    let mut out = [COUNTED[0]; N];
    let mut i = 0;
    while i < cases.len() {
        out[i] = cases[i];
        i += 1;
    }
    let mut j = 0;
    while j < COUNTED.len() {
        out[cases.len() + j] = COUNTED[j];
        j += 1;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_window_times_every_shape_and_counts_every_message() {
        let rts = ShapeRuntimes::new().unwrap();
        for index in 0..Shape::ALL.len() {
            let parts = window(index, 3, &rts).unwrap();
            for (s, p) in Shape::ALL.iter().zip(&parts) {
                assert_eq!(p.ns.len(), 3, "{s:?}: timed bursts");
                assert!(p.ns.iter().all(|&ns| ns > 0.0));
                assert_eq!((p.bursts, p.wrong), (4, 0), "{s:?}: one untimed burst too");
                let messages = if s.counts_messages() {
                    4 * BURST as u64
                } else {
                    0
                };
                assert_eq!(p.messages, messages, "{s:?}");
            }
        }
    }

    #[test]
    fn a_burst_that_loses_a_message_is_caught() {
        let rts = ShapeRuntimes::new().unwrap();
        let mut part = Part::default();
        // One message short: the count is wrong, whatever the sum.
        let mut chan = MinimalTokio::new(CAPACITY);
        part.minimal(true, 1.0, rts.bare.block_on(chan.burst(BURST as u64 - 1)));
        let mut chan = MinimalCrossbeam::new(CAPACITY);
        part.minimal(true, 1.0, chan.burst(BURST as u64 - 1));
        // The book's burst one message short: its sum is wrong.
        let mut book = TokioMpsc::<[u8; 8]>::new(CAPACITY);
        let mut stock = <[u8; 8]>::stock(BURST);
        part.book(
            true,
            1.0,
            rts.book.block_on(book.burst(&mut stock, BURST - 1)),
        );
        assert_eq!((part.bursts, part.wrong), (3, 3));
        // A message delivered twice in place of another: the sum is wrong.
        let mut twice = Delivered::default();
        (0..BURST as u64 - 1)
            .chain([0])
            .for_each(|i| twice.add(i.to_le_bytes()));
        assert!(!twice.is_burst_of(BURST as u64));
        let mut right = Delivered::default();
        (0..BURST as u64).for_each(|i| right.add(i.to_le_bytes()));
        assert!(right.is_burst_of(BURST as u64));
    }

    fn shapes_of(windows: usize, bursts: usize) -> Shapes {
        let timing = || {
            Timing::pooled(
                (0..windows)
                    .map(|_| Timing::of_samples(vec![1000.0; bursts]).unwrap())
                    .collect(),
            )
            .unwrap()
        };
        let all = (windows * (bursts + 1)) as u64;
        Shapes {
            bytes: BYTES,
            windows,
            bursts_per_window: bursts,
            shapes: Shape::ALL
                .iter()
                .map(|s| ShapeTiming {
                    shape: s.id().to_string(),
                    timing: timing(),
                    bursts_checked: all,
                    messages_counted: if s.counts_messages() {
                        all * BURST as u64
                    } else {
                        0
                    },
                    instructions: None,
                })
                .collect(),
        }
    }

    #[test]
    fn results_must_show_every_burst_checked_and_every_message_counted() {
        let good = shapes_of(4, 5);
        check(Some(&good)).unwrap();
        check(None).unwrap();
        let mut short = good.clone();
        short.shapes[0].messages_counted -= 1;
        let err = check(Some(&short)).unwrap_err().to_string();
        assert!(
            err.contains("tokio-minimal") && err.contains("messages counted"),
            "{err}"
        );
        let mut unchecked = good.clone();
        unchecked.shapes[1].bursts_checked -= 1;
        assert!(check(Some(&unchecked)).is_err());
        let mut missing = good.clone();
        missing.shapes.pop();
        assert!(check(Some(&missing)).is_err());
        assert!(check(Some(&shapes_of(3, 5))).is_err(), "too few windows");
        let r = good.ratio(Shape::TokioBook, Shape::TokioMinimal).unwrap();
        assert!((r.point_ns - 1.0).abs() < 1e-9, "{r:?}");
        assert_eq!(
            good.instructions_ratio(Shape::TokioBook, Shape::TokioMinimal),
            None
        );
    }

    #[test]
    fn the_chapter_counts_its_cases_and_the_shapes() {
        use harness_measure::Experiment;
        let all = crate::ChannelLatency::COUNTED;
        assert_eq!(all.len(), crate::counted::COUNTED.len() + COUNTED.len());
        for s in Shape::ALL {
            let case = all
                .iter()
                .find(|c| c.name == s.id())
                .expect("a case per shape");
            (case.run)(2);
        }
        assert!(all.iter().any(|c| c.name == "tokio-8"));
    }
}
