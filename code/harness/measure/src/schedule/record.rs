//! A schedule as a results file keeps it ([`super::Schedule::record`]):
//! summarised per key, read back by the page's parameters exhibit and by a
//! chapter's checks.
use anyhow::{ensure, Result};
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// Where a key's extra rounds went in the run.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Place {
    /// Each regular round followed by the extra ones.
    AfterEachRound,
    /// After every regular round, at the end of the schedule.
    AtEnd,
    /// In a schedule of extra rounds only, run later than the regular ones.
    Later,
}

impl Place {
    pub fn describe(self) -> &'static str {
        match self {
            Place::AfterEachRound => "after each round",
            Place::AtEnd => "after the regular rounds",
            Place::Later => "later in the run",
        }
    }
}

/// Which rigs the timings ran on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum RigPolicy {
    /// Each timing builds what it runs on.
    None,
    /// One rig for the whole schedule.
    One,
    /// A fresh rig for each round and each extra round.
    FreshEachRound,
    /// This many rigs, as the slots said.
    Rigs(usize),
}

impl RigPolicy {
    pub fn describe(self) -> String {
        match self {
            RigPolicy::None => "none: each timing builds its own".into(),
            RigPolicy::One => "one for the whole schedule".into(),
            RigPolicy::FreshEachRound => "a fresh one for each round and extra round".into(),
            RigPolicy::Rigs(n) => format!("{n} rigs, as the plan gives them out"),
        }
    }
}

/// Extra rounds some points got, and where.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RecordedExtra {
    /// Extra rounds (after each round: per round).
    pub rounds: usize,
    pub place: Place,
    /// How many points got them.
    pub points: usize,
}

/// One point of a recorded schedule.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RecordedPoint {
    /// The key's value for each of the schedule's `fields`.
    pub key: Vec<Value>,
    /// Criterion's sampling of each timing; all four absent for a point the
    /// chapter timed by hand (no criterion).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub samples: Option<usize>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub warm_up_ns: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub measurement_ns: Option<u64>,
    /// Criterion's flat sampling mode (`Sampling::flat`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub flat: Option<bool>,
    /// Timings in regular rounds.
    pub timings: usize,
    /// Timings in extra rounds.
    pub extra_timings: usize,
    /// A claim is decided on it: it got extra rounds.
    pub deciding: bool,
}

impl RecordedPoint {
    /// Every timing the point pools.
    pub fn all_timings(&self) -> usize {
        self.timings + self.extra_timings
    }
}

/// A schedule as a results file keeps it ([`Schedule::record`]): read by
/// the page's parameters exhibit and by the chapter's checks.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RecordedSchedule {
    pub name: String,
    /// The names of a key's fields: the columns of the table of points.
    pub fields: Vec<String>,
    /// Regular rounds.
    pub rounds: usize,
    pub extras: Vec<RecordedExtra>,
    pub rig: RigPolicy,
    /// Timings in all: the progress steps the schedule took.
    pub steps: usize,
    /// Every point, in the order of its first timing.
    pub points: Vec<RecordedPoint>,
}

impl RecordedSchedule {
    /// The point whose key serialises to `key` (see [`Schedule::record`]).
    pub fn point<K: Serialize>(&self, key: &K) -> Option<&RecordedPoint> {
        let value = serde_json::to_value(key).ok()?;
        let values = key_values(&value, &self.fields);
        self.points.iter().find(|p| p.key == values)
    }

    /// The record holds together: timings add up to the steps, a point is
    /// deciding exactly when it has extra timings, every key has a value
    /// per field and appears once.
    pub fn check(&self) -> Result<()> {
        let name = &self.name;
        let sum: usize = self.points.iter().map(RecordedPoint::all_timings).sum();
        ensure!(
            sum == self.steps,
            "schedule {name:?}: its points' timings add up to {sum}, its steps are {}",
            self.steps
        );
        for (i, p) in self.points.iter().enumerate() {
            ensure!(
                p.key.len() == self.fields.len(),
                "schedule {name:?}: point {i} has {} key values for {} fields",
                p.key.len(),
                self.fields.len()
            );
            ensure!(
                p.deciding == (p.extra_timings > 0),
                "schedule {name:?}: point {i} is marked deciding {} with {} extra timings",
                p.deciding,
                p.extra_timings
            );
            ensure!(
                p.timings <= self.rounds,
                "schedule {name:?}: point {i} has {} regular timings in {} rounds",
                p.timings,
                self.rounds
            );
            let criterion = [
                p.samples.is_some(),
                p.warm_up_ns.is_some(),
                p.measurement_ns.is_some(),
                p.flat.is_some(),
            ];
            ensure!(
                criterion.iter().all(|&c| c) || criterion.iter().all(|&c| !c),
                "schedule {name:?}: point {i} has part of criterion's sampling (samples, \
                 warm-up, measurement, flat: all four, or none for a point timed by hand)"
            );
            ensure!(
                !self.points[..i].iter().any(|q| q.key == p.key),
                "schedule {name:?}: point {i} appears twice"
            );
        }
        let deciding = self.points.iter().filter(|p| p.deciding).count();
        let in_extras: usize = self.extras.iter().map(|e| e.points).sum();
        ensure!(
            deciding == in_extras,
            "schedule {name:?}: {deciding} deciding points, its extra rounds name {in_extras}"
        );
        Ok(())
    }
}

/// A key's JSON as one value per field.
pub(super) fn key_values(value: &Value, fields: &[String]) -> Vec<Value> {
    match value {
        Value::Array(a) => a.clone(),
        Value::Object(m) => fields
            .iter()
            .map(|f| m.get(f).cloned().unwrap_or(Value::Null))
            .collect(),
        other => vec![other.clone()],
    }
}
