//! Where the CPU time goes: a sampling profile of the whole process while
//! one piece of work runs, kept with the results as folded call stacks and
//! drawn at render time as a flame graph (`render::flame`).
//!
//! The sampler is [pprof](https://docs.rs/pprof): `setitimer(ITIMER_PROF)`
//! sends `SIGPROF` each time the process has used another 1/[`HZ`] s of CPU,
//! on whichever thread used it, and the handler unwinds that thread's stack.
//! It needs no kernel support beyond that timer (no `perf_event_open`), so
//! it runs on any Linux machine, virtual ones included. It counts CPU time
//! only: a thread asleep in the kernel (a parked consumer, a producer
//! waiting on a futex) is not sampled until it runs again. The kernel
//! checks the timer at its scheduler tick, so a profile gets at most one
//! sample per tick and busy core (250 a second per core on a kernel built
//! with `HZ=250`, whatever [`HZ`] asks), and a thread that runs without
//! pause is sampled somewhat more often per second of CPU than one that runs
//! in short bursts. Compare frames within a thread freely; compare threads
//! with a CPU clock beside the profile.
//!
//! Stacks are folded as Rust prints a short backtrace: the thread's name,
//! then the frames from the thread's entry point in, without the start-up
//! below `__rust_begin_short_backtrace`, the sampler's own frames, or the
//! frames that only hand control on (`PASS_THROUGH`, and a closure called by
//! its own function). Frames are named by the debug info, inlined ones
//! included, which is why the workspace builds release code with
//! `debug = "limited"`: line tables alone name inlined functions without
//! their paths.
//!
//! # Recording and showing a profile (for contributors)
//!
//! While measuring, wrap the work in [`record`] and keep the [`Stacks`] in
//! a field of the chapter's data:
//!
//! ```ignore
//! let (passes, stacks) = harness_measure::stacks::record(lab, "std-mutex-swap", || {
//!     run_bursts(Design::StdMutexSwap, Wait::Notify, 64, 1 << 14, 20)
//! })?;
//! ```
//!
//! The work must check itself as any timed routine does, and run a few
//! hundred milliseconds of CPU time (a few hundred samples): less draws a
//! graph of noise, more costs run time and file size for nothing. Record
//! outside any criterion timing: the sampling slows what it samples by a
//! few percent. Call [`Stacks::check`] from the chapter's `check`. On the
//! page, `harness_page::render::flame::exhibit(&[&a, &b], caption)` draws the
//! profiles one above the other with a table of the share of samples per
//! frame group (`render::flame::groups`).
use std::collections::BTreeMap;
use std::sync::Mutex;

use anyhow::{anyhow, ensure, Context, Result};
use serde::{Deserialize, Serialize};

use crate::lab::Lab;

/// Samples asked for per second of CPU time (the kernel may deliver fewer,
/// see above). A prime near 1 kHz, so that sampling does not fall into step
/// with work that repeats every millisecond.
pub const HZ: u32 = 997;

/// Shared objects in which a sample is dropped rather than unwound. pprof
/// suggests `libc`, `libgcc`, `pthread` and `vdso`: unwinding from inside
/// the unwinder (libgcc) or the dynamic loader can deadlock on their locks,
/// and some distributions ship the vdso with wrong unwind tables. `libc` is
/// left out on purpose: a sample taken in libc is one in `memcpy`, `malloc`,
/// a futex or a `write` call, four of the frame groups the book's tables
/// count, and dropping them would hide exactly those costs. Unwinding from
/// libc is safe here because the handler neither allocates nor takes a lock
/// that libc code could hold, and glibc 2.35 and later give the unwinder a
/// lock-free way (`_dl_find_object`) to find unwind tables.
const BLOCKLIST: &[&str] = &["libgcc", "ld-linux", "ld-musl", "vdso"];

/// Frames that belong to the sampler itself, innermost in every raw stack.
const SAMPLER_FRAMES: &[&str] = &["backtrace::", "pprof::", "<pprof::", "_Unwind_"];

/// Where Rust's own backtraces start: frames below it are the thread's or
/// the process's start-up, the same in every stack.
const SHORT_BACKTRACE: &str = "__rust_begin_short_backtrace";

/// Frames that only hand control on, named without their generics: panic
/// catching around every task poll, closure-call shims, thread-local and
/// cell accessors, tokio's scoped context. They add depth and no cost of
/// their own worth seeing, so folding leaves them out (see `fold`).
const PASS_THROUGH: &[&str] = &[
    "std::panic::catch_unwind",
    "std::panicking::catch_unwind",
    "std::panicking::try",
    "std::thread::local::LocalKey::with",
    "std::thread::local::LocalKey::try_with",
    "tokio::loom::std::unsafe_cell::UnsafeCell::with",
    "tokio::loom::std::unsafe_cell::UnsafeCell::with_mut",
    "tokio::runtime::context::scoped::Scoped::set",
    "tokio::runtime::context::scoped::Scoped::with",
    "core::ops::function::FnOnce::call_once",
    "core::ops::function::FnMut::call_mut",
    "core::ops::function::Fn::call",
];

/// The call stacks sampled while one design ran.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Stacks {
    /// The design the work ran (a name, as the chapter's data names it).
    pub design: String,
    /// Samples per second of CPU time the profile was taken at.
    pub hz: u32,
    /// Samples kept: the sum of `folded`'s counts.
    pub samples: u64,
    /// Each distinct stack once, sorted by its text.
    pub folded: Vec<Folded>,
}

/// One distinct call stack and how many samples found it.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Folded {
    /// `thread;outermost;...;innermost`: the thread's name, then the frames
    /// from the work's entry point to where the sample landed, demangled,
    /// with no symbol hashes. Frames may hold `<`, `>`, `&` and quotes
    /// (generics, trait impls): escape them wherever they are shown.
    pub stack: String,
    pub count: u64,
}

impl Stacks {
    /// The checks a results file's profile must pass when it is read.
    pub fn check(&self) -> Result<()> {
        let what = format!("the profile of {}", self.design);
        ensure!(!self.design.is_empty(), "a profile names no design");
        ensure!(self.hz > 0, "{what} was sampled at 0 Hz");
        ensure!(!self.folded.is_empty(), "{what} holds no stacks");
        let mut sum = 0u64;
        let mut previous: Option<&str> = None;
        for f in &self.folded {
            ensure!(f.count > 0, "{what}: stack {:?} has no samples", f.stack);
            ensure!(
                !f.stack.is_empty() && f.stack.split(';').all(|frame| !frame.trim().is_empty()),
                "{what}: stack {:?} has an empty frame",
                f.stack
            );
            ensure!(
                !f.stack.chars().any(char::is_control),
                "{what}: stack {:?} holds a control character",
                f.stack
            );
            ensure!(
                previous.is_none_or(|p| p < f.stack.as_str()),
                "{what}: stacks are not sorted, or one is there twice ({:?})",
                f.stack
            );
            previous = Some(&f.stack);
            sum = sum
                .checked_add(f.count)
                .with_context(|| format!("{what}: the counts overflow"))?;
        }
        ensure!(
            sum == self.samples,
            "{what}: its stacks hold {sum} samples, it says {}",
            self.samples
        );
        Ok(())
    }
}

/// One profile at a time: the sampler is the process's, and so is its timer.
static SAMPLER: Mutex<()> = Mutex::new(());

/// Runs `work` while sampling every thread of the process at [`HZ`], and
/// returns its result with the stacks sampled, for `design`. Fails if the
/// work fails, if the sampler cannot start, or if the work used too little
/// CPU time to be sampled even once.
pub fn record<R>(lab: &Lab, design: &str, work: impl FnOnce() -> Result<R>) -> Result<(R, Stacks)> {
    let _one_at_a_time = SAMPLER.lock().unwrap_or_else(|e| e.into_inner());
    let guard = pprof::ProfilerGuardBuilder::default()
        .frequency(HZ as i32)
        .blocklist(BLOCKLIST)
        .build()
        .map_err(|e| anyhow!("cannot start the sampling profiler: {e}"))?;
    let result = work();
    // Symbols are resolved while the sampler still runs; its handler skips
    // every sample meanwhile (it cannot take the profile's lock).
    let report = guard.report().build();
    drop(guard);
    let result = result?;
    let report = report.map_err(|e| anyhow!("cannot read the sampled stacks: {e}"))?;
    let mut folded: BTreeMap<String, u64> = BTreeMap::new();
    for (frames, count) in &report.data {
        let Ok(count) = u64::try_from(*count) else {
            continue;
        };
        if count == 0 {
            continue;
        }
        // pprof lists frames innermost first; each frame lists the functions
        // inlined into it innermost first too.
        let names: Vec<String> = frames
            .frames
            .iter()
            .flat_map(|symbols| symbols.iter().map(|s| s.name()))
            .collect();
        let stack = fold(&frames.thread_name, names);
        *folded.entry(stack).or_default() += count;
    }
    let stacks = Stacks {
        design: design.to_string(),
        hz: HZ,
        samples: folded.values().sum(),
        folded: folded
            .into_iter()
            .map(|(stack, count)| Folded { stack, count })
            .collect(),
    };
    ensure!(
        stacks.samples > 0,
        "the profile of {design} caught no sample: the work used less than 1/{HZ} s of CPU"
    );
    stacks.check()?;
    lab.progress().note(format_args!(
        "profile of {design}: {} samples, {} distinct stacks",
        stacks.samples,
        stacks.folded.len()
    ));
    Ok((result, stacks))
}

/// One sample's stack as a folded line: the thread, then the frames from
/// the outermost in, without the sampler's own frames (innermost) or the
/// start-up below Rust's short-backtrace marker (outermost).
fn fold(thread: &str, innermost_first: Vec<String>) -> String {
    let mut frames: Vec<String> = innermost_first
        .into_iter()
        .skip_while(|f| SAMPLER_FRAMES.iter().any(|p| f.starts_with(p)))
        .collect();
    frames.reverse();
    if let Some(marker) = frames.iter().position(|f| f.contains(SHORT_BACKTRACE)) {
        frames.drain(..=marker);
    }
    let mut out = frame_text(thread, "[unnamed thread]");
    let mut caller: Option<String> = None;
    for f in &frames {
        let plain = plain_name(f);
        let closure_of_caller = caller.as_deref().is_some_and(|c| {
            plain
                .strip_suffix("::{{closure}}")
                .is_some_and(|p| p.trim_end_matches("::{{closure}}") == c)
        });
        if closure_of_caller || passes_through(f, &plain) {
            continue;
        }
        out.push(';');
        out.push_str(&frame_text(f, "[unknown]"));
        caller = Some(plain.trim_end_matches("::{{closure}}").to_string());
    }
    out
}

/// A frame's name without generic arguments: `LocalKey<T>::with` and
/// `catch_unwind::<R, F>` read `LocalKey::with` and `catch_unwind`.
fn plain_name(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    let mut depth = 0usize;
    for c in name.chars() {
        match c {
            '<' => depth += 1,
            '>' => depth = depth.saturating_sub(1),
            _ if depth == 0 => out.push(c),
            _ => {}
        }
    }
    out.replace("::::", "::").trim_end_matches("::").to_string()
}

/// Whether a frame only hands control on (`PASS_THROUGH`, or a call
/// through one of the `Fn` traits: `<F as FnOnce<()>>::call_once`).
fn passes_through(name: &str, plain: &str) -> bool {
    PASS_THROUGH.iter().any(|p| {
        plain == *p
            || plain
                .strip_prefix(p)
                .is_some_and(|rest| rest.starts_with("::"))
    }) || (name.starts_with('<')
        && name.contains(" as core::ops::function::Fn")
        && ["call_once", "call_mut", "call", "call_once{{vtable.shim}}"]
            .iter()
            .any(|m| plain.ends_with(&format!("::{m}"))))
}

/// A frame as folded text: `;` separates frames, so one inside a name
/// (`[u8; 4]`) becomes `,`; control characters go; pprof's `Unknown` (no
/// symbol) reads `[unknown]`.
fn frame_text(name: &str, unknown: &str) -> String {
    let text: String = name
        .chars()
        .filter(|c| !c.is_control())
        .map(|c| if c == ';' { ',' } else { c })
        .collect();
    let text = text.trim();
    if text.is_empty() || text == "Unknown" {
        unknown.to_string()
    } else {
        text.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stacks(folded: &[(&str, u64)]) -> Stacks {
        Stacks {
            design: "d".into(),
            hz: HZ,
            samples: folded.iter().map(|f| f.1).sum(),
            folded: folded
                .iter()
                .map(|&(stack, count)| Folded {
                    stack: stack.into(),
                    count,
                })
                .collect(),
        }
    }

    #[test]
    fn frames_that_only_hand_control_on_are_left_out() {
        let raw = [
            "app::leaf",
            "tokio::runtime::task::core::Core<T,S>::poll::{{closure}}",
            "tokio::loom::std::unsafe_cell::UnsafeCell<T>::with_mut",
            "tokio::runtime::task::core::Core<T,S>::poll",
            "<core::panic::unwind_safe::AssertUnwindSafe<F> as core::ops::function::FnOnce<()>>::call_once",
            "std::panicking::catch_unwind::do_call",
            "std::panic::catch_unwind::<R, F>",
            "tokio::runtime::task::harness::poll_future",
            "std::thread::local::LocalKey<T>::with",
            "app::run::{{closure}}::{{closure}}",
            "app::run",
        ];
        let folded = fold("w", raw.iter().map(|s| s.to_string()).collect());
        assert_eq!(
            folded,
            "w;app::run;tokio::runtime::task::harness::poll_future;\
             tokio::runtime::task::core::Core<T,S>::poll;app::leaf"
        );
        // A closure called by anything but its own function stays.
        let folded = fold("w", vec!["app::f::{{closure}}".into(), "app::g".into()]);
        assert_eq!(folded, "w;app::g;app::f::{{closure}}");
    }

    #[test]
    fn a_stack_is_folded_outermost_first_without_the_sampler_or_the_start_up() {
        let raw = [
            "backtrace::backtrace::libunwind::trace",
            "<pprof::backtrace::backtrace_rs::Trace as pprof::backtrace::Trace>::trace",
            "<alloc::vec::Vec<T> as core::ops::drop::Drop>::drop",
            "app::work; [u8; 4]",
            "std::sys::backtrace::__rust_begin_short_backtrace",
            "std::rt::lang_start_internal",
            "Unknown",
        ];
        let folded = fold("main", raw.iter().map(|s| s.to_string()).collect());
        assert_eq!(
            folded,
            "main;app::work, [u8, 4];<alloc::vec::Vec<T> as core::ops::drop::Drop>::drop"
        );
        // No marker: every frame stays, unknown ones named as such.
        let folded = fold("", vec!["f".into(), "Unknown".into()]);
        assert_eq!(folded, "[unnamed thread];[unknown];f");
    }

    #[test]
    fn check_refuses_profiles_that_cannot_have_been_sampled() {
        let good = stacks(&[("t;a;b", 3), ("t;a;c", 2)]);
        good.check().unwrap();
        let cases: [(Stacks, &str); 6] = [
            (stacks(&[]), "holds no stacks"),
            (stacks(&[("t;a", 0)]), "has no samples"),
            (stacks(&[("t;;a", 1)]), "an empty frame"),
            (stacks(&[("t;a\nb", 1)]), "control character"),
            (stacks(&[("t;b", 1), ("t;a", 1)]), "not sorted"),
            (
                Stacks {
                    samples: 4,
                    ..good.clone()
                },
                "hold 5 samples, it says 4",
            ),
        ];
        for (s, expected) in cases {
            let err = s.check().unwrap_err().to_string();
            assert!(err.contains(expected), "{err:?} lacks {expected:?}");
        }
        let err = Stacks { hz: 0, ..good }.check().unwrap_err().to_string();
        assert!(err.contains("0 Hz"), "{err}");
    }
}
