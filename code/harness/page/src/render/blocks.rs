//! What a chapter hands the harness to put on a page: typed blocks. Chapters build these
//! from their results; the harness alone turns them into markdown and SVG.
use serde::{Deserialize, Serialize};

use harness_core::claims::Verdict;
use harness_core::values::{Estimate, Unit};

#[derive(Clone, Debug)]
pub enum Block {
    /// A sentence or two of computed text (plain markdown, numbers included).
    Text(String),
    Table(Table),
    Figure(Figure),
    Bars(BarChart),
    Verdicts(Vec<Verdict>),
    /// A figure a harness renderer has already drawn (the flame graphs of
    /// `render::flame`).
    Drawn(Drawn),
    /// What to do, with its evidence: the summary list that ends a chapter,
    /// gathered by the What to use page (`render::reader`).
    Advice(Vec<Advice>),
}

/// Inline SVG the harness drew itself, every name in it escaped.
#[derive(Clone, Debug)]
pub struct Drawn {
    /// Short id, unique on its page (used for the element id).
    pub id: String,
    pub caption: String,
    /// One `<svg>` element with no blank line inside.
    pub svg: String,
}

impl Block {
    /// What an exhibit shows for a run measured before its experiment
    /// existed: `what` (e.g. "The ladder") is not in the results of
    /// `machine`, and how to measure it.
    pub fn not_in_run(chapter: &str, machine: &str, what: &str) -> Block {
        Block::Text(format!(
            "{what} on {machine}: not in this run: re-measure with scripts/fresh {chapter}."
        ))
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Align {
    Left,
    Right,
}

#[derive(Clone, Debug, Default)]
pub struct Table {
    pub caption: String,
    pub header: Vec<String>,
    /// Per column; missing entries are right-aligned (numbers).
    pub align: Vec<Align>,
    pub rows: Vec<Vec<Cell>>,
    /// The table states settings (a profile's sample counts, a list of
    /// sizes), not measurements: its words may hold numbers with units.
    pub settings: bool,
}

/// One cell of a table. Numbers stay numbers until the last step: the page
/// shows them in the book's notation, the CSV download as raw values with
/// their interval and unit in columns of their own.
#[derive(Clone, Debug, PartialEq)]
pub enum Cell {
    /// Words (markdown allowed): the chapter's own, or names from a results
    /// file, which are validated on load and carry no markup.
    Text(String),
    /// A number in a unit.
    Number(f64, Unit),
    /// An estimate with its 95 % interval.
    Estimate(Estimate, Unit),
}

impl Cell {
    pub fn nanos(ns: f64) -> Cell {
        Cell::Number(ns, Unit::Nanos)
    }

    pub fn ratio(r: f64) -> Cell {
        Cell::Number(r, Unit::Ratio)
    }

    pub fn bytes(n: u64) -> Cell {
        Cell::Number(n as f64, Unit::Bytes)
    }

    /// A size in binary units (`1 KiB`), exact bytes in the CSV.
    pub fn size(n: u64) -> Cell {
        Cell::Number(n as f64, Unit::Size)
    }

    pub fn count(n: u64) -> Cell {
        Cell::Number(n as f64, Unit::Plain)
    }

    /// A timing's estimate, in nanoseconds.
    pub fn time(e: &Estimate) -> Cell {
        Cell::Estimate(*e, Unit::Nanos)
    }

    /// A ratio's estimate.
    pub fn times(e: &Estimate) -> Cell {
        Cell::Estimate(*e, Unit::Ratio)
    }

    /// The cell as it reads on the page (markdown).
    pub fn markdown(&self) -> String {
        match self {
            Cell::Text(s) => s.clone(),
            Cell::Number(v, unit) => match unit {
                // Counts read best with separators, exactly; a mean count of
                // a thousand or more is rounded to a whole one, so a column
                // never mixes "16,245" with "31660".
                Unit::Plain if (v.fract() == 0.0 || v.abs() >= 1000.0) && v.abs() < 1e15 => {
                    let n = harness_core::fmt::thousands(v.abs().round() as u64);
                    if *v < 0.0 {
                        format!("-{n}")
                    } else {
                        n
                    }
                }
                _ => unit.show(*v),
            },
            Cell::Estimate(e, unit) => e.show(*unit),
        }
    }
}

impl From<String> for Cell {
    fn from(s: String) -> Cell {
        Cell::Text(s)
    }
}

impl From<&str> for Cell {
    fn from(s: &str) -> Cell {
        Cell::Text(s.to_string())
    }
}

impl Table {
    pub fn new(caption: impl Into<String>, header: &[&str]) -> Self {
        let mut align = vec![Align::Right; header.len()];
        if let Some(first) = align.first_mut() {
            *first = Align::Left;
        }
        Table {
            caption: caption.into(),
            header: header.iter().map(|s| s.to_string()).collect(),
            align,
            rows: Vec::new(),
            settings: false,
        }
    }

    /// Marks the table as one of settings (see `settings`).
    pub fn settings(mut self) -> Self {
        self.settings = true;
        self
    }

    /// A text cell that reads like a measurement (`211 µs`, `2.31×`,
    /// `± 2.0 %`, `[1.2 – 1.4]`) in a table of measurements: its number
    /// would reach the CSV as text. Returns `(row, column, text)`.
    pub fn formatted_measurement(&self) -> Option<(usize, usize, String)> {
        if self.settings {
            return None;
        }
        for (r, row) in self.rows.iter().enumerate() {
            for (c, cell) in row.iter().enumerate() {
                if let Cell::Text(t) = cell {
                    if looks_measured(t) {
                        return Some((r, c, t.clone()));
                    }
                }
            }
        }
        None
    }

    pub fn left(mut self, columns: &[usize]) -> Self {
        for &c in columns {
            self.align[c] = Align::Left;
        }
        self
    }

    pub fn push<C: Into<Cell>>(&mut self, row: Vec<C>) {
        let row: Vec<Cell> = row.into_iter().map(Into::into).collect();
        assert_eq!(
            row.len(),
            self.header.len(),
            "row width differs from header"
        );
        self.rows.push(row);
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scale {
    Linear,
    Log,
}

#[derive(Clone, Debug)]
pub struct Axis {
    pub label: String,
    pub scale: Scale,
}

impl Axis {
    pub fn log(label: impl Into<String>) -> Self {
        Axis {
            label: label.into(),
            scale: Scale::Log,
        }
    }

    pub fn linear(label: impl Into<String>) -> Self {
        Axis {
            label: label.into(),
            scale: Scale::Linear,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Point {
    pub x: f64,
    pub y: f64,
    /// Optional spread (confidence interval or percentile band) around y.
    pub band: Option<(f64, f64)>,
}

impl Point {
    pub fn new(x: f64, y: f64) -> Self {
        Point { x, y, band: None }
    }

    pub fn with_band(x: f64, y: f64, lo: f64, hi: f64) -> Self {
        Point {
            x,
            y,
            band: Some((lo, hi)),
        }
    }
}

#[derive(Clone, Debug)]
pub struct Series {
    pub label: String,
    pub points: Vec<Point>,
    /// Published reference numbers: drawn dashed, labelled as such.
    pub published: bool,
    /// Draw in the colour of the series with this label (a published row
    /// beside the measured design it claims to measure).
    pub coloured_like: Option<String>,
}

impl Series {
    pub fn measured(label: impl Into<String>, points: Vec<Point>) -> Self {
        Series {
            label: label.into(),
            points,
            published: false,
            coloured_like: None,
        }
    }

    pub fn published(label: impl Into<String>, points: Vec<Point>) -> Self {
        Series {
            label: label.into(),
            points,
            published: true,
            coloured_like: None,
        }
    }

    /// Shares the colour of the series labelled `label`.
    pub fn coloured_like(mut self, label: impl Into<String>) -> Self {
        self.coloured_like = Some(label.into());
        self
    }
}

#[derive(Clone, Debug)]
pub struct Figure {
    /// Short id, unique on its page (used for the element id).
    pub id: String,
    pub title: String,
    pub caption: String,
    pub x: Axis,
    pub y: Axis,
    pub series: Vec<Series>,
    /// A dashed line across the plot at this y, in the text's colour (a
    /// ratio's 1, where two designs take the same time).
    pub line_at: Option<f64>,
}

#[derive(Clone, Debug)]
pub struct Bar {
    pub label: String,
    pub value: f64,
    /// Bars of one group share a colour (e.g. one per channel type).
    pub group: String,
}

#[derive(Clone, Debug)]
pub struct BarChart {
    pub id: String,
    pub title: String,
    pub caption: String,
    pub value_axis: Axis,
    pub bars: Vec<Bar>,
}

/// One piece of advice: in this situation, reach for this, for this reason,
/// with the measured evidence (a number, the machine it was measured on)
/// and the claim whose verdict backs it. The summary list at the end of a
/// chapter and the rows of the What to use page are made of these.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Advice {
    /// Filled in by the harness from the page it came from.
    #[serde(default)]
    pub chapter: String,
    pub situation: String,
    pub reach_for: String,
    /// Why, in one line.
    pub why: String,
    /// The measured number behind it, printed from the results.
    pub evidence: String,
    /// `machine_class` of the run the number comes from.
    pub machine: String,
    /// The claim whose verdict the row links to, when one backs it.
    pub claim: Option<String>,
}

/// Whether words read like a formatted measurement: a number followed by a
/// unit (`211 µs`, `2.31×`, `12 %`, `8 KiB`), a `±`, or an interval in
/// brackets (`[1.2 – 1.4]`).
pub fn looks_measured(cell: &str) -> bool {
    let t = cell.trim();
    let digits_then_unit = t
        .char_indices()
        .find(|(_, c)| !(c.is_ascii_digit() || ".,-+ ".contains(*c)))
        .is_some_and(|(i, _)| {
            i > 0
                && t[..i].chars().any(|c| c.is_ascii_digit())
                && UNITS.iter().any(|u| {
                    let rest = t[i..].trim_start();
                    rest.strip_prefix(u)
                        .is_some_and(|after| !after.starts_with(|c: char| c.is_alphabetic()))
                })
        });
    digits_then_unit || t.contains('±') || (t.contains(" – ") && t.contains('['))
}

const UNITS: [&str; 12] = [
    "ns", "µs", "ms", "s", "B", "KiB", "MiB", "GiB", "×", "%", "k/s", "M/s",
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_column_of_counts_reads_alike_whole_or_mean() {
        let cells = [
            Cell::Number(16_245.0, Unit::Plain),
            Cell::Number(31_659.7, Unit::Plain),
            Cell::count(800),
            Cell::Number(12.5, Unit::Plain),
        ];
        let shown: Vec<String> = cells.iter().map(Cell::markdown).collect();
        assert_eq!(shown[0], "16,245");
        assert_eq!(shown[1], "31,660");
        assert_eq!(shown[2], "800");
        assert!(!shown[3].contains(','), "{}", shown[3]);
    }
}
