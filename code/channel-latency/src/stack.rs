//! Where on the stack a burst runs.
//!
//! A by-value payload is built on the stack and copied into the channel's
//! heap buffer, and back out again. How far apart those two addresses are
//! within a 4 KiB page decides whether the CPU mistakes a load for one that
//! depends on an earlier store (4K aliasing), and Linux starts each process's
//! stack at a random offset within its page. So every process measures its
//! own layout: on the machine the book was measured on, the same point of a
//! 64 B or 256 B payload read steadily at one speed within a run and at
//! another in the next run.
//!
//! The sweep therefore runs each burst at a different stack offset, stepping
//! through every 64-byte line of a page, and every sample averages over the
//! layouts instead of landing on one. The offsets come from padding frames of
//! fixed sizes, one per step, so the steps are exact and cost no copying.
use std::hint::black_box;
use std::mem::MaybeUninit;

/// Bytes between neighbouring offsets: one cache line.
pub const STEP_BYTES: usize = 64;
/// Offsets a burst can run at: every line of a 4 KiB page.
pub const STEPS: usize = 4096 / STEP_BYTES;
/// Consecutive bursts move this many steps on (odd, so every step comes up
/// once in `STEPS` bursts, and neighbours in time sit far apart in the page).
const STRIDE: usize = 23;

// ANCHOR: shifted
/// Calls `f` below an unused frame of `PAD` bytes. Step 0 pads too, so
/// every frame has the same shape and only its size differs.
#[inline(never)]
fn padded<const PAD: usize>(f: &mut dyn FnMut()) {
    let pad = MaybeUninit::<[u8; PAD]>::uninit();
    black_box(&pad);
    f();
    // Used again after the call, so the frame cannot be released early.
    black_box(&pad);
}

/// Runs `f` with the stack `step(turn) * STEP_BYTES` bytes deeper than at
/// step 0, where `turn` counts the caller's bursts.
pub fn shifted<R>(turn: u64, f: impl FnOnce() -> R) -> R {
    let mut f = Some(f);
    let mut out = None;
    FRAMES[step(turn)](&mut || out = f.take().map(|f| f()));
    out.expect("the frame calls its closure once")
}

/// The offset step of burst number `turn`.
pub fn step(turn: u64) -> usize {
    (turn as usize % STEPS) * STRIDE % STEPS
}
// ANCHOR_END: shifted

type Frame = fn(&mut dyn FnMut());

macro_rules! frames {
    ($($step:literal)*) => { [$(padded::<{ ($step + 1) * STEP_BYTES }> as Frame),*] };
}

/// One padding frame per step: frame `k` pads `(k + 1) * STEP_BYTES` bytes.
static FRAMES: [Frame; STEPS] = frames!(
    0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29 30 31
    32 33 34 35 36 37 38 39 40 41 42 43 44 45 46 47 48 49 50 51 52 53 54 55 56 57 58 59 60 61
    62 63
);

#[cfg(test)]
mod tests {
    use super::*;

    fn local_address(turn: u64) -> usize {
        shifted(turn, || {
            let here = 0u8;
            black_box(&here) as *const u8 as usize
        })
    }

    #[test]
    fn every_line_of_a_page_comes_up_once_in_a_cycle() {
        let mut steps: Vec<usize> = (0..STEPS as u64).map(step).collect();
        steps.sort_unstable();
        assert_eq!(steps, (0..STEPS).collect::<Vec<_>>());
        assert_eq!(step(STEPS as u64), step(0), "the cycle repeats");
    }

    #[test]
    fn each_step_moves_the_stack_by_its_padding() {
        let base = local_address(0);
        for turn in 0..STEPS as u64 {
            let depth = base - local_address(turn);
            assert_eq!(
                depth,
                step(turn) * STEP_BYTES,
                "burst {turn} should run {} bytes deeper",
                step(turn) * STEP_BYTES
            );
        }
    }

    #[test]
    fn the_closure_runs_once_and_its_value_comes_back() {
        let mut calls = 0;
        let v = shifted(5, || {
            calls += 1;
            calls * 7
        });
        assert_eq!((calls, v), (1, 7));
    }
}
