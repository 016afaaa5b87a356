//! The answer check: the answer names the headline, quotes it right, and
//! every headline estimate is shown somewhere on the page.
use std::collections::BTreeMap;

use anyhow::{bail, Result};
use serde_json::Value;

use super::checks::{headline_of, join, judged, render_all_with_findings};
use super::subject::Subject;
use harness_core::values::Unit;

/// The answer under the chapter's question (the exhibit carrying
/// `data-answer="<chapter>"`) names a headline estimate, when there are
/// any; each number it marks with a headline estimate's name is that
/// estimate's point; and every headline estimate the run's analysis lists
/// is shown on the page: marked on the answer, or its point written as the
/// page writes it (in the estimate's unit, or as a ratio, share or
/// duration) in the chapter's Findings or in one of its exhibits other than
/// `precision`, which lists the headline by construction.
///
/// The stronger rule, "every headline estimate on the answer or in the
/// Findings", does not hold for every chapter: channel-latency's headline
/// has one ratio per payload size; its answer and Findings show the sizes
/// its claims decide on, the other sizes (64 B, 256 B, 512 B, 16 KiB on the
/// smoke and the committed runs) only its ratio tables. A number the answer
/// marks that the headline lacks (mutex-cost's MUT-1 at 100,000 futures on
/// a smoke run) is let be.
pub(crate) fn answer(s: &Subject) -> Result<()> {
    let chapter = &s.suite.chapter;
    let (all, findings) = render_all_with_findings(s, &s.root)?;
    let marker = format!("data-answer=\"{chapter}\"");
    let Some((name, md)) = all.iter().find_map(|(n, r)| {
        r.as_ref()
            .ok()
            .filter(|md| md.contains(&marker))
            .map(|md| (n, md))
    }) else {
        bail!("no exhibit carries the answer ({marker})");
    };
    let headline = headline_of(s, &s.file)?;
    let marked = harness_page::render::reader::numbers_of(md);
    let mut problems = Vec::new();
    if !headline.is_empty()
        && !marked
            .iter()
            .any(|(m, _)| headline.iter().any(|(h, _)| h == m))
    {
        let names: Vec<&str> = headline.iter().map(|(h, _)| h.as_str()).collect();
        problems.push(format!(
            "the answer ({name}) names none of the headline estimates ({})",
            names.join("; ")
        ));
    }
    for (m, shown) in &marked {
        match headline.iter().find(|(h, _)| h == m) {
            None => {}
            Some((_, [_, Some(point), _])) => {
                let units = [Unit::Ratio, Unit::Share, Unit::Nanos, Unit::Plain];
                if !units.iter().any(|u| u.show(*point) == *shown) {
                    problems.push(format!(
                        "the answer ({name}) shows {shown:?} for {m:?}, whose point is {point}"
                    ));
                }
            }
            Some(_) => {} // not finite: `headline` says so
        }
    }
    let units = units_of(&judged(s, &s.file)?);
    let findings = findings.to_string();
    for (h, [_, point, _]) in &headline {
        let Some(point) = point else { continue }; // not finite: `headline` says so
        if marked.iter().any(|(m, _)| m == h) {
            continue;
        }
        let mut ways = vec![Unit::Ratio, Unit::Share, Unit::Nanos];
        if let Some(&u) = units.get(h) {
            if !ways.contains(&u) {
                ways.insert(0, u);
            }
        }
        let written: Vec<String> = ways.iter().map(|u| u.show(*point)).collect();
        let on = |text: &str| written.iter().any(|w| text.contains(w.as_str()));
        let in_exhibit = all
            .iter()
            .any(|(n, r)| n != "precision" && r.as_ref().is_ok_and(|md| on(md)));
        if !on(&findings) && !in_exhibit {
            problems.push(format!(
                "headline estimate {h:?} ({}) is shown nowhere on the page: not marked on the \
                 answer, not written in the Findings or in an exhibit but precision",
                written.join(" or ")
            ));
        }
    }
    join(problems)
}

/// The unit of each estimate an analysis names (`ratio`, `fraction`, `ns`,
/// `` for a plain number), as a [`Unit`].
fn units_of(analysis: &Value) -> BTreeMap<String, Unit> {
    let Some(Value::Object(estimates)) = analysis.get("estimates") else {
        return BTreeMap::new();
    };
    let all = [Unit::Ratio, Unit::Share, Unit::Nanos, Unit::Plain];
    estimates
        .iter()
        .filter_map(|(name, e)| {
            let unit = e.get("unit")?.as_str()?;
            let u = all.into_iter().find(|u| u.csv_name() == unit)?;
            Some((name.clone(), u))
        })
        .collect()
}
