//! The method page's table of a committed pair of runs.
use std::fmt::Write as _;
use std::path::Path;

use anyhow::Result;

use super::*;

pub(super) fn decimals(v: f64) -> usize {
    let a = v.abs();
    if a >= 100.0 || a == 0.0 || !a.is_finite() {
        0
    } else if a >= 10.0 {
        1
    } else if a >= 0.1 {
        2
    } else {
        (2 - a.log10().floor() as i32) as usize
    }
}

/// `3.57 [3.41 – 3.72]`: the bounds with the point's decimals.
pub(super) fn with_interval(e: &Estimate) -> String {
    let d = decimals(e.point_ns);
    format!(
        "{:.d$} [{:.d$} – {:.d$}]",
        e.point_ns, e.lower_ns, e.upper_ns
    )
}

/// `0.6 %`, `4.0 %`, `12 %`.
pub(super) fn percent(share: f64) -> String {
    let p = share * 100.0;
    if p.abs() < 10.0 {
        format!("{p:.1} %")
    } else {
        format!("{p:.0} %")
    }
}

/// The method page's `agreement` exhibit: for every machine with a replicate
/// pair under `<results>/replicates/{a,b}`, how its headline estimates and
/// verdicts moved from one run to the next. Text only when none is committed.
pub fn exhibit(
    results_root: &Path,
    chapters: &[&'static ChapterInfo],
    headline: &dyn Fn(&ChapterInfo, &Path) -> Result<Headline>,
) -> Result<String> {
    let dir = replicates_dir(results_root);
    let (a, b) = (dir.join("a"), dir.join("b"));
    let pairs = if a.is_dir() && b.is_dir() {
        pair_folders(&a, &b, chapters, headline)?
    } else {
        Vec::new()
    };
    let mut machines: Vec<&str> = pairs.iter().map(FilePair::machine).collect();
    machines.sort_unstable();
    machines.dedup();
    let mut out = String::new();
    let kinds = if machines.is_empty() {
        "text"
    } else {
        "text,table"
    };
    let _ = writeln!(
        out,
        "\n<div class=\"exhibit-marker\" data-exhibit=\"method/agreement\" data-blocks=\"{kinds}\"></div>\n"
    );
    if machines.is_empty() {
        let _ = writeln!(
            out,
            "No pair of replicate runs is committed under `{}`, so this book cannot yet \
             say how far a second run lands. `scripts/fresh --replicates` measures one.\n",
            display_under_code(&dir)
        );
        return Ok(out);
    }
    for machine in machines {
        let mine: Vec<&FilePair> = pairs.iter().filter(|p| p.machine() == machine).collect();
        out.push_str(&machine_section(machine, &mine));
    }
    Ok(out)
}

/// `results/replicates` for the committed folder, the full path otherwise.
fn display_under_code(dir: &Path) -> String {
    dir.strip_prefix(harness_core::code_dir())
        .unwrap_or(dir)
        .display()
        .to_string()
}

fn machine_section(machine: &str, pairs: &[&FilePair]) -> String {
    let mut out = String::new();
    let t = Tally::of(pairs.iter().copied(), WITHIN_PERCENT);
    let provenances = || {
        pairs
            .iter()
            .flat_map(|p| [p.a.as_ref(), p.b.as_ref()])
            .flatten()
    };
    let mut profiles: Vec<&str> = provenances().map(|p| p.profile.name()).collect();
    profiles.sort_unstable();
    profiles.dedup();
    let dates = |pick: fn(&FilePair) -> Option<&Provenance>| {
        let mut d: Vec<&str> = pairs
            .iter()
            .filter_map(|p| pick(p))
            .map(|p| p.date.as_str())
            .collect();
        d.sort_unstable();
        d.first().map(|s| s.to_string()).unwrap_or_default()
    };
    let _ = write!(
        out,
        "**{machine}**, {} profile: the first run started {}, the second {}.",
        profiles.join(" and "),
        dates(|p| p.a.as_ref()),
        dates(|p| p.b.as_ref())
    );
    let steal: Vec<f64> = provenances().filter_map(|p| p.steal_share).collect();
    if let (Some(lo), Some(hi)) = (
        steal.iter().copied().reduce(f64::min),
        steal.iter().copied().reduce(f64::max),
    ) {
        let (lo, hi) = (format!("{:.1}", lo * 100.0), format!("{:.1}", hi * 100.0));
        let range = if lo == hi { lo } else { format!("{lo}–{hi}") };
        let _ = write!(
            out,
            " The hypervisor took {range} % of CPU time while either run measured."
        );
    }
    let probe_moves: Vec<f64> = pairs
        .iter()
        .filter_map(|p| {
            let probe = |v: Option<&Provenance>| v?.cores_apart.as_ref()?.probe;
            Some(probe(p.b.as_ref())?.median_ns / probe(p.a.as_ref())?.median_ns - 1.0)
        })
        .collect();
    if let Some(most) = probe_moves.iter().copied().map(f64::abs).reduce(f64::max) {
        let _ = write!(
            out,
            " The speed probe's median moved by at most {} from one run to the other \
             in any chapter.",
            percent(most)
        );
    }
    let stale: Vec<&str> = pairs
        .iter()
        .filter(|p| {
            [p.a.as_ref(), p.b.as_ref()]
                .into_iter()
                .any(|v| v.is_none_or(|v| !v.is_current(p.chapter).unwrap_or(false)))
        })
        .map(|p| p.chapter)
        .collect();
    if !stale.is_empty() {
        let _ = write!(
            out,
            " **Stale:** the code of {} has changed since, so those rows show how \
             far runs of the older code landed.",
            stale.join(", ")
        );
    }
    out.push_str("\n\n");
    let _ = writeln!(
        out,
        "**{} of {}** headline estimates agree within {} %, **{} of {}** pairs of 95 % \
         intervals overlap, and **{} of {}** verdicts are the same. Two honest 95 % \
         intervals of one quantity would miss each other in about {} of pairs; these \
         missed in {}.\n",
        t.compared - t.apart,
        t.compared,
        WITHIN_PERCENT,
        t.compared - t.disjoint,
        t.compared,
        t.judged - t.changed,
        t.judged,
        percent(honest_disjoint_share()),
        if t.compared == 0 {
            "none".to_string()
        } else {
            format!("{} of {}", t.disjoint, t.compared)
        }
    );
    let mut table = Table::new(
        format!(
            "Headline estimates of two runs on {machine}, one after the other, \
             with their 95 % intervals."
        ),
        &[
            "Chapter",
            "Estimate",
            "First run",
            "Second run",
            "Change",
            &format!("Within {WITHIN_PERCENT} %"),
            "Intervals",
        ],
    )
    .left(&[1, 6]);
    for p in pairs {
        for e in &p.estimates {
            table.push(vec![
                format!("[{0}]({0}.md)", p.chapter),
                e.name.clone(),
                with_interval(&e.a),
                with_interval(&e.b),
                harness_core::fmt::percent_delta(e.change()),
                if e.agrees(WITHIN_PERCENT) {
                    "yes".into()
                } else {
                    "**no**".into()
                },
                if e.overlap() {
                    "overlap".into()
                } else {
                    "**disjoint**".into()
                },
            ]);
        }
    }
    out.push_str(&crate::render::table(&table));
    let changed: Vec<String> = pairs
        .iter()
        .flat_map(|p| p.verdicts.iter().map(move |v| (p.chapter, v)))
        .filter(|(_, v)| !v.same())
        .map(|(chapter, v)| format!("{} ({chapter}): {} → {}", v.claim, v.a, v.b))
        .collect();
    if changed.is_empty() {
        out.push_str("No verdict changed between the two runs.\n\n");
    } else {
        let _ = writeln!(
            out,
            "Verdicts that changed between the two runs: {}.\n",
            changed.join("; ")
        );
    }
    let only: Vec<String> = pairs
        .iter()
        .flat_map(|p| {
            p.only.iter().map(move |(run, name)| {
                format!(
                    "{name} ({}, {} run only)",
                    p.chapter,
                    if *run == "a" { "first" } else { "second" }
                )
            })
        })
        .collect();
    if !only.is_empty() {
        let _ = writeln!(
            out,
            "Where the data chose a different point, one run has an estimate the \
             other lacks: {}.\n",
            only.join("; ")
        );
    }
    out
}
