//! The measuring half of the harness: everything that runs while a chapter
//! measures and can move its numbers (criterion's timings, the bootstrap,
//! the core gate, the machine's noise, the run's pipeline). The fingerprint
//! of every chapter covers this crate (found by its package name), so a
//! change here marks every chapter's results stale.
//!
//! - [`experiment`]: the experiment half of a chapter ([`Experiment`]).
//! - [`lab`], [`run`]: the lab a chapter measures in and the run's pipeline.
//! - [`timing`], [`statistic`], [`stats`]: criterion's timings and the
//!   bootstrapped intervals drawn from them.
//! - [`counts`], [`stacks`]: counted instructions and CPU profiles.
//! - [`cores`], [`machine`]: the core gate and the machine's noise.
pub mod cores;
pub mod counts;
pub mod experiment;
pub mod fixtures;
pub mod lab;
pub mod latency;
pub mod machine;
pub mod process;
pub mod progress;
mod quiet;
pub mod run;
pub mod schedule;
pub mod stacks;
pub mod statistic;
pub mod stats;
pub mod timing;

pub use counts::{Counted, PerOp};
pub use experiment::Experiment;
pub use lab::Lab;
pub use progress::Progress;
pub use run::measure_in_memory;
pub use schedule::{RecordedSchedule, Schedule};
