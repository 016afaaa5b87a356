// Temporary probe: the method experiments of a profile, printed.
use fan_in::method::{plan, run};
use fan_in::placement::Placement;
use harness::{Lab, Profile, Progress};
fn main() {
    let profile = match std::env::args().nth(1).as_deref() { Some("full") => Profile::Full, Some("smoke") => Profile::Smoke, _ => Profile::Quick };
    let lab = Lab::new(profile, Progress::hidden("probe")).unwrap();
    let t = std::time::Instant::now();
    let p = plan(profile);
    let d = run(&lab, &p, Placement::Pinned).unwrap_or_else(|e| panic!("{e:#}"));
    eprintln!("method experiments took {:.1} s", t.elapsed().as_secs_f64());
    for l in &d.ladder {
        println!("L {:>5} {:<58} {:>18} med {:>10.1} us [{:.1} - {:.1}] mean {:>10.1} finished {:7.1} sink/burst {:8.2} writes {:8.1}", l.workers, l.step.label(), l.design.id(), l.timing.median.point_ns/1e3, l.timing.median.lower_ns/1e3, l.timing.median.upper_ns/1e3, l.timing.mean.point_ns/1e3, l.finished_per_iteration, l.arrived_per_iteration / l.bytes_due() as f64, l.writes_per_iteration);
    }
    for v in &d.varied {
        println!("V {:>5} {:<40} {:>18} med {:>10.1} us [{:.1} - {:.1}]", v.point.workers, v.variation.id(), v.point.design.id(), v.point.timing.median.point_ns/1e3, v.point.timing.median.lower_ns/1e3, v.point.timing.median.upper_ns/1e3);
    }
    for c in &d.counted {
        let n = c.bursts.len() as f64;
        let mut ts: Vec<f64> = c.bursts.iter().map(|b| b.0).collect(); ts.sort_by(f64::total_cmp);
        let s = |f: fn(&fan_in::cause::Counts) -> u64| c.bursts.iter().map(|b| f(&b.1) as f64).sum::<f64>();
        println!("C {:?} {:?} S={} {:>18} med {:>10.1} us turns {:8.1} waits {:6.1} meanwait {:8.1} us pushes waited {:5.1}% yields {:7.1} ctx {:7.1}", c.threads, c.consumer, c.per_worker, c.design.id(), ts[ts.len()/2]/1e3, s(|k| k.consumer_turns)/n, s(|k| k.consumer_waits)/n, s(|k| k.consumer_wait_ns)/s(|k| k.consumer_waits).max(1.0)/1e3, 100.0*s(|k| k.pushes_waited)/s(|k| k.pushes), s(|k| k.budget_yields)/n, s(|k| k.context_switches.unwrap_or(0))/n);
    }
}
