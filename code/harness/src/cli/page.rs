//! A chapter's page as the book build asks for it: one exhibit, every
//! exhibit at once (`Rendered`, what `harness render` caches), and the
//! findings the Findings page gathers.
use anyhow::Result;
use serde::{Deserialize, Serialize};

use harness_core::results::Store;
use harness_page::exhibits::{exhibit, exhibits, tables};
use harness_page::{load_book, Book, Exhibit, ExhibitKind, Page};

/// Every claim's verdict on every machine with results (see `Finding`).
pub fn findings<C: Page>(store: &Store) -> Result<Vec<harness_core::claims::Finding>> {
    let book = load_book::<C>(store)?;
    findings_of::<C>(&book)
}

/// A chapter's whole page from one load of its results: every exhibit's
/// markdown (or the error that stopped it) and the chapter's findings.
/// Reading and checking the results, and drawing the intervals nothing
/// stored, happen once per chapter instead of once per exhibit.
#[derive(Debug, Serialize, Deserialize)]
pub struct Rendered {
    pub exhibits: std::collections::BTreeMap<String, Result<String, String>>,
    pub findings: Result<Vec<harness_core::claims::Finding>, String>,
    /// The chapter's advice (its `summary-list` exhibit), for the What to use page.
    #[serde(default = "no_advice")]
    pub advice: Result<Vec<harness_page::render::reader::Advice>, String>,
}

fn no_advice() -> Result<Vec<harness_page::render::reader::Advice>, String> {
    Ok(Vec::new())
}

/// The chapter's advice: every `Block::Advice` of its exhibit named
/// `summary-list` (none when it has no such exhibit), each marked with the chapter.
pub fn advice_of<C: Page>(
    book: &Book<C::Data>,
) -> Result<Vec<harness_page::render::reader::Advice>> {
    let mut out = Vec::new();
    for e in C::EXHIBITS.iter().filter(|e| e.name == SUMMARY) {
        for block in (e.render)(book)? {
            if let harness_page::render::blocks::Block::Advice(rows) = block {
                out.extend(rows.into_iter().map(|mut a| {
                    a.chapter = C::NAME.to_string();
                    a
                }));
            }
        }
    }
    Ok(out)
}

/// The exhibit whose advice the What to use page gathers.
pub const SUMMARY: &str = "summary-list";

pub fn render_all<C: Page>(store: &Store) -> Result<Rendered> {
    let book = load_book::<C>(store)?;
    let all = exhibits::<C>()?;
    Ok(Rendered {
        exhibits: all
            .iter()
            .map(|e| {
                let md = render_loaded::<C>(e, &book).map_err(|err| format!("{err:#}"));
                (e.name.to_string(), md)
            })
            .collect(),
        findings: findings_of::<C>(&book).map_err(|err| format!("{err:#}")),
        advice: advice_of::<C>(&book).map_err(|err| format!("{err:#}")),
    })
}

/// What the page shows where an exhibit failed; `scripts/build` looks for
/// its first words and fails the build.
pub fn render_error(chapter: &str, exhibit: &str, message: &str) -> String {
    format!(
        "\n**render error** in chapter `{}`, exhibit `{}`: {}\n\n",
        harness_page::render::escape(chapter),
        harness_page::render::escape(exhibit),
        harness_page::render::escape(message)
    )
}

fn findings_of<C: Page>(book: &Book<C::Data>) -> Result<Vec<harness_core::claims::Finding>> {
    // The machines that count (`Book::counted`): a stale or smoke run
    // never enters a finding beside a current one.
    let verdicts = C::verdicts(&book.counted()?)?;
    let history = harness_page::releases::history::<C>(book)?;
    Ok(verdicts
        .iter()
        .map(|v| {
            let mut f = harness_core::claims::Finding::of(C::NAME, v);
            f.machine_class = v.machine.as_deref().and_then(|m| {
                book.runs
                    .iter()
                    .find(|r| r.machine() == m)
                    .map(|r| harness_page::render::reader::machine_class(&r.provenance.machine))
            });
            f.releases = history.claims.get(&f.claim).and_then(|at| {
                harness_page::releases::range_note(
                    &history.krate,
                    history.profile,
                    history.exact,
                    at,
                )
            });
            f
        })
        .collect())
}

pub fn render_exhibit<C: Page>(name: &str, store: &Store) -> Result<String> {
    let exhibit = exhibit::<C>(name)?;
    let book = load_book::<C>(store)?;
    render_loaded::<C>(&exhibit, &book)
}

pub(super) fn render_loaded<C: Page>(
    exhibit: &Exhibit<C::Data>,
    book: &Book<C::Data>,
) -> Result<String> {
    if exhibit.name == "provenance" {
        let csv: Vec<String> = tables::<C>(book)?.into_iter().map(|(n, _)| n).collect();
        let mut md = harness_page::render::exhibit_markdown(C::NAME, exhibit.name, book, &[]);
        md.push_str(&harness_page::render::downloads(C::NAME, book, &csv));
        return Ok(md);
    }
    if exhibit.kind == ExhibitKind::Figure && book.runs.len() > 1 {
        // Several machines: the figure once per machine, behind a switch.
        let mut panels = Vec::new();
        for run in &book.runs {
            let one = book.only(|r| r.machine() == run.machine())?;
            panels.push((run.machine().to_string(), (exhibit.render)(&one)?));
        }
        return Ok(harness_page::render::exhibit_switch(
            C::NAME,
            exhibit.name,
            book,
            &panels,
        ));
    }
    let blocks = (exhibit.render)(book)?;
    Ok(harness_page::render::exhibit_markdown(
        C::NAME,
        exhibit.name,
        book,
        &blocks,
    ))
}
