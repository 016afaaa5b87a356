//! Collateral damage: how late does an unrelated task run while other tasks
//! fight over a lock? A plain OS thread sends a timestamp every period; a
//! heartbeat task on the runtime records how long each one waited before the
//! runtime got round to it. The timestamps come from outside the runtime so
//! tokio's millisecond timer wheel does not blur what we measure.
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::{ensure, Context, Result};
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
}

impl Load {
    pub const ALL: [Load; 4] = [
        Load::Idle,
        Load::StdMutexSlowSection,
        Load::TokioMutexSlowSection,
        Load::TokioMutexAcrossAwait,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Load::Idle => "idle",
            Load::StdMutexSlowSection => "std_mutex_slow_section",
            Load::TokioMutexSlowSection => "tokio_mutex_slow_section",
            Load::TokioMutexAcrossAwait => "tokio_mutex_across_await",
        }
    }

    pub fn label(self) -> &'static str {
        match self {
            Load::Idle => "no contention (heartbeat alone)",
            Load::StdMutexSlowSection => "std Mutex, busy critical section",
            Load::TokioMutexSlowSection => "tokio Mutex, busy critical section",
            Load::TokioMutexAcrossAwait => "tokio Mutex held across an await",
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
async fn contend(load: Load, setup: Setup, stop: Arc<AtomicBool>) -> Result<u64> {
    let std_lock = Arc::new(std::sync::Mutex::new(0u64));
    let tokio_lock = Arc::new(tokio::sync::Mutex::new(0u64));
    let tasks: Vec<_> = (0..setup.contenders)
        .map(|_| {
            let (std_lock, tokio_lock, stop) = (std_lock.clone(), tokio_lock.clone(), stop.clone());
            tokio::spawn(async move {
                let mut mine = 0u64;
                while !stop.load(Ordering::Relaxed) {
                    match load {
                        Load::Idle => return mine,
                        Load::StdMutexSlowSection => {
                            let mut value = std_lock.lock().unwrap();
                            busy_for(setup.critical_section);
                            *value += 1;
                        }
                        Load::TokioMutexSlowSection => {
                            let mut value = tokio_lock.lock().await;
                            busy_for(setup.critical_section);
                            *value += 1;
                        }
                        Load::TokioMutexAcrossAwait => {
                            let mut value = tokio_lock.lock().await;
                            tokio::time::sleep(setup.critical_section).await;
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
    let in_std = *std_lock.lock().unwrap();
    let in_counter = in_std + *tokio_lock.lock().await;
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
    let mut lateness = Histogram::<u64>::new_with_bounds(1, 60_000_000_000, 3)?;
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
