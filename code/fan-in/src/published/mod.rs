//! The published bench, reconstructed, and the ladder of corrections that
//! leads from it to the book's fair experiment one published flaw at a time.
//!
//! The bench is `benches/bench.rs` (with `src/lib.rs` for the workers and
//! consumers) of github.com/JuxhinDB/buffered-mpsc at its last commit,
//! [`COMMIT`]. For each worker count it timed, with criterion's `to_async`
//! on tokio's default multi-thread runtime (`Runtime::new`):
//! - the swap: a `LocalSet` holding the consumer (`actor::std_swap`), the
//!   workers spawned into a `JoinSet` from the thread that drives
//!   `block_on`, then `select!` between the `LocalSet`'s `run_until(actor)`
//!   and the first `join_next`, then `shutdown` of the rest;
//! - the mpsc inbox: the consumer spawned as a task, the workers likewise,
//!   every `join_next` awaited, then `shutdown` and `abort` of the consumer;
//! - `SAMPLE_SIZE` = [`PER_WORKER`] one-byte messages per worker, each
//!   consumer connecting to a loopback server when it first runs.
//!
//! The tokio Mutex swap is not in that commit: its numbers came with the
//! post. The reconstruction runs the same bench with the swap's mutex
//! replaced by `tokio::sync::Mutex` (the consumer `.await`s the lock), as
//! two earlier commits of the repository did (bb8114c, 450a57b).
pub mod actor;
pub mod iteration;
pub mod ladder;
pub mod rounds;
pub mod sink;

/// The repository's last commit, whose `benches/bench.rs` is reconstructed.
pub const COMMIT: &str = "97038630d5c038237a114ff799becae9719e60ac";
pub const REPOSITORY: &str = "https://github.com/JuxhinDB/buffered-mpsc";
/// `SAMPLE_SIZE` in the published bench: one-byte messages per worker.
pub const PER_WORKER: usize = 1000;
/// `buffer_size` in the published bench: the shared buffer's first capacity.
pub const SHARED_CAPACITY: usize = 1024;
