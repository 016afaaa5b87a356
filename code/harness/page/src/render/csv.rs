//! Tables as CSV downloads, written with the `csv` crate. A column that holds
//! numbers gets them raw (nanoseconds, bytes, plain ratios), with a unit
//! column beside it and, for estimates, the interval's bounds in columns of
//! their own, so a spreadsheet or pandas reads numbers, not display strings.
use anyhow::Result;

use super::blocks::{Cell, Table};
use harness_core::values::Unit;

/// How one column of the table is written.
#[derive(Clone, Copy, PartialEq)]
enum Column {
    Text,
    Number(Unit),
    Estimate(Unit),
}

fn column_of(t: &Table, c: usize) -> Column {
    let mut kind = Column::Text;
    for row in &t.rows {
        match &row[c] {
            Cell::Estimate(_, u) => return Column::Estimate(*u),
            Cell::Number(_, u) => kind = Column::Number(*u),
            Cell::Text(_) => {}
        }
    }
    kind
}

/// Markdown emphasis and code marks left out of a text cell.
fn plain(s: &str) -> String {
    s.replace("**", "").replace('`', "")
}

/// A text cell in a number column: its words, or nothing for a dash.
fn words(c: &Cell) -> String {
    let text = plain(&c.markdown());
    match text.trim() {
        "—" | "–" | "-" | "" => String::new(),
        t => t.to_string(),
    }
}

/// The table as CSV (RFC 4180).
pub fn table(t: &Table) -> Result<String> {
    let columns: Vec<Column> = (0..t.header.len()).map(|c| column_of(t, c)).collect();
    let mut w = csv::Writer::from_writer(Vec::new());
    let mut header = Vec::new();
    for (name, col) in t.header.iter().zip(&columns) {
        let name = plain(name);
        match col {
            Column::Text => header.push(name),
            Column::Number(_) => {
                header.push(name.clone());
                header.push(format!("{name} unit"));
            }
            Column::Estimate(_) => {
                header.push(name.clone());
                header.push(format!("{name} low"));
                header.push(format!("{name} high"));
                header.push(format!("{name} unit"));
            }
        }
    }
    w.write_record(&header)?;
    for row in &t.rows {
        let mut out = Vec::new();
        for (cell, col) in row.iter().zip(&columns) {
            match (col, cell) {
                (Column::Text, c) => out.push(plain(&c.markdown())),
                (Column::Number(u), Cell::Number(v, _)) => {
                    out.push(v.to_string());
                    out.push(u.csv_name().to_string());
                }
                (Column::Estimate(u), Cell::Estimate(e, _)) => {
                    out.push(e.point_ns.to_string());
                    out.push(e.lower_ns.to_string());
                    out.push(e.upper_ns.to_string());
                    out.push(u.csv_name().to_string());
                }
                (Column::Estimate(u), Cell::Number(v, _)) => {
                    out.extend([v.to_string(), String::new(), String::new()]);
                    out.push(u.csv_name().to_string());
                }
                // A number column's words ("baseline") stay; a dash for
                // "none" is left empty, as a spreadsheet expects.
                (Column::Number(_), c) => out.extend([words(c), String::new()]),
                (Column::Estimate(_), c) => {
                    out.push(words(c));
                    out.extend(std::iter::repeat_n(String::new(), 3));
                }
            }
        }
        w.write_record(&out)?;
    }
    Ok(String::from_utf8(w.into_inner()?)?)
}

#[cfg(test)]
mod tests {
    use super::*;
    use harness_core::values::Estimate;

    #[test]
    fn numbers_are_numbers_with_their_interval_and_unit() {
        let mut t = Table::new("c", &["design", "time", "bytes"]);
        t.push(vec![
            Cell::from("**tokio**, \"quoted\""),
            Cell::time(&Estimate::new(1500.0, 1400.0, 1600.0).unwrap()),
            Cell::bytes(33_312),
        ]);
        t.push(vec![Cell::from("std"), Cell::from("—"), Cell::bytes(8)]);
        t.push(vec![
            Cell::from("kanal"),
            Cell::from("baseline"),
            Cell::bytes(8),
        ]);
        let text = table(&t).unwrap();
        let mut r = csv::Reader::from_reader(text.as_bytes());
        let header: Vec<String> = r.headers().unwrap().iter().map(String::from).collect();
        assert_eq!(
            header,
            [
                "design",
                "time",
                "time low",
                "time high",
                "time unit",
                "bytes",
                "bytes unit"
            ]
        );
        let rows: Vec<csv::StringRecord> = r.records().map(|r| r.unwrap()).collect();
        assert_eq!(&rows[0][0], "tokio, \"quoted\"");
        assert_eq!(rows[0][1].parse::<f64>().unwrap(), 1500.0);
        assert_eq!(rows[0][2].parse::<f64>().unwrap(), 1400.0);
        assert_eq!(&rows[0][4], "ns");
        assert_eq!(rows[0][5].parse::<f64>().unwrap(), 33312.0);
        assert_eq!(&rows[1][1], "");
        assert_eq!(&rows[2][1], "baseline");
    }
}
