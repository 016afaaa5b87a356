//! `harness compare` (two runs side by side) and `harness cores` (how far
//! apart this machine's cores are).
use std::path::Path;
use std::process::ExitCode;
use std::time::{Duration, Instant};

use anyhow::{bail, Result};

use harness_core::registry::{self, ChapterInfo};

use crate::chapters::headline;

pub(crate) fn compare(a: &Path, b: &Path, chapters: &[String], within: f64) -> Result<ExitCode> {
    use harness_page::agreement::{pair_folders, Tally};
    if !(within.is_finite() && within >= 0.0) {
        bail!("--within must be a percentage of zero or more, not {within}");
    }
    let infos: Vec<&'static ChapterInfo> = registry::select(chapters)?;
    let pairs = pair_folders(a, b, &infos, &headline)?;
    println!(
        "{:<16} {:<64} {:>10} {:>10} {:>8}",
        "chapter", "estimate", "a", "b", "b vs a"
    );
    for p in &pairs {
        let chapter = p.chapter;
        for (only, name) in &p.only {
            println!("{chapter:<16} {name:<64} only in {only} (the data chose a different point)");
        }
        for e in &p.estimates {
            println!(
                "{chapter:<16} {:<64} {:>10} {:>10} {:>+7.1}%{}",
                e.name,
                harness_core::fmt::sig3(e.a.point_ns),
                harness_core::fmt::sig3(e.b.point_ns),
                e.change() * 100.0,
                match (e.agrees(within), e.overlap()) {
                    (true, true) => "",
                    (true, false) => "  (intervals disjoint)",
                    (false, true) => "  <- apart (intervals overlap)",
                    (false, false) => "  <- apart (intervals disjoint)",
                }
            );
        }
        let (ca, cb) = (
            p.a.as_ref().and_then(|p| p.cores_apart.clone()),
            p.b.as_ref().and_then(|p| p.cores_apart.clone()),
        );
        if ca.is_some() || cb.is_some() {
            println!(
                "{chapter:<16} round trip between two cores: a {}, b {}",
                describe_apart(ca.as_ref()),
                describe_apart(cb.as_ref())
            );
        }
        let (qa, qb) = (
            ca.as_ref().and_then(|c| c.probe),
            cb.as_ref().and_then(|c| c.probe),
        );
        if qa.is_some() || qb.is_some() {
            println!(
                "{chapter:<16} speed probe while measuring: a {}, b {}{}",
                describe_probe(qa),
                describe_probe(qb),
                match (qa, qb) {
                    (Some(a), Some(b)) => format!(
                        "; b's median {}",
                        harness_core::fmt::percent_delta(b.median_ns / a.median_ns - 1.0)
                    ),
                    _ => String::new(),
                }
            );
        }
        let (sa, sb) = (
            p.a.as_ref().and_then(|p| p.steal_share),
            p.b.as_ref().and_then(|p| p.steal_share),
        );
        if sa.is_some() || sb.is_some() {
            let show =
                |s: Option<f64>| s.map_or("not recorded".into(), |s| format!("{:.1} %", s * 100.0));
            println!(
                "{chapter:<16} hypervisor steal while measuring: a {}, b {}",
                show(sa),
                show(sb)
            );
        }
        for v in &p.verdicts {
            let on = if v.machine.is_empty() {
                String::new()
            } else {
                format!(" on {}", v.machine)
            };
            println!(
                "{chapter:<16} verdict {}{on}: {}{}",
                v.claim,
                if v.same() {
                    v.a.clone()
                } else {
                    format!("{} -> {}", v.a, v.b)
                },
                if v.same() { "" } else { "  <- changed" }
            );
        }
    }
    let t = Tally::of(&pairs, within);
    if t.compared == 0 && t.judged == 0 {
        bail!(
            "{} and {} share no headline estimates (same chapters, same machine files?)",
            a.display(),
            b.display()
        );
    }
    println!(
        "{} of {} headline estimates agree within {within} %",
        t.compared - t.apart,
        t.compared
    );
    println!(
        "{} of {} pairs of 95 % intervals overlap",
        t.compared - t.disjoint,
        t.compared
    );
    println!(
        "{} of {} verdicts are the same",
        t.judged - t.changed,
        t.judged
    );
    Ok(if t.apart == 0 && t.changed == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}

pub(crate) fn describe_apart(c: Option<&harness_measure::cores::CoresApart>) -> String {
    let Some(c) = c else {
        return "not recorded".into();
    };
    let s = harness_core::fmt::sig3;
    let gate = c.gate_ns.map_or("no gate".into(), |g| {
        format!("gate {} ns, {} beyond it", s(g), c.beyond_gate)
    });
    format!(
        "{}–{} ns (median {}; {gate})",
        s(c.min_ns),
        s(c.max_ns),
        s(c.median_ns)
    )
}

/// `median 35.0 µs (32.4 µs–45.8 µs)`, or `not recorded`.
pub(crate) fn describe_probe(p: Option<harness_measure::cores::Spread>) -> String {
    p.map_or("not recorded".into(), |p| {
        let n = harness_core::fmt::nanos;
        format!(
            "median {} ({}–{})",
            n(p.median_ns),
            n(p.min_ns),
            n(p.max_ns)
        )
    })
}

/// `harness cores`: a check every quarter second for `watch`, then the
/// spread and the gate it suggests.
pub(crate) fn survey_cores(watch: Duration) -> Result<ExitCode> {
    use harness_measure::cores::{round_trip_ns, suggest_gate};
    let started = Instant::now();
    let mut checks = Vec::new();
    let mut failed = 0;
    eprintln!(
        "checking the round trip between two cores every 0.25 s for {} s",
        watch.as_secs()
    );
    while started.elapsed() < watch {
        match round_trip_ns() {
            Some(ns) => checks.push(ns),
            None => failed += 1,
        }
        std::thread::sleep(Duration::from_millis(250));
    }
    if checks.is_empty() {
        bail!(
            "no check succeeded ({failed} tried): this machine has one core, or \
             other work kept the second one busy"
        );
    }
    let mut sorted = checks.clone();
    sorted.sort_by(f64::total_cmp);
    let q = |p: f64| sorted[((sorted.len() - 1) as f64 * p).round() as usize];
    let s = harness_core::fmt::sig3;
    println!(
        "{} checks ({failed} could not run): min {} ns, 10 % {} ns, median {} ns, 90 % {} ns, max {} ns",
        checks.len(),
        s(q(0.0)),
        s(q(0.1)),
        s(q(0.5)),
        s(q(0.9)),
        s(q(1.0))
    );
    let id = harness_measure::machine::detect().id;
    match suggest_gate(&checks) {
        Some(g) => {
            let close = checks.iter().filter(|&&c| c <= g).count();
            println!(
                "the checks fall into a close group and a far one; {close} of {} were \
                 within {} ns. To measure only in the close spells, add to code/machines.toml:\n\n\
                 [{id}]\ncore_gate_ns = {:.0}",
                checks.len(),
                s(g),
                g
            );
        }
        None => println!("no gap between a close and a far group: {id} needs no gate"),
    }
    Ok(ExitCode::SUCCESS)
}
