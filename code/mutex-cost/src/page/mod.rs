//! The chapter as the page shows it: the claims it judges and the rules
//! that judge them (`claims`, over the rows of `conditions`, judged once per
//! run and stored), the exhibits, each in a module of its own, and the
//! checks on stored results. Everything here reads results and nothing here
//! measures: it is the binary's alone, out of the library the results'
//! fingerprint covers, so a change to a caption or a rule makes no result
//! stale (`mutex_cost::run` holds what does). Layers: `points` (look-ups
//! in a run's data) at the bottom, then `conditions` and `claims`, then the
//! exhibits and `reader`; this file only lists them.
mod actor;
mod check;
mod claims;
mod conditions;
mod contended;
mod heartbeat;
mod instructions;
mod ladder;
mod locks;
mod parameters;
mod per_op;
mod points;
mod profiles;
mod published_shape;
mod reader;
mod sensitivity;
mod summary;
#[cfg(test)]
mod tests;

use anyhow::Result;
use harness_core::{Claim, Verdict};
use harness_page::page::verdicts_by_run;
use harness_page::{render::blocks::Block, Book, Exhibit, ExhibitKind, Judge, Judged, Page};

use mutex_cost::run::Data;

/// The page of the chapter; its experiment is `mutex_cost::run::MutexCost`.
pub struct MutexCost;

impl Page for MutexCost {
    type Data = Data;
    type Experiment = mutex_cost::run::MutexCost;
    const CLAIMS: &'static [Claim] = claims::CLAIMS;
    const EXHIBITS: &'static [Exhibit<Data>] = EXHIBITS;

    fn check(data: &Data) -> Result<()> {
        check::data(data)
    }

    fn judge(run: &Judged<Data>, j: &mut Judge) -> Result<()> {
        claims::judge(run, j)
    }

    /// Claim by claim, then run by run (MUT-1 on every machine first), each
    /// verdict with its badge in the reader's words (`reader::read`, which
    /// reads the post's published numbers beside the run's).
    fn verdicts(book: &Book<Data>) -> Result<Vec<Verdict>> {
        let judged = verdicts_by_run(book, claims::CLAIMS)?;
        let mut out = Vec::new();
        for claim in claims::CLAIMS {
            for (run, verdicts) in &judged {
                for v in verdicts.iter().filter(|v| v.claim.id == claim.id) {
                    out.push(reader::read(book, run, v.clone())?);
                }
            }
        }
        Ok(out)
    }
}

/// The verdicts exhibit: every claim's verdict on every run, as judged.
fn verdicts(book: &Book<Data>) -> Result<Vec<Block>> {
    Ok(vec![Block::Verdicts(MutexCost::verdicts(book)?)])
}

pub const EXHIBITS: &[Exhibit<Data>] = &[
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
    Exhibit {
        name: "reproduction",
        kind: ExhibitKind::Table,
        about: "the published shape at 100,000 futures, beside the published numbers",
        render: published_shape::reproduction,
    },
    Exhibit {
        name: "sweep",
        kind: ExhibitKind::Figure,
        about: "time per round against futures, published shape",
        render: published_shape::sweep,
    },
    Exhibit {
        name: "sweep-table",
        kind: ExhibitKind::Table,
        about: "the scale sweep with ratios",
        render: published_shape::sweep_table,
    },
    Exhibit {
        name: "contended",
        kind: ExhibitKind::Figure,
        about: "time per round against futures, spawned tasks, per worker count",
        render: contended::figure,
    },
    Exhibit {
        name: "contended-table",
        kind: ExhibitKind::Table,
        about: "the contended shape with ratios",
        render: contended::table,
    },
    Exhibit {
        name: "locks",
        kind: ExhibitKind::Table,
        about: "every lock (std, parking_lot, tokio, async-lock, futures) in the contended shape",
        render: locks::table,
    },
    Exhibit {
        name: "locks-chart",
        kind: ExhibitKind::Figure,
        about: "time per lock taken in the contended shape, every lock, as bars",
        render: locks::chart,
    },
    Exhibit {
        name: "actor",
        kind: ExhibitKind::Table,
        about: "actor against the mutexes at 10,000 futures, both shapes",
        render: actor::table,
    },
    Exhibit {
        name: "actor-chart",
        kind: ExhibitKind::Figure,
        about: "actor time over mutex time, published and per shape",
        render: actor::chart,
    },
    Exhibit {
        name: "per-op",
        kind: ExhibitKind::Table,
        about: "nanoseconds per uncontended lock + unlock, and the co-op probe",
        render: per_op::table,
    },
    Exhibit {
        name: "per-op-chart",
        kind: ExhibitKind::Figure,
        about: "the uncontended cost as bars",
        render: per_op::chart,
    },
    Exhibit {
        name: "heartbeat",
        kind: ExhibitKind::Table,
        about: "lateness percentiles of an unrelated task under each load",
        render: heartbeat::table,
    },
    Exhibit {
        name: "heartbeat-chart",
        kind: ExhibitKind::Figure,
        about: "the heartbeat's lateness percentile curves",
        render: heartbeat::chart,
    },
    Exhibit {
        name: "ladder",
        kind: ExhibitKind::Table,
        about: "MUT-1 and MUT-2 as published, then one correction at a time to the fair experiment",
        render: ladder::tables,
    },
    Exhibit {
        name: "sensitivity",
        kind: ExhibitKind::Table,
        about: "tokio ÷ std on the published round by driver, runtime, allocator and co-op budget",
        render: sensitivity::grid,
    },
    Exhibit {
        name: "sensitivity-chart",
        kind: ExhibitKind::Figure,
        about: "the sensitivity grid as bars",
        render: sensitivity::chart,
    },
    Exhibit {
        name: "sensitivity-causes",
        kind: ExhibitKind::Table,
        about: "time, page faults and context switches per round in every cell of the grid",
        render: sensitivity::causes,
    },
    Exhibit {
        name: "polls",
        kind: ExhibitKind::Table,
        about: "polls per future of the published round, counted",
        render: sensitivity::polls,
    },
    Exhibit {
        name: "instructions",
        kind: ExhibitKind::Table,
        about: "instructions per operation (callgrind), tokio ÷ std counted and timed",
        render: instructions::table,
    },
    Exhibit {
        name: "profiles",
        kind: ExhibitKind::Figure,
        about: "flame graphs: std and tokio counters in the published and the contended round",
        render: profiles::render,
    },
    harness_page::parameters::exhibit::<MutexCost>(),
    Exhibit {
        name: "verdicts",
        kind: ExhibitKind::Verdicts,
        about: "MUT-1 to MUT-3",
        render: verdicts,
    },
    Exhibit {
        name: "summary",
        kind: ExhibitKind::Text,
        about: "the ratios the decision guide rests on",
        render: summary::text,
    },
];
