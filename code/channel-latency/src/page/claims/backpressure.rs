//! LAT-5 and LAT-6, the back-pressure claims: a map row per step of the
//! ladder from the published method to the fair one, per setting, and the
//! long runs, which are shown and decide nothing (no interval).
use anyhow::Result;
use harness_core::{Estimate, Outcome};
use harness_page::{Judge, Judged};

use super::super::queue_ladder::{
    fair_step, figure_of, setting_label, settings, LadderReads, Step, STEPS,
};
use super::{condition, not_in_run, show, Decided, Reading, QUEUE_MIN_EFFECT};
use channel_latency::run::{Data, BP_CHANNELS};
use channel_latency::{BOUNDS, TASKS};

/// How the ladder's ratios are drawn, in words.
const PAIRED: &str = "paired ratio of medians, repeat by repeat";

/// The name of tokio's latency over kanal's on step `s` at one setting.
pub(in super::super) fn step_ratio_name(s: Step, tasks: usize, bound: usize) -> String {
    format!(
        "B ladder, {}, {}: tokio ÷ kanal",
        s.setting,
        setting_label(tasks, bound)
    )
}

/// The name of one channel's latency growth on step `s` from bound `lo` to `hi`.
fn step_growth_name(s: Step, channel: &str, tasks: usize, lo: usize, hi: usize) -> String {
    format!(
        "B ladder, {}, {channel}, {tasks} tasks: bound {hi} ÷ bound {lo}",
        s.setting
    )
}

/// An estimate with no interval: the figure of one long run.
fn exactly(x: f64) -> Result<Estimate> {
    Estimate::new(x, x, x)
}

/// `(setting, estimate)` pairs decided against `line`, all of them holding
/// for the row to hold; the figure names the smallest and the largest.
fn all_above(parts: &[(String, Estimate)], what: &str) -> Decided {
    let line = 1.0 + QUEUE_MIN_EFFECT;
    let outcome = Outcome::all_of(
        &parts
            .iter()
            .map(|(_, e)| Outcome::at_least(e, line))
            .collect::<Vec<_>>(),
    );
    let by_point =
        |a: &&(String, Estimate), b: &&(String, Estimate)| a.1.point_ns.total_cmp(&b.1.point_ns);
    let lo = parts.iter().min_by(by_point).expect("a setting");
    let hi = parts.iter().max_by(by_point).expect("a setting");
    let figure = if parts.len() == 1 {
        format!("{what} {}", show(&lo.1))
    } else {
        format!(
            "{what} from {} ({}) to {} ({})",
            show(&lo.1),
            lo.0,
            show(&hi.1),
            hi.0
        )
    };
    (outcome, figure)
}

/// LAT-5 on one step of the ladder over `at` settings.
fn lat5_step(r: &mut Reading, d: &Data, s: Step, at: &[(usize, usize)]) -> Result<Decided> {
    let mut found = Vec::new();
    for &(tasks, bound) in at {
        match d.step_ratio(s, tasks, bound)? {
            Some(e) => found.push((tasks, bound, e)),
            None => return Ok(not_in_run()),
        }
    }
    let mut parts = Vec::new();
    for (tasks, bound, e) in found {
        let e = r.ratio(step_ratio_name(s, tasks, bound), e, PAIRED)?;
        parts.push((setting_label(tasks, bound), e));
    }
    Ok(all_above(&parts, "tokio ÷ kanal"))
}

/// LAT-6 on one step of the ladder for `at` (channel, tasks) pairs.
fn lat6_step(r: &mut Reading, d: &Data, s: Step, at: &[(&str, usize)]) -> Result<Decided> {
    let mut found = Vec::new();
    for &(channel, tasks) in at {
        for w in BOUNDS.windows(2) {
            match d.step_growth(s, channel, tasks, w[0], w[1])? {
                Some(g) => found.push((channel, tasks, w[0], w[1], g)),
                None => return Ok(not_in_run()),
            }
        }
    }
    let mut parts = Vec::new();
    for (channel, tasks, lo, hi, g) in found {
        let g = r.ratio(step_growth_name(s, channel, tasks, lo, hi), g, PAIRED)?;
        parts.push((format!("{channel}, {tasks} tasks, bound {lo} to {hi}"), g));
    }
    Ok(all_above(&parts, "growth per step of the bound"))
}

/// The long single runs (`Data::runs`) read the fair way: in queue, median.
fn long_runs_lat5(d: &Data) -> Result<Decided> {
    let s = fair_step();
    let mut parts = Vec::new();
    for (tasks, bound) in settings() {
        let t = figure_of(d.bp("tokio", tasks, bound)?, s.clock, s.figure);
        let k = figure_of(d.bp("kanal-async", tasks, bound)?, s.clock, s.figure);
        parts.push((setting_label(tasks, bound), exactly(t / k)?));
    }
    Ok(all_above(&parts, "tokio ÷ kanal"))
}

fn long_runs_lat6(d: &Data) -> Result<Decided> {
    let s = fair_step();
    let mut parts = Vec::new();
    for channel in BP_CHANNELS {
        for tasks in TASKS {
            for w in BOUNDS.windows(2) {
                let at = |b| {
                    Ok::<_, anyhow::Error>(figure_of(d.bp(channel, tasks, b)?, s.clock, s.figure))
                };
                parts.push((
                    format!("{channel}, {tasks} tasks, bound {} to {}", w[0], w[1]),
                    exactly(at(w[1])? / at(w[0])?)?,
                ));
            }
        }
    }
    Ok(all_above(&parts, "growth per step of the bound"))
}

/// Why the long runs never decide a map: one figure per setting, and so no
/// interval to hold against the minimum effect.
const LONG_RUN_UNDECIDED: &str = "one run per setting, no interval";

/// What the long runs are called on the maps.
fn long_runs_setting(d: &Data) -> String {
    format!(
        "one long run of {} messages per setting, fair method",
        harness_core::fmt::thousands(d.backpressure.messages_per_point as u64)
    )
}

/// A back-pressure claim's map: a row per step of the ladder over every
/// setting, a row per setting with the fair method, and the long runs
/// (shown, not deciding).
fn back_pressure_map<S: Copy>(
    j: &mut Judge,
    id: &str,
    run: &Judged<Data>,
    all: &[S],
    label: impl Fn(S) -> String,
    step: impl Fn(&mut Reading, &Data, Step, &[S]) -> Result<Decided>,
    long_runs: Decided,
) -> Result<()> {
    let d = run.data;
    let mut r = Reading::new(j);
    let mut rows = Vec::new();
    for s in STEPS {
        let decided = step(&mut r, d, s, all)?;
        rows.push(condition(
            s.axis,
            s.setting,
            s.as_published,
            s.fair,
            decided,
        ));
    }
    for &one in all {
        let setting = format!("{} (fair experiment)", label(one));
        let decided = step(&mut r, d, fair_step(), &[one])?;
        rows.push(condition("setting", &setting, false, false, decided));
    }
    rows.push(
        condition(
            "messages per run",
            &long_runs_setting(d),
            false,
            false,
            long_runs,
        )
        .not_deciding(LONG_RUN_UNDECIDED),
    );
    r.verdict(id, run.machine(), rows);
    Ok(())
}

pub(super) fn lat5(j: &mut Judge, run: &Judged<Data>) -> Result<()> {
    let all: Vec<(usize, usize)> = settings().collect();
    let label = |(tasks, bound)| setting_label(tasks, bound);
    back_pressure_map(
        j,
        "LAT-5",
        run,
        &all,
        label,
        lat5_step,
        long_runs_lat5(run.data)?,
    )
}

pub(super) fn lat6(j: &mut Judge, run: &Judged<Data>) -> Result<()> {
    let all: Vec<(&str, usize)> = BP_CHANNELS
        .iter()
        .flat_map(|&c| TASKS.into_iter().map(move |t| (c, t)))
        .collect();
    let label = |(channel, tasks)| format!("{channel}, {tasks} tasks");
    back_pressure_map(
        j,
        "LAT-6",
        run,
        &all,
        label,
        lat6_step,
        long_runs_lat6(run.data)?,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn back_pressure_rows_need_every_setting_past_the_minimum_effect() {
        let e = |p: f64| Estimate::around(p, 0.05);
        let parts = vec![("a".to_string(), e(3.0)), ("b".to_string(), e(1.5))];
        let (o, figure) = all_above(&parts, "tokio ÷ kanal");
        assert_eq!(o, Outcome::Holds);
        assert!(
            figure.starts_with("tokio ÷ kanal from 1.50× [") && figure.contains("(b) to 3.00×"),
            "{figure}"
        );
        let parts = vec![("a".to_string(), e(3.0)), ("b".to_string(), e(1.1))];
        assert_eq!(all_above(&parts, "x").0, Outcome::DoesNotHold);
        let parts = vec![("a".to_string(), e(3.0)), ("b".to_string(), e(1.25))];
        assert_eq!(all_above(&parts, "x").0, Outcome::Inconclusive);
    }
}
