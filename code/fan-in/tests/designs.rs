//! Every design delivers exactly what its producers sent, and finishes when
//! they do. A hang fails the test with a message instead of stalling CI.
use harness::conformance::within;
use std::time::Duration;

use fan_in::burst::Tally;
use fan_in::experiment::{runtime, Rig};
use fan_in::placement::Placement;
use fan_in::sink::{Sink, SinkKind, TcpSinkServer};
use fan_in::{Design, PER_WORKER};

const LIMIT: Duration = Duration::from_secs(60);

#[test]
fn every_design_delivers_every_byte_with_the_right_checksum() {
    within(LIMIT, "the delivery check", || {
        for placement in [Placement::Pinned, Placement::Free] {
            let mut rig = Rig::new(placement).unwrap();
            for kind in SinkKind::ALL {
                for design in Design::ALL {
                    for workers in [1, 3, 17, 64] {
                        let burst = rig
                            .burst(design, kind, workers)
                            .unwrap_or_else(|e| panic!("{e:#}"));
                        assert_eq!(burst.tally.bytes, (workers * PER_WORKER) as u64);
                        assert_eq!(
                            burst.tally,
                            Tally::expected(workers, PER_WORKER),
                            "{} / {}",
                            kind.label(),
                            design.id()
                        );
                        assert!(burst.writes >= 1, "{} wrote nothing", design.id());
                    }
                }
            }
            assert_eq!(rig.placement(), placement);
            rig.finish().unwrap();
        }
    });
}

/// A pinned rig puts each runtime worker on one CPU of its own and leaves
/// the calling thread where it was (the harness checks the cores between
/// bursts from that thread, and must not find it pinned).
#[cfg(target_os = "linux")]
#[test]
fn a_pinned_rig_pins_its_workers_and_hands_the_driver_back() {
    use fan_in::placement::current_cpus;
    within(LIMIT, "the pinning check", || {
        let allowed = current_cpus().unwrap();
        let mut rig = Rig::new(Placement::Pinned).unwrap();
        assert_eq!(rig.placement(), Placement::Pinned);
        let burst = rig.burst(Design::StdMutexSwap, SinkKind::Tcp, 8).unwrap();
        assert_eq!(burst.tally, Tally::expected(8, PER_WORKER));
        assert_eq!(
            current_cpus().unwrap(),
            allowed,
            "the calling thread was pinned"
        );
        // Every runtime worker that runs a task sees exactly one CPU.
        let seen = rig.run(async {
            let tasks: Vec<_> = (0..64)
                .map(|_| tokio::spawn(async { current_cpus().unwrap() }))
                .collect();
            let mut seen = Vec::new();
            for t in tasks {
                seen.push(t.await.unwrap());
            }
            seen
        });
        for cpus in &seen {
            assert_eq!(cpus.len(), 1, "a worker ran on {cpus:?}");
            assert!(allowed.contains(&cpus[0]));
        }
        rig.finish().unwrap();
        // A free rig leaves its workers the process's CPUs.
        let rig = Rig::new(Placement::Free).unwrap();
        let cpus = rig.run(async {
            tokio::spawn(async { current_cpus().unwrap() })
                .await
                .unwrap()
        });
        assert_eq!(cpus, allowed);
        rig.finish().unwrap();
    });
}

#[test]
fn the_consumer_finishes_when_the_producers_do() {
    within(LIMIT, "the bursts", || {
        let rt = runtime().unwrap();
        rt.block_on(async {
            for design in Design::ALL {
                for workers in [1, 2, 256] {
                    let mut sink = tokio::time::timeout(
                        Duration::from_secs(20),
                        design.burst(workers, PER_WORKER, Sink::memory()),
                    )
                    .await
                    .unwrap_or_else(|_| {
                        panic!("{} with {workers} workers never returned", design.id())
                    })
                    .unwrap();
                    let tally = sink.take_memory_tally().unwrap();
                    assert_eq!(
                        tally,
                        Tally::expected(workers, PER_WORKER),
                        "{}",
                        design.id()
                    );
                }
            }
        });
    });
}

#[test]
fn only_the_right_multiset_of_bytes_passes_the_checksum() {
    let expected = Tally::expected(4, PER_WORKER);
    let mut sent: Vec<u8> = (0..4)
        .flat_map(|w| (0..PER_WORKER).map(move |i| fan_in::burst::message(w, i)))
        .collect();
    sent.reverse();
    let mut t = Tally::default();
    t.add(&sent);
    assert_eq!(t, expected, "order must not matter");
    // One byte swapped for another of a different worker: same length, caught.
    sent[0] = sent[0].wrapping_add(1);
    let mut t = Tally::default();
    t.add(&sent);
    assert_ne!(t, expected);
}

#[test]
fn the_tcp_sink_rejects_bytes_nobody_expected() {
    within(LIMIT, "the stray-byte check", || {
        let server = TcpSinkServer::start(None).unwrap();
        let rt = runtime().unwrap();
        let mut sink = rt.block_on(server.connect()).unwrap();
        let report = server.expect(3).unwrap();
        // A consumer that resends (as the published one did) writes more than expected.
        rt.block_on(sink.write_all(&[1, 2, 3, 4, 5])).unwrap();
        let tally = rt.block_on(report).unwrap().unwrap();
        assert_eq!(tally.bytes, 3);
        drop(sink);
        let err = server.shutdown().unwrap_err();
        assert!(format!("{err:#}").contains("no burst expected"), "{err:#}");
    });
}

#[test]
fn a_short_delivery_is_an_error_not_a_measurement() {
    within(LIMIT, "the short-delivery check", || {
        let server = TcpSinkServer::start(None).unwrap();
        let rt = runtime().unwrap();
        let mut sink = rt.block_on(server.connect()).unwrap();
        let report = server.expect(10).unwrap();
        rt.block_on(sink.write_all(&[1, 2, 3])).unwrap();
        drop(sink);
        let outcome = rt.block_on(report).unwrap();
        assert!(outcome.is_err(), "the sink accepted 3 of 10 bytes");
        assert!(server.shutdown().is_err());
    });
}
