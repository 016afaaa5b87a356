//! Where the CPU time of a burst goes: sampled profiles of tokio's and
//! crossbeam's bursts at the smallest and the largest payload, drawn as
//! flame graphs, with the share of samples in each frame group.
use anyhow::Result;
use harness_core::Unit;
use harness_page::render::flame;
use harness_page::{render::blocks::Block, render::blocks::Cell, render::blocks::Table, Book};

use super::{machine_of, size_label, BurstProfile, Data};

pub(super) fn render(book: &Book<Data>) -> Result<Vec<Block>> {
    let run = book.primary();
    let d = &run.data;
    if d.profiles.is_empty() {
        return Ok(vec![Block::not_in_run(
            "channel-latency",
            &machine_of(run),
            "CPU profiles",
        )]);
    }
    let mut out = Vec::new();
    for bytes in [8, 32768] {
        let at: Vec<&BurstProfile> = d.profiles.iter().filter(|p| p.bytes == bytes).collect();
        if at.is_empty() {
            continue;
        }
        let stacks: Vec<&harness_measure::stacks::Stacks> = at.iter().map(|p| &p.stacks).collect();
        out.extend(flame::exhibit(
            &stacks,
            &format!(
                "CPU profiles on {} of bursts of [u8; N] at {}, run back to back: tokio mpsc in one task on a current-thread runtime, one block_on per burst (top), and crossbeam-channel on the calling thread (bottom), sampled at up to {} samples per second of CPU time. A frame's width is its share of the profile's samples, its colour its frame group; hover a frame for its full name.",
                machine_of(run),
                size_label(bytes),
                at[0].stacks.hz
            ),
        )?);
    }
    let mut header = vec!["profile".to_string(), "bursts".to_string()];
    header.extend(flame::GROUPS.iter().map(|g| g.to_string()));
    let header: Vec<&str> = header.iter().map(String::as_str).collect();
    let mut t = Table::new(
        format!(
            "Share of each profile's samples by frame group on {}.",
            machine_of(run)
        ),
        &header,
    )
    .left(&[0]);
    for p in &d.profiles {
        let mut cells = vec![Cell::Text(p.stacks.design.clone()), Cell::count(p.bursts)];
        let groups = flame::groups(&p.stacks);
        for g in flame::GROUPS {
            let share = groups
                .iter()
                .find(|(n, _)| *n == g)
                .map_or(0.0, |(_, s)| *s);
            cells.push(Cell::Number(share, Unit::Share));
        }
        t.push(cells);
    }
    out.push(Block::Table(t));
    Ok(out)
}
