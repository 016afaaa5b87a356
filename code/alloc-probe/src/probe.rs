//! Counting live heap bytes around a channel's life with dhat.
use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicBool, Ordering};

use anyhow::{bail, ensure, Result};
use serde::{Deserialize, Serialize};

/// The chapter binary's allocator: dhat's, which counts live bytes while a
/// `dhat::Profiler` runs (and takes a lock on every call even when none
/// does), or the system's alone once [`allocate_plainly`] was called.
pub struct Alloc;

static PLAINLY: AtomicBool = AtomicBool::new(false);

/// From now on, allocate through the system's allocator alone: while
/// callgrind counts a channel's creation, dhat's bookkeeping would add its
/// own instructions to every allocation. Call it only where no dhat profiler
/// runs (the `count` subcommand): blocks dhat recorded and the system then
/// frees would stay live in dhat's counts.
pub fn allocate_plainly() {
    PLAINLY.store(true, Ordering::Relaxed);
}

// Both allocate with the system's allocator, so a block either one allocated
// may be freed by the other.
unsafe impl GlobalAlloc for Alloc {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        if PLAINLY.load(Ordering::Relaxed) {
            unsafe { System.alloc(layout) }
        } else {
            unsafe { dhat::Alloc.alloc(layout) }
        }
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        if PLAINLY.load(Ordering::Relaxed) {
            unsafe { System.alloc_zeroed(layout) }
        } else {
            unsafe { dhat::Alloc.alloc_zeroed(layout) }
        }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        if PLAINLY.load(Ordering::Relaxed) {
            unsafe { System.realloc(ptr, layout, new_size) }
        } else {
            unsafe { dhat::Alloc.realloc(ptr, layout, new_size) }
        }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        if PLAINLY.load(Ordering::Relaxed) {
            unsafe { System.dealloc(ptr, layout) }
        } else {
            unsafe { dhat::Alloc.dealloc(ptr, layout) }
        }
    }
}

/// A message that carries its sequence number, so the drain can check that
/// every message came back once and in order.
pub trait Payload: Send + 'static {
    fn with_seq(seq: u64) -> Self;
    fn seq(&self) -> u64;
}

impl<const N: usize> Payload for [u8; N] {
    fn with_seq(seq: u64) -> Self {
        let mut m = [0u8; N];
        let bytes = seq.to_le_bytes();
        let n = N.min(8);
        m[..n].copy_from_slice(&bytes[..n]);
        m
    }

    fn seq(&self) -> u64 {
        let mut bytes = [0u8; 8];
        let n = N.min(8);
        bytes[..n].copy_from_slice(&self[..n]);
        u64::from_le_bytes(bytes)
    }
}

impl<const N: usize> Payload for Box<[u8; N]> {
    fn with_seq(seq: u64) -> Self {
        Box::new(<[u8; N]>::with_seq(seq))
    }

    fn seq(&self) -> u64 {
        (**self).seq()
    }
}

/// Live heap bytes a channel holds at each stage of its life, relative to
/// the heap just before it was created.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Footprint {
    pub created: u64,
    /// With 32 and 33 messages queued (only when the capacity allows 33).
    pub after_32: Option<u64>,
    pub after_33: Option<u64>,
    /// With `capacity` messages queued.
    pub full: u64,
    /// After receiving every message, the channel still alive.
    pub drained: u64,
    pub messages: u64,
}

/// Live bytes on the heap now. Needs dhat as the global allocator and a live
/// `dhat::Profiler` (the chapter binary and its tests set both up).
pub fn live_bytes() -> u64 {
    dhat::HeapStats::get().curr_bytes as u64
}

/// Follows one channel from creation to drop. Every channel module drives it
/// the same way, so every channel is measured at the same points.
pub struct HeapProbe {
    base: u64,
    created: u64,
    after_32: Option<u64>,
    after_33: Option<u64>,
    full: u64,
    sent: u64,
    drained: u64,
}

impl HeapProbe {
    pub fn start() -> Self {
        HeapProbe {
            base: live_bytes(),
            created: 0,
            after_32: None,
            after_33: None,
            full: 0,
            sent: 0,
            drained: 0,
        }
    }

    fn now(&self) -> u64 {
        live_bytes().saturating_sub(self.base)
    }

    pub fn created(&mut self) {
        self.created = self.now();
    }

    /// Queues `count` messages with `send`, which reports whether the channel
    /// took the message. A refusal before `count` is a failed run.
    pub fn fill<T: Payload>(
        &mut self,
        count: usize,
        mut send: impl FnMut(T) -> bool,
    ) -> Result<()> {
        for seq in 0..count as u64 {
            if !send(T::with_seq(seq)) {
                bail!("the channel refused message {} of {count}", seq + 1);
            }
            self.sent += 1;
            match self.sent {
                32 if count >= 33 => self.after_32 = Some(self.now()),
                33 => self.after_33 = Some(self.now()),
                _ => {}
            }
        }
        self.full = self.now();
        Ok(())
    }

    /// Receives until `recv` finds the channel empty, checking every message
    /// arrives once, in order.
    pub fn drain<T: Payload>(&mut self, mut recv: impl FnMut() -> Option<T>) -> Result<()> {
        let mut expected = 0;
        while let Some(message) = recv() {
            ensure!(
                message.seq() == expected,
                "received message {} where {expected} was due",
                message.seq()
            );
            expected += 1;
        }
        ensure!(
            expected == self.sent,
            "received {expected} of {} messages",
            self.sent
        );
        self.drained = self.now();
        Ok(())
    }

    /// Call after dropping both ends: everything the channel held must be freed.
    pub fn dropped(self) -> Result<Footprint> {
        let left = self.now();
        ensure!(
            left == 0,
            "{left} bytes still live after the channel was dropped"
        );
        ensure!(
            self.created > 0,
            "creating a channel allocated nothing: is dhat the global allocator with a live profiler?"
        );
        Ok(Footprint {
            created: self.created,
            after_32: self.after_32,
            after_33: self.after_33,
            full: self.full,
            drained: self.drained,
            messages: self.sent,
        })
    }
}
