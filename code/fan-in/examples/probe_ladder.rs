// Temporary probe: every ladder step for a design at some worker counts.
use fan_in::experiment::Rig;
use fan_in::placement::Placement;
use fan_in::published::ladder::Step;
use fan_in::published::rounds::time_step;
use fan_in::Design;
use harness::timing::Sampling;
use harness::{Lab, Profile, Progress};

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let design = match args[1].as_str() {
        "std" => Design::StdMutexSwap,
        "tokio" => Design::TokioMutexSwap,
        "mpsc" => Design::MpscUnbounded,
        "many" => Design::MpscRecvMany,
        _ => panic!(),
    };
    let ws: Vec<usize> = args[2].split(',').map(|x| x.parse().unwrap()).collect();
    let steps: Vec<Step> = match args.get(3) {
        Some(s) => s.split(',').map(|i| Step::ALL[i.parse::<usize>().unwrap()]).collect(),
        None => Step::ALL.to_vec(),
    };
    let lab = Lab::new(Profile::Smoke, Progress::hidden("probe")).unwrap();
    let mut rig = Rig::new(Placement::Pinned).unwrap();
    let sampling = Sampling::new(10, 20, 200).flat();
    for &w in &ws {
        for &step in &steps {
            if !step.applies_to(design) { continue; }
            let p = time_step(&lab, &mut rig, sampling, (design, step, w)).unwrap_or_else(|e| panic!("{e:#}"));
            println!("{:>5} {:55} median {:>12.1} us  mean {:>12.1} us  finished/it {:8.1}  arrived/it {:12.0}  due {:9}  writes/it {:10.1}  iters {}",
                w, step.label(), p.timing.median.point_ns/1e3, p.timing.mean.point_ns/1e3, p.finished_per_iteration, p.arrived_per_iteration, p.bytes_due(), p.writes_per_iteration, p.iterations);
        }
    }
    rig.finish().unwrap();
}
