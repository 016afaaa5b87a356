//! How much a burst's time depends on where the stack sits, read from the
//! fair head-to-head timing: each window times one burst of each channel at
//! every stack offset (`stack::shifted`), so the bursts at one offset over
//! all windows say what a measurement stuck at that offset would have found.
use anyhow::Result;
use harness_measure::timing::Timing;
use harness_page::{render::blocks::Block, render::blocks::Cell, render::blocks::Table, Book};

use super::{machine_of, Data};
use channel_latency::stack::{self, STEPS};
use channel_latency::PAYLOAD_SIZES;

/// The median time per burst at each stack step, over all windows.
fn per_offset(t: &Timing) -> Vec<f64> {
    let mut at: Vec<Vec<f64>> = vec![Vec::new(); STEPS];
    let mut start = 0;
    for &len in &t.repeats {
        for (pair, &ns) in t.per_sample_ns[start..start + len].iter().enumerate() {
            at[stack::step(pair as u64)].push(ns);
        }
        start += len;
    }
    at.into_iter()
        .filter(|v| !v.is_empty())
        .map(|mut v| harness_measure::stats::Statistic::Median.of(&mut v))
        .collect()
}

fn spread(xs: &[f64]) -> (f64, f64) {
    let lo = xs.iter().copied().fold(f64::INFINITY, f64::min);
    let hi = xs.iter().copied().fold(0.0, f64::max);
    (lo, hi)
}

pub(super) fn table(book: &Book<Data>) -> Result<Vec<Block>> {
    let run = book.primary();
    let d = &run.data;
    let mut t = Table::new(
        format!(
            "Time per burst of [u8; N] by stack offset on {}, from the head-to-head timing: for each of the {STEPS} offsets, the median over all windows of the bursts run there; the fastest and slowest offset of each channel, and the range of tokio/crossbeam over the offsets. A measurement that runs every burst at one offset lands somewhere in that range; the fair ratio averages over it.",
            machine_of(run)
        ),
        &[
            "payload",
            "tokio, fastest offset",
            "tokio, slowest offset",
            "crossbeam, fastest offset",
            "crossbeam, slowest offset",
            "tokio/crossbeam, lowest offset",
            "tokio/crossbeam, highest offset",
        ],
    );
    for bytes in PAYLOAD_SIZES {
        let h = d.head_to_head(bytes)?;
        let (tokio, crossbeam) = (per_offset(&h.tokio), per_offset(&h.crossbeam));
        let ratios: Vec<f64> = tokio.iter().zip(&crossbeam).map(|(a, b)| a / b).collect();
        let ((t_lo, t_hi), (c_lo, c_hi), (r_lo, r_hi)) =
            (spread(&tokio), spread(&crossbeam), spread(&ratios));
        t.push(vec![
            Cell::size(bytes as u64),
            Cell::nanos(t_lo),
            Cell::nanos(t_hi),
            Cell::nanos(c_lo),
            Cell::nanos(c_hi),
            Cell::ratio(r_lo),
            Cell::ratio(r_hi),
        ]);
    }
    Ok(vec![Block::Table(t)])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bursts_are_grouped_by_the_offset_they_ran_at() {
        // Two windows of STEPS bursts; burst `pair` of each runs at step(pair).
        let window = |base: f64| -> Vec<f64> {
            (0..STEPS as u64)
                .map(|pair| base + stack::step(pair) as f64)
                .collect()
        };
        let t = Timing::pooled(vec![
            Timing::of_samples(window(100.0)).unwrap(),
            Timing::of_samples(window(300.0)).unwrap(),
        ])
        .unwrap();
        let medians = per_offset(&t);
        assert_eq!(medians.len(), STEPS);
        for (step, m) in medians.iter().enumerate() {
            assert_eq!(*m, 200.0 + step as f64, "offset {step}");
        }
        assert_eq!(spread(&medians), (200.0, 200.0 + (STEPS - 1) as f64));
    }
}
