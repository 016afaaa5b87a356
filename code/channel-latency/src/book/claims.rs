//! The published claims as data, and the rules that decide them from each
//! machine's results.
use anyhow::Result;
use harness::fmt::{nanos, ratio, sig3};
use harness::{Block, Book, Claim, Estimate, Outcome, Run, Unit, Verdict};

use super::{size_label, Data, BP_CHANNELS};
use crate::{BOUNDS, PAYLOAD_SIZES, TASKS};

const SWEEP_POST: &str =
    "[tokio's async tax vs crossbeam](https://punkeel.com/posts/tokio-mpsc-sweep)";
const BP_POST: &str =
    "[Rust training book, async channels (RustUtahChannels)](https://github.com/thebracket/RustUtahChannels)";

// ANCHOR: claims
pub(super) const CLAIMS: &[Claim] = &[
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

fn claim(id: &str) -> &'static Claim {
    CLAIMS
        .iter()
        .find(|c| c.id == id)
        .expect("claim is defined")
}

fn is_x86_64(run: &Run<Data>) -> bool {
    run.arch() == "x86_64"
}

fn is_arm64(run: &Run<Data>) -> bool {
    run.arch() == "aarch64" || run.arch() == "arm64"
}

/// The head-to-head ratio at every payload size, in size order.
fn ratios(run: &Run<Data>) -> Result<Vec<(usize, Estimate)>> {
    PAYLOAD_SIZES
        .iter()
        .map(|&b| Ok((b, run.data.tokio_over_crossbeam(b)?)))
        .collect()
}

fn lat1(run: &Run<Data>) -> Result<Verdict> {
    let a = run.data.tokio_over_crossbeam(1024)?;
    let b = run.data.tokio_over_crossbeam(4096)?;
    Ok(Verdict::new(
        claim("LAT-1"),
        run.machine(),
        Outcome::all_of(&[Outcome::within(&a, 0.9, 1.1), Outcome::within(&b, 0.9, 1.1)]),
        format!(
            "ratio {} at 1 KiB and {} at 4 KiB",
            a.show(Unit::Ratio),
            b.show(Unit::Ratio)
        ),
    ))
}

fn lat2(run: &Run<Data>) -> Result<Verdict> {
    let ratios = ratios(run)?;
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
            at8.show(Unit::Ratio),
            top.show(Unit::Ratio),
            size_label(top_bytes)
        ),
    ))
}

fn lat3(run: &Run<Data>) -> Result<Verdict> {
    let r = run.data.tokio_over_crossbeam(32768)?;
    Ok(Verdict::new(
        claim("LAT-3"),
        run.machine(),
        Outcome::within(&r, 1.15, 1.45),
        format!("ratio {} at 32 KiB ({})", r.show(Unit::Ratio), run.arch()),
    ))
}

fn lat4(run: &Run<Data>) -> Result<Verdict> {
    let ratios = ratios(run)?;
    let (b, r) = ratios
        .iter()
        .min_by(|x, y| x.1.lower_ns.total_cmp(&y.1.lower_ns))
        .copied()
        .expect("eight sizes");
    // Strictly above 1: a lower end of exactly 1 is not "slower".
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
        format!(
            "lowest interval {} at {}",
            r.show(Unit::Ratio),
            size_label(b)
        ),
    ))
}

fn bp_mean(run: &Run<Data>, channel: &str, tasks: usize, bound: usize) -> Result<f64> {
    Ok(run.data.bp(channel, tasks, bound)?.before_send.mean_ns)
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
pub(super) fn verdicts(book: &Book<Data>) -> Result<Vec<Block>> {
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
    Ok(vec![Block::Verdicts(out)])
}
