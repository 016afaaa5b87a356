//! The reconstruction of the published bench and the ladder: every step
//! does the work its stop point promises, checked at the sink; the
//! published stop points really end before the work does; the consumer can
//! run on the driver's thread; the counted swaps count every push.
use harness::conformance::within;
use std::sync::Arc;
use std::time::Duration;

use fan_in::burst::Tally;
use fan_in::cause::Counters;
use fan_in::experiment::{ConsumerOn, Job, Rig, Threads};
use fan_in::placement::Placement;
use fan_in::published::ladder::{Step, Stop, DESIGNS};
use fan_in::published::rounds::run_unmeasured;
use fan_in::sink::SinkKind;
use fan_in::Design;

const LIMIT: Duration = Duration::from_secs(120);

#[test]
fn every_step_on_the_published_driver_delivers_what_its_stop_point_promises() {
    within(LIMIT, "the published-driver steps", || {
        let steps = Step::ALL.iter().filter(|s| !s.recipe().on_rig);
        for &step in steps {
            let mut designs = DESIGNS.to_vec();
            if step == Step::AsPublished {
                designs.push(Design::MpscRecvMany);
            }
            for design in designs.into_iter().filter(|&d| step.applies_to(d)) {
                for workers in [1, 5] {
                    // `run_unmeasured` fails unless what the consumers'
                    // writes handed the kernel arrived, byte for byte, and
                    // (stops at the sink) every checksum matched.
                    let work = run_unmeasured(design, step, workers, 4)
                        .unwrap_or_else(|e| panic!("{e:#}"));
                    let recipe = step.recipe();
                    let due = (workers * recipe.per_worker) as f64;
                    assert_eq!(work.iterations, 4);
                    match recipe.stop {
                        Stop::SinkHasAll => {
                            assert!(work.checksum_checked);
                            assert_eq!(work.arrived_per_iteration, due, "{step:?} {design:?}");
                            assert_eq!(work.finished_per_iteration, workers as f64);
                        }
                        Stop::Published => {
                            assert!(!work.checksum_checked);
                            assert!(work.finished_per_iteration >= 1.0);
                            if matches!(design, Design::MpscUnbounded | Design::MpscRecvMany) {
                                assert_eq!(work.finished_per_iteration, workers as f64);
                            }
                        }
                    }
                }
            }
        }
    });
}

#[test]
fn the_published_stop_points_end_before_the_work_does() {
    within(LIMIT, "the published stop points", || {
        // The swap's: the first producer to finish. 4,096 producers of a
        // thousand pushes take far longer than one producer's thousand, so
        // most are cancelled unstarted. (From step 1 the consumer yields
        // between passes, so the stop is seen as soon as it comes.)
        let workers = 4096;
        let swap = run_unmeasured(Design::StdMutexSwap, Step::BufferCleared, workers, 3)
            .unwrap_or_else(|e| panic!("{e:#}"));
        assert!(
            swap.finished_per_iteration < workers as f64 / 2.0,
            "{} of {workers} producers finished before the swap's stop point",
            swap.finished_per_iteration
        );
        assert!(swap.arrived_per_iteration < (workers * 1000) as f64);
        // The mpsc inbox's: every message queued, the consumer then aborted
        // with most of its one-byte writes still to make.
        let workers = 256;
        let mpsc = run_unmeasured(Design::MpscUnbounded, Step::AsPublished, workers, 3)
            .unwrap_or_else(|e| panic!("{e:#}"));
        assert_eq!(mpsc.finished_per_iteration, workers as f64);
        assert!(
            mpsc.arrived_per_iteration < (workers * 1000) as f64 / 2.0,
            "{} of {} bytes arrived before the mpsc stop point",
            mpsc.arrived_per_iteration,
            workers * 1000
        );
        // And the published consumer resends: more arrives than one burst
        // sends once it has had a few passes.
        assert_eq!(Step::AsPublished.recipe().stop, Stop::Published);
        assert!(!Step::AsPublished.recipe().clears);
    });
}

#[test]
fn a_consumer_on_the_driver_thread_and_the_other_runtimes_deliver_every_byte() {
    within(LIMIT, "the rig variants", || {
        for threads in [Threads::PerCore, Threads::OneWorker, Threads::CurrentThread] {
            let mut rig = Rig::with(Placement::Pinned, threads).unwrap();
            assert_eq!(rig.threads(), threads);
            for design in [
                Design::StdMutexSwap,
                Design::TokioMutexSwap,
                Design::MpscUnbounded,
            ] {
                for consumer in [ConsumerOn::Worker, ConsumerOn::BlockOnThread] {
                    let swap = design != Design::MpscUnbounded;
                    if consumer == ConsumerOn::BlockOnThread
                        && (!swap || threads == Threads::CurrentThread)
                    {
                        continue;
                    }
                    for (workers, per_worker) in [(1, 64), (7, 1000)] {
                        let burst = rig
                            .run_job(Job {
                                design,
                                kind: SinkKind::Tcp,
                                workers,
                                per_worker,
                                consumer,
                                counted: None,
                            })
                            .unwrap_or_else(|e| {
                                panic!("{threads:?} {design:?} {consumer:?}: {e:#}")
                            });
                        assert_eq!(burst.tally, Tally::expected(workers, per_worker));
                    }
                }
            }
            rig.finish().unwrap();
        }
        // A design with no swap consumer cannot be moved to the driver.
        let mut rig = Rig::new(Placement::Free).unwrap();
        let err = rig
            .run_job(Job {
                design: Design::MpscBounded,
                kind: SinkKind::Tcp,
                workers: 2,
                per_worker: 64,
                consumer: ConsumerOn::BlockOnThread,
                counted: None,
            })
            .unwrap_err();
        assert!(format!("{err:#}").contains("no swap consumer"), "{err:#}");
    });
}

#[test]
fn the_counted_swaps_count_every_push_and_deliver_every_byte() {
    within(LIMIT, "the counted swaps", || {
        for threads in [Threads::PerCore, Threads::OneWorker] {
            let mut rig = Rig::with(Placement::Pinned, threads).unwrap();
            for design in [Design::StdMutexSwap, Design::TokioMutexSwap] {
                for consumer in [ConsumerOn::Worker, ConsumerOn::BlockOnThread] {
                    let counters = Arc::new(Counters::default());
                    let (workers, per_worker) = (9, 200);
                    let burst = rig
                        .run_job(Job {
                            design,
                            kind: SinkKind::Tcp,
                            workers,
                            per_worker,
                            consumer,
                            counted: Some(Arc::clone(&counters)),
                        })
                        .unwrap();
                    assert_eq!(burst.tally, Tally::expected(workers, per_worker));
                    let counts = burst.counts.expect("a counted burst");
                    assert_eq!(counts.pushes, (workers * per_worker) as u64);
                    assert!(counts.pushes_waited <= counts.pushes);
                    // The consumer swapped at least once, and ended on a
                    // pass that found nothing left.
                    assert!(counts.consumer_turns >= 2);
                    assert!(counts.consumer_waits <= counts.consumer_turns);
                    if design == Design::StdMutexSwap {
                        assert_eq!(counts.budget_yields, Some(0), "std's lock spends no budget");
                    }
                    // Taken: the counters start again from zero.
                    assert_eq!(counters.take().pushes, 0);
                }
            }
            rig.finish().unwrap();
        }
    });
}
