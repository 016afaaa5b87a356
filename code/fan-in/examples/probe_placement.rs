// Temporary probe: tokio vs std swap with the consumer on the block_on thread or a worker.
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Instant;

use fan_in::burst::{message, LiveProducers};

static PASSES: AtomicU64 = AtomicU64::new(0);
static WAITS: AtomicU64 = AtomicU64::new(0);
static PRODUCER_WAITS: AtomicU64 = AtomicU64::new(0);

fn ctx() -> (u64, u64) {
    let mut v = 0;
    let mut n = 0;
    for e in std::fs::read_dir("/proc/self/task").unwrap() {
        let s = std::fs::read_to_string(e.unwrap().path().join("status")).unwrap_or_default();
        for l in s.lines() {
            if let Some(x) = l.strip_prefix("voluntary_ctxt_switches:") { v += x.trim().parse::<u64>().unwrap(); }
            if let Some(x) = l.strip_prefix("nonvoluntary_ctxt_switches:") { n += x.trim().parse::<u64>().unwrap(); }
        }
    }
    (v, n)
}

async fn tokio_consumer(inbox: Arc<tokio::sync::Mutex<Vec<u8>>>, live: LiveProducers) -> u64 {
    let mut batch = Vec::new();
    let mut bytes = 0u64;
    loop {
        let finished = live.all_done();
        let mut g = match inbox.try_lock() { Ok(g) => g, Err(_) => { WAITS.fetch_add(1, Ordering::Relaxed); inbox.lock().await } };
        std::mem::swap(&mut batch, &mut *g);
        drop(g);
        PASSES.fetch_add(1, Ordering::Relaxed);
        if !batch.is_empty() { bytes += batch.len() as u64; batch.clear(); }
        else if finished { return bytes; }
        else { tokio::task::yield_now().await; }
    }
}
async fn std_consumer(inbox: Arc<std::sync::Mutex<Vec<u8>>>, live: LiveProducers) -> u64 {
    let mut batch = Vec::new();
    let mut bytes = 0u64;
    loop {
        let finished = live.all_done();
        std::mem::swap(&mut batch, &mut *inbox.lock().unwrap());
        PASSES.fetch_add(1, Ordering::Relaxed);
        if !batch.is_empty() { bytes += batch.len() as u64; batch.clear(); }
        else if finished { return bytes; }
        else { tokio::task::yield_now().await; }
    }
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let kind = args[1].clone(); // tokio|std
    let place = args[2].clone(); // blockon|worker
    let w: usize = args[3].parse().unwrap();
    let s: usize = args.get(4).map(|x| x.parse().unwrap()).unwrap_or(64);
    let threads: usize = args.get(5).map(|x| x.parse().unwrap()).unwrap_or(2);
    let pin = std::env::var("PIN").is_ok();
    let pins = fan_in::placement::Pins::for_this_thread().unwrap();
    if pin { assert!(fan_in::placement::pin_current(&[pins.first()])); }
    let mut b = tokio::runtime::Builder::new_multi_thread(); b.worker_threads(threads).enable_all();
    if pin { b.on_thread_start(pins.worker_hook(threads)); }
    let rt = b.build().unwrap();
    let reps = 30;
    let mut times = vec![];
    let (v0, n0) = ctx();
    PASSES.store(0, Ordering::Relaxed); WAITS.store(0, Ordering::Relaxed); PRODUCER_WAITS.store(0, Ordering::Relaxed);
    for _ in 0..reps {
        let kind = kind.clone(); let place = place.clone();
        let t = rt.block_on(async move {
            let start = Instant::now();
            let live = LiveProducers::new(w);
            let bytes = if kind == "tokio" {
                let inbox = Arc::new(tokio::sync::Mutex::new(Vec::new()));
                let c = tokio_consumer(inbox.clone(), live.clone());
                let sp = { let inbox = inbox.clone(); let live = live.clone(); tokio::spawn(async move { for wi in 0..w { let inbox = inbox.clone(); let d = live.enlist(); tokio::spawn(async move { let _d = d; for i in 0..s { let mut g = match inbox.try_lock() { Ok(g) => g, Err(_) => { PRODUCER_WAITS.fetch_add(1, Ordering::Relaxed); inbox.lock().await } }; g.push(message(wi, i)); } }); } }) };
                let b = if place == "blockon" { let local = tokio::task::LocalSet::new(); local.run_until(c).await } else { tokio::spawn(c).await.unwrap() };
                sp.await.unwrap(); b
            } else {
                let inbox = Arc::new(std::sync::Mutex::new(Vec::new()));
                let c = std_consumer(inbox.clone(), live.clone());
                let sp = { let inbox = inbox.clone(); let live = live.clone(); tokio::spawn(async move { for wi in 0..w { let inbox = inbox.clone(); let d = live.enlist(); tokio::spawn(async move { let _d = d; for i in 0..s { inbox.lock().unwrap().push(message(wi, i)); } }); } }) };
                let b = if place == "blockon" { let local = tokio::task::LocalSet::new(); local.run_until(c).await } else { tokio::spawn(c).await.unwrap() };
                sp.await.unwrap(); b
            };
            assert_eq!(bytes, (w * s) as u64);
            start.elapsed()
        });
        times.push(t.as_secs_f64() * 1e6);
    }
    let (v1, n1) = ctx();
    times.sort_by(f64::total_cmp);
    let r = reps as f64;
    println!("{kind:5} {place:7} w={w:5} s={s} thr={threads}: median {:9.1} us  passes/burst {:8.1}  consumer waits/burst {:8.1} producer waits/burst {:9.1} vcsw/burst {:7.1} ivcsw/burst {:6.1}",
        times[reps/2], PASSES.load(Ordering::Relaxed) as f64 / r, WAITS.load(Ordering::Relaxed) as f64 / r, PRODUCER_WAITS.load(Ordering::Relaxed) as f64 / r, (v1-v0) as f64 / r, (n1-n0) as f64/r);
}
