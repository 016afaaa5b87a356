//! One burst: `producers` tokio tasks on the multi-thread runtime push
//! `messages` values in all (each value once) into a fresh inbox, while one
//! consumer drains it on a thread of its own.
//!
//! The timed region starts when a gate opens for producer tasks that are
//! already spawned and waiting at it, and ends when the consumer has taken
//! the last message: the same stop point for every design and wait
//! strategy. It holds waking the producers, every push, every wake-up of
//! the consumer and every drain. Runtime creation, the consumer thread, the
//! new inbox and spawning the producers come before it; joining the
//! producer tasks and checking the inbox is empty come after it.
//!
//! The consumer runs a current-thread runtime on a dedicated OS thread so
//! that the thread's CPU clock is the consumer's CPU time and nothing else.
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc;
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use anyhow::{anyhow, bail, Context, Result};
use serde::{Deserialize, Serialize};
use tokio::runtime::Runtime;
use tokio::sync::{watch, Notify};

use crate::cpu::thread_cpu_ns;
use crate::inbox::{Inbox, Sink};
use crate::lock_free_stack::LockFreeStack;
use crate::parking_lot_swap::ParkingLotSwap;
use crate::sharded_swap::ShardedSwap;
use crate::std_mutex_drain_locked::StdMutexDrainLocked;
use crate::std_mutex_pop_one::StdMutexPopOne;
use crate::std_mutex_swap::StdMutexSwap;
use crate::tokio_mutex_swap::TokioMutexSwap;
use crate::{Design, Wait};

/// Longest a single burst may take before the run is declared hung (a lost
/// wake-up or a lost message would otherwise wait forever).
pub const BURST_DEADLINE: Duration = Duration::from_secs(60);

/// Worker threads of the producers' runtime: one per core the OS offers us.
pub fn worker_threads() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// What the consumer did over every burst of one experiment point (criterion's
/// warm-up bursts included: these are ratios and counts, not timings).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Passes {
    pub bursts: u64,
    pub messages: u64,
    /// Passes that moved at least one message.
    pub passes_with_messages: u64,
    /// Passes that found the inbox empty.
    pub empty_passes: u64,
    /// The largest number of messages one pass moved.
    pub max_batch: u64,
    /// Each burst's largest pass, summed over the bursts.
    pub largest_batches: u64,
    /// The consumer thread's CPU time, from being handed the burst to its last message.
    pub consumer_cpu_ns: u64,
    /// The sum of the bursts' timed regions.
    pub wall_ns: u64,
}

impl Passes {
    /// Two rounds of the same point as one record: counts and times add up,
    /// the largest batch is the larger one.
    pub fn merge(self, other: &Passes) -> Passes {
        Passes {
            bursts: self.bursts + other.bursts,
            messages: self.messages + other.messages,
            passes_with_messages: self.passes_with_messages + other.passes_with_messages,
            empty_passes: self.empty_passes + other.empty_passes,
            max_batch: self.max_batch.max(other.max_batch),
            largest_batches: self.largest_batches + other.largest_batches,
            consumer_cpu_ns: self.consumer_cpu_ns + other.consumer_cpu_ns,
            wall_ns: self.wall_ns + other.wall_ns,
        }
    }

    /// Mean messages per pass that found any: the batching effect.
    pub fn messages_per_pass(&self) -> f64 {
        self.messages as f64 / self.passes_with_messages.max(1) as f64
    }

    /// Mean messages per pass with each burst's largest pass left out: the
    /// pass after the consumer lost its core, which can hold a whole burst.
    pub fn messages_per_pass_without_largest(&self) -> f64 {
        (self.messages - self.largest_batches) as f64
            / self.passes_with_messages.saturating_sub(self.bursts).max(1) as f64
    }

    /// The consumer's CPU time as a share of one core over the timed regions.
    pub fn consumer_core_share(&self) -> f64 {
        self.consumer_cpu_ns as f64 / self.wall_ns.max(1) as f64
    }

    pub fn consumer_cpu_per_burst_ns(&self) -> f64 {
        self.consumer_cpu_ns as f64 / self.bursts.max(1) as f64
    }

    pub fn empty_passes_per_burst(&self) -> f64 {
        self.empty_passes as f64 / self.bursts.max(1) as f64
    }
}

struct Job<D> {
    inbox: Arc<D>,
    notify: Arc<Notify>,
}

struct Report {
    finished: Instant,
    sink: Sink,
    passes_with_messages: u64,
    empty_passes: u64,
    max_batch: u64,
    cpu_ns: u64,
}

// ANCHOR: consumer
async fn consume<D: Inbox>(
    inbox: &D,
    notify: &Notify,
    wait: Wait,
    expected: u64,
    work_rounds: u32,
    spare: &mut Vec<u64>,
) -> (Sink, [u64; 3]) {
    let mut sink = Sink::with_work(work_rounds);
    let (mut passes, mut empty, mut max_batch) = (0, 0, 0);
    loop {
        let taken = inbox.drain(spare, &mut sink).await;
        if taken > 0 {
            passes += 1;
            max_batch = max_batch.max(taken);
        } else {
            empty += 1;
        }
        if sink.count >= expected {
            // Keeps the per-message work alive: nothing else reads the hash.
            std::hint::black_box(sink.mix);
            return (sink, [passes, empty, max_batch]);
        }
        if taken == 0 {
            match wait {
                Wait::BusyPoll => {}
                Wait::YieldNow => tokio::task::yield_now().await,
                // A push into an empty inbox calls notify_one; if it lands
                // before this await, Notify keeps the permit, so the wake-up
                // is never lost.
                Wait::Notify => notify.notified().await,
            }
        }
    }
}
// ANCHOR_END: consumer

fn consumer_thread<D: Inbox>(
    jobs: mpsc::Receiver<Job<D>>,
    armed: mpsc::SyncSender<()>,
    done: mpsc::SyncSender<Report>,
    wait: Wait,
    expected: u64,
    work_rounds: u32,
) {
    let rt = tokio::runtime::Builder::new_current_thread()
        .build()
        .expect("a current-thread runtime");
    let mut spare = Vec::new();
    while let Ok(job) = jobs.recv() {
        let cpu_start = thread_cpu_ns();
        if armed.send(()).is_err() {
            return;
        }
        let (sink, [passes, empty, max_batch]) = rt.block_on(consume(
            &*job.inbox,
            &job.notify,
            wait,
            expected,
            work_rounds,
            &mut spare,
        ));
        let finished = Instant::now();
        let cpu_ns = thread_cpu_ns() - cpu_start;
        let report = Report {
            finished,
            sink,
            passes_with_messages: passes,
            empty_passes: empty,
            max_batch,
            cpu_ns,
        };
        if done.send(report).is_err() {
            return;
        }
    }
}

/// Runs bursts of one design, wait strategy and producer count, and keeps
/// the consumer's counts over all of them.
pub struct Burster<D: Inbox> {
    rt: Runtime,
    producers: u64,
    messages: u64,
    wait: Wait,
    jobs: Option<mpsc::Sender<Job<D>>>,
    armed: mpsc::Receiver<()>,
    done: mpsc::Receiver<Report>,
    consumer: Option<JoinHandle<()>>,
    /// Set when a burst failed; the consumer may be stuck and is not joined.
    broken: bool,
    pub passes: Passes,
}

impl<D: Inbox> Burster<D> {
    pub fn new(producers: u64, messages: u64, wait: Wait, work_rounds: u32) -> Result<Self> {
        if producers == 0 || messages == 0 || messages % producers != 0 {
            bail!("{messages} messages do not split evenly over {producers} producers");
        }
        let rt = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(worker_threads())
            .enable_all()
            .build()
            .context("cannot build the producers' runtime")?;
        let (jobs, job_rx) = mpsc::channel();
        let (armed_tx, armed) = mpsc::sync_channel(1);
        let (done_tx, done) = mpsc::sync_channel(1);
        let consumer = std::thread::Builder::new()
            .name("consumer".into())
            .spawn(move || {
                consumer_thread::<D>(job_rx, armed_tx, done_tx, wait, messages, work_rounds)
            })
            .context("cannot start the consumer thread")?;
        Ok(Burster {
            rt,
            producers,
            messages,
            wait,
            jobs: Some(jobs),
            armed,
            done,
            consumer: Some(consumer),
            broken: false,
            passes: Passes::default(),
        })
    }

    /// One validated burst; returns its timed region.
    pub fn burst(&mut self) -> Result<Duration> {
        let result = self.try_burst();
        if result.is_err() {
            self.broken = true;
        }
        result
    }

    fn try_burst(&mut self) -> Result<Duration> {
        if self.broken {
            bail!("an earlier burst failed");
        }
        let inbox = Arc::new(D::with_producers(self.producers as usize));
        let notify = Arc::new(Notify::new());
        let per_producer = self.messages / self.producers;
        let wake = self.wait == Wait::Notify;
        let (gate, gate_rx) = watch::channel(false);
        let at_gate = Arc::new(AtomicU64::new(0));
        let (jobs, armed, producers) = (&self.jobs, &self.armed, self.producers);
        let (started, joined) = self.rt.block_on(async {
            // ANCHOR: producers
            let tasks: Vec<_> = (0..producers)
                .map(|p| {
                    let (inbox, notify) = (Arc::clone(&inbox), Arc::clone(&notify));
                    let (mut gate, at_gate) = (gate_rx.clone(), Arc::clone(&at_gate));
                    tokio::spawn(async move {
                        at_gate.fetch_add(1, Ordering::Release);
                        let _ = gate.wait_for(|open| *open).await;
                        let first = p * per_producer;
                        for message in first..first + per_producer {
                            let was_empty = inbox.push(p as usize, message).await;
                            if wake && was_empty {
                                notify.notify_one();
                            }
                        }
                    })
                })
                .collect();
            // ANCHOR_END: producers
            // Set-up, outside the timed region: every producer spawned and
            // parked at the gate, then the consumer handed the empty inbox.
            let setup_deadline = Instant::now() + BURST_DEADLINE;
            while at_gate.load(Ordering::Acquire) < producers {
                if Instant::now() > setup_deadline {
                    return Err(anyhow!("the producers did not reach the start gate"));
                }
                tokio::time::sleep(Duration::from_micros(100)).await;
            }
            jobs.as_ref()
                .expect("jobs open until drop")
                .send(Job {
                    inbox: Arc::clone(&inbox),
                    notify: Arc::clone(&notify),
                })
                .map_err(|_| anyhow!("the consumer thread has gone"))?;
            armed
                .recv_timeout(BURST_DEADLINE)
                .context("the consumer thread did not take the burst")?;
            let started = Instant::now();
            gate.send_replace(true);
            let joined = tokio::time::timeout(BURST_DEADLINE, async {
                for task in tasks {
                    task.await?;
                }
                Ok::<_, tokio::task::JoinError>(())
            })
            .await;
            Ok((started, joined))
        })?;
        let report = self.done.recv_timeout(BURST_DEADLINE).with_context(|| {
            format!(
                "the consumer did not receive all {} messages within {BURST_DEADLINE:?}",
                self.messages
            )
        })?;
        let elapsed = report.finished.saturating_duration_since(started);
        joined
            .context("the producers did not finish in time")?
            .context("a producer task failed")?;

        let expected_sum = Sink::expected_sum(self.messages);
        if report.sink.count != self.messages || report.sink.sum != expected_sum {
            bail!(
                "the consumer received {} messages summing to {}; expected {} summing to {}",
                report.sink.count,
                report.sink.sum,
                self.messages,
                expected_sum
            );
        }
        let mut leftover = Sink::default();
        self.rt
            .block_on(inbox.drain(&mut Vec::new(), &mut leftover));
        if leftover.count != 0 {
            bail!(
                "{} messages were still in the inbox after the burst",
                leftover.count
            );
        }

        let p = &mut self.passes;
        p.bursts += 1;
        p.messages += report.sink.count;
        p.passes_with_messages += report.passes_with_messages;
        p.empty_passes += report.empty_passes;
        p.max_batch = p.max_batch.max(report.max_batch);
        p.largest_batches += report.max_batch;
        p.consumer_cpu_ns += report.cpu_ns;
        p.wall_ns += elapsed.as_nanos() as u64;
        Ok(elapsed)
    }
}

impl<D: Inbox> Drop for Burster<D> {
    fn drop(&mut self) {
        drop(self.jobs.take());
        if let Some(consumer) = self.consumer.take() {
            // A consumer stuck in a failed burst would never return: leave it.
            if !self.broken {
                let _ = consumer.join();
            }
        }
    }
}

/// Something to do with the concrete type of a [`Design`].
pub trait WithDesign {
    type Output;
    fn run<D: Inbox>(self) -> Self::Output;
}

pub fn with_design<F: WithDesign>(design: Design, f: F) -> F::Output {
    match design {
        Design::StdMutexSwap => f.run::<StdMutexSwap>(),
        Design::TokioMutexSwap => f.run::<TokioMutexSwap>(),
        Design::ParkingLotSwap => f.run::<ParkingLotSwap>(),
        Design::LockFreeStack => f.run::<LockFreeStack>(),
        Design::ShardedSwap => f.run::<ShardedSwap>(),
        Design::StdMutexDrainLocked => f.run::<StdMutexDrainLocked>(),
        Design::StdMutexPopOne => f.run::<StdMutexPopOne>(),
    }
}

/// Runs `bursts` bursts and returns what the consumer saw (tests, examples).
pub fn run_bursts(
    design: Design,
    wait: Wait,
    producers: u64,
    messages: u64,
    bursts: u64,
) -> Result<Passes> {
    struct Run(Wait, u64, u64, u64);
    impl WithDesign for Run {
        type Output = Result<Passes>;
        fn run<D: Inbox>(self) -> Result<Passes> {
            let Run(wait, producers, messages, bursts) = self;
            let mut burster = Burster::<D>::new(producers, messages, wait, crate::LIGHT_WORK)?;
            for _ in 0..bursts {
                burster.burst()?;
            }
            Ok(std::mem::take(&mut burster.passes))
        }
    }
    with_design(design, Run(wait, producers, messages, bursts))
}

/// Runs validated bursts until `at_least` has passed (one at least) and
/// returns what the consumer saw: the work a CPU profile samples.
pub fn run_bursts_for(
    design: Design,
    wait: Wait,
    producers: u64,
    messages: u64,
    at_least: Duration,
) -> Result<Passes> {
    struct Run(Wait, u64, u64, Duration);
    impl WithDesign for Run {
        type Output = Result<Passes>;
        fn run<D: Inbox>(self) -> Result<Passes> {
            let Run(wait, producers, messages, at_least) = self;
            let mut burster = Burster::<D>::new(producers, messages, wait, crate::LIGHT_WORK)?;
            let started = Instant::now();
            loop {
                burster.burst()?;
                if started.elapsed() >= at_least {
                    return Ok(std::mem::take(&mut burster.passes));
                }
            }
        }
    }
    with_design(design, Run(wait, producers, messages, at_least))
}

/// One experiment point: a design, how its consumer waits and works, how many producers.
#[derive(Clone, Copy, Debug)]
pub struct PointSpec {
    pub design: Design,
    pub wait: Wait,
    pub producers: u64,
    pub messages: u64,
    pub work_rounds: u32,
}

/// Times bursts with criterion (through the lab) and returns the timing per
/// burst with the consumer's counts.
pub fn time_bursts(
    lab: &harness_measure::Lab,
    sampling: harness_measure::timing::Sampling,
    id: &str,
    spec: PointSpec,
) -> Result<(harness_measure::timing::Timing, Passes)> {
    struct Time<'a> {
        lab: &'a harness_measure::Lab,
        sampling: harness_measure::timing::Sampling,
        id: &'a str,
        spec: PointSpec,
    }
    impl WithDesign for Time<'_> {
        type Output = Result<(harness_measure::timing::Timing, Passes)>;
        fn run<D: Inbox>(self) -> Self::Output {
            let PointSpec {
                wait,
                producers,
                messages,
                work_rounds,
                ..
            } = self.spec;
            let mut burster = Burster::<D>::new(producers, messages, wait, work_rounds)?;
            let mut failure = None;
            let timing = self.lab.time(self.id, self.sampling, |b| {
                b.iter_custom(|iters| {
                    let mut total = Duration::ZERO;
                    for _ in 0..iters {
                        if failure.is_some() {
                            // Finish criterion's loop quickly; the error is reported below.
                            total += Duration::from_nanos(1);
                            continue;
                        }
                        match burster.burst() {
                            Ok(t) => total += t,
                            Err(e) => {
                                failure = Some(e);
                                total += Duration::from_nanos(1);
                            }
                        }
                    }
                    total
                })
            });
            if let Some(e) = failure {
                return Err(e.context(format!("{} failed validation", self.id)));
            }
            Ok((timing?, std::mem::take(&mut burster.passes)))
        }
    }
    with_design(
        spec.design,
        Time {
            lab,
            sampling,
            id,
            spec,
        },
    )
}

#[cfg(test)]
mod tests {
    use super::Passes;

    #[test]
    fn rounds_of_a_point_merge_into_one_record() {
        let a = Passes {
            bursts: 2,
            messages: 40,
            passes_with_messages: 4,
            empty_passes: 1,
            max_batch: 9,
            largest_batches: 15,
            consumer_cpu_ns: 100,
            wall_ns: 200,
        };
        let b = Passes {
            bursts: 1,
            messages: 20,
            passes_with_messages: 10,
            empty_passes: 3,
            max_batch: 4,
            largest_batches: 4,
            consumer_cpu_ns: 50,
            wall_ns: 100,
        };
        let all = a.merge(&b);
        assert_eq!(
            all,
            Passes {
                bursts: 3,
                messages: 60,
                passes_with_messages: 14,
                empty_passes: 4,
                max_batch: 9,
                largest_batches: 19,
                consumer_cpu_ns: 150,
                wall_ns: 300,
            }
        );
        assert_eq!(all.messages_per_pass(), 60.0 / 14.0);
        // Each burst's largest pass out: 41 messages over 11 passes.
        assert_eq!(all.messages_per_pass_without_largest(), 41.0 / 11.0);
    }
}
