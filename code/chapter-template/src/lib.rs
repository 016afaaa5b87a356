//! A template chapter: is a crossbeam channel slower than a `Vec` for
//! handing a batch of numbers from one place to another on one thread?
//! Copy this crate to start a chapter (CONTRIBUTING.md walks the path).
//!
//! This library is the chapter's experiment: the variants, one module each,
//! the experiment's parameters and what one run measures (`run`). The page
//! (claims, exhibits, checks) is the binary's `page` module, which the
//! library cannot name: nothing the page does can move a measured number.
pub mod crossbeam_batch;
pub mod run;
pub mod vec_batch;

/// Messages per batch, in every variant.
pub const BATCH: u64 = 1_000;

/// What every variant must deliver: the sum of `0..BATCH`.
pub const EXPECTED_SUM: u64 = BATCH * (BATCH - 1) / 2;
