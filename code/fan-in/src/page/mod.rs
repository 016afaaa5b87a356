//! The chapter as the page shows it: the claims and the rules that judge
//! them (`claims`, judged once per run and stored), the exhibits (one module
//! each, or a few related ones) and the checks on stored results.
//! Everything here reads results and nothing here measures: it is the
//! binary's alone, out of the library the results' fingerprint covers, so a
//! change to a caption or a rule makes no result stale. What a run stores is
//! `fan_in::run`; the sweep that measures is `fan_in::sweep`.
mod check;
mod claims;
mod crates;
mod estimates;
mod figures;
mod ladder;
mod own_design;
mod parameters;
mod placement_table;
mod profiles;
mod reader;
mod shared;
mod tables;
#[cfg(test)]
mod tests;
mod variations;
mod views;

use anyhow::Result;
use harness_core::{Claim, Verdict};
use harness_page::page::verdicts_by_run;
use harness_page::{render::blocks::Block, Book, Exhibit, ExhibitKind, Judge, Judged, Page};

use fan_in::run::FanInData;

/// The page of the chapter; its experiment is `fan_in::run::FanIn`.
pub struct FanIn;

impl Page for FanIn {
    type Data = FanInData;
    type Experiment = fan_in::run::FanIn;
    const CLAIMS: &'static [Claim] = claims::CLAIMS;
    const EXHIBITS: &'static [Exhibit<FanInData>] = EXHIBITS;

    fn check(data: &FanInData) -> Result<()> {
        check::check(data)
    }

    /// The estimates FAN-1..FAN-4 rest on, named; every claim's verdict map
    /// on the run; the headline (`claims::judge`).
    fn judge(run: &Judged<FanInData>, j: &mut Judge) -> Result<()> {
        claims::judge(run, j)
    }

    /// Every run's verdicts as judged, run by run, each with its badge in
    /// the reader's words (`reader::read`: it reads the post's published
    /// numbers, which are the book's, not the run's).
    fn verdicts(book: &Book<FanInData>) -> Result<Vec<Verdict>> {
        let mut out = Vec::new();
        for (run, verdicts) in verdicts_by_run(book, claims::CLAIMS)? {
            out.extend(verdicts.into_iter().map(|v| reader::read(book, run, v)));
        }
        Ok(out)
    }
}

/// The verdicts exhibit: every claim on every machine, each with its map,
/// as judged, with its badge (`Page::verdicts`).
fn verdicts(book: &Book<FanInData>) -> Result<Vec<Block>> {
    Ok(vec![Block::Verdicts(FanIn::verdicts(book)?)])
}

const EXHIBITS: &[Exhibit<FanInData>] = &[
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
    harness_page::parameters::exhibit::<FanIn>(),
    Exhibit {
        name: "burst-figure",
        kind: ExhibitKind::Figure,
        about: "log-log: workers vs time per burst over TCP, every design, published dashed",
        render: figures::tcp,
    },
    Exhibit {
        name: "delta-table",
        kind: ExhibitKind::Table,
        about: "std swap vs mpsc: published times and delta beside measured ones",
        render: tables::delta,
    },
    Exhibit {
        name: "designs-table",
        kind: ExhibitKind::Table,
        about: "time per burst over TCP, every design and worker count, with intervals",
        render: tables::designs,
    },
    Exhibit {
        name: "split-table",
        kind: ExhibitKind::Table,
        about: "channel vs socket: in-memory and TCP times at the largest worker count",
        render: tables::split,
    },
    Exhibit {
        name: "memory-figure",
        kind: ExhibitKind::Figure,
        about: "log-log: workers vs time per burst into the in-memory sink",
        render: figures::memory,
    },
    Exhibit {
        name: "crates-figure",
        kind: ExhibitKind::Figure,
        about: "log-log: workers vs time per message over TCP, flume and async-channel \
                beside recv_many, the swaps and the floor",
        render: crates::figure,
    },
    Exhibit {
        name: "crates-table",
        kind: ExhibitKind::Table,
        about: "flume, async-channel and recv_many per message and against the std swap",
        render: crates::table,
    },
    Exhibit {
        name: "own-design",
        kind: ExhibitKind::Table,
        about: "the book's design against the std swap and the floor, and its targets met or not",
        render: own_design::own_design,
    },
    Exhibit {
        name: "own-design-profile",
        kind: ExhibitKind::Figure,
        about: "flame graphs of the book's design and the floor, samples per burst by frame group",
        render: own_design::own_profile,
    },
    Exhibit {
        name: "placement-table",
        kind: ExhibitKind::Table,
        about: "pinned against free thread placement at a few worker counts, with each \
                placement's spread between passes",
        render: placement_table::placement_table,
    },
    Exhibit {
        name: "ladder-table",
        kind: ExhibitKind::Table,
        about: "from the published bench to the fair experiment, one correction at a time",
        render: ladder::table,
    },
    Exhibit {
        name: "ladder-work",
        kind: ExhibitKind::Table,
        about: "what each step's timed region holds: producers finished, bytes at the sink",
        render: ladder::work,
    },
    Exhibit {
        name: "ladder-figure",
        kind: ExhibitKind::Figure,
        about: "tokio ÷ std swap and mpsc ÷ std swap at each step of the ladder",
        render: ladder::figure,
    },
    Exhibit {
        name: "variations-table",
        kind: ExhibitKind::Table,
        about: "runtime, consumer placement and message count, each beside the fair experiment",
        render: variations::table,
    },
    Exhibit {
        name: "counted-table",
        kind: ExhibitKind::Table,
        about: "the swaps' locks counted with the consumer on a worker or the block_on thread",
        render: variations::counted,
    },
    Exhibit {
        name: "profiles",
        kind: ExhibitKind::Figure,
        about: "flame graphs of the std and tokio swap at the method's largest count",
        render: profiles::profiles,
    },
    Exhibit {
        name: "verdicts",
        kind: ExhibitKind::Verdicts,
        about: "FAN-1..FAN-4",
        render: verdicts,
    },
];
