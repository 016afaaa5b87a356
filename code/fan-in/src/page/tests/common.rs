//! What more than one test file needs: results made up point by point.
use harness_core::Estimate;
use harness_measure::timing::Timing;

use fan_in::placement::Placement;
use fan_in::run::FanInData;
use fan_in::sink::SinkKind;
use fan_in::sweep::Measured;
use fan_in::Design;

/// A timing of 10 samples whose median and mean are `t`: half the samples
/// at each end of its interval, so a bootstrapped ratio's interval reaches
/// the crosswise bounds.
pub fn timing(t: Estimate) -> Timing {
    Timing {
        mean: t,
        median: t,
        samples: 10,
        iterations: 10,
        per_sample_ns: [[t.lower_ns; 5], [t.upper_ns; 5]].concat(),
        repeats: Vec::new(),
    }
}

/// Every point at `workers` (each producing `per_worker` messages), timed
/// by `time(design, workers)`.
pub fn synthetic(
    workers: &[usize],
    per_worker: usize,
    time: impl Fn(Design, usize) -> Estimate,
) -> FanInData {
    let workers = workers.to_vec();
    let mut points = Vec::new();
    for sink in SinkKind::ALL {
        for design in Design::ALL {
            for &w in &workers {
                let t = time(design, w);
                points.push(Measured {
                    sink,
                    design,
                    workers: w,
                    timing: timing(t),
                    bursts: 20,
                    bytes_per_burst: (w * per_worker) as u64,
                    writes_per_burst: 1.0,
                });
            }
        }
    }
    FanInData {
        runtime_flavor: "multi-thread".into(),
        worker_threads: 2,
        per_worker,
        bounded_capacity: 1024,
        recv_many_limit: 1024,
        chunk_bytes: 64,
        crate_workers: Some(workers.clone()),
        memory_workers: Some(workers.clone()),
        write_bytes: 65536,
        workers,
        passes: 1,
        decisive_extra: 0,
        samples_per_point: 10,
        // No record: the checks read the shape alone, as for runs from
        // before the record.
        schedules: Vec::new(),
        points,
        placement: Placement::Pinned,
        free_points: Vec::new(),
        method: Default::default(),
    }
}
