use std::sync::Arc;
use fan_in::cause::Counters;
use fan_in::experiment::{ConsumerOn, Job, Rig, Threads};
use fan_in::placement::Placement;
use fan_in::sink::SinkKind;
use fan_in::Design;
fn main() {
    let args: Vec<String> = std::env::args().collect();
    let w: usize = args[1].parse().unwrap();
    let n: usize = args.get(2).map(|x| x.parse().unwrap()).unwrap_or(20);
    for threads in [Threads::PerCore, Threads::OneWorker] {
        let mut rig = Rig::with(Placement::Pinned, threads).unwrap();
        for design in [Design::StdMutexSwap, Design::TokioMutexSwap] {
            for consumer in [ConsumerOn::Worker, ConsumerOn::BlockOnThread] {
                let counters = Arc::new(Counters::default());
                let mut times = vec![]; let mut sums = [0f64; 6];
                for _ in 0..n {
                    let b = rig.run_job(Job { design, kind: SinkKind::Tcp, workers: w, per_worker: 64, consumer, counted: Some(counters.clone()) }).unwrap();
                    let c = b.counts.unwrap();
                    times.push(b.elapsed.as_secs_f64()*1e6);
                    for (s, v) in sums.iter_mut().zip([c.consumer_turns, c.consumer_waits, c.consumer_wait_ns, c.pushes, c.pushes_waited, c.context_switches.unwrap_or(0)]) { *s += v as f64 / n as f64; }
                }
                times.sort_by(f64::total_cmp);
                println!("{:?} {:>16} {:>8?}: median {:>9.1} us | turns {:>8.1} waits {:>6.1} mean wait {:>8.1} us | pushes waited {:>5.1} % | ctx sw {:>7.1}",
                    threads, design.id(), consumer, times[n/2], sums[0], sums[1], sums[2]/sums[1].max(1.0)/1e3, 100.0*sums[4]/sums[3], sums[5]);
            }
        }
        rig.finish().unwrap();
    }
}
