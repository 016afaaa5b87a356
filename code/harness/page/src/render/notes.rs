//! Sentences about the conditions a run was measured in (a busy machine,
//! cores that moved apart, a hypervisor that stole time), and the built-in
//! `precision` exhibit that puts them beside each headline estimate.
use anyhow::Result;

use crate::chapter::Book;
use crate::page::Page;
use crate::render::blocks::{Block, Table};
use harness_core::profile::Profile;
use harness_core::results::Provenance;
use harness_core::values::Estimate;

/// Largest 95 % half-width, as a fraction of the estimate, that the full
/// profile promises for every headline estimate.
pub const PRECISION_TARGET: f64 = 0.05;

/// Within the target; a NaN width (a zero estimate) is not.
fn precise(e: &Estimate) -> bool {
    e.relative_half_width() <= PRECISION_TARGET
}

/// What the machine was doing when the run started, in a sentence. The busy
/// share measured just before the clock started is the better witness; the
/// one-minute load average is all that older files carry.
fn load_note(p: &Provenance) -> String {
    let cores = p.machine.cores;
    match (p.busy_cores_at_start, p.load_average_at_start) {
        (Some(busy), _) if busy > cores as f64 * BUSY_SHARE => format!(
            "The machine was busy when the run started: other work kept {busy:.2} of {cores} \
             cores busy in the second before measuring, so {WIDER}. "
        ),
        (Some(busy), load) => {
            let mut note = format!(
                "In the second before measuring, other work kept {busy:.2} of {cores} cores busy"
            );
            if let Some(load) = load.filter(|l| *l > cores as f64 * LOAD_SHARE) {
                note.push_str(&format!(
                    " (the one-minute load average, {load:.2}, still counted work that had \
                     just finished)"
                ));
            }
            note.push_str(". ");
            note
        }
        (None, Some(load)) if load > cores as f64 * LOAD_SHARE => format!(
            "The machine was busy when the run started (load {load:.2} on {cores} cores): \
             {WIDER}. "
        ),
        (None, Some(load)) => format!("Load at start {load:.2} on {cores} cores. "),
        (None, None) => String::new(),
    }
}

/// How far apart the cores were while the run measured, in a sentence, when
/// it matters: timings kept beyond the gate, or (without a gate) round trips
/// that moved by more than `MOVED`. Files made before the checks existed say
/// nothing.
fn cores_note(p: &Provenance) -> String {
    const LINK: &str = "(see [cores that move](method.md#cores-that-move))";
    let Some(c) = &p.cores_apart else {
        return String::new();
    };
    match c.gate_ns {
        Some(gate) if c.beyond_gate > 0 => format!(
            "{} of {} timings ran while two cores took longer than the gate of {} ns to \
             answer each other (up to {} ns), so figures that hand work between threads \
             may read slower than the rest of the run {LINK}. ",
            c.beyond_gate,
            c.timings,
            harness_core::fmt::sig3(gate),
            harness_core::fmt::sig3(c.max_ns)
        ),
        Some(gate) => format!(
            "Every timing started and ended with two cores answering each other within the \
             gate of {} ns ({}–{} ns) {LINK}. ",
            harness_core::fmt::sig3(gate),
            harness_core::fmt::sig3(c.min_ns),
            harness_core::fmt::sig3(c.max_ns)
        ),
        None if c.spread() > MOVED => format!(
            "The round trip between two cores moved between {} and {} ns while the run \
             measured, and no gate held the timings to one of those spells, so figures that \
             hand work between threads mix them {LINK}. ",
            harness_core::fmt::sig3(c.min_ns),
            harness_core::fmt::sig3(c.max_ns)
        ),
        None => String::new(),
    }
}

/// How much of the run the hypervisor took away, in a sentence, when it
/// matters: timings that lost at least `cores::STOLEN` of their CPU time, or
/// a whole run that lost at least `STEAL_SHARE`. `harness measure` repeats
/// it under its summary.
pub fn steal_note(p: &Provenance) -> String {
    const EFFECT: &str = "so figures that spread work over several threads may read as if the \
                          machine had fewer cores";
    let over_run = p.steal_share.map_or(String::new(), |s| {
        format!("; {:.1} % over the whole run", s * 100.0)
    });
    match (&p.cores_apart, p.steal_share) {
        (Some(c), _) if c.stolen_timings.is_some_and(|n| n > 0) => format!(
            "{} of {} timings lost at least {:.0} % of their CPU time to the hypervisor \
             (steal, up to {:.0} % in one{over_run}{}), {EFFECT}. ",
            c.stolen_timings.unwrap_or(0),
            c.timings,
            harness_core::results::cores::STOLEN * 100.0,
            c.steal_max.unwrap_or(0.0) * 100.0,
            match c.steal_remeasured {
                Some(n) if n > 0 => format!("; kept after {n} stolen attempts were measured again"),
                _ => String::new(),
            }
        ),
        (_, Some(share)) if share >= STEAL_SHARE => format!(
            "While the run measured, the hypervisor kept this machine's virtual cores off \
             their host cores for {:.1} % of their time (steal), {EFFECT}. ",
            share * 100.0
        ),
        _ => String::new(),
    }
}

/// The share of CPU time stolen by the hypervisor that is worth a sentence.
const STEAL_SHARE: f64 = 0.05;

/// Round trips whose largest is more than this multiple of the smallest
/// moved enough to mention.
const MOVED: f64 = 1.5;

/// What a busy start means for the figures that follow.
const WIDER: &str = "margins may be wider than a quiet machine would give";

/// Above this share of the cores in use by other work, a run's margins are
/// called out as possibly wider than a quiet machine's.
const BUSY_SHARE: f64 = 0.25;

/// The same for the one-minute load average, which counts runnable threads
/// rather than CPU time and so reads higher on the same machine.
const LOAD_SHARE: f64 = 0.5;

/// How precise each headline estimate is, per machine, and whether the run
/// was made on a busy machine: what a reader needs before trusting a verdict.
pub fn precision<C: Page>(book: &Book<C::Data>) -> Result<Vec<Block>> {
    let mut blocks = Vec::new();
    for run in &book.runs {
        let p = &run.provenance;
        let estimates = run.analysis.headline_estimates()?;
        let mut text = format!("**{}** ({} profile). ", run.machine(), p.profile);
        text.push_str(&load_note(p));
        text.push_str(&cores_note(p));
        text.push_str(&steal_note(p));
        if estimates.is_empty() {
            text.push_str("This chapter's figures are exact counts: they have no spread.");
            blocks.push(Block::Text(text));
            continue;
        }
        let wide: Vec<&(String, Estimate)> =
            estimates.iter().filter(|(_, e)| !precise(e)).collect();
        text.push_str(&format!(
            "{} of {} headline estimates have a 95 % interval within ±{:.0} % of their value.",
            estimates.len() - wide.len(),
            estimates.len(),
            PRECISION_TARGET * 100.0
        ));
        if !wide.is_empty() && p.profile == Profile::Full {
            text.push_str(" The full profile promises all of them; the others are listed below.");
        }
        text.push_str(
            " These intervals describe this run alone: a run repeated later on the same \
             machine can land further away than they suggest (see \
             [how to compare two runs](method.md#noise-and-precision), and \
             [two runs of every chapter, lined up](method.md#two-runs-one-after-the-other)).",
        );
        blocks.push(Block::Text(text));
        let mut t = Table::new(
            format!(
                "Headline estimates on {} and their 95 % intervals.",
                run.machine()
            ),
            &[
                "estimate",
                "value",
                "interval",
                "± of value",
                "precise enough",
            ],
        );
        for (name, e) in &estimates {
            let ok = precise(e);
            t.push(vec![
                name.clone(),
                harness_core::fmt::sig3(e.point_ns),
                format!(
                    "{} – {}",
                    harness_core::fmt::sig3(e.lower_ns),
                    harness_core::fmt::sig3(e.upper_ns)
                ),
                format!("{:.1} %", e.relative_half_width() * 100.0),
                if ok { "yes".into() } else { "**no**".into() },
            ]);
        }
        blocks.push(Block::Table(t));
    }
    Ok(blocks)
}

#[cfg(test)]
mod tests {
    use super::*;

    use harness_measure::fixtures::{provenance_apart as apart, provenance_loaded as provenance};

    #[test]
    fn the_cores_note_speaks_when_the_cores_moved_or_the_gate_gave_up() {
        // Older files, and a run whose cores stayed put: nothing to say.
        assert_eq!(cores_note(&provenance(None, None)), "");
        assert_eq!(cores_note(&apart(None, 200.0, 280.0, 0)), "");
        let note = cores_note(&apart(None, 80.0, 410.0, 0));
        assert!(note.contains("moved between 80.0 and 410 ns"), "{note}");
        assert!(note.contains("method.md#cores-that-move"), "{note}");
        let note = cores_note(&apart(Some(330.0), 90.0, 320.0, 0));
        assert!(note.starts_with("Every timing started and ended"), "{note}");
        assert!(note.contains("gate of 330 ns (90.0–320 ns)"), "{note}");
        let note = cores_note(&apart(Some(330.0), 90.0, 420.0, 3));
        assert!(note.starts_with("3 of 40 timings ran while"), "{note}");
        assert!(note.contains("(up to 420 ns)"), "{note}");
        // Every wording reads as one sentence, without stray runs of spaces.
        for p in [
            apart(None, 80.0, 410.0, 0),
            apart(Some(330.0), 90.0, 320.0, 0),
            apart(Some(330.0), 90.0, 420.0, 3),
        ] {
            let note = cores_note(&p);
            assert!(!note.contains("  "), "{note:?}");
        }
        for p in [
            provenance(Some(0.04), Some(2.03)),
            provenance(Some(1.2), None),
        ] {
            let note = load_note(&p);
            assert!(!note.contains("  "), "{note:?}");
        }
    }

    #[test]
    fn the_load_note_trusts_the_busy_sample_over_the_load_average() {
        // The previous chapter just ended: high load average, idle machine.
        let note = load_note(&provenance(Some(0.04), Some(2.03)));
        assert!(note.starts_with("In the second before measuring, other work kept 0.04 of 2"));
        assert!(note.contains("load average, 2.03, still counted"), "{note}");
        assert!(!note.contains("busy when"), "{note}");

        let note = load_note(&provenance(Some(0.04), Some(0.3)));
        assert!(!note.contains("load average"), "{note}");

        let note = load_note(&provenance(Some(1.2), Some(0.3)));
        assert!(note.starts_with("The machine was busy"), "{note}");
        assert!(note.contains("1.20 of 2 cores"), "{note}");
    }

    #[test]
    fn steal_is_mentioned_only_when_it_took_a_real_share() {
        let with = |share| {
            let mut p = provenance(Some(0.0), Some(0.0));
            p.steal_share = share;
            steal_note(&p)
        };
        assert!(
            with(Some(0.123)).contains("off their host cores for 12.3 % of their time"),
            "{}",
            with(Some(0.123))
        );
        assert!(with(Some(STEAL_SHARE)).contains("5.0 %"));
        assert_eq!(with(Some(0.049)), "");
        assert_eq!(with(Some(0.0)), "");
        assert_eq!(with(None), "");

        // Timings that lost a real share speak even when the run's average is low.
        let mut p = apart(None, 60.0, 70.0, 0);
        p.steal_share = Some(0.012);
        let c = p.cores_apart.as_mut().unwrap();
        c.steal_max = Some(0.46);
        c.stolen_timings = Some(3);
        let timings = c.timings;
        let note = steal_note(&p);
        assert!(
            note.starts_with(&format!(
                "3 of {timings} timings lost at least 10 % of their CPU time"
            )) && note.contains("up to 46 % in one; 1.2 % over the whole run")
                && note.contains("as if the machine had fewer cores"),
            "{note}"
        );
        // Retakes that did not clear it are named.
        p.cores_apart.as_mut().unwrap().steal_remeasured = Some(4);
        let note = steal_note(&p);
        assert!(
            note.contains(
                "1.2 % over the whole run; kept after 4 stolen attempts were measured again)"
            ),
            "{note}"
        );
        // None stolen: back to the run's average, which is too low to mention.
        p.cores_apart.as_mut().unwrap().stolen_timings = Some(0);
        assert_eq!(steal_note(&p), "");
    }

    #[test]
    fn older_files_fall_back_to_the_load_average() {
        assert!(load_note(&provenance(None, Some(2.0)))
            .contains("busy when the run started (load 2.00"));
        assert_eq!(
            load_note(&provenance(None, Some(0.5))),
            "Load at start 0.50 on 2 cores. "
        );
        assert_eq!(load_note(&provenance(None, None)), "");
    }
}
