//! The chapter as the page shows it: the claim its results decide and the
//! rule that decides it (`claims`, judged once per run and stored: `judge`),
//! the figures the exhibits show with an interval (`estimates`, named and
//! drawn by the same judge) and the exhibits, each in a module of its own.
//! Everything here reads results and nothing here measures: it is the
//! binary's alone, out of the library the results' fingerprint covers, so a
//! change to a caption or a rule makes no result stale (`mutex_swap::run`
//! holds what does).
mod batching;
mod check;
mod claims;
mod common;
mod estimates;
mod lock_hold;
mod parameters;
mod profiles;
mod reader;
#[cfg(test)]
mod tests;
mod throughput;
mod wait;

use anyhow::Result;

use harness_core::Claim;
use harness_page::{render::blocks::Block, Book, Exhibit, ExhibitKind, Judge, Judged, Page};

use mutex_swap::run::Data;

/// The page of the chapter; its experiment is `mutex_swap::run::MutexSwap`.
pub struct MutexSwap;

impl Page for MutexSwap {
    type Data = Data;
    type Experiment = mutex_swap::run::MutexSwap;
    const CLAIMS: &'static [Claim] = claims::CLAIMS;
    const EXHIBITS: &'static [Exhibit<Data>] = EXHIBITS;

    fn check(data: &Data) -> Result<()> {
        check::check(data)
    }

    /// FAN-4's verdict on the run with the estimates its rows read, its
    /// badge in the reader's words (`reader::read`), the headline, and every
    /// figure an exhibit shows with an interval.
    fn judge(run: &Judged<Data>, j: &mut Judge) -> Result<()> {
        let fan4 = claims::judge(run, j)?;
        let reads: Vec<&str> = fan4.reads.iter().map(String::as_str).collect();
        j.verdict(reader::read(fan4.at_scale, fan4.verdict), &reads);
        estimates::judge(run.data, j)
    }
}

/// The verdicts exhibit: every run's verdict as judged.
fn verdicts(book: &Book<Data>) -> Result<Vec<Block>> {
    Ok(vec![Block::Verdicts(MutexSwap::verdicts(book)?)])
}

const EXHIBITS: &[Exhibit<Data>] = &[
    Exhibit {
        name: "in-short",
        kind: ExhibitKind::Text,
        about: "the answer in plain words, its numbers beside the post's",
        render: reader::in_short,
    },
    Exhibit {
        name: "summary-list",
        kind: ExhibitKind::Text,
        about: "what to use, each with its number and verdict (gathered by the What to use page)",
        render: reader::summary_list,
    },
    harness_page::parameters::exhibit::<MutexSwap>(),
    Exhibit {
        name: "throughput",
        kind: ExhibitKind::Figure,
        about: "messages per second against producer count, per design (log-log)",
        render: throughput::figure,
    },
    Exhibit {
        name: "throughput-table",
        kind: ExhibitKind::Table,
        about: "the throughput figure's numbers with their confidence intervals",
        render: throughput::table,
    },
    Exhibit {
        name: "batching",
        kind: ExhibitKind::Table,
        about: "messages per consumer pass against producer count, per design",
        render: batching::render,
    },
    Exhibit {
        name: "wait",
        kind: ExhibitKind::Table,
        about: "burst time and consumer CPU per design and wait strategy",
        render: wait::tables,
    },
    Exhibit {
        name: "busy-cost",
        kind: ExhibitKind::Text,
        about: "how much a busy-polling consumer slows the producers, against Notify",
        render: wait::busy_cost,
    },
    Exhibit {
        name: "profiles",
        kind: ExhibitKind::Figure,
        about: "flame graphs of the std swap with a busy-polling and a Notify consumer, and \
                where their CPU samples went",
        render: profiles::render,
    },
    Exhibit {
        name: "lock-hold",
        kind: ExhibitKind::Table,
        about: "swap-only critical section against draining under the lock",
        render: lock_hold::render,
    },
    Exhibit {
        name: "verdicts",
        kind: ExhibitKind::Verdicts,
        about: "verdict on FAN-4",
        render: verdicts,
    },
];
