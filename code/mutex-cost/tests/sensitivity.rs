//! The sensitivity grid's machinery: samples in fresh processes under each
//! allocator, each round validated, pooled per cell.
use mutex_cost::allocator::{Allocator, ALLOCATOR_ENV};
use mutex_cost::drivers::{Driver, Lock};
use mutex_cost::experiments::RuntimeUsed;
use mutex_cost::probe::{in_fresh_process, Request, BINARY_ENV};
use mutex_cost::sensitivity::{self, Grid, Setting};

fn request(allocator: Allocator, lock: Lock) -> Request {
    Request {
        allocator,
        lock,
        driver: Driver::LoopedInBlockOn,
        runtime: RuntimeUsed::multi_thread(2),
        futures: 1_000,
        rounds: 3,
    }
}

#[test]
fn a_sample_runs_in_a_fresh_process_under_each_allocator() {
    assert_eq!(ALLOCATOR_ENV, "MUTEX_COST_ALLOCATOR");
    // The test binary is not the chapter's: the probe finds the one cargo built.
    assert!(std::env::var_os(BINARY_ENV).is_none());
    for allocator in Allocator::ALL.into_iter().filter(|a| a.available()) {
        for lock in [Lock::Std, Lock::Tokio] {
            // The sample process refuses to run unless its allocator is the
            // one asked for, and every round unless it ends at 2 × futures.
            let costs = in_fresh_process(&request(allocator, lock))
                .unwrap_or_else(|e| panic!("{} {}: {e:#}", allocator.name(), lock.name()));
            assert_eq!(costs.len(), 3);
            assert!(costs.iter().all(|c| c.ns > 0), "{costs:?}");
        }
    }
}

#[test]
fn a_sample_that_fails_says_why() {
    let mut bad = request(Allocator::System, Lock::Std);
    bad.futures = 0;
    let err = format!("{:#}", in_fresh_process(&bad).unwrap_err());
    assert!(err.contains("nothing to run"), "{err}");
}

#[test]
fn the_grid_pools_each_cell_over_its_processes() {
    let grid = Grid {
        allocators: vec![Allocator::System, Allocator::Mimalloc],
        settings: vec![Setting {
            driver: Driver::BlockOnPerRound,
            runtime: RuntimeUsed::current_thread(),
            locks: vec![Lock::Std, Lock::TokioNoBudget],
        }],
        futures: 500,
        processes: 2,
        warm_up_rounds: 1,
        rounds: 3,
    };
    assert_eq!(grid.samples(), 8);
    let mut steps = 0;
    let cells = sensitivity::run(&grid, |_| steps += 1).unwrap();
    assert_eq!(steps, 8);
    assert_eq!(cells.len(), 4);
    for c in &cells {
        assert_eq!(c.timing.repeats, vec![3, 3], "{c:?}");
        assert_eq!(c.first_round_ns.len(), 2);
        assert_eq!(c.rounds_validated, 8);
        assert_eq!((c.futures, c.warm_up_rounds), (500, 1));
        assert!(c.minor_faults_per_round >= 0.0 && c.context_switches_per_round >= 0.0);
    }
    let order: Vec<_> = cells.iter().map(|c| (c.allocator, c.lock)).collect();
    assert_eq!(
        order,
        [
            (Allocator::System, Lock::Std),
            (Allocator::System, Lock::TokioNoBudget),
            (Allocator::Mimalloc, Lock::Std),
            (Allocator::Mimalloc, Lock::TokioNoBudget),
        ]
    );
}
