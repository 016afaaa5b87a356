use std::sync::Arc;
use std::time::Instant;
use fan_in::burst::LiveProducers;
use fan_in::sink::Sink;
use fan_in::tokio_mutex_swap::{consume, produce, Inbox};
fn main() {
    let args: Vec<String> = std::env::args().collect();
    let w: usize = args[1].parse().unwrap();
    let s: usize = args[2].parse().unwrap();
    let unconstrained = args.get(3).is_some();
    let pins = fan_in::placement::Pins::for_this_thread().unwrap();
    let mut b = tokio::runtime::Builder::new_multi_thread(); b.worker_threads(2).enable_all();
    b.on_thread_start(pins.worker_hook(2));
    let rt = b.build().unwrap();
    let mut times = vec![];
    for _ in 0..40 {
        let t = rt.block_on(rt.spawn(async move {
            let start = Instant::now();
            let inbox = Inbox::default(); let live = LiveProducers::new(w);
            let c = tokio::spawn(consume(inbox.clone(), live.clone(), Sink::memory()));
            for i in 0..w {
                let p = produce(Arc::clone(&inbox), live.enlist(), i, s);
                if unconstrained { tokio::spawn(tokio::task::unconstrained(p)); } else { tokio::spawn(p); }
            }
            let mut sink = c.await.unwrap().unwrap();
            assert_eq!(sink.take_memory_tally().unwrap().bytes, (w*s) as u64);
            start.elapsed()
        })).unwrap();
        times.push(t.as_secs_f64()*1e6);
    }
    times.sort_by(f64::total_cmp);
    println!("w={w} s={s} unconstrained={unconstrained}: median {:.1} us", times[20]);
}
