//! The book's design against the std swap and the floor, interleaved in one
//! process: each round times every design at every count for `budget` ms
//! (order rotating), and each ratio is taken round by round, so a drift of
//! the machine's speed hits both sides of it. Prints the median ratio over
//! the rounds and its range. Not the book's measurement (that is the
//! sweep's), a quick check while working on the design:
//! `cargo run --release -p fan-in --example own_design_probe -- 64,256,8192 8 40 [memory]`
use std::time::{Duration, Instant};

use fan_in::experiment::Rig;
use fan_in::placement::Placement;
use fan_in::sink::SinkKind;
use fan_in::Design;

fn median(v: &mut [f64]) -> f64 {
    v.sort_by(|a, b| a.partial_cmp(b).unwrap());
    let n = v.len();
    if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    }
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let counts: Vec<usize> = args
        .get(1)
        .map(|s| s.split(',').map(|x| x.parse().unwrap()).collect())
        .unwrap_or(vec![64, 256, 1024, 8192]);
    let rounds: usize = args.get(2).map_or(6, |s| s.parse().unwrap());
    let budget = Duration::from_millis(args.get(3).map_or(40, |s| s.parse().unwrap()));
    let kind = if args.get(4).map(String::as_str) == Some("memory") {
        SinkKind::Memory
    } else {
        SinkKind::Tcp
    };
    let configs: Vec<(&str, Design)> = vec![
        ("floor", Design::Floor),
        ("std swap", Design::StdMutexSwap),
        ("worker chunks", Design::WorkerChunks),
    ];
    let mut rig = Rig::new(Placement::Pinned).unwrap();
    // per count, per config, per round: median ns and writes
    let mut med = vec![vec![Vec::new(); configs.len()]; counts.len()];
    let mut writes = vec![vec![0f64; configs.len()]; counts.len()];
    for round in 0..rounds {
        for (ci, &w) in counts.iter().enumerate() {
            let n = configs.len();
            for k in 0..n {
                let i = (k + round) % n;
                let design = configs[i].1;
                // warm-up
                for _ in 0..3 {
                    rig.burst(design, kind, w).unwrap();
                }
                let start = Instant::now();
                let mut times = Vec::new();
                let mut wr = 0u64;
                while times.len() < 5 || start.elapsed() < budget {
                    let b = rig.burst(design, kind, w).unwrap();
                    times.push(b.elapsed.as_nanos() as f64);
                    wr += b.writes;
                }
                writes[ci][i] += wr as f64 / times.len() as f64 / rounds as f64;
                med[ci][i].push(median(&mut times));
            }
        }
    }
    rig.finish().unwrap();
    for (ci, &w) in counts.iter().enumerate() {
        println!("== {w} workers ({kind:?})");
        for (i, (name, ..)) in configs.iter().enumerate() {
            let mut m = med[ci][i].clone();
            let mut r_floor: Vec<f64> =
                (0..rounds).map(|r| med[ci][i][r] / med[ci][0][r]).collect();
            let mut r_swap: Vec<f64> = (0..rounds).map(|r| med[ci][1][r] / med[ci][i][r]).collect();
            let (rf, rs) = (median(&mut r_floor), median(&mut r_swap));
            println!(
                "{name:>14}: {:>10.1} µs  writes {:>6.1}  ÷floor {rf:.3} [{:.3}-{:.3}]  swap÷ {rs:.3} [{:.3}-{:.3}]",
                median(&mut m) / 1e3,
                writes[ci][i],
                r_floor[0],
                r_floor[rounds - 1],
                r_swap[0],
                r_swap[rounds - 1]
            );
        }
    }
}
