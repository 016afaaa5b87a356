//! Creation bytes fitted against message size: how many message slots a
//! channel allocates before the first send, and what the rest costs.
use anyhow::{anyhow, Result};

use harness_core::fmt::bytes;
use harness_core::Unit;
use harness_page::{render::blocks::Block, render::blocks::Cell, render::blocks::Table, Book, Run};

use super::{bytes_between, machine_caption, point_name, AllocData};
use alloc_probe::{creation_fit, Channel, SWEEP_CAPACITY};

pub(super) fn render(book: &Book<AllocData>) -> Result<Vec<Block>> {
    let mut blocks = Vec::new();
    for run in &book.runs {
        blocks.push(Block::Text(tokio_text(run)?));
        blocks.push(Block::Table(table(run)));
    }
    Ok(blocks)
}

fn table(run: &Run<AllocData>) -> Table {
    // `size_of::<T>()` stays in a code span: bare, markdown would take `<T>` for a tag.
    let mut t = Table::new(
        format!(
            "Creation bytes fitted as a × `size_of::<T>()` + b over message sizes of the sweep at capacity {}, on {}.",
            SWEEP_CAPACITY,
            machine_caption(run)
        ),
        &["channel", "a: message slots at creation", "b: fixed bytes", "largest miss"],
    );
    for channel in Channel::ALL {
        let f = creation_fit(&run.data.sweep, channel);
        t.push(vec![
            Cell::from(channel.label()),
            Cell::Number(f.slope, Unit::Plain),
            Cell::Number(f.intercept, Unit::Bytes),
            Cell::Number(f.max_residual, Unit::Bytes),
        ]);
    }
    t
}

/// tokio's fit in words, and what its blocks cost once the first is full.
fn tokio_text(run: &Run<AllocData>) -> Result<String> {
    let tokio = creation_fit(&run.data.sweep, Channel::TokioBounded);
    let mut text = format!(
        "On {}, a tokio channel is born holding **{} × `size_of::<T>()` + {} bytes** (largest miss {}): \
         the first block has room for {} messages whatever the capacity, and the rest is the shared state.",
        machine_caption(run),
        tokio.slope.round(),
        tokio.intercept.round(),
        bytes(tokio.max_residual.round() as u64),
        tokio.slope.round()
    );
    // Block size and blocks kept after a drain, from the capacity-1024 runs.
    let slots = tokio.slope.round() as u64;
    let grown = run.data.grid.iter().find(|p| {
        p.channel == Channel::TokioBounded && p.capacity == 1024 && p.footprint.after_33.is_some()
    });
    if let Some(p) = grown {
        let f = &p.footprint;
        let after_33 = f.after_33.unwrap_or(f.created);
        let block = bytes_between(p, ("33 queued", after_33), ("created", f.created))?;
        if block > 0 {
            let message_slots = slots * p.msg_size as u64;
            let bookkeeping = block.checked_sub(message_slots).ok_or_else(|| {
                anyhow!(
                    "{}: a block ({}) is smaller than its {slots} message slots ({})",
                    point_name(p),
                    bytes(block),
                    bytes(message_slots)
                )
            })?;
            let kept = bytes_between(p, ("drained", f.drained), ("created", f.created))? / block;
            text.push_str(&format!(
                " Each further block of `[u8; {}]` costs {} (its slots plus {} of bookkeeping). \
                 Filled to {} and drained, the channel keeps {} spare blocks for reuse and frees the rest.",
                p.msg_size,
                bytes(block),
                bytes(bookkeeping),
                p.capacity,
                kept
            ));
        }
    }
    Ok(text)
}
