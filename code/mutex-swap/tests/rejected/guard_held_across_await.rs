// Not a test target: the crate's `compile_fail` doctest includes this file,
// and the page shows it. It must never compile.
use std::sync::{Arc, Mutex};

// ANCHOR: rejected
async fn push_then_yield(buffer: Arc<Mutex<Vec<u64>>>, message: u64) {
    let mut guard = buffer.lock().unwrap();
    guard.push(message);
    tokio::task::yield_now().await; // the guard is still alive here
}

fn spawn_it(buffer: Arc<Mutex<Vec<u64>>>) {
    tokio::spawn(push_then_yield(buffer, 1));
}
// ANCHOR_END: rejected

fn main() {
    spawn_it(Arc::new(Mutex::new(Vec::new())));
}
