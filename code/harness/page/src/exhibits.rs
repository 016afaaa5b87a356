//! Every exhibit of a chapter: its own and the ones the harness adds, and
//! the tables they show (the page's CSV downloads).
use anyhow::{bail, Result};

use crate::chapter::{Book, Exhibit, ExhibitKind};
use crate::page::Page;
use crate::render::blocks::{Block, Table};

/// Every exhibit of chapter `C`: its own, then the ones the harness adds
/// (`answer`, `releases`, `provenance`, `precision`). A chapter exhibit named like a
/// built-in one would hide it from the page, so it is refused with the
/// name to change.
pub fn exhibits<C: Page>() -> Result<Vec<Exhibit<C::Data>>> {
    let built_in: [Exhibit<C::Data>; 4] = [
        Exhibit {
            name: "answer",
            kind: ExhibitKind::Text,
            about: "answer first: each claim's headline verdict, linked to its verdict map",
            render: |book| {
                Ok(vec![Block::Text(crate::render::answer(&C::verdicts(
                    &book.counted()?,
                )?))])
            },
        },
        Exhibit {
            name: "releases",
            kind: ExhibitKind::Table,
            about: "each claim's verdict at every release of the measured crates",
            render: crate::releases::exhibit::<C>,
        },
        Exhibit {
            name: "provenance",
            kind: ExhibitKind::Text,
            about: "where the numbers come from: machine, compiler, crates, noise, downloads",
            render: |_| Ok(Vec::new()),
        },
        Exhibit {
            name: "precision",
            kind: ExhibitKind::Table,
            about: "how precise each headline estimate is, per machine",
            render: crate::render::notes::precision::<C>,
        },
    ];
    if let Some(e) = C::EXHIBITS
        .iter()
        .find(|e| built_in.iter().any(|b| b.name == e.name))
    {
        bail!(
            "chapter {}: its exhibit {:?} has the name of an exhibit the harness adds to every \
             chapter ({}); rename it in the chapter's EXHIBITS",
            C::NAME,
            e.name,
            built_in
                .iter()
                .map(|b| b.name)
                .collect::<Vec<_>>()
                .join(", ")
        );
    }
    let own = C::EXHIBITS.iter().map(|e| Exhibit {
        name: e.name,
        kind: e.kind,
        about: e.about,
        render: e.render,
    });
    Ok(own.chain(built_in).collect())
}

/// The exhibit named `name`, or an error listing the names there are.
pub fn exhibit<C: Page>(name: &str) -> Result<Exhibit<C::Data>> {
    let all = exhibits::<C>()?;
    let names: Vec<&str> = all.iter().map(|e| e.name).collect();
    match all.into_iter().find(|e| e.name == name) {
        Some(e) => Ok(e),
        None => bail!(
            "unknown exhibit {name:?} for chapter {}: expected one of {}",
            C::NAME,
            names.join(", ")
        ),
    }
}

/// Every table the chapter's exhibits show, named `<exhibit>.csv`
/// (`<exhibit>-2.csv`, ... when an exhibit shows several).
pub fn tables<C: Page>(book: &Book<C::Data>) -> Result<Vec<(String, Table)>> {
    let mut out = Vec::new();
    for e in C::EXHIBITS {
        let found: Vec<_> = (e.render)(book)?
            .into_iter()
            .filter_map(|b| match b {
                Block::Table(t) => Some(t),
                _ => None,
            })
            .collect();
        for (i, t) in found.into_iter().enumerate() {
            let name = if i == 0 {
                format!("{}.csv", e.name)
            } else {
                format!("{}-{}.csv", e.name, i + 1)
            };
            if let Some((r, c, text)) = t.formatted_measurement() {
                bail!(
                    "exhibit {} of chapter {}: table {}, row {}, column {:?} holds {text:?} as \
                     text; a measurement must be a number cell (Cell::Number or \
                     Cell::Estimate) so the CSV download carries it as a number",
                    e.name,
                    C::NAME,
                    i + 1,
                    r + 1,
                    t.header[c]
                );
            }
            out.push((name, t));
        }
    }
    Ok(out)
}
