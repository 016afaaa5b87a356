//! Instruction counts that do not depend on the machine's mood: Valgrind's
//! callgrind counts the instructions a piece of work executes, and one
//! binary counts the same on every run, whatever else the machine is doing.
//!
//! The method. A chapter lists the work it lets callgrind count as
//! [`Counted`] cases (`Chapter::COUNTED`). A case's `run(n)` sets up what it
//! needs (a channel, a current-thread runtime) and then does the operation
//! `n` times inside [`counted`], which calls it from one function that keeps
//! its plain name in every build, [`REGION`]. While a chapter measures,
//! [`per_op`] runs the chapter's own binary under callgrind with the hidden
//! subcommand `count <case> <n>`, collecting only inside that function
//! (`--collect-atstart=no --toggle-collect=book_counted_region`), once with
//! `small` and once with `large` operations, and returns
//! `(I(large) - I(small)) / (large - small)`: set-up, first-call costs and the
//! region's own entry are in both counts and cancel; what remains is what one
//! more operation executes.
//!
//! Callgrind counts only the thread that entered the region, so the counted
//! work must stay on that thread: plain code, or a current-thread runtime's
//! `block_on`, never work handed to other threads (a multi-threaded
//! runtime's workers would do it uncounted). A count is instructions
//! executed (callgrind's event `Ir`), not time: cache misses, contention and
//! the kernel's side of a system call are not in it, so a chapter shows
//! count ratios beside its time ratios, not instead of them.
//!
//! Exact is not the same as unconditional. Work that allocates executes
//! more or fewer instructions in the allocator depending on the state of the
//! heap it starts from (glibc's free lists, and aligned requests such as
//! cache-padded structs most of all): the same binary counts a different
//! number when its arguments or environment are longer, because the bytes
//! allocated before the work moved. So the counting binary always starts the
//! same way (an empty environment but for the counting variables, its path
//! `./chapter`, `n` written in 20 digits), which makes a count the same on
//! every run and on every checkout; and [`per_op_layouts`] counts the same
//! work from several prepared starting heaps ([`LAYOUTS`], see
//! [`heap_layout`]), so a chapter can show how far the heap alone moves the
//! figure. Work that does not allocate counts the same from every layout.
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use anyhow::{anyhow, bail, Context, Result};
use serde::{Deserialize, Serialize};

use crate::lab::Lab;

/// The symbol of the one function callgrind collects in (see [`counted`]).
pub const REGION: &str = "book_counted_region";

/// Set (to the case's name) in the environment of a binary [`per_op`] runs
/// under callgrind. A chapter whose binary allocates through an instrumented
/// allocator can read it to allocate as a plain program would; [`per_op`]
/// refuses to run when it is already set, so a binary that measures when
/// asked to count fails instead of starting itself without end.
pub const COUNTING_ENV: &str = "BOOK_COUNTING";

/// The binary [`per_op`] counts with, when set; otherwise the chapter's own
/// (see [`chapter_exe`]).
pub const EXE_ENV: &str = "BOOK_COUNT_EXE";

/// A single-threaded piece of work the chapter lets callgrind count.
/// `run(n)` sets up, then calls [`counted`] around doing the operation `n`
/// times, and panics if the work went wrong (the count is then refused).
#[derive(Clone, Copy, Debug)]
pub struct Counted {
    /// The case's name on the command line (`count <name> <n>`): a slug.
    pub name: &'static str,
    pub about: &'static str,
    pub run: fn(u64),
}

/// Instructions per operation of one [`Counted`] case, from two counts.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PerOp {
    pub name: String,
    /// Operations in the two runs.
    pub small: u64,
    pub large: u64,
    /// Instructions callgrind counted inside the region in each run.
    pub instructions_small: u64,
    pub instructions_large: u64,
    /// `(instructions_large - instructions_small) / (large - small)`.
    pub per_op: f64,
}

/// Runs `f` inside [`REGION`], the only place callgrind collects when
/// [`per_op`] counts. Outside callgrind it only runs `f`.
pub fn counted<R>(f: impl FnOnce() -> R) -> R {
    let mut f = Some(f);
    let mut out = None;
    book_counted_region(&mut || out = Some((f.take().expect("the region runs its work once"))()));
    out.expect("the region ran its work")
}

/// The counted region: a function of its own, never inlined, under a name
/// no build mangles, so `--toggle-collect` finds it in any profile.
#[no_mangle]
#[inline(never)]
pub fn book_counted_region(work: &mut dyn FnMut()) {
    work();
    // Something after the call, so it is a call and not a jump (a tail
    // call would leave the region before the work runs).
    std::hint::black_box(());
}

/// The case of `cases` named `name`, or an error listing the names there are.
pub fn find<'a>(chapter: &str, cases: &'a [Counted], name: &str) -> Result<&'a Counted> {
    cases.iter().find(|c| c.name == name).ok_or_else(|| {
        let names: Vec<&str> = cases.iter().map(|c| c.name).collect();
        anyhow!(
            "unknown counted case {name:?} for chapter {chapter}: {}",
            if names.is_empty() {
                "the chapter counts nothing".to_string()
            } else {
                format!("expected one of {}", names.join(", "))
            }
        )
    })
}

/// Set in the counting binary's environment: which starting heap the
/// `count` subcommand prepares before the case runs (see [`heap_layout`]).
pub const LAYOUT_ENV: &str = "BOOK_COUNT_LAYOUT";

/// What the hidden `count <name> <n>` subcommand does: runs case `name` of
/// `cases` with `n` operations, from the heap layout [`LAYOUT_ENV`] names.
pub fn run_case(chapter: &str, cases: &[Counted], name: &str, n: u64) -> Result<()> {
    let case = find(chapter, cases, name)?;
    let layout = match std::env::var(LAYOUT_ENV) {
        Ok(v) => v
            .parse::<u32>()
            .map_err(|_| anyhow!("{LAYOUT_ENV}={v:?} is not a layout number"))?,
        Err(_) => 0,
    };
    let held = heap_layout(layout);
    (case.run)(n);
    drop(held);
    Ok(())
}

/// Starting heap number `layout`: none for 0; else `8 * layout` blocks of
/// assorted sizes (16 B to about 1 KiB, small and large bins alike) are
/// allocated and every other one freed, leaving holes the case's own
/// allocations fall into. The blocks kept are returned, to hold.
pub fn heap_layout(layout: u32) -> Vec<Vec<u8>> {
    let mut blocks: Vec<Vec<u8>> = (0..8 * layout as usize)
        .map(|i| Vec::with_capacity(16 * (1 + (i * 37 + layout as usize) % 70)))
        .collect();
    let mut i = 0;
    blocks.retain(|_| {
        i += 1;
        i % 2 == 0
    });
    std::hint::black_box(blocks)
}

/// The starting heaps [`per_op_layouts`] counts from when a chapter shows
/// the spread: none prepared, then more and more holes (see [`heap_layout`]).
pub const LAYOUTS: [u32; 4] = [0, 3, 8, 24];

/// Instructions per operation of the chapter's case `name`: the chapter's
/// binary counted under callgrind with `small` and with `large` operations
/// (see the module's documentation), from the heap as the binary leaves it
/// (layout 0). Takes about half a second: the two counts run at once, each
/// in a fresh process under Valgrind.
pub fn per_op(lab: &Lab, name: &str, small: u64, large: u64) -> Result<PerOp> {
    let exe = chapter_exe(lab.progress().chapter())?;
    per_op_in(&exe, name, small, large, 0)
}

/// [`per_op`] from each starting heap of `layouts` (usually [`LAYOUTS`]),
/// in their order: for work that allocates, whose count depends on the
/// heap it starts from.
pub fn per_op_layouts(
    lab: &Lab,
    name: &str,
    small: u64,
    large: u64,
    layouts: &[u32],
) -> Result<Vec<PerOp>> {
    let exe = chapter_exe(lab.progress().chapter())?;
    layouts
        .iter()
        .map(|&layout| per_op_in(&exe, name, small, large, layout))
        .collect()
}

/// [`per_op`] with the binary and the starting heap given: `exe` must be a
/// chapter binary (or one that answers `count <name> <n>` the way
/// `harness::chapter_main` does for every [`crate::Experiment::COUNTED`] case).
pub fn per_op_in(exe: &Path, name: &str, small: u64, large: u64, layout: u32) -> Result<PerOp> {
    if large <= small {
        bail!("counting {name:?}: large ({large}) must be more operations than small ({small})");
    }
    // The two counts are independent processes: run them at once.
    let (instructions_small, instructions_large) = std::thread::scope(|s| {
        let first = s.spawn(|| instructions(exe, name, small, layout));
        let second = instructions(exe, name, large, layout);
        (first.join().expect("counting does not panic"), second)
    });
    let (instructions_small, instructions_large) = (instructions_small?, instructions_large?);
    if instructions_large <= instructions_small {
        bail!(
            "counting {name:?}: {large} operations executed {instructions_large} instructions, \
             {small} executed {instructions_small}; more operations must execute more \
             (is the work inside harness_measure::counts::counted?)"
        );
    }
    Ok(PerOp {
        name: name.to_string(),
        small,
        large,
        instructions_small,
        instructions_large,
        per_op: (instructions_large - instructions_small) as f64 / (large - small) as f64,
    })
}

/// The binary that counts for `chapter`: [`EXE_ENV`] when set; this process's
/// binary when it is the chapter's (a run); else the chapter's binary cargo
/// built beside this one (a test binary in `target/<profile>/deps/`).
pub fn chapter_exe(chapter: &str) -> Result<PathBuf> {
    if let Some(exe) = std::env::var_os(EXE_ENV) {
        return Ok(PathBuf::from(exe));
    }
    let current = std::env::current_exe().context("cannot tell which binary is running")?;
    exe_for(&current, chapter)
}

fn exe_for(current: &Path, chapter: &str) -> Result<PathBuf> {
    let file = format!("{chapter}{}", std::env::consts::EXE_SUFFIX);
    if current.file_name() == Some(file.as_ref()) {
        return Ok(current.to_path_buf());
    }
    let candidates: Vec<PathBuf> = current
        .ancestors()
        .skip(1)
        .take(2)
        .map(|dir| dir.join(&file))
        .collect();
    candidates
        .iter()
        .find(|p| p.is_file())
        .cloned()
        .ok_or_else(|| {
            anyhow!(
                "cannot find chapter {chapter}'s binary to count with: {} is not it and \
                 neither {} exists (cargo build -p {chapter}, or set {EXE_ENV})",
                current.display(),
                candidates
                    .iter()
                    .map(|p| p.display().to_string())
                    .collect::<Vec<_>>()
                    .join(" nor ")
            )
        })
}

/// Valgrind's path: the first `valgrind` on PATH.
fn valgrind() -> Result<PathBuf> {
    std::env::var_os("PATH")
        .and_then(|path| {
            std::env::split_paths(&path)
                .map(|dir| dir.join("valgrind"))
                .find(|p| p.is_file())
        })
        .ok_or_else(|| {
            anyhow!(
                "valgrind not found on PATH: scripts/fresh and scripts/test install it; or \
                 apt-get install valgrind"
            )
        })
}

/// Instructions callgrind counts inside the region while `exe` runs case
/// `name` with `n` operations from starting heap `layout`. The binary starts
/// the same way every time (see the module's documentation).
fn instructions(exe: &Path, name: &str, n: u64, layout: u32) -> Result<u64> {
    if std::env::var_os(COUNTING_ENV).is_some() {
        bail!(
            "counting {name:?}: this process was itself started to count ({COUNTING_ENV} is \
             set); {} does not answer `count` as a chapter binary does",
            exe.display()
        );
    }
    let valgrind = valgrind()?;
    let dir = tempfile::Builder::new()
        .prefix("book-callgrind-")
        .tempdir()
        .context("cannot create a folder for callgrind's output")?;
    let exe = std::path::absolute(exe)
        .with_context(|| format!("cannot tell where {} is", exe.display()))?;
    // The same path, whatever the checkout's: `./chapter` in the fresh folder.
    #[cfg(unix)]
    let program = {
        std::os::unix::fs::symlink(&exe, dir.path().join("chapter"))
            .context("cannot link the chapter's binary into callgrind's folder")?;
        PathBuf::from("./chapter")
    };
    #[cfg(not(unix))]
    let program = exe.clone();
    let output = Command::new(&valgrind)
        .current_dir(dir.path())
        .env_clear()
        .env(COUNTING_ENV, name)
        .env(LAYOUT_ENV, layout.to_string())
        // A failure is reported by its message; the command is named for
        // whoever wants its backtrace.
        .env("RUST_BACKTRACE", "0")
        .args([
            "--tool=callgrind",
            "--callgrind-out-file=callgrind.out",
            "--collect-atstart=no",
            &format!("--toggle-collect={REGION}"),
            // Totals only: no per-instruction detail, no cache or branch
            // simulation (instructions executed need neither).
            "--dump-instr=no",
            "--cache-sim=no",
            "--branch-sim=no",
            "--",
        ])
        .arg(&program)
        // Every count's arguments are as long as every other's.
        .args(["count", name, &format!("{n:020}")])
        .stdin(Stdio::null())
        .output()
        .with_context(|| format!("cannot start {}", valgrind.display()))?;
    let command = format!(
        "{LAYOUT_ENV}={layout} valgrind --tool=callgrind {} count {name} {n}",
        exe.display()
    );
    if !output.status.success() {
        bail!(
            "{command} failed ({}); the end of what it said:\n{}",
            output.status,
            said(&String::from_utf8_lossy(&output.stderr), 20)
        );
    }
    let out = dir.path().join("callgrind.out");
    let text = std::fs::read_to_string(&out)
        .with_context(|| format!("{command} wrote no output file {}", out.display()))?;
    match total_ir(&text) {
        Ok(0) => bail!(
            "{command} counted no instructions in {REGION}: does case {name:?} call \
             harness_measure::counts::counted?"
        ),
        Ok(ir) => Ok(ir),
        Err(e) => {
            // Keep the file for whoever reads the error.
            let kept = dir.keep();
            Err(e.context(format!(
                "cannot read callgrind's output {}",
                kept.join("callgrind.out").display()
            )))
        }
    }
}

/// The last `lines` lines the program wrote to `stderr`, without Valgrind's
/// own (`==pid== ...`); Valgrind's when the program said nothing.
fn said(stderr: &str, lines: usize) -> String {
    let valgrind = |l: &&str| {
        l.strip_prefix("==")
            .and_then(|r| r.split_once("=="))
            .is_some_and(|(pid, _)| !pid.is_empty() && pid.bytes().all(|b| b.is_ascii_digit()))
    };
    let program: Vec<&str> = stderr.lines().filter(|l| !valgrind(l)).collect();
    let all: Vec<&str> = if program.iter().all(|l| l.trim().is_empty()) {
        stderr.lines().collect()
    } else {
        program
    };
    all[all.len().saturating_sub(lines)..].join("\n")
}

/// The total of event `Ir` in a callgrind output file: its `totals:` line
/// (or, failing that, its `summary:` line), in the order of its `events:` line.
pub fn total_ir(text: &str) -> Result<u64> {
    let field = |key: &str| {
        text.lines()
            .rev()
            .find_map(|l| l.strip_prefix(key))
            .map(str::trim)
    };
    let events: Vec<&str> = field("events:")
        .ok_or_else(|| anyhow!("no `events:` line"))?
        .split_whitespace()
        .collect();
    let at = events
        .iter()
        .position(|e| *e == "Ir")
        .ok_or_else(|| anyhow!("the events ({}) do not include Ir", events.join(" ")))?;
    let totals = field("totals:")
        .or_else(|| field("summary:"))
        .ok_or_else(|| anyhow!("no `totals:` or `summary:` line"))?;
    let value = totals
        .split_whitespace()
        .nth(at)
        .ok_or_else(|| anyhow!("the totals {totals:?} have no value for Ir"))?;
    value
        .parse()
        .map_err(|_| anyhow!("the total of Ir, {value:?}, is not a count"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn totals_are_read_by_the_position_of_ir() {
        let file = "version: 1\ncreator: callgrind-3.19.0\ncmd: x count a 10\n\
                    events: Ir\nsummary: 900\n\nfn=(1) main\n5 900\n\ntotals: 1234\n";
        assert_eq!(total_ir(file).unwrap(), 1234);
        let summary_only = "events: Ir\nsummary: 77\n";
        assert_eq!(total_ir(summary_only).unwrap(), 77);
        let two = "events: Dr Ir\ntotals: 5 8\n";
        assert_eq!(total_ir(two).unwrap(), 8);
        for (bad, why) in [
            ("totals: 5\n", "no `events:` line"),
            ("events: Dr\ntotals: 5\n", "do not include Ir"),
            ("events: Ir\n", "no `totals:` or `summary:` line"),
            ("events: Dr Ir\ntotals: 5\n", "no value for Ir"),
            ("events: Ir\ntotals: -3\n", "is not a count"),
        ] {
            let e = total_ir(bad).unwrap_err().to_string();
            assert!(e.contains(why), "{bad:?}: {e}");
        }
    }

    #[test]
    fn a_failure_is_told_in_the_program_s_words_else_valgrind_s() {
        let stderr = "==17040== Callgrind, a call-graph generating cache profiler\n\
                      thread 'main' panicked at src/x.rs:1:1:\nthe work went wrong\n\
                      ==17040== \n==17040== Collected : 61\n";
        assert_eq!(
            said(stderr, 20),
            "thread 'main' panicked at src/x.rs:1:1:\nthe work went wrong"
        );
        assert_eq!(said(stderr, 1), "the work went wrong");
        let alone = "==9== valgrind: bad option\n==9== use --help\n";
        assert_eq!(
            said(alone, 20),
            "==9== valgrind: bad option\n==9== use --help"
        );
    }

    #[test]
    fn a_case_is_found_by_name_or_the_names_are_listed() {
        fn nothing(_: u64) {}
        let cases = [
            Counted {
                name: "create-a",
                about: "",
                run: nothing,
            },
            Counted {
                name: "create-b",
                about: "",
                run: nothing,
            },
        ];
        assert_eq!(find("ch", &cases, "create-b").unwrap().name, "create-b");
        let e = find("ch", &cases, "create-c").unwrap_err().to_string();
        assert_eq!(
            e,
            "unknown counted case \"create-c\" for chapter ch: expected one of create-a, create-b"
        );
        let e = find("ch", &[], "x").unwrap_err().to_string();
        assert!(e.ends_with("the chapter counts nothing"), "{e}");
    }

    #[test]
    fn the_region_runs_its_work_once_and_returns_its_value() {
        let mut calls = 0;
        let v = counted(|| {
            calls += 1;
            41 + calls
        });
        assert_eq!((v, calls), (42, 1));
    }

    #[test]
    fn layouts_leave_every_other_block_of_assorted_sizes() {
        assert!(heap_layout(0).is_empty());
        for layout in LAYOUTS.into_iter().filter(|&l| l > 0) {
            let held = heap_layout(layout);
            assert_eq!(held.len(), 4 * layout as usize);
            let sizes: std::collections::BTreeSet<usize> =
                held.iter().map(|b| b.capacity()).collect();
            assert!(sizes.len() > layout as usize, "{layout}: {sizes:?}");
            assert!(sizes.iter().all(|&c| (16..=1120).contains(&c)), "{sizes:?}");
        }
    }

    #[test]
    fn a_test_binary_counts_with_the_chapter_binary_beside_it() {
        let dir = tempfile::tempdir().unwrap();
        let deps = dir.path().join("deps");
        std::fs::create_dir_all(&deps).unwrap();
        let test_exe = deps.join("chapter-0123abcd");
        let chapter = dir
            .path()
            .join(format!("ch{}", std::env::consts::EXE_SUFFIX));
        // The chapter's own binary is used as it is.
        assert_eq!(exe_for(&chapter, "ch").unwrap(), chapter);
        let e = exe_for(&test_exe, "ch").unwrap_err().to_string();
        assert!(e.contains("cannot find chapter ch's binary") && e.contains("cargo build -p ch"));
        std::fs::write(&chapter, "").unwrap();
        assert_eq!(exe_for(&test_exe, "ch").unwrap(), chapter);
    }
}
