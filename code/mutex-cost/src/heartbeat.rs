//! Collateral damage: how late does an unrelated task run while other tasks
//! fight over a lock? A plain OS thread sends a timestamp every period; a
//! heartbeat task on the runtime records how long each one waited before the
//! runtime got round to it. The timestamps come from outside the runtime so
//! tokio's millisecond timer wheel does not blur what we measure.
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::{ensure, Context, Result};
use harness_measure::latency;
use hdrhistogram::Histogram;
use serde::{Deserialize, Serialize};
use tokio::sync::mpsc;

/// What the contending tasks do while the heartbeat runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Load {
    /// No contending tasks: the heartbeat alone, the floor.
    Idle,
    /// std Mutex, busy for the critical section while holding it; waiters block their thread.
    StdMutexSlowSection,
    /// tokio Mutex, the same busy critical section; waiters yield their thread.
    TokioMutexSlowSection,
    /// tokio Mutex held across an `.await` (a sleep) of the same length.
    TokioMutexAcrossAwait,
    /// parking_lot Mutex, the same busy critical section; waiters block their thread.
    ParkingLotSlowSection,
    /// async-lock Mutex, the same busy critical section; waiters yield their thread.
    AsyncLockSlowSection,
    /// futures' Mutex, the same busy critical section; waiters yield their thread.
    FuturesMutexSlowSection,
}

impl Load {
    pub const ALL: [Load; 7] = [
        Load::Idle,
        Load::StdMutexSlowSection,
        Load::TokioMutexSlowSection,
        Load::TokioMutexAcrossAwait,
        Load::ParkingLotSlowSection,
        Load::AsyncLockSlowSection,
        Load::FuturesMutexSlowSection,
    ];

    /// Every lock held through the same busy critical section: the loads
    /// that compare what a waiter does to the tasks beside it.
    pub const SLOW_SECTIONS: [Load; 5] = [
        Load::StdMutexSlowSection,
        Load::ParkingLotSlowSection,
        Load::TokioMutexSlowSection,
        Load::AsyncLockSlowSection,
        Load::FuturesMutexSlowSection,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Load::Idle => "idle",
            Load::StdMutexSlowSection => "std_mutex_slow_section",
            Load::TokioMutexSlowSection => "tokio_mutex_slow_section",
            Load::TokioMutexAcrossAwait => "tokio_mutex_across_await",
            Load::ParkingLotSlowSection => "parking_lot_mutex_slow_section",
            Load::AsyncLockSlowSection => "async_lock_mutex_slow_section",
            Load::FuturesMutexSlowSection => "futures_mutex_slow_section",
        }
    }

    pub fn label(self) -> &'static str {
        match self {
            Load::Idle => "no contention (heartbeat alone)",
            Load::StdMutexSlowSection => "std Mutex, busy critical section",
            Load::TokioMutexSlowSection => "tokio Mutex, busy critical section",
            Load::TokioMutexAcrossAwait => "tokio Mutex held across an await",
            Load::ParkingLotSlowSection => "parking_lot Mutex, busy critical section",
            Load::AsyncLockSlowSection => "async-lock Mutex, busy critical section",
            Load::FuturesMutexSlowSection => "futures Mutex, busy critical section",
        }
    }

    /// A load of the compared locks (no claim rests on it).
    pub fn compared(self) -> bool {
        matches!(
            self,
            Load::ParkingLotSlowSection
                | Load::AsyncLockSlowSection
                | Load::FuturesMutexSlowSection
        )
    }

    /// The lock a load contends for, as the page names it (`None`: idle).
    pub fn lock(self) -> Option<&'static str> {
        match self {
            Load::Idle => None,
            Load::StdMutexSlowSection => Some("std Mutex"),
            Load::TokioMutexSlowSection | Load::TokioMutexAcrossAwait => Some("tokio Mutex"),
            Load::ParkingLotSlowSection => Some("parking_lot Mutex"),
            Load::AsyncLockSlowSection => Some("async-lock Mutex"),
            Load::FuturesMutexSlowSection => Some("futures Mutex"),
        }
    }
}

#[derive(Clone, Copy, Debug)]
pub struct Setup {
    pub workers: usize,
    pub contenders: usize,
    pub critical_section: Duration,
    pub period: Duration,
    pub run_for: Duration,
}

/// What one heartbeat run saw.
pub struct Report {
    /// Lateness of every heartbeat, in nanoseconds.
    pub lateness: Histogram<u64>,
    pub beats_sent: u64,
    pub lock_acquisitions: u64,
}

/// Keeps the thread busy without sleeping: what a slow synchronous critical
/// section (parsing, hashing, a big copy) does to its worker thread.
fn busy_for(d: Duration) {
    let until = Instant::now() + d;
    while Instant::now() < until {
        std::hint::spin_loop();
    }
}

// ANCHOR: contenders
/// One lock of each kind; a load uses one of them.
#[derive(Default)]
struct Locks {
    std: std::sync::Mutex<u64>,
    tokio: tokio::sync::Mutex<u64>,
    parking_lot: parking_lot::Mutex<u64>,
    async_lock: async_lock::Mutex<u64>,
    futures: futures::lock::Mutex<u64>,
}

impl Locks {
    /// Acquisitions counted in all the locks together.
    async fn total(&self) -> u64 {
        // The blocking guards are dropped before the first `.await`.
        let blocking = *self.std.lock().unwrap() + *self.parking_lot.lock();
        let tokio = *self.tokio.lock().await;
        let async_lock = *self.async_lock.lock().await;
        blocking + tokio + async_lock + *self.futures.lock().await
    }
}

async fn contend(load: Load, setup: Setup, stop: Arc<AtomicBool>) -> Result<u64> {
    let locks = Arc::new(Locks::default());
    let tasks: Vec<_> = (0..setup.contenders)
        .map(|_| {
            let (locks, stop) = (locks.clone(), stop.clone());
            tokio::spawn(async move {
                let mut mine = 0u64;
                while !stop.load(Ordering::Relaxed) {
                    match load {
                        Load::Idle => return mine,
                        Load::StdMutexSlowSection => {
                            let mut value = locks.std.lock().unwrap();
                            busy_for(setup.critical_section);
                            *value += 1;
                        }
                        Load::TokioMutexSlowSection => {
                            let mut value = locks.tokio.lock().await;
                            busy_for(setup.critical_section);
                            *value += 1;
                        }
                        Load::TokioMutexAcrossAwait => {
                            let mut value = locks.tokio.lock().await;
                            tokio::time::sleep(setup.critical_section).await;
                            *value += 1;
                        }
                        Load::ParkingLotSlowSection => {
                            let mut value = locks.parking_lot.lock();
                            busy_for(setup.critical_section);
                            *value += 1;
                        }
                        Load::AsyncLockSlowSection => {
                            let mut value = locks.async_lock.lock().await;
                            busy_for(setup.critical_section);
                            *value += 1;
                        }
                        Load::FuturesMutexSlowSection => {
                            let mut value = locks.futures.lock().await;
                            busy_for(setup.critical_section);
                            *value += 1;
                        }
                    }
                    mine += 1;
                    // Real tasks do other async work between critical sections.
                    tokio::task::yield_now().await;
                }
                mine
            })
        })
        .collect();
    let mut acquisitions = 0;
    for task in tasks {
        acquisitions += task.await.context("a contending task panicked")?;
    }
    let in_counter = locks.total().await;
    ensure!(
        in_counter == acquisitions,
        "{}: the counter reads {in_counter} but the tasks took the lock {acquisitions} times",
        load.name()
    );
    Ok(acquisitions)
}
// ANCHOR_END: contenders

// ANCHOR: heartbeat
async fn heartbeat(mut beats: mpsc::UnboundedReceiver<Instant>) -> Result<Histogram<u64>> {
    let mut lateness = latency::histogram(60_000_000_000);
    while let Some(sent) = beats.recv().await {
        lateness.record(sent.elapsed().as_nanos().max(1) as u64)?;
    }
    Ok(lateness)
}

/// Sends a timestamp every period, on absolute deadlines so one late wake-up
/// does not shift the ones after it.
fn tick(beats: mpsc::UnboundedSender<Instant>, setup: Setup) -> u64 {
    let start = Instant::now();
    let mut sent = 0;
    let mut deadline = start;
    while deadline < start + setup.run_for {
        deadline += setup.period;
        if let Some(wait) = deadline.checked_duration_since(Instant::now()) {
            std::thread::sleep(wait);
        }
        if beats.send(Instant::now()).is_err() {
            break;
        }
        sent += 1;
    }
    sent
}
// ANCHOR_END: heartbeat

/// One run: a fresh multi-thread runtime with `setup.workers` worker threads,
/// the contenders and the heartbeat on it, the ticker on its own OS thread.
pub fn run(load: Load, setup: Setup) -> Result<Report> {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(setup.workers)
        .enable_all()
        .build()?;
    rt.block_on(async {
        let stop = Arc::new(AtomicBool::new(false));
        let (beats, inbox) = mpsc::unbounded_channel();
        let listener = tokio::spawn(heartbeat(inbox));
        let contenders = tokio::spawn(contend(load, setup, stop.clone()));
        // The ticker sleeps on an OS thread outside the worker pool.
        let sent = tokio::task::spawn_blocking(move || tick(beats, setup)).await?;
        stop.store(true, Ordering::Relaxed);
        let lock_acquisitions = contenders.await??;
        let lateness = listener.await??;
        ensure!(
            lateness.len() == sent,
            "{}: the heartbeat saw {} beats of {sent} sent",
            load.name(),
            lateness.len()
        );
        ensure!(
            load == Load::Idle || lock_acquisitions > 0,
            "{}: no contending task ever took the lock",
            load.name()
        );
        Ok(Report {
            lateness,
            beats_sent: sent,
            lock_acquisitions,
        })
    })
}
