//! How far apart two of the machine's cores are right now, measured as the
//! round trip of one cache line between two spinning threads, and a gate
//! that holds every timing back until they are close.
//!
//! On a virtual machine the hypervisor chooses the host cores the guest's
//! vCPUs run on, and it moves them while the guest runs. The 2-core VM the
//! book was first measured on answered this ping-pong in 80–330 ns most of
//! the time and in about 400 ns for spells of seconds to minutes. Code that
//! hands work between threads on every operation (an actor behind a channel,
//! say) ran nearly twice as slowly in those spells, while code that stays on
//! one thread did not notice. Two runs that met different spells then
//! disagree about a ratio by far more than their intervals allow. Checking
//! the round trip before and after every timing records which spell each
//! one met; a gate (`machines.toml`, or `harness measure --core-gate`)
//! makes the timings wait for the close spell, so that every run measures
//! the same machine.
//!
//! The same VM also has hours in which the host keeps its vCPUs off their
//! cores for a fifth or more of their time (steal). A timing that lost that
//! much measured a machine with less than two cores: the same wrapper reads
//! the kernel's CPU counters around every timing and measures a stolen one
//! again, from the same budget.
//!
//! Neither check sees a host core that merely runs slower for a while (a
//! busy sibling thread on the host, a neighbour streaming memory through a
//! shared cache): the guest loses no time and its cores stay close, but
//! copies and arithmetic take longer. A fixed probe, timed beside the round
//! trip, records how fast the machine was around each timing, so that two
//! runs can be told apart by the speed of the machine they met.
//!
//! - [`probe`]: the round trip and the speed probe themselves.
//! - [`gate`]: the gate, and where a run finds it (`machines.toml`, the
//!   environment `harness measure` sets).
//! - [`gatekeeper`]: one run's waits at the gate and timings measured again,
//!   owned by the run's `Lab`.
//! - [`record`]: what a run's checks found, as its provenance keeps it.
//! - [`survey`]: the gate a survey of round trips suggests (`harness cores`).
#[cfg(test)]
mod fakes;
mod gate;
mod gatekeeper;
mod probe;
mod record;
mod survey;

pub use gate::{
    gate_for, machine_settings, machines_file, parse_budget, parse_limit, Gate, MachineSettings,
    BUDGET_ENV, DEFAULT_PATIENCE, GATE_ENV, PATIENCE_ENV,
};
pub use gatekeeper::Gatekeeper;
pub use probe::{round_trip_ns, speed_probe_ns};
pub use record::{CoresApart, Spread, STOLEN};
pub use survey::suggest_gate;
