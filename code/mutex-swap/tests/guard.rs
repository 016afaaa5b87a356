//! The drop-before-await form is `Send`: tokio::spawn takes it and it runs.
use std::sync::{Arc, Mutex};
use std::time::Duration;

use mutex_swap::guard_across_await::push_then_yield;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn drop_before_await_spawns_and_pushes() {
    let buffer = Arc::new(Mutex::new(Vec::new()));
    let task = tokio::spawn(push_then_yield(Arc::clone(&buffer), 7));
    tokio::time::timeout(Duration::from_secs(10), task)
        .await
        .expect("the spawned task did not finish in 10 s")
        .expect("the spawned task panicked");
    assert_eq!(*buffer.lock().unwrap(), vec![7]);
}

#[test]
fn the_rejected_form_is_the_file_the_doctest_includes() {
    // The compile_fail doctest in lib.rs includes this file; if it stopped
    // holding a guard across an await, the doctest would fail for the wrong reason
    // or pass vacuously. Keep the two honest.
    let src = include_str!("rejected/guard_held_across_await.rs");
    let body = src
        .split("ANCHOR: rejected")
        .nth(1)
        .and_then(|s| s.split("ANCHOR_END: rejected").next())
        .expect("the rejected anchor");
    let lock = body.find(".lock()").expect("takes a lock");
    let await_ = body.find(".await").expect("awaits");
    assert!(lock < await_, "the lock must be taken before the await");
    assert!(
        !body[lock..await_].contains("drop("),
        "the guard must still be alive at the await"
    );
    assert!(body.contains("tokio::spawn"), "it must be spawned");
}
