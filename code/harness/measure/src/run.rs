//! The run's pipeline: the gate and the budget a run measures under, the
//! experiments in a lab, and the results file with its provenance.
use std::path::PathBuf;
use std::time::Instant;

use anyhow::{bail, Context, Result};

use harness_core::profile::Profile;
use harness_core::results::fingerprint::{fingerprint, locked_versions};
use harness_core::results::{Provenance, ResultsFile};

use crate::cores;
use crate::experiment::Experiment;
use crate::lab::Lab;
use crate::machine::{busy_cores, load_average, rustc_version, CpuCounters};
use crate::progress::Progress;

fn provenance<C: Experiment>(
    profile: Profile,
    started: Instant,
    load: Option<f64>,
    busy: Option<f64>,
    cores_apart: Option<cores::CoresApart>,
    steal_share: Option<f64>,
) -> Result<Provenance> {
    let code = harness_core::code_dir();
    Ok(Provenance {
        machine: crate::machine::detect(),
        rustc: rustc_version().to_string(),
        crates: locked_versions(&code, C::MEASURED_CRATES)?,
        fingerprint: fingerprint(&code, C::NAME, profile)?,
        profile,
        date: humantime::format_rfc3339_seconds(std::time::SystemTime::now()).to_string(),
        wall_time_s: started.elapsed().as_secs_f64(),
        load_average_at_start: load,
        busy_cores_at_start: busy,
        cores_apart,
        steal_share,
    })
}

/// Where criterion's own output goes while `chapter` measures: a new file
/// of its own in the temporary folder, created exclusively (so a file or
/// link someone left at a guessable name is never followed), readable only
/// by its owner, and kept after the run for whoever wants to read it.
pub fn criterion_log(chapter: &str) -> Result<PathBuf> {
    let file = tempfile::Builder::new()
        .prefix(&format!("book-{chapter}-criterion-"))
        .suffix(".log")
        .tempfile()
        .context("cannot create a log file for criterion's output")?;
    let (_, path) = file.keep().context("cannot keep criterion's log file")?;
    Ok(path)
}

/// Measures, validates and builds the results file, without writing it.
/// The data's own checks (the page side's `Chapter::check`) are the
/// caller's to run on what comes back.
pub fn measure_in_memory<C: Experiment>(
    profile: Profile,
    progress: Progress,
) -> Result<(ResultsFile<C::Data>, Progress)> {
    let load = load_average();
    // A second of sampling /proc/stat, before the clock starts: the load
    // average alone would still count the chapter a fresh run measured just
    // before this one.
    let busy = busy_cores(std::time::Duration::from_secs(1));
    let started = Instant::now();
    progress.phase("start-up");
    // criterion reports every benchmark on stdout and its progress and
    // warnings on stderr. While measuring, the book's progress lines are what
    // a person watches, so criterion's chatter goes to a log file.
    let log = criterion_log(C::NAME)?;
    progress.note(format_args!(
        "criterion's own output goes to {}",
        log.display()
    ));
    let gate = gate_for(profile)?;
    let budget = retake_budget(profile)?;
    if let Some(g) = gate {
        progress.note(format_args!(
            "each timing waits (up to {} s, {} s in all) until two cores answer each other \
             within {} ns",
            g.patience.as_secs(),
            budget.as_secs(),
            g.limit_ns
        ));
    }
    let gatekeeper = cores::Gatekeeper::new(gate, budget);
    let counters = CpuCounters::read();
    let (data, (progress, cores_apart)) = {
        let lab = Lab::for_run(profile, progress, gatekeeper, &log)?;
        let data = C::measure(&lab)?;
        (data, lab.finish())
    };
    let steal_share = counters
        .zip(CpuCounters::read())
        .and_then(|(start, end)| start.steal_share_until(&end));
    let file = ResultsFile::new(
        C::NAME,
        provenance::<C>(profile, started, load, busy, cores_apart, steal_share)?,
        data,
    )?;
    Ok((file, progress))
}

/// The gate this run's timings wait at (see `cores`): `cores::GATE_ENV` when
/// set (how `harness measure --core-gate` passes it on), else this machine's
/// entry in `machines.toml` for the quick and full profiles. Smoke runs only
/// exercise the code, so they do not wait unless told to.
fn gate_for(profile: Profile) -> Result<Option<cores::Gate>> {
    if profile == Profile::Smoke && std::env::var_os(cores::GATE_ENV).is_none() {
        return Ok(None);
    }
    cores::gate_for(&crate::machine::detect().id)
}

/// The most one run spends waiting at the gate and on timings it throws
/// away (cores that drifted apart, or a hypervisor that stole a tenth of the
/// time), over all the chapters it measures. Far spells of the book's
/// machine lasted from seconds to a few minutes. The cap keeps a machine
/// stuck apart from stretching a quick run past ten minutes or a full one
/// past an hour: the book's quick profile measures for about 8.4 minutes
/// and its full one for about 46 on the 2-core VM. With two and a half
/// minutes to wait, quick runs there took 10.8 to 12.3; with a quarter of
/// an hour, full runs took 57.4 and 60.8. Smoke runs only exercise the
/// code: they measure nothing again.
pub fn run_budget(profile: Profile) -> std::time::Duration {
    std::time::Duration::from_secs(profile.pick(0, 60, 600))
}

/// What this chapter's run may spend: what `harness measure` left of the
/// run's budget (`cores::BUDGET_ENV`), or the whole budget when the chapter
/// runs on its own. Never more than the profile's budget.
fn retake_budget(profile: Profile) -> Result<std::time::Duration> {
    let env = cores::BUDGET_ENV;
    let given = match std::env::var(env) {
        Ok(v) => Some(v),
        Err(std::env::VarError::NotPresent) => None,
        Err(e) => bail!("{env}: {e}"),
    };
    budget_given(profile, given.as_deref())
        .with_context(|| format!("{env}={}", given.unwrap_or_default()))
}

fn budget_given(profile: Profile, given: Option<&str>) -> Result<std::time::Duration> {
    let whole = run_budget(profile);
    Ok(match given {
        Some(v) => cores::parse_budget(v)?.min(whole),
        None => whole,
    })
}

/// What a finished run spent of the budget: its waits at the gate and the
/// timings it threw away, as its provenance records them.
pub fn budget_spent(p: &Provenance) -> std::time::Duration {
    p.cores_apart
        .as_ref()
        .map_or(std::time::Duration::ZERO, |c| {
            std::time::Duration::from_secs_f64((c.waited_s + c.remeasured_s).max(0.0))
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn provenance(busy: Option<f64>, load: Option<f64>) -> Provenance {
        crate::fixtures::provenance_with(busy, load, None)
    }

    fn apart(gate_ns: Option<f64>, min_ns: f64, max_ns: f64, beyond: usize) -> Provenance {
        crate::fixtures::provenance_with(
            Some(0.0),
            Some(0.0),
            Some((gate_ns, min_ns, max_ns, beyond)),
        )
    }

    #[test]
    fn a_run_measures_within_what_the_runs_before_it_left_of_the_budget() {
        let secs = |d: std::time::Duration| d.as_secs_f64();
        // On its own, a chapter has the profile's whole budget.
        assert_eq!(secs(budget_given(Profile::Quick, None).unwrap()), 60.0);
        assert_eq!(secs(budget_given(Profile::Full, None).unwrap()), 600.0);
        assert_eq!(secs(budget_given(Profile::Smoke, None).unwrap()), 0.0);
        // Under `harness measure`, what is left, never more than the whole.
        assert_eq!(
            secs(budget_given(Profile::Quick, Some("42.5")).unwrap()),
            42.5
        );
        assert_eq!(secs(budget_given(Profile::Quick, Some("0")).unwrap()), 0.0);
        assert_eq!(
            secs(budget_given(Profile::Quick, Some("4000")).unwrap()),
            60.0
        );
        assert_eq!(secs(budget_given(Profile::Smoke, Some("60")).unwrap()), 0.0);
        for bad in ["soon", "-1", "NaN", ""] {
            let err = budget_given(Profile::Quick, Some(bad))
                .unwrap_err()
                .to_string();
            assert!(err.contains("is not a number of seconds"), "{bad:?}: {err}");
        }
        // What a run spent is its waits plus the timings it threw away.
        assert_eq!(
            budget_spent(&provenance(None, None)),
            std::time::Duration::ZERO
        );
        let mut p = apart(Some(335.0), 50.0, 420.0, 2);
        let c = p.cores_apart.as_mut().unwrap();
        c.waited_s = 27.75;
        c.remeasured_s = 2.25;
        assert_eq!(secs(budget_spent(&p)), 30.0);
    }

    #[cfg(unix)]
    #[test]
    fn criterion_logs_are_new_private_files_that_follow_no_link() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("precious");
        std::fs::write(&target, "keep me").unwrap();
        // The name the log once had, planted as a link to someone's file.
        let planted = std::env::temp_dir().join("book-planted-criterion.log");
        let _ = std::fs::remove_file(&planted);
        std::os::unix::fs::symlink(&target, &planted).unwrap();
        let a = criterion_log("planted").unwrap();
        let b = criterion_log("planted").unwrap();
        assert_ne!(a, b);
        assert_ne!(a, planted);
        let mode = std::fs::metadata(&a).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o600);
        assert_eq!(std::fs::read_to_string(&target).unwrap(), "keep me");
        for p in [a, b, planted] {
            let _ = std::fs::remove_file(p);
        }
    }
}
