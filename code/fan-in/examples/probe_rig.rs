// Temporary probe: rig jobs with runtime shapes and consumer placements.
use fan_in::experiment::{ConsumerOn, Job, Rig, Threads};
use fan_in::placement::Placement;
use fan_in::sink::SinkKind;
use fan_in::sweep::time_job;
use fan_in::Design;
use harness::timing::Sampling;
use harness::{Lab, Profile, Progress};

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let ws: Vec<usize> = args[1].split(',').map(|x| x.parse().unwrap()).collect();
    let threads = match args[2].as_str() { "core" => Threads::PerCore, "one" => Threads::OneWorker, "current" => Threads::CurrentThread, _ => panic!() };
    let placement = if args.get(3).map(|s| s.as_str()) == Some("free") { Placement::Free } else { Placement::Pinned };
    let per_worker: usize = args.get(4).map(|x| x.parse().unwrap()).unwrap_or(64);
    let designs: Vec<&str> = args.get(5).map(|s| s.split(',').collect()).unwrap_or(vec!["std","tokio"]);
    let lab = Lab::new(Profile::Smoke, Progress::hidden("probe")).unwrap();
    let mut rig = Rig::with(placement, threads).unwrap();
    let sampling = Sampling::new(10, 20, 200).flat();
    let mut n = 0;
    for &w in &ws {
        for d in &designs {
            let design = match *d { "std" => Design::StdMutexSwap, "tokio" => Design::TokioMutexSwap, "mpsc" => Design::MpscUnbounded, "many" => Design::MpscRecvMany, _ => panic!() };
            for consumer in [ConsumerOn::Worker, ConsumerOn::BlockOnThread] {
                if consumer == ConsumerOn::BlockOnThread && !matches!(design, Design::StdMutexSwap | Design::TokioMutexSwap) { continue; }
                if consumer == ConsumerOn::BlockOnThread && threads == Threads::CurrentThread { continue; }
                n += 1;
                let job = Job { design, kind: SinkKind::Tcp, workers: w, per_worker, consumer, counted: None };
                let m = time_job(&mut rig, &lab, sampling, job, &format!("p{n}")).unwrap_or_else(|e| panic!("{e:#}"));
                println!("{:>5} {:?} {:?} {:>18} {:>14}: median {:>10.1} us mean {:>10.1} us writes/burst {:8.1}", w, threads, placement, design.id(), consumer.label().split(' ').last().unwrap(), m.timing.median.point_ns/1e3, m.timing.mean.point_ns/1e3, m.writes_per_burst);
            }
        }
    }
    rig.finish().unwrap();
}
