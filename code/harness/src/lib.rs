//! The book's harness, top layer: the command line every chapter binary
//! shares ([`chapter_main`], [`cli`]) and the fixtures chapters' tests use
//! ([`fixtures`]). The `harness` binary (the book's commands and the checks
//! of the built HTML) sits on top of it.
//!
//! The harness is four crates, each using only the ones below it:
//!
//! - `harness-core`: the data and its rules (values, claims, the registry,
//!   the results file, its validation and fingerprint);
//! - `harness-measure`: what runs while a chapter measures (every chapter's
//!   fingerprint covers it);
//! - `harness-page`: the page (the chapter contract's page half, rendering,
//!   verdicts, releases, agreement);
//! - `harness` (this crate): the command line on top.
//!
//! Chapters import each layer by its own name (`harness_core`,
//! `harness_measure`, `harness_page`); this crate adds only what sits on
//! top of all three.
pub mod cli;
pub mod conformance;
pub mod fixtures;

pub use cli::chapter_main;
