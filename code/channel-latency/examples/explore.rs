use channel_latency::{
    backpressure, backpressure_ladder as bl, drivers::Runtimes, methods, BOUNDS, PAYLOAD_SIZES,
    TASKS,
};
use harness::Profile;
use std::time::Instant;

fn main() {
    let profile = match std::env::args().nth(1).as_deref() {
        Some("full") => Profile::Full,
        Some("smoke") => Profile::Smoke,
        _ => Profile::Quick,
    };
    let what = std::env::args().nth(2).unwrap_or_default();
    if what != "ladder" {
        let rts = Runtimes::new().unwrap();
        let (w, p) = methods::windows(profile);
        let t0 = Instant::now();
        let mut parts = vec![vec![]; PAYLOAD_SIZES.len() * methods::METHODS.len()];
        for win in 0..w {
            for (si, b) in PAYLOAD_SIZES.into_iter().enumerate() {
                for (i, m) in methods::METHODS.iter().enumerate() {
                    let t = Instant::now();
                    parts[si * methods::METHODS.len() + i]
                        .push(methods::window(m, b, win, p, &rts).unwrap());
                    if win == 0 && b >= 16384 {
                        eprintln!("{} {} {:.2}s", m.id, b, t.elapsed().as_secs_f64());
                    }
                }
            }
        }
        eprintln!("methods: {:.1} s", t0.elapsed().as_secs_f64());
        for (k, part) in parts.into_iter().enumerate() {
            let pt = methods::MethodPoint::pooled(part).unwrap();
            let r = pt.ratio(harness::stats::Statistic::Median).unwrap();
            println!(
                "{:24} {:6} {:.3} [{:.3} {:.3}] t {:.1}us faults {:.1}/{:.1}",
                pt.method,
                pt.bytes,
                r.point_ns,
                r.lower_ns,
                r.upper_ns,
                pt.tokio.median.point_ns / 1e3,
                pt.tokio_faults_per_burst,
                pt.crossbeam_faults_per_burst
            );
            let _ = k;
        }
    }
    if what != "methods" {
        let t0 = Instant::now();
        for rep in 0..bl::REPEATS {
            for t in TASKS {
                for b in BOUNDS {
                    for r in bl::RUNGS {
                        let a = bl::run::<backpressure::Tokio>(r, profile, t, b, rep).unwrap();
                        let k = bl::run::<backpressure::KanalAsync>(r, profile, t, b, rep).unwrap();
                        if rep == 0 {
                            println!("{:10} {t:5} {b:5} tokio bs mean {:9.0} q p50 {:8} | kanal bs mean {:9.0} q p50 {:8}", r.id, a.run.before_send.mean_ns, a.run.enqueue_to_dequeue.p50_ns, k.run.before_send.mean_ns, k.run.enqueue_to_dequeue.p50_ns);
                        }
                    }
                }
            }
        }
        eprintln!("ladder: {:.1} s", t0.elapsed().as_secs_f64());
    }
}
