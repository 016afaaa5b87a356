use super::*;
use harness_measure::stacks::{Folded, Stacks};

fn profile(design: &str, folded: &[(&str, u64)]) -> Stacks {
    let mut folded: Vec<Folded> = folded
        .iter()
        .map(|&(stack, count)| Folded {
            stack: stack.into(),
            count,
        })
        .collect();
    folded.sort_by(|a, b| a.stack.cmp(&b.stack));
    Stacks {
        design: design.into(),
        hz: 997,
        samples: folded.iter().map(|f| f.count).sum(),
        folded,
    }
}

#[test]
fn frames_fall_into_their_groups_by_name() {
    let cases = [
        ("tokio::runtime::task::raw::poll", Some("scheduler")),
        (
            "<tokio::sync::batch_semaphore::Acquire as core::future::future::Future>::poll",
            Some("semaphore/waker"),
        ),
        ("tokio::sync::notify::Notify::notify_one", Some("semaphore/waker")),
        ("core::task::wake::Waker::wake", Some("semaphore/waker")),
        ("std::sys::pal::unix::futex::futex_wait", Some("futex")),
        // std's Mutex lives in a module named futex; taking it is not one.
        ("<std::sys::sync::mutex::futex::Mutex>::lock_contended", None),
        (
            "<parking_lot_core::thread_parker::imp::UnparkHandle as parking_lot_core::thread_parker::UnparkHandleT>::unpark",
            Some("futex"),
        ),
        ("__lll_lock_wait", Some("futex")),
        ("__GI___libc_write", Some("syscall write")),
        ("sendto", Some("syscall write")),
        ("__memmove_avx_unaligned_erms", Some("memcpy")),
        ("_int_malloc", Some("allocator")),
        ("cfree", Some("allocator")),
        ("alloc::alloc::exchange_malloc", Some("allocator")),
        (
            "<dhat::Alloc as core::alloc::global::GlobalAlloc>::alloc",
            Some("allocator"),
        ),
        ("sched_yield", Some("scheduler")),
        // Generic arguments do not make a frame what it drops or polls.
        (
            "core::ptr::drop_in_place<tokio::runtime::task::Task<S>>",
            None,
        ),
        ("mutex_swap::lock_free_stack::LockFreeStack::push", None),
        ("syscall", None),
        (
            "<<std::io::stdio::StdoutLock as std::io::Write>::write_all::Adapter<W> as core::fmt::Write>::write_str",
            None,
        ),
    ];
    for (frame, group) in cases {
        assert_eq!(frame_group(frame), group, "{frame}");
    }
}

#[test]
fn a_sample_counts_for_the_innermost_group_frame_reached_through_frames_that_pass_it_on() {
    let t = "tokio-rt-worker;tokio::runtime::task::raw::poll";
    // Under the runtime, the code under test is other, not scheduler.
    assert_eq!(
        stack_group(&format!("{t};app::push;alloc::vec::Vec<T>::push")),
        "other"
    );
    // A futex wait under std's Mutex, under the code under test: futex.
    assert_eq!(
        stack_group(&format!(
            "{t};app::push;std::sync::poison::mutex::Mutex<T>::lock;std::sys::sync::mutex::futex::Mutex::lock_contended;std::sys::pal::unix::futex::futex_wait;syscall"
        )),
        "futex"
    );
    // memcpy inside realloc is memcpy; realloc alone is allocator.
    assert_eq!(
        stack_group("t;app::f;realloc;__memmove_avx_unaligned_erms"),
        "memcpy"
    );
    assert_eq!(
        stack_group("t;app::f;alloc::raw_vec::finish_grow;realloc"),
        "allocator"
    );
    // The runtime's own work, reached through utilities: scheduler.
    assert_eq!(
        stack_group(&format!("{t};tokio::runtime::scheduler::multi_thread::worker::Context::run;core::sync::atomic::AtomicUsize::load")),
        "scheduler"
    );
    // A thread's name is never taken for a frame.
    assert_eq!(stack_group("futex-thread"), "other");
}

#[test]
fn group_shares_sum_to_one_per_design() {
    let p = profile(
        "tokio-mutex-swap",
        &[
            ("w;tokio::runtime::task::raw::poll", 7),
            ("w;tokio::runtime::task::raw::poll;app::push;tokio::sync::batch_semaphore::Semaphore::acquire", 5),
            ("w;app::f;malloc", 3),
            ("w;app::f;__memcpy_avx_unaligned", 2),
            ("w;app::f;std::sys::pal::unix::futex::futex_wake;syscall", 1),
            ("w;app::f;__libc_write", 1),
            ("w;app::f", 11),
        ],
    );
    let shares = groups(&p);
    assert_eq!(
        shares.iter().map(|s| s.0).collect::<Vec<_>>(),
        GROUPS.to_vec()
    );
    let sum: f64 = shares.iter().map(|s| s.1).sum();
    assert!((sum - 1.0).abs() < 1e-12, "{shares:?}");
    let share = |g: &str| shares.iter().find(|s| s.0 == g).unwrap().1;
    assert_eq!(share("scheduler"), 7.0 / 30.0);
    assert_eq!(share("semaphore/waker"), 5.0 / 30.0);
    assert_eq!(share("other"), 11.0 / 30.0);
    for g in ["futex", "syscall write", "memcpy", "allocator"] {
        assert!(share(g) > 0.0, "{g}");
    }
    // The table shows the same shares, one column per design.
    let table = group_table(&[&p, &p]);
    for (row, (g, s)) in table.rows.iter().zip(&shares) {
        assert_eq!(row[0], Cell::from(*g));
        assert_eq!(row[1], Cell::Number(*s, Unit::Share));
    }
    assert_eq!(table.rows.last().unwrap()[2], Cell::count(30));
}

#[test]
fn the_figure_is_one_script_free_svg_with_every_name_escaped() {
    let a = profile(
        "std-mutex-swap",
        &[
            (
                "consumer;app::consume<&mut Vec<u8>>;<alloc::vec::Vec<T> as core::ops::Drop>::drop",
                40,
            ),
            (
                "tokio-rt-worker;tokio::runtime::task::raw::poll;app::push\"quoted\"",
                60,
            ),
        ],
    );
    let b = profile(
        "tokio-mutex-swap",
        &[("w;tokio::sync::batch_semaphore::Semaphore::acquire", 9)],
    );
    let blocks = exhibit(&[&a, &b], "Where the time went").unwrap();
    let Block::Drawn(d) = &blocks[0] else {
        panic!("{blocks:?}")
    };
    assert!(matches!(blocks[1], Block::Table(_)));
    let doc = roxmltree::Document::parse(&d.svg).expect("the figure is well-formed XML");
    let root = doc.root_element();
    assert_eq!(root.tag_name().name(), "svg");
    assert_eq!(d.svg.matches("<svg").count(), 1);
    for n in doc.descendants().filter(|n| n.is_element()) {
        let tag = n.tag_name().name();
        assert!(
            ["svg", "g", "rect", "text", "title"].contains(&tag),
            "unexpected <{tag}>"
        );
        assert!(n.attribute("id").is_none(), "ids would clash on a page");
        for attr in n.attributes() {
            assert!(
                !attr.name().starts_with("on"),
                "event handler {}",
                attr.name()
            );
        }
    }
    // The names read back exactly, so they were escaped on the way in.
    let texts: Vec<&str> = doc.descendants().filter_map(|n| n.text()).collect();
    assert!(
        texts
            .iter()
            .any(|t| t.starts_with("app::consume<&mut Vec<u8>>: 40 samples")),
        "{texts:?}"
    );
    assert!(
        texts.iter().any(|t| t.contains("app::push\"quoted\"")),
        "{texts:?}"
    );
    assert!(d.svg.contains("app::consume&lt;&amp;mut Vec&lt;u8&gt;&gt;"));
    assert!(!d.svg.contains("\n\n") && !d.svg.contains("<script"));
    // Two figures of different profiles get different ids.
    let other = exhibit(&[&b], "Where the time went").unwrap();
    let Block::Drawn(e) = &other[0] else { panic!() };
    assert_ne!(d.id, e.id);
}

#[test]
fn a_trunk_ends_where_the_runtime_calls_the_code_under_test() {
    let p = profile(
        "d",
        &[(
            "consumer;app::start;tokio::runtime::a;tokio::runtime::b;tokio::runtime::c;app::consume;app::drain;app::hash",
            5,
        )],
    );
    assert_eq!(
        trunks(&p),
        ["consumer;app::consume [+4 callers];app::drain;app::hash 5"]
    );
}

#[test]
fn a_threads_trunk_is_drawn_as_one_frame() {
    let p = profile(
        "d",
        &[
            ("w;a;b;c;d;task;push", 3),
            ("w;a;b;c;d;park", 2),
            ("consumer;x;y", 1),
        ],
    );
    let mut lines = trunks(&p);
    lines.sort();
    assert_eq!(
        lines,
        [
            "consumer;x;y 1",
            "w;d [+3 callers];park 2",
            "w;d [+3 callers];task;push 3"
        ]
    );
}

#[test]
fn labels_fit_their_frames() {
    let width = |chars: usize| chars as f64 * FONT_SIZE * CHAR_EM;
    let name = "tokio::runtime::task::harness::Harness<T,S>::poll";
    assert_eq!(fit(name, 1000.0), name);
    assert_eq!(fit(name, width(20)), "Harness::poll");
    assert_eq!(fit(name, width(6)), "poll");
    assert_eq!(
        fit("tokio::sync::batch_semaphore::Semaphore::acquire", width(6)),
        "..uire"
    );
    assert_eq!(fit("poll", width(2)), "");
    assert_eq!(fit("a::b::run [+17 callers]", width(12)), "b::run [+..]");
    assert_eq!(frame_name("f(x) (1,234 samples, 12.50%)"), "f(x)");
    assert_eq!(frame_name("all (5 samples, 100%)"), "");
}

/// WCAG contrast between two relative luminances.
fn contrast(a: f64, b: f64) -> f64 {
    (a.max(b) + 0.05) / (a.min(b) + 0.05)
}

#[test]
fn frame_fills_stand_out_on_every_theme_and_keep_labels_readable() {
    // The pages behind a figure: mdBook's light, rust, coal, navy and ayu.
    let pages = [
        (0xff, 0xff, 0xff),
        (0xe1, 0xe1, 0xdb),
        (0x14, 0x16, 0x17),
        (0x16, 0x19, 0x23),
        (0x0f, 0x14, 0x19),
    ];
    let names = [
        "tokio::runtime::scheduler::multi_thread::worker::run",
        "tokio::sync::batch_semaphore::Semaphore::acquire",
        "syscall",
        "__libc_write",
        "__memcpy_avx_unaligned_erms",
        "malloc",
        "app::consume",
        "app::drain::{{closure}}",
    ];
    let parse = |hex: &str| {
        let v = u32::from_str_radix(hex.trim_start_matches('#'), 16).unwrap();
        ((v >> 16) as u8, (v >> 8) as u8, v as u8)
    };
    let label = luminance(parse(LABEL));
    for name in names
        .iter()
        .map(|n| n.to_string())
        .chain((0..40).map(|i| format!("f{i}")))
    {
        let l = luminance(parse(&fill(&name)));
        assert!(
            contrast(l, label) >= 4.5,
            "{name}: label contrast {}",
            contrast(l, label)
        );
        for page in pages {
            let k = contrast(l, luminance(page));
            assert!(k >= 3.0, "{name} on {page:?}: contrast {k:.2}");
        }
    }
}

#[test]
fn every_frame_has_a_tooltip_with_its_samples() {
    let p = profile("d", &[("w;app::a;app::b", 3), ("w;app::c", 1)]);
    let blocks = exhibit(&[&p], "c").unwrap();
    let Block::Drawn(d) = &blocks[0] else {
        panic!()
    };
    let doc = roxmltree::Document::parse(&d.svg).unwrap();
    let frames: Vec<_> = doc
        .descendants()
        .filter(|n| n.has_tag_name("g") && n.attribute("class") == Some("frame"))
        .collect();
    assert!(frames.len() >= 4, "{}", d.svg);
    for g in frames {
        let tip = g
            .children()
            .find(|n| n.attribute("class") == Some("tip"))
            .expect("a hover target");
        let title = tip.children().find(|n| n.has_tag_name("title")).unwrap();
        let text = title.text().unwrap();
        assert!(
            text.contains(" samples (") && text.ends_with("%)"),
            "{text}"
        );
    }
    assert!(d.svg.contains("app::b: 3 samples (75"), "{}", d.svg);
}
