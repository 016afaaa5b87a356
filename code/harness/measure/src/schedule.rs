//! One schedule for every chapter: the timetable of a run's timings, in
//! measuring order, with each slot saying which key it times, how
//! (sampling), in which round, whether it is an extra round for a point a
//! claim is decided on, and on which rig.
//!
//! A chapter's plan function builds the [`Schedule`] (the builders cover
//! the common shapes: rounds across a plan, rounds within groups, extra
//! rounds at the end or after each round, a fresh rig per round; anything
//! else is [`Schedule::from_slots`]). Building it times nothing, so a test
//! can compare its order with the loop it replaces. [`Schedule::run`] then
//! runs it: it builds and finishes the rigs, calls the chapter's `time`
//! closure once per slot (the closure announces its own progress step and
//! builds its own criterion id from what the slot says), and collects the
//! parts per key in chronological order ([`Parts`]), which the chapter
//! pools with its own function. [`Schedule::steps`] is the progress total
//! the slots take, and [`Schedule::record`] the serialisable summary a
//! chapter stores in its data ([`RecordedSchedule`]), which the page's
//! parameters exhibit and the chapter's checks read back.
use anyhow::{bail, ensure, Result};
use serde::Serialize;
use serde_json::Value;

use crate::timing::Sampling;

use record::key_values;
pub use record::{Place, RecordedExtra, RecordedPoint, RecordedSchedule, RigPolicy};

/// One timing of the run, in measuring order.
#[derive(Clone, Debug, PartialEq)]
pub struct Slot<K> {
    pub key: K,
    /// How criterion samples the slot; `None`: the chapter times it by hand
    /// (its own clock, no criterion).
    pub sampling: Option<Sampling>,
    /// The round this timing belongs to, 0-based. Extra rounds at the end
    /// continue the count; extra rounds after each round keep that round's.
    pub round: usize,
    /// 0 for a regular round; `e` for the e-th extra round (1-based).
    pub extra: usize,
    /// The rig the timing runs on: a change of id finishes the rig in use
    /// and builds the next. `None`: the timing brings its own (the factory
    /// still runs once for each stretch of such slots, so a rig can be `()`).
    pub rig: Option<usize>,
}

/// Which regular rounds a planned point is timed in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Rounds {
    Every,
    /// The first and the last round only (points too slow for every one).
    FirstAndLast,
}

impl Rounds {
    fn takes(self, round: usize, rounds: usize) -> bool {
        match self {
            Rounds::Every => true,
            Rounds::FirstAndLast => round == 0 || round + 1 == rounds,
        }
    }
}

/// One point of a plan: its key and how it is timed.
#[derive(Clone, Debug, PartialEq)]
pub struct Planned<K> {
    pub key: K,
    /// `None`: timed by hand (see [`Slot::sampling`]).
    pub sampling: Option<Sampling>,
    pub rounds: Rounds,
}

impl<K> Planned<K> {
    /// A point timed in every round: `sampling` is a [`Sampling`] for
    /// criterion, or `None` for a point the chapter times by hand.
    pub fn every(key: K, sampling: impl Into<Option<Sampling>>) -> Self {
        Planned {
            key,
            sampling: sampling.into(),
            rounds: Rounds::Every,
        }
    }

    /// A point timed in the first and the last round only.
    pub fn first_and_last(key: K, sampling: impl Into<Option<Sampling>>) -> Self {
        Planned {
            key,
            sampling: sampling.into(),
            rounds: Rounds::FirstAndLast,
        }
    }
}

/// How a builder gives out rigs (see [`Slot::rig`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum RigPlan {
    /// Every slot `None`.
    None,
    /// One rig for every slot.
    One,
    /// A fresh rig for each round and each extra round.
    FreshEachRound,
    /// As the slots say (`from_slots`).
    Explicit,
}

/// What `time` is told about the slot it runs, besides its key and sampling.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct At {
    /// As [`Slot::round`].
    pub round: usize,
    /// As [`Slot::extra`].
    pub extra: usize,
    /// Which of this key's timings this is, 0-based.
    pub nth: usize,
    /// How many timings this key gets in the schedule.
    pub of: usize,
}

/// The timetable of one part of a run (see the module's documentation).
#[derive(Clone, Debug)]
pub struct Schedule<K> {
    name: String,
    fields: Vec<String>,
    slots: Vec<Slot<K>>,
    rigs: RigPlan,
}

impl<K: Clone + PartialEq + Serialize> Schedule<K> {
    fn new(name: &str, slots: Vec<Slot<K>>, rigs: RigPlan) -> Self {
        Schedule {
            name: name.to_string(),
            fields: Vec::new(),
            slots,
            rigs,
        }
    }

    /// `rounds` rounds across the whole plan: round after round, every point
    /// of `points` in their order (a `FirstAndLast` point only in the first
    /// and the last), so each point's timings are spread over the run.
    pub fn across(name: &str, rounds: usize, points: &[Planned<K>]) -> Self {
        let mut slots = Vec::new();
        for round in 0..rounds {
            for p in points.iter().filter(|p| p.rounds.takes(round, rounds)) {
                slots.push(regular(p, round));
            }
        }
        Schedule::new(name, slots, RigPlan::None)
    }

    /// `rounds` rounds within each group: group after group, its rounds one
    /// after the other, each over the group's points in their order (the
    /// rounds of a group interleave its points, not the whole plan).
    pub fn within_groups(name: &str, rounds: usize, groups: &[Vec<Planned<K>>]) -> Self {
        let mut slots = Vec::new();
        for group in groups {
            for round in 0..rounds {
                for p in group.iter().filter(|p| p.rounds.takes(round, rounds)) {
                    slots.push(regular(p, round));
                }
            }
        }
        Schedule::new(name, slots, RigPlan::None)
    }

    /// Anything the builders do not cover: the slots as given, each with
    /// the rig it says. A key must keep one sampling, and the e-th extra
    /// round counts from 1.
    pub fn from_slots(name: &str, slots: Vec<Slot<K>>) -> Result<Self> {
        for (i, s) in slots.iter().enumerate() {
            if let Some(first) = slots[..i].iter().find(|f| f.key == s.key) {
                ensure!(
                    first.sampling == s.sampling,
                    "schedule {name:?}: slot {i} times a key with another sampling than its \
                     first slot"
                );
            }
        }
        Ok(Schedule::new(name, slots, RigPlan::Explicit))
    }

    /// `n` more rounds after every regular one, over `keys` in that order,
    /// each key with the sampling of its regular rounds: extra `e` of round
    /// `r` keeps round `r` and says `extra = e`. Panics on a key the
    /// schedule does not time (a plan function's mistake).
    pub fn extra_after_each_round(mut self, n: usize, keys: &[K]) -> Self {
        let all = std::mem::take(&mut self.slots);
        let mut slots = Vec::new();
        let mut rest = all.iter().cloned().peekable();
        while let Some(s) = rest.next() {
            let round = s.round;
            slots.push(s);
            if rest.peek().is_none_or(|next| next.round != round) {
                for extra in 1..=n {
                    for key in keys {
                        slots.push(self.extra_slot(&all, key, round, extra));
                    }
                }
            }
        }
        self.slots = slots;
        self.assign_rigs()
    }

    /// `n` more rounds at the end, over `keys` in that order, the round
    /// count going on from the last regular round (`extra` counts them from
    /// 1). Panics on a key the schedule does not time.
    pub fn extra_at_end(mut self, n: usize, keys: &[K]) -> Self {
        let next = self.slots.iter().map(|s| s.round + 1).max().unwrap_or(0);
        for extra in 1..=n {
            for key in keys {
                let slot = self.extra_slot(&self.slots, key, next + extra - 1, extra);
                self.slots.push(slot);
            }
        }
        self.assign_rigs()
    }

    /// A fresh rig for each round and each extra round (rig ids 0, 1, ...
    /// in order); extra rounds added later get theirs too.
    pub fn fresh_rig_each_round(mut self) -> Self {
        self.rigs = RigPlan::FreshEachRound;
        self.assign_rigs()
    }

    /// One rig for the whole schedule.
    pub fn one_rig(mut self) -> Self {
        self.rigs = RigPlan::One;
        self.assign_rigs()
    }

    /// Names for the fields of a key, in order: the columns of the page's
    /// table of points. A key that serialises as a tuple (an array) needs
    /// them; a struct's field names are used when none are given.
    pub fn fields(mut self, names: &[&str]) -> Self {
        self.fields = names.iter().map(|s| s.to_string()).collect();
        self
    }

    fn extra_slot(&self, slots: &[Slot<K>], key: &K, round: usize, extra: usize) -> Slot<K> {
        let Some(known) = slots.iter().find(|s| s.key == *key) else {
            panic!(
                "schedule {:?}: an extra round for a key it does not time",
                self.name
            )
        };
        Slot {
            key: key.clone(),
            sampling: known.sampling,
            round,
            extra,
            rig: None,
        }
    }

    fn assign_rigs(mut self) -> Self {
        match self.rigs {
            RigPlan::None => self.slots.iter_mut().for_each(|s| s.rig = None),
            RigPlan::One => self.slots.iter_mut().for_each(|s| s.rig = Some(0)),
            RigPlan::FreshEachRound => {
                let mut id = 0;
                let mut last = None;
                for s in &mut self.slots {
                    if last.is_some_and(|l| l != (s.round, s.extra)) {
                        id += 1;
                    }
                    last = Some((s.round, s.extra));
                    s.rig = Some(id);
                }
            }
            RigPlan::Explicit => {}
        }
        self
    }

    pub fn name(&self) -> &str {
        &self.name
    }

    /// Every timing, in measuring order.
    pub fn slots(&self) -> &[Slot<K>] {
        &self.slots
    }

    /// The slots, to build another schedule from (`from_slots`).
    pub fn into_slots(self) -> Vec<Slot<K>> {
        self.slots
    }

    /// The progress steps the schedule takes: one per timing.
    pub fn steps(&self) -> usize {
        self.slots.len()
    }

    /// The keys a claim is decided on: those given extra rounds, in order
    /// of their first timing.
    pub fn deciding(&self) -> Vec<K> {
        let mut out: Vec<K> = Vec::new();
        for s in self.slots.iter().filter(|s| s.extra > 0) {
            if !out.contains(&s.key) {
                out.push(s.key.clone());
            }
        }
        let first = |k: &K| self.slots.iter().position(|s| s.key == *k);
        out.sort_by_key(first);
        out
    }

    /// Runs every slot in order: `rig` builds a rig when a slot's rig id
    /// differs from the one in use (the one in use goes to `finish` first),
    /// `time` times one slot on the rig in use, with the slot's sampling
    /// (`None`: by hand), announcing its own progress step and building its
    /// own criterion id, and its results are gathered
    /// per key in the order they were timed. An error stops the run (the rig
    /// in use is dropped, not finished).
    pub fn run<R, M>(
        &self,
        mut rig: impl FnMut(&Slot<K>) -> Result<R>,
        mut time: impl FnMut(&mut R, &K, Option<Sampling>, At) -> Result<M>,
        mut finish: impl FnMut(R) -> Result<()>,
    ) -> Result<Parts<K, M>> {
        let mut parts = Parts::default();
        let mut current: Option<(Option<usize>, R)> = None;
        for slot in &self.slots {
            if current.as_ref().is_none_or(|(id, _)| *id != slot.rig) {
                if let Some((_, old)) = current.take() {
                    finish(old)?;
                }
                current = Some((slot.rig, rig(slot)?));
            }
            let (_, r) = current.as_mut().expect("a rig was just built");
            let nth = parts.get(&slot.key).map_or(0, <[M]>::len);
            let at = At {
                round: slot.round,
                extra: slot.extra,
                nth,
                of: self.slots.iter().filter(|s| s.key == slot.key).count(),
            };
            let part = time(r, &slot.key, slot.sampling, at)?;
            parts.push(slot.key.clone(), part);
        }
        if let Some((_, r)) = current {
            finish(r)?;
        }
        Ok(parts)
    }

    /// The schedule as the results file keeps it: summarised per key.
    pub fn record(&self) -> RecordedSchedule {
        let mut keys: Vec<&K> = Vec::new();
        for s in &self.slots {
            if !keys.contains(&&s.key) {
                keys.push(&s.key);
            }
        }
        let json: Vec<Value> = keys
            .iter()
            .map(|k| serde_json::to_value(k).unwrap_or(Value::Null))
            .collect();
        let fields = if !self.fields.is_empty() {
            self.fields.clone()
        } else {
            match json.first() {
                Some(Value::Object(m)) => m.keys().cloned().collect(),
                Some(Value::Array(a)) => (1..=a.len()).map(|i| format!("field {i}")).collect(),
                _ => vec!["key".to_string()],
            }
        };
        let last_regular = self.slots.iter().rposition(|s| s.extra == 0);
        let mut points = Vec::new();
        let mut extras: Vec<RecordedExtra> = Vec::new();
        for (key, value) in keys.iter().zip(&json) {
            let mine: Vec<(usize, &Slot<K>)> = self
                .slots
                .iter()
                .enumerate()
                .filter(|(_, s)| s.key == **key)
                .collect();
            let sampling = mine[0].1.sampling;
            let regular = mine.iter().filter(|(_, s)| s.extra == 0).count();
            let extra = mine.len() - regular;
            if extra > 0 {
                let rounds = mine.iter().map(|(_, s)| s.extra).max().unwrap_or(0);
                let place = match last_regular {
                    None => Place::Later,
                    Some(last) if mine.iter().all(|(i, s)| s.extra == 0 || *i > last) => {
                        Place::AtEnd
                    }
                    Some(_) => Place::AfterEachRound,
                };
                match extras
                    .iter_mut()
                    .find(|e| e.rounds == rounds && e.place == place)
                {
                    Some(e) => e.points += 1,
                    None => extras.push(RecordedExtra {
                        rounds,
                        place,
                        points: 1,
                    }),
                }
            }
            points.push(RecordedPoint {
                key: key_values(value, &fields),
                samples: sampling.map(|s| s.samples),
                warm_up_ns: sampling.map(|s| s.warm_up.as_nanos() as u64),
                measurement_ns: sampling.map(|s| s.measurement.as_nanos() as u64),
                flat: sampling.map(|s| s.flat),
                timings: regular,
                extra_timings: extra,
                deciding: extra > 0,
            });
        }
        RecordedSchedule {
            name: self.name.clone(),
            fields,
            rounds: self
                .slots
                .iter()
                .filter(|s| s.extra == 0)
                .map(|s| s.round + 1)
                .max()
                .unwrap_or(0),
            extras,
            rig: self.rig_policy(),
            steps: self.slots.len(),
            points,
        }
    }

    fn rig_policy(&self) -> RigPolicy {
        let ids: Vec<Option<usize>> = self.slots.iter().map(|s| s.rig).collect();
        if ids.iter().all(Option::is_none) {
            return RigPolicy::None;
        }
        let mut distinct: Vec<Option<usize>> = Vec::new();
        for id in &ids {
            if !distinct.contains(id) {
                distinct.push(*id);
            }
        }
        if distinct.len() == 1 {
            return RigPolicy::One;
        }
        // Fresh each round: a rig serves one stretch, and the stretches are
        // the rounds and extra rounds.
        let mut rounds: Vec<(usize, usize)> = Vec::new();
        let mut stretches = 0;
        let mut per_round = true;
        for (i, s) in self.slots.iter().enumerate() {
            let new_rig = i == 0 || self.slots[i - 1].rig != s.rig;
            let new_round = i == 0 || {
                let p = &self.slots[i - 1];
                (p.round, p.extra) != (s.round, s.extra)
            };
            per_round &= new_rig == new_round && s.rig.is_some();
            if new_rig {
                stretches += 1;
                if rounds.contains(&(s.round, s.extra)) {
                    per_round = false;
                }
                rounds.push((s.round, s.extra));
            }
        }
        if per_round && stretches == distinct.len() {
            RigPolicy::FreshEachRound
        } else {
            RigPolicy::Rigs(distinct.len())
        }
    }
}

fn regular<K: Clone>(p: &Planned<K>, round: usize) -> Slot<K> {
    Slot {
        key: p.key.clone(),
        sampling: p.sampling,
        round,
        extra: 0,
        rig: None,
    }
}

/// The parts of a run, per key: keys in the order of their first timing,
/// each key's parts in the order they were timed.
#[derive(Debug)]
pub struct Parts<K, M>(pub Vec<(K, Vec<M>)>);

impl<K, M> Default for Parts<K, M> {
    fn default() -> Self {
        Parts(Vec::new())
    }
}

impl<K: PartialEq, M> Parts<K, M> {
    /// This key's parts so far, in the order they were timed.
    pub fn get(&self, key: &K) -> Option<&[M]> {
        self.0
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, parts)| parts.as_slice())
    }

    fn push(&mut self, key: K, part: M) {
        match self.0.iter_mut().find(|(k, _)| *k == key) {
            Some((_, parts)) => parts.push(part),
            None => self.0.push((key, vec![part])),
        }
    }

    /// Parts timed later in the run (another schedule, after other work),
    /// each after the parts this holds of its key. A key this does not
    /// hold is an error: later parts extend points, they do not add any.
    pub fn append(&mut self, later: Parts<K, M>) -> Result<()> {
        for (key, parts) in later.0 {
            let Some((_, mine)) = self.0.iter_mut().find(|(k, _)| *k == key) else {
                bail!("later parts for a key the run did not time before");
            };
            mine.extend(parts);
        }
        Ok(())
    }

    /// Each key's parts pooled by the chapter's own function, keys in the
    /// order of their first timing.
    pub fn pool<P>(self, mut pool: impl FnMut(K, Vec<M>) -> Result<P>) -> Result<Vec<P>> {
        self.0
            .into_iter()
            .map(|(key, parts)| pool(key, parts))
            .collect()
    }
}

mod record;
#[cfg(test)]
mod tests;
