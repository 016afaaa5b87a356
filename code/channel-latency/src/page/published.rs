//! The posts' numbers: experiment A's payload sweep and experiment B's
//! back-pressure means, as the committed published datasets give them.
use anyhow::Result;
use harness_core::results::published::Dataset;
use harness_page::render::escape_markdown;
use harness_page::{render::blocks::Point, render::blocks::Series, Book};
use serde::Deserialize;

use super::Data;

/// Microseconds per burst at one payload size, per architecture.
#[derive(Deserialize)]
pub(super) struct Payload {
    pub payload_bytes: usize,
    pub tokio_arm64_us: f64,
    pub crossbeam_arm64_us: f64,
    pub tokio_x86_64_us: f64,
    pub crossbeam_x86_64_us: f64,
}

impl Payload {
    pub fn x86_64_ratio(&self) -> f64 {
        self.tokio_x86_64_us / self.crossbeam_x86_64_us
    }

    pub fn arm64_ratio(&self) -> f64 {
        self.tokio_arm64_us / self.crossbeam_arm64_us
    }
}

/// Mean latency per message at one tasks x bound setting (stamped before send).
#[derive(Deserialize)]
pub(super) struct Backpressure {
    pub tasks: usize,
    pub bound: usize,
    pub tokio_mean_ns: f64,
    pub kanal_mean_ns: f64,
}

/// A dataset's rows with the words a page says about them, escaped.
pub(super) struct Published<R> {
    pub rows: Vec<R>,
    /// `[title](url), machine`, for captions.
    pub citation: String,
    /// What one row means, in the dataset's words.
    pub description: String,
}

impl Published<Payload> {
    /// A dashed series over payload size: one published figure per row.
    pub fn series(&self, label: &str, figure: fn(&Payload) -> f64) -> Series {
        Series::published(
            label,
            self.rows
                .iter()
                .map(|r| Point::new(r.payload_bytes as f64, figure(r)))
                .collect(),
        )
    }
}

fn load<R: for<'de> Deserialize<'de>>(book: &Book<Data>, name: &str) -> Result<Published<R>> {
    let ds: Dataset = book.published(name)?;
    Ok(Published {
        rows: ds.rows()?,
        citation: ds.citation(),
        description: escape_markdown(&ds.description),
    })
}

pub(super) fn payload(book: &Book<Data>) -> Result<Published<Payload>> {
    load(book, "payload")
}

pub(super) fn backpressure(book: &Book<Data>) -> Result<Published<Backpressure>> {
    load(book, "backpressure")
}
