//! Provenances of synthetic runs on this machine, for tests here and in the
//! crates above (`harness::fixtures` re-exports them).
use harness_core::profile::Profile;
use harness_core::results::cores::CoresApart;
use harness_core::results::Provenance;

/// Provenance of a synthetic run on this machine, in `profile`.
pub fn provenance(profile: Profile) -> Provenance {
    Provenance {
        machine: crate::machine::detect(),
        rustc: "rustc (test)".into(),
        crates: Default::default(),
        fingerprint: "test".into(),
        profile,
        date: "2026-01-01T00:00:00Z".into(),
        wall_time_s: 1.0,
        load_average_at_start: None,
        busy_cores_at_start: None,
        cores_apart: None,
        steal_share: None,
    }
}

/// A provenance on two cores with the given load before measuring, and,
/// with `apart`, a core check that saw the cores between `min_ns` and
/// `max_ns` and kept `beyond` timings past the gate `gate_ns`.
pub fn provenance_with(
    busy: Option<f64>,
    load: Option<f64>,
    apart: Option<(Option<f64>, f64, f64, usize)>,
) -> Provenance {
    let mut p = provenance(Profile::Full);
    p.machine.cores = 2;
    p.busy_cores_at_start = busy;
    p.load_average_at_start = load;
    p.cores_apart = apart.map(|(gate_ns, min_ns, max_ns, beyond_gate)| CoresApart {
        gate_ns,
        timings: 40,
        checks: 80,
        min_ns,
        median_ns: min_ns,
        max_ns,
        beyond_gate,
        ..Default::default()
    });
    p
}

/// A provenance on two cores with the given load before measuring.
pub fn provenance_loaded(busy: Option<f64>, load: Option<f64>) -> Provenance {
    provenance_with(busy, load, None)
}

/// A provenance on an idle machine whose core check saw the cores between
/// `min_ns` and `max_ns`, gate `gate_ns`, `beyond` timings past it.
pub fn provenance_apart(
    gate_ns: Option<f64>,
    min_ns: f64,
    max_ns: f64,
    beyond: usize,
) -> Provenance {
    provenance_with(
        Some(0.0),
        Some(0.0),
        Some((gate_ns, min_ns, max_ns, beyond)),
    )
}
