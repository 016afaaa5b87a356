//! Frame groups: which group of work each sampled frame belongs to, and
//! the share of a profile's samples per group (see the module above).

use harness_measure::stacks::Stacks;

/// The frame groups, in the order tables list them; `other` last.
pub const GROUPS: [&str; 7] = [
    "scheduler",
    "semaphore/waker",
    "futex",
    "syscall write",
    "memcpy",
    "allocator",
    "other",
];
pub(super) const OTHER: usize = GROUPS.len() - 1;

/// What one frame does with a sample that reaches it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Kind {
    /// The frame belongs to a group: the sample counts there.
    Group(usize),
    /// Works on behalf of its caller: the sample goes on outwards.
    PassOn,
    /// Code under test (or anything else): the sample counts as other.
    Other,
}

/// The group of one frame's name, or `None` when it passes samples on to
/// its caller or belongs to no group.
pub fn frame_group(frame: &str) -> Option<&'static str> {
    match kind(frame) {
        Kind::Group(g) => Some(GROUPS[g]),
        Kind::PassOn | Kind::Other => None,
    }
}

/// The group a folded stack (`thread;outermost;...;innermost`) counts for.
pub fn stack_group(stack: &str) -> &'static str {
    // The first field is the thread's name, not a frame.
    let frames = stack.split_once(';').map_or("", |(_, frames)| frames);
    for frame in frames.split(';').rev().filter(|f| !f.is_empty()) {
        match kind(frame) {
            Kind::Group(g) => return GROUPS[g],
            Kind::PassOn => continue,
            Kind::Other => return GROUPS[OTHER],
        }
    }
    GROUPS[OTHER]
}

/// Share of samples per frame group (in [`GROUPS`] order): sums to 1 for any
/// profile with samples (all zero for one without).
pub fn groups(s: &Stacks) -> Vec<(&'static str, f64)> {
    let mut counts = [0u64; GROUPS.len()];
    for f in &s.folded {
        let g = stack_group(&f.stack);
        let i = GROUPS.iter().position(|n| *n == g).unwrap_or(OTHER);
        counts[i] += f.count;
    }
    let total: u64 = counts.iter().sum();
    GROUPS
        .iter()
        .zip(counts)
        .map(|(g, c)| {
            (
                *g,
                if total == 0 {
                    0.0
                } else {
                    c as f64 / total as f64
                },
            )
        })
        .collect()
}

pub(super) fn kind(frame: &str) -> Kind {
    let frame = frame.trim();
    let path = path_of(frame);
    let lower = path.to_ascii_lowercase();
    let group = |name: &str| Kind::Group(GROUPS.iter().position(|g| *g == name).unwrap_or(OTHER));
    let method = path.rsplit("::").next().unwrap_or("");
    // The futex calls themselves, not code that lives in a module named for
    // them (std's `sys::sync::mutex::futex::Mutex::lock` is an atomic
    // compare-and-swap): a function named for the futex, glibc's lock wait,
    // or a thread parker's park and unpark, which are a futex wait and wake.
    if method.to_ascii_lowercase().contains("futex")
        || lower.starts_with("__lll_lock")
        || (path.contains("thread_park") && matches!(method, "park" | "park_timeout" | "unpark"))
    {
        return group("futex");
    }
    if lower.contains("memcpy") || lower.contains("memmove") {
        return group("memcpy");
    }
    let c_symbol = !path.contains("::") && !frame.starts_with('<');
    if c_symbol {
        let bare = c_bare(&path);
        if matches!(
            bare,
            "write" | "writev" | "pwrite" | "pwrite64" | "send" | "sendto" | "sendmsg" | "sendmmsg"
        ) {
            return group("syscall write");
        }
        if is_c_allocator(bare)
            || lower.contains("__rust_alloc")
            || lower.contains("__rust_dealloc")
            || lower.contains("__rust_realloc")
            || lower.starts_with("__rdl_")
            || lower.starts_with("__rg_")
        {
            return group("allocator");
        }
        if bare == "sched_yield" {
            return group("scheduler");
        }
        return Kind::PassOn;
    }
    if path.starts_with("alloc::alloc::")
        || frame.contains(" as core::alloc::global::GlobalAlloc>")
        || frame.contains(" as core::alloc::Allocator>")
        || lower.contains("__rust_alloc")
        || lower.contains("__rust_dealloc")
        || lower.contains("__rust_realloc")
    {
        return group("allocator");
    }
    if path.starts_with("tokio::sync::")
        || path.contains("::waker::")
        || path.contains("wake_list")
        || path.contains("AtomicWaker")
        || path.contains("atomic_waker")
        || matches!(
            method,
            "wake"
                | "wake_by_ref"
                | "wake_by_val"
                | "wake_one"
                | "wake_all"
                | "notify_one"
                | "notify_waiters"
        )
    {
        return group("semaphore/waker");
    }
    if path.starts_with("tokio::runtime::") || path.starts_with("tokio::task::") {
        return group("scheduler");
    }
    const PASS_ON: &[&str] = &[
        "core::",
        "alloc::",
        "std::",
        "tokio::loom::",
        "tokio::util::",
        "mio::",
        "parking_lot::",
        "parking_lot_core::",
        "lock_api::",
        "hashbrown::",
        "[unknown]",
    ];
    // A generic parameter as the type (`<F as Future>::poll`) or a
    // primitive (`<[T]>::...`) names no owner: pass it on too.
    let owner_unnamed = frame.starts_with('<') && !path.contains("::");
    if owner_unnamed || path.starts_with('[') || PASS_ON.iter().any(|p| path.starts_with(p)) {
        return Kind::PassOn;
    }
    Kind::Other
}

/// A C symbol without the underscores and `GI_`/`libc_` prefixes glibc's
/// aliases carry: `__GI___libc_write` reads `write`.
fn c_bare(name: &str) -> &str {
    let mut s = name.trim_start_matches('_');
    for prefix in ["GI_", "libc_"] {
        if let Some(rest) = s.strip_prefix(prefix) {
            s = rest.trim_start_matches('_');
        }
    }
    s
}

fn is_c_allocator(bare: &str) -> bool {
    matches!(
        bare,
        "malloc"
            | "free"
            | "cfree"
            | "calloc"
            | "realloc"
            | "reallocarray"
            | "posix_memalign"
            | "aligned_alloc"
            | "memalign"
            | "sysmalloc"
            | "unlink_chunk"
            | "malloc_consolidate"
            | "int_malloc"
            | "int_free"
            | "int_realloc"
            | "int_memalign"
    ) || bare.starts_with("int_free")
        || bare.starts_with("tcache")
        || bare.contains("malloc")
}

/// The path a frame's name says its code belongs to, generics left out:
/// `<tokio::sync::batch_semaphore::Acquire as core::future::Future>::poll`
/// is `tokio::sync::batch_semaphore::Acquire::poll`, and
/// `core::ptr::drop_in_place<tokio::runtime::task::Task<S>>` is
/// `core::ptr::drop_in_place`.
pub(super) fn path_of(frame: &str) -> String {
    if let Some(rest) = frame.strip_prefix('<') {
        if let Some(close) = matching_close(rest) {
            let inner = &rest[..close];
            let after = &rest[close + 1..];
            let owner = top_level_split_as(inner);
            let owner = owner
                .trim_start_matches('&')
                .trim_start_matches("mut ")
                .trim_start_matches("*const ")
                .trim_start_matches("*mut ")
                .trim_start_matches("dyn ")
                .trim_start_matches('&');
            return format!("{}{}", strip_generics(owner), strip_generics(after));
        }
    }
    strip_generics(frame)
}

/// The index of the `>` that closes an opening `<` already consumed.
fn matching_close(s: &str) -> Option<usize> {
    let mut depth = 0usize;
    for (i, c) in s.char_indices() {
        match c {
            '<' => depth += 1,
            '>' if depth == 0 => return Some(i),
            '>' => depth -= 1,
            _ => {}
        }
    }
    None
}

/// `Type as Trait` (at the top level of angle brackets): the type.
fn top_level_split_as(s: &str) -> &str {
    let mut depth = 0usize;
    for (i, c) in s.char_indices() {
        match c {
            '<' => depth += 1,
            '>' => depth = depth.saturating_sub(1),
            ' ' if depth == 0 && s[i..].starts_with(" as ") => return &s[..i],
            _ => {}
        }
    }
    s
}

fn strip_generics(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut depth = 0usize;
    for c in s.chars() {
        match c {
            '<' => depth += 1,
            '>' => depth = depth.saturating_sub(1),
            _ if depth == 0 => out.push(c),
            _ => {}
        }
    }
    out
}
