//! The suite's checks, each over a [`Subject`]: `Ok` or the reasons it fails.
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use anyhow::{bail, ensure, Context, Result};
use serde_json::Value;

use super::subject::{Subject, BUILT_IN, RENDER_ERROR};

/// What the chapter lists: its exhibits (own and built-in) and its claims
/// as `(id, statement)`.
pub(crate) struct Listed {
    pub exhibits: Vec<String>,
    /// `(exhibit, kind)` as listed: `Table`, `Figure`, `Verdicts`, `Text`.
    pub kinds: Vec<(String, String)>,
    pub claims: Vec<(String, String)>,
}

pub(crate) fn listed(s: &Subject) -> Result<Listed> {
    let out = s.step("exhibits", &["exhibits".as_ref()])?.success()?;
    let mut listed = Listed {
        exhibits: Vec::new(),
        kinds: Vec::new(),
        claims: Vec::new(),
    };
    for line in out.stdout.lines().filter(|l| !l.trim().is_empty()) {
        let fields: Vec<&str> = line.split('\t').collect();
        match fields.as_slice() {
            ["claim", id, statement, ..] => {
                listed.claims.push((id.to_string(), statement.to_string()))
            }
            [name, rest @ ..] => {
                listed.exhibits.push(name.to_string());
                let kind = rest.first().copied().unwrap_or_default();
                listed.kinds.push((name.to_string(), kind.to_string()));
            }
            [] => {}
        }
    }
    ensure!(
        !listed.exhibits.is_empty(),
        "`exhibits` lists no exhibit: {}",
        out.stdout
    );
    Ok(listed)
}

/// `render-all --results <root>` as JSON: each exhibit's markdown or error.
pub(crate) fn render_all(
    s: &Subject,
    root: &Path,
) -> Result<BTreeMap<String, Result<String, String>>> {
    Ok(render_all_with_findings(s, root)?.0)
}

/// `render-all --results <root>`: each exhibit's markdown or error, and the
/// chapter's findings (what the Findings page shows of it) as JSON.
pub(crate) fn render_all_with_findings(
    s: &Subject,
    root: &Path,
) -> Result<(BTreeMap<String, Result<String, String>>, Value)> {
    let out = s
        .step(
            "render-all",
            &[
                "render-all".as_ref(),
                "--results".as_ref(),
                root.as_os_str(),
            ],
        )?
        .success()?;
    let v = json_of("render-all", &out.stdout)?;
    if let Some(Value::String(e)) = v.pointer("/findings/Err") {
        bail!("render-all: the findings failed: {e}");
    }
    let exhibits = v
        .get("exhibits")
        .and_then(Value::as_object)
        .context("render-all printed no exhibits")?;
    let findings = v.pointer("/findings/Ok").cloned().unwrap_or(Value::Null);
    let exhibits = exhibits
        .iter()
        .map(|(name, r)| {
            let r = match (r.get("Ok"), r.get("Err")) {
                (Some(Value::String(md)), _) => Ok(md.clone()),
                (_, Some(e)) => Err(e.as_str().map_or_else(|| e.to_string(), String::from)),
                _ => Err(format!("neither markdown nor an error: {r}")),
            };
            (name.clone(), r)
        })
        .collect();
    Ok((exhibits, findings))
}

/// Why the markdown `md` of exhibit `name` is not a rendered exhibit.
fn not_rendered(chapter: &str, name: &str, md: &str) -> Option<String> {
    if md.trim().is_empty() {
        Some(format!("exhibit {name} renders nothing"))
    } else if md.contains(RENDER_ERROR) {
        Some(format!(
            "exhibit {name} shows a render error: {}",
            md.trim()
        ))
    } else if let Some(bad) = md
        .split(|c: char| !c.is_alphanumeric())
        .find(|w| ["NaN", "inf"].contains(w))
    {
        Some(format!("exhibit {name} shows a number that is {bad}"))
    } else if !md.contains(&format!("data-exhibit=\"{chapter}/{name}\"")) {
        Some(format!(
            "exhibit {name} lacks its marker data-exhibit=\"{chapter}/{name}\""
        ))
    } else {
        None
    }
}

/// Every listed exhibit, the built-in ones among them, renders on its own
/// and in `render-all`: non-empty markdown, no render-error marker.
pub(crate) fn exhibits(s: &Subject) -> Result<()> {
    let listed = listed(s)?;
    let chapter = &s.suite.chapter;
    let mut problems = Vec::new();
    for b in BUILT_IN {
        if !listed.exhibits.iter().any(|e| e == b) {
            problems.push(format!("`exhibits` does not list the built-in exhibit {b}"));
        }
    }
    for name in &listed.exhibits {
        let out = s.render(name, &s.root)?;
        if !out.succeeded() {
            problems.push(format!(
                "render {name} failed: {}",
                super::step::tail(&out.stderr)
            ));
        } else if let Some(p) = not_rendered(chapter, name, &out.stdout) {
            problems.push(format!("render {name}: {p}"));
        }
    }
    match render_all(s, &s.root) {
        Err(e) => problems.push(format!("{e:#}")),
        Ok(all) => {
            problems.extend(kinds_shown(&listed, &all));
            for name in &listed.exhibits {
                match all.get(name) {
                    None => problems.push(format!("render-all leaves out exhibit {name}")),
                    Some(Err(e)) => {
                        problems.push(format!("render-all: exhibit {name} failed: {e}"))
                    }
                    Some(Ok(md)) => {
                        if let Some(p) = not_rendered(chapter, name, md) {
                            problems.push(format!("render-all: {p}"));
                        }
                    }
                }
            }
        }
    }
    join(problems)
}

/// The blocks an exhibit's marker says it shows (`data-blocks="table,text"`).
fn blocks_of(md: &str) -> Vec<&str> {
    md.split_once("data-blocks=\"")
        .and_then(|(_, rest)| rest.split_once('"'))
        .map_or_else(Vec::new, |(kinds, _)| kinds.split(',').collect())
}

/// Each of the chapter's own exhibits shows a block of its listed kind, and
/// every claim has its verdict in a verdicts exhibit.
fn kinds_shown(listed: &Listed, all: &BTreeMap<String, Result<String, String>>) -> Vec<String> {
    let mut problems = Vec::new();
    let mut verdicts = Vec::new();
    for (name, kind) in &listed.kinds {
        let Some(Ok(md)) = all.get(name) else {
            continue;
        };
        let blocks = blocks_of(md);
        verdicts.extend(
            blocks
                .iter()
                .filter_map(|b| b.strip_prefix("verdicts:"))
                .flat_map(|ids| ids.split('+')),
        );
        if BUILT_IN.contains(&name.as_str()) {
            continue;
        }
        let shown = match kind.as_str() {
            "Table" => blocks.contains(&"table"),
            // A figure with too little to draw shows its table.
            "Figure" => blocks.contains(&"figure") || blocks.contains(&"table"),
            "Text" => blocks.contains(&"text"),
            "Verdicts" => blocks.iter().any(|b| b.starts_with("verdicts:")),
            _ => true,
        };
        if !shown {
            problems.push(format!(
                "exhibit {name} is listed as {kind} but shows {}",
                if blocks.is_empty() {
                    "no block".to_string()
                } else {
                    blocks.join(", ")
                }
            ));
        }
    }
    for (id, _) in &listed.claims {
        if !verdicts.contains(&id.as_str()) {
            problems.push(format!("no verdicts exhibit gives claim {id}'s verdict"));
        }
    }
    problems
}

/// What a step printed, read as JSON (the error quotes its last lines).
fn json_of(step: &str, stdout: &str) -> Result<Value> {
    serde_json::from_str(stdout.trim())
        .with_context(|| format!("{step} printed no JSON: {}", super::step::tail(stdout)))
}

/// `headline <file>`: the estimates, by name.
pub(crate) fn headline_of(s: &Subject, file: &Path) -> Result<Vec<(String, [Option<f64>; 3])>> {
    let out = s
        .step("headline", &["headline".as_ref(), file.as_os_str()])?
        .success()?;
    let v = json_of("headline", &out.stdout)?;
    let estimates = v
        .get("estimates")
        .and_then(Value::as_array)
        .context("headline printed no estimates")?;
    Ok(estimates
        .iter()
        .map(|e| {
            let name = e
                .get("name")
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_string();
            let n = |k: &str| e.pointer(&format!("/estimate/{k}")).and_then(Value::as_f64);
            (name, [n("lower_ns"), n("point_ns"), n("upper_ns")])
        })
        .collect())
}

/// Every headline estimate (a chapter of exact counts has none) is named,
/// finite, with lower <= point <= upper.
pub(crate) fn headline(s: &Subject) -> Result<()> {
    let headline = headline_of(s, &s.file)?;
    let mut problems = Vec::new();
    for (name, [lo, point, hi]) in &headline {
        if name.trim().is_empty() {
            problems.push("a headline estimate has no name".to_string());
        }
        match (lo, point, hi) {
            (Some(lo), Some(p), Some(hi)) if [lo, p, hi].iter().all(|v| v.is_finite()) => {
                if !(lo <= p && p <= hi) {
                    problems.push(format!(
                        "headline estimate {name:?}: the point {p} is not inside its interval [{lo}, {hi}]"
                    ));
                }
            }
            _ => problems.push(format!(
                "headline estimate {name:?} is not finite: lower {lo:?}, point {point:?}, upper {hi:?}"
            )),
        }
    }
    join(problems)
}

/// `judge <file>`: the analysis judging the file's data gives, as JSON.
pub(crate) fn judged(s: &Subject, file: &Path) -> Result<Value> {
    let out = s
        .step("judge", &["judge".as_ref(), file.as_os_str()])?
        .success()?;
    json_of("judge", &out.stdout)
}

/// Judging is a stage of its own, and deterministic: the same data judged
/// twice gives the same analysis; the analysis the run stores is what
/// judging its data gives (a shared run judged by older page code is judged
/// again with `judge --write` first, which must store exactly that); and
/// `check` refuses the run with its analysis edited by hand (a verdict's
/// evidence, an estimate's point moved inside its interval).
pub(crate) fn judge(s: &Subject) -> Result<()> {
    let first = judged(s, &s.file)?;
    let second = judged(s, &s.file)?;
    ensure!(
        first == second,
        "judging the same run twice gives two analyses: {} and {}",
        first,
        second
    );
    let mut good = s.json()?;
    let current = good
        .pointer("/analysis/judged_by")
        .is_some_and(|b| Some(b) == first.get("judged_by"));
    if !current {
        // Judged by other code (or not at all): store today's judgement.
        let (_, file) = s.planted("judged", None, &good)?;
        s.step(
            "judge --write",
            &["judge".as_ref(), "--write".as_ref(), file.as_os_str()],
        )?
        .success()?;
        good = serde_json::from_slice(&std::fs::read(&file)?)?;
    }
    let stored = good.get("analysis").cloned().unwrap_or(Value::Null);
    ensure!(
        stored == first,
        "the analysis stored in the run is not what judging its data gives: stored {stored}, \
         judged {first}"
    );
    let mut edited = good.clone();
    let mut touched = false;
    if let Some(e) = edited.pointer_mut("/analysis/verdicts/0/evidence") {
        *e = format!("{} (edited by hand)", e.as_str().unwrap_or_default()).into();
        touched = true;
    }
    if let Some(Value::Object(estimates)) = edited.pointer_mut("/analysis/estimates") {
        if let Some(Value::Object(e)) = estimates.values_mut().next() {
            let (lower, upper) = (e.get("lower").cloned(), e.get("upper").cloned());
            if e.get("point") != lower.as_ref() {
                e.insert("point".into(), lower.unwrap_or(Value::Null));
            } else if let Some(upper) = upper {
                e.insert("point".into(), upper);
            }
            touched = true;
        }
    }
    ensure!(
        touched,
        "the run's analysis holds no verdict and no estimate: the chapter judges nothing"
    );
    let (_, file) = s.planted("analysis-edited", None, &edited)?;
    ensure!(
        !s.step("check", &["check".as_ref(), file.as_os_str()])?
            .succeeded(),
        "check accepts the run with its analysis edited by hand (a verdict's evidence and an \
         estimate's point changed, the data not)"
    );
    Ok(())
}

/// `export <dir>` writes the run and every table; in every CSV, a value
/// column (one with a `<name> unit` column beside it) holds a finite number
/// wherever its row names a unit.
pub(crate) fn export(s: &Subject) -> Result<()> {
    let dir = s.scratch.join("export");
    s.step_with(
        "export",
        &["export".as_ref(), dir.as_os_str()],
        &[("BOOK_RESULTS_DIR", s.root.as_os_str())],
    )?
    .success()?;
    let run = dir.join(s.file.file_name().expect("a name"));
    ensure!(
        run.is_file(),
        "export did not copy the run ({})",
        run.display()
    );
    let mut csvs: Vec<PathBuf> = std::fs::read_dir(&dir)?
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "csv"))
        .collect();
    csvs.sort();
    ensure!(!csvs.is_empty(), "export wrote no table as CSV");
    let mut problems = Vec::new();
    for path in &csvs {
        if let Err(e) = csv_numbers(path) {
            problems.push(format!("{e:#}"));
        }
    }
    join(problems)
}

/// The value columns of one CSV file hold numbers.
pub(crate) fn csv_numbers(path: &Path) -> Result<()> {
    let name = path.file_name().unwrap_or_default().to_string_lossy();
    let mut r = csv::Reader::from_path(path).with_context(|| format!("{name}: not CSV"))?;
    let header: Vec<String> = r.headers()?.iter().map(String::from).collect();
    // (unit column, the value columns it qualifies)
    let mut valued = Vec::new();
    for (c, h) in header.iter().enumerate() {
        if let Some(u) = header.iter().position(|x| *x == format!("{h} unit")) {
            let mut cols = vec![c];
            for bound in ["low", "high"] {
                if let Some(b) = header.iter().position(|x| *x == format!("{h} {bound}")) {
                    cols.push(b);
                }
            }
            valued.push((u, cols));
        }
    }
    for (i, row) in r.records().enumerate() {
        let row = row.with_context(|| format!("{name}: row {}", i + 1))?;
        for (u, cols) in &valued {
            if row.get(*u).unwrap_or_default().trim().is_empty() {
                continue;
            }
            for (k, &c) in cols.iter().enumerate() {
                let cell = row.get(c).unwrap_or_default().trim();
                // An estimate shown as a bare number leaves its bounds empty.
                if k > 0 && cell.is_empty() {
                    continue;
                }
                if !cell.parse::<f64>().is_ok_and(f64::is_finite) {
                    bail!(
                        "{name}, row {}, column {:?} holds {cell:?} where a number in {} is due",
                        i + 1,
                        header[c],
                        row.get(*u).unwrap_or_default()
                    );
                }
            }
        }
    }
    Ok(())
}

/// `check` passes the run; it refuses the run with any one of the
/// chapter's work counts off by one; and a data number edited by hand
/// (the file still checking) marks the run edited on the page.
pub(crate) fn refusals(s: &Subject) -> Result<()> {
    s.step("check", &["check".as_ref(), s.file.as_os_str()])?
        .success()
        .context("check refuses the smoke run as it was measured")?;
    let good = s.json()?;
    let mut problems = Vec::new();
    if s.suite.work_counts.is_empty() {
        problems.push(
            "the chapter names no work count: pass at least one JSON pointer into the results' \
             data (\"/points/0/bursts\") whose count, off by one, its check must refuse"
                .to_string(),
        );
    }
    for (i, pointer) in s.suite.work_counts.iter().enumerate() {
        let mut broken = good.clone();
        let Some(slot) = broken.get_mut("data").and_then(|d| d.pointer_mut(pointer)) else {
            problems.push(format!("the results' data has no {pointer}"));
            continue;
        };
        let Some(n) = slot.as_u64() else {
            problems.push(format!("data{pointer} is {slot}, not a count"));
            continue;
        };
        *slot = (n + 1).into();
        let (_, file) = s.planted(&format!("count-{i}"), None, &broken)?;
        let out = s.step("check", &["check".as_ref(), file.as_os_str()])?;
        if out.succeeded() {
            problems.push(format!(
                "check accepts the run with data{pointer} = {} instead of {n}: the chapter's \
                 check does not validate that count",
                n + 1
            ));
        }
    }
    if let Err(e) = edited(s, &good) {
        problems.push(format!("{e:#}"));
    }
    join(problems)
}

/// A data number edited by hand, the file still passing `check`, is
/// flagged on the page; the run as measured is not.
fn edited(s: &Subject, good: &Value) -> Result<()> {
    let provenance =
        |root: &Path| -> Result<String> { Ok(s.render("provenance", root)?.success()?.stdout) };
    const BADGE: &str = "badge edited";
    ensure!(
        !provenance(&s.root)?.contains(BADGE),
        "the run as measured is flagged as edited"
    );
    let (mut fractions, mut whole) = (Vec::new(), Vec::new());
    if let Some(data) = good.get("data") {
        numbers(data, String::new(), &mut fractions, &mut whole);
    }
    // A few numbers spread over the file, measured fractions first, then
    // counts: the first whose edit still passes `check`.
    let spread = |v: &[String]| -> Vec<String> {
        let step = (v.len() / 8).max(1);
        v.iter().step_by(step).take(8).cloned().collect()
    };
    for pointer in spread(&fractions).iter().chain(&spread(&whole)) {
        let mut value = good.clone();
        let slot = value
            .get_mut("data")
            .and_then(|d| d.pointer_mut(pointer))
            .expect("a leaf found above");
        let was = slot.clone();
        *slot = match (slot.as_u64(), slot.as_f64()) {
            (Some(n), _) => (n + 1).into(),
            (None, Some(v)) => (v * (1.0 + 1e-9)).into(),
            _ => continue,
        };
        let now = slot.clone();
        let (root, file) = s.planted("edited", None, &value)?;
        if !s
            .step("check", &["check".as_ref(), file.as_os_str()])?
            .succeeded()
        {
            continue;
        }
        ensure!(
            provenance(&root)?.contains(BADGE),
            "data{pointer} edited from {was} to {now} after measuring is not flagged \
             ({BADGE} missing from the provenance card)"
        );
        return Ok(());
    }
    bail!("no hand edit of a data number passed `check`, so none could be shown flagged")
}

/// JSON pointers of the numbers in `v`: those that are not whole, and the
/// counts.
fn numbers(v: &Value, at: String, fractions: &mut Vec<String>, whole: &mut Vec<String>) {
    match v {
        Value::Number(n) if n.as_u64().is_some() => whole.push(at),
        Value::Number(n)
            if n.as_f64()
                .is_some_and(|f| f.is_finite() && f.fract() != 0.0) =>
        {
            fractions.push(at)
        }
        Value::Array(a) => {
            for (i, x) in a.iter().enumerate() {
                numbers(x, format!("{at}/{i}"), fractions, whole);
            }
        }
        Value::Object(o) => {
            for (k, x) in o {
                let k = k.replace('~', "~0").replace('/', "~1");
                numbers(x, format!("{at}/{k}"), fractions, whole);
            }
        }
        _ => {}
    }
}

/// Markup the suite plants; none of it may reach a page raw.
pub(crate) const HOSTILE_CPU: &str = "<script>alert(1)</script><img src=x onerror=alert(2)>";
pub(crate) const HOSTILE_ID: &str = "x<img src=x onerror=alert(3)>";
const RAW: [&str; 3] = ["<script>alert(", "<img src=x", "onerror=alert(3)>"];

/// Markup in the machine's description (CPU, OS, kernel) is shown escaped
/// on every exhibit; markup in the machine id is refused and never
/// printed raw; a claim's text with markup outside code is never shown raw.
pub(crate) fn hostile(s: &Subject) -> Result<()> {
    let good = s.json()?;
    let mut problems = Vec::new();

    let mut v = good.clone();
    for field in ["cpu", "os", "kernel"] {
        if let Some(slot) = v.pointer_mut(&format!("/provenance/machine/{field}")) {
            *slot = HOSTILE_CPU.into();
        }
    }
    let (root, _) = s.planted("hostile-cpu", None, &v)?;
    let all = render_all(s, &root)?;
    for (name, r) in &all {
        let md = match r {
            Ok(md) | Err(md) => md,
        };
        for raw in RAW {
            if md.contains(raw) {
                problems.push(format!(
                    "exhibit {name} shows the machine's description raw ({raw}...)"
                ));
            }
        }
    }
    let escaped = html_escape::encode_text(HOSTILE_CPU).into_owned();
    match all.get("provenance") {
        Some(Ok(md)) if md.contains(&escaped) || md.contains("&lt;script&gt;alert(1)") => {}
        Some(Ok(_)) => problems
            .push("the provenance card does not show the machine's CPU (escaped)".to_string()),
        Some(Err(e)) => problems.push(format!("provenance with markup in the CPU name: {e}")),
        None => problems.push("render-all has no provenance card".to_string()),
    }

    let mut v = good.clone();
    if let Some(slot) = v.pointer_mut("/provenance/machine/id") {
        *slot = HOSTILE_ID.into();
    }
    let (root, file) = s.planted("hostile-id", Some(HOSTILE_ID), &v)?;
    if s.step("check", &["check".as_ref(), file.as_os_str()])?
        .succeeded()
    {
        problems.push(format!("check accepts the machine id {HOSTILE_ID:?}"));
    }
    let out = s.render("provenance", &root)?;
    if RAW.iter().any(|r| out.stdout.contains(r)) {
        problems.push(format!(
            "render prints the machine id {HOSTILE_ID:?} raw: {}",
            out.stdout.trim()
        ));
    }

    let listed = listed(s)?;
    let shown = render_all(s, &s.root)?;
    for (id, statement) in &listed.claims {
        let outside_code: String = statement.split('`').step_by(2).collect();
        if !outside_code.contains(['<', '&']) {
            continue;
        }
        for (name, r) in &shown {
            if r.as_ref().is_ok_and(|md| md.contains(statement.as_str())) {
                problems.push(format!(
                    "exhibit {name} shows claim {id}'s text raw: {statement}"
                ));
            }
        }
    }
    join(problems)
}

pub(crate) fn join(problems: Vec<String>) -> Result<()> {
    if problems.is_empty() {
        Ok(())
    } else {
        bail!("{}", problems.join("; "))
    }
}
