//! Runs bursts: the runtime, the sinks, the timed region and the validation.
use std::collections::HashMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::{anyhow, bail, ensure, Context, Result};
use serde::{Deserialize, Serialize};
use tokio::runtime::Runtime;

use crate::burst::Tally;
use crate::cause::{self, Counts};
use crate::consumer_on_driver;
use crate::placement::{pin_current, Pins, Placement};
use crate::sink::{Sink, SinkKind, TcpSinkServer};
use crate::Design;

/// A burst that takes longer than this is a hang, not a measurement.
pub const BURST_TIMEOUT: Duration = Duration::from_secs(60);

/// The runtime every design runs on: tokio's multi-thread scheduler with one
/// worker per core the OS reports, so the count is derived, not assumed.
pub fn worker_threads() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

pub fn runtime() -> Result<Runtime> {
    runtime_on(None, Threads::PerCore)
}

/// The runtime a rig builds: the book's, or one of the other shapes a
/// careful reproducer might pick (the sensitivity experiments).
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize,
)]
#[serde(rename_all = "kebab-case")]
pub enum Threads {
    /// Multi-thread, one worker per core (`worker_threads`): the book's.
    #[default]
    PerCore,
    /// Multi-thread with a single worker. Pinned, it takes the second core,
    /// so the driver thread (and a consumer it polls) has the first one to
    /// itself, with the sink's reader.
    OneWorker,
    /// Current-thread: the driver thread is the whole runtime. Pinned, the
    /// sink's reader moves to the last core, off the runtime's.
    CurrentThread,
}

impl Threads {
    pub fn label(self) -> &'static str {
        match self {
            Threads::PerCore => "multi-thread runtime, a worker per core",
            Threads::OneWorker => "multi-thread runtime, one worker",
            Threads::CurrentThread => "current-thread runtime",
        }
    }

    /// Runtime worker threads (0: the driver thread runs everything).
    pub fn workers(self) -> usize {
        match self {
            Threads::PerCore => worker_threads(),
            Threads::OneWorker => 1,
            Threads::CurrentThread => 0,
        }
    }
}

/// Where a burst's consumer runs.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize,
)]
#[serde(rename_all = "kebab-case")]
pub enum ConsumerOn {
    /// A task spawned on the runtime, like the producers: the book's.
    #[default]
    Worker,
    /// Polled by the driver's `block_on`, through a `LocalSet`, where the
    /// published bench ran its swap consumer: outside the runtime's workers
    /// (`consumer_on_driver`).
    BlockOnThread,
}

impl ConsumerOn {
    pub fn label(self) -> &'static str {
        match self {
            ConsumerOn::Worker => "consumer as a task on a worker",
            ConsumerOn::BlockOnThread => "consumer on the block_on thread",
        }
    }
}

/// The runtime, its threads pinned by `pins` when given.
fn runtime_on(pins: Option<&Pins>, threads: Threads) -> Result<Runtime> {
    let mut builder = match threads {
        Threads::CurrentThread => tokio::runtime::Builder::new_current_thread(),
        Threads::PerCore | Threads::OneWorker => {
            let mut b = tokio::runtime::Builder::new_multi_thread();
            b.worker_threads(threads.workers());
            b
        }
    };
    builder.enable_all();
    if let Some(pins) = pins {
        builder.on_thread_start(pins.worker_hook(threads.workers()));
    }
    builder.build().context("building the tokio runtime")
}

/// One burst a rig runs: which design, into which sink, how many producers
/// of how many messages, and where the consumer runs.
#[derive(Clone, Debug)]
pub struct Job {
    pub design: Design,
    pub kind: SinkKind,
    pub workers: usize,
    pub per_worker: usize,
    pub consumer: ConsumerOn,
    /// Runs the swap with its locks counted into these (`cause`) instead
    /// of the design's own code.
    pub counted: Option<Arc<cause::Counters>>,
}

impl Job {
    /// The fair experiment's burst: `PER_WORKER` messages, consumer on a worker.
    pub fn fair(design: Design, kind: SinkKind, workers: usize) -> Job {
        Job {
            design,
            kind,
            workers,
            per_worker: crate::PER_WORKER,
            consumer: ConsumerOn::Worker,
            counted: None,
        }
    }
}

/// What a timed burst hands back: its time, and the sink with the tally of
/// what reached it (or the error or timeout that ended it).
type Timed = (
    Duration,
    Result<std::io::Result<(Sink, Tally)>, tokio::time::error::Elapsed>,
);

// ANCHOR: timed_region
/// The timed region of every burst: from just before `burst` spawns the
/// consumer and the producers until the sink holds every byte.
async fn timed(
    burst: impl std::future::Future<Output = std::io::Result<Sink>>,
    report: Option<tokio::sync::oneshot::Receiver<std::io::Result<Tally>>>,
) -> Timed {
    let start = Instant::now();
    let outcome = tokio::time::timeout(BURST_TIMEOUT, async move {
        // Returns when the consumer has handed the sink its last byte.
        let mut sink = burst.await?;
        // Over TCP the stop point is the reading thread's count, so bytes
        // still in flight in the kernel are inside the region.
        let tally = match report {
            Some(report) => report.await.map_err(std::io::Error::other)??,
            None => sink.take_memory_tally().expect("a memory sink"),
        };
        Ok((sink, tally))
    })
    .await;
    (start.elapsed(), outcome)
}
// ANCHOR_END: timed_region

/// The work check of every burst: the sink received exactly the bytes the
/// producers sent (`Tally::expected`), each once, in any order.
pub fn check_delivery(what: &str, kind: SinkKind, tally: Tally, expected: Tally) -> Result<()> {
    if tally != expected {
        bail!(
            "{what} delivered {} bytes (checksum {}/{}) to the {}, \
             expected {} bytes (checksum {}/{})",
            tally.bytes,
            tally.sum,
            tally.sum_of_squares,
            kind.label(),
            expected.bytes,
            expected.sum,
            expected.sum_of_squares
        );
    }
    Ok(())
}

/// One validated burst.
#[derive(Clone, Copy, Debug)]
pub struct Burst {
    pub elapsed: Duration,
    /// Write calls the consumer made on the sink.
    pub writes: u64,
    pub tally: Tally,
    /// What a counted burst counted (`Job::counted`).
    pub counts: Option<Counts>,
}

/// The runtime, the loopback sink thread and one connected sink of each
/// kind, all made once: none of it is inside a timed region. It lives on
/// the rig's driver thread, which runs every burst.
struct Bench {
    pins: Option<Pins>,
    rt: Runtime,
    server: TcpSinkServer,
    tcp: Option<Sink>,
    memory: Option<Sink>,
    expected: HashMap<(usize, usize), Tally>,
}

impl Bench {
    fn new(pins: Option<Pins>, threads: Threads) -> Result<Bench> {
        let rt = runtime_on(pins.as_ref(), threads)?;
        let sink_cpu = pins.as_ref().map(|p| match threads {
            Threads::CurrentThread => p.last(),
            Threads::PerCore | Threads::OneWorker => p.first(),
        });
        let server = TcpSinkServer::start(sink_cpu)?;
        let tcp = rt.block_on(server.connect())?;
        Ok(Bench {
            pins,
            rt,
            server,
            tcp: Some(tcp),
            memory: Some(Sink::memory()),
            expected: HashMap::new(),
        })
    }

    /// Runs one burst and checks the sink received exactly what the producers
    /// sent. The timed region is the `Instant` pair below and nothing else.
    fn burst(&mut self, job: Job) -> Result<Burst> {
        let Job {
            design,
            kind,
            workers,
            per_worker,
            consumer,
            counted,
        } = job;
        let expected = *self
            .expected
            .entry((workers, per_worker))
            .or_insert_with(|| Tally::expected(workers, per_worker));
        let slot = match kind {
            SinkKind::Tcp => &mut self.tcp,
            SinkKind::Memory => &mut self.memory,
        };
        let mut sink = slot
            .take()
            .ok_or_else(|| anyhow!("the {} was lost by an earlier failure", kind.label()))?;
        sink.take_writes();
        let report = match kind {
            SinkKind::Tcp => Some(self.server.expect(expected.bytes)?),
            SinkKind::Memory => None,
        };
        let counters = counted.clone();
        let switches = counted.is_some().then(cause::context_switches).flatten();
        // ANCHOR: timed
        let (elapsed, outcome) = match consumer {
            // The burst runs as a task, the way a program inside the runtime
            // would run it: spawning from the driver thread instead let a
            // woken worker take the driver's core halfway through the
            // spawning, and every producer not yet spawned waited out the
            // scheduler's slice.
            ConsumerOn::Worker => {
                let burst = async move {
                    match counted {
                        None => design.burst(workers, per_worker, sink).await,
                        Some(c) => {
                            cause::burst_on_worker(design, workers, per_worker, sink, c).await
                        }
                    }
                };
                self.rt.block_on(self.rt.spawn(timed(burst, report)))
            }
            // The driver thread polls the burst itself, and with it the
            // consumer, which it runs through a `LocalSet`.
            ConsumerOn::BlockOnThread => {
                let burst = async move {
                    match counted {
                        None => consumer_on_driver::burst(design, workers, per_worker, sink).await,
                        Some(c) => {
                            cause::burst_on_driver(design, workers, per_worker, sink, c).await
                        }
                    }
                };
                Ok(self.rt.block_on(timed(burst, report)))
            }
        }
        .map_err(|e| anyhow!("{} with {workers} workers: {e}", design.label()))?;
        // ANCHOR_END: timed
        let counts = counters.map(|c| Counts {
            context_switches: switches
                .zip(cause::context_switches())
                .map(|(before, after)| after.saturating_sub(before)),
            ..c.take()
        });
        let (mut sink, tally) = outcome
            .map_err(|_| {
                anyhow!(
                    "{} with {workers} workers into the {} did not finish within {:?}",
                    design.label(),
                    kind.label(),
                    BURST_TIMEOUT
                )
            })?
            .with_context(|| format!("{} with {workers} workers", design.label()))?;
        check_delivery(
            &format!("{} with {workers} workers", design.label()),
            kind,
            tally,
            expected,
        )?;
        let writes = sink.take_writes();
        *slot = Some(sink);
        Ok(Burst {
            elapsed,
            writes,
            tally,
            counts,
        })
    }

    /// Closes the sinks and checks no stray byte reached the TCP sink after
    /// the last burst it expected.
    fn finish(mut self) -> Result<()> {
        self.tcp.take();
        self.memory.take();
        let Bench {
            pins, rt, server, ..
        } = self;
        drop(rt);
        server.shutdown()?;
        pins.map_or(Ok(()), |pins| pins.check())
    }
}

/// Runs bursts on a driver thread of its own, which builds the `Bench` and
/// stays where the placement puts it for the rig's whole life. Pinning the
/// calling thread instead, burst by burst, let it move between bursts, and
/// in a probe the small bursts' modes came back. It would also have pinned
/// whatever the caller runs between bursts (the harness's check of the
/// cores spawns its partner thread from there).
pub struct Rig {
    placement: Placement,
    threads: Threads,
    handle: tokio::runtime::Handle,
    jobs: Option<std::sync::mpsc::Sender<Job>>,
    bursts: std::sync::mpsc::Receiver<Result<Burst>>,
    driver: Option<std::thread::JoinHandle<Result<()>>>,
}

impl Rig {
    /// A rig whose threads run where `placement` says. `Pinned` falls back
    /// to free where the OS cannot pin; `Rig::placement` tells which it got.
    pub fn new(placement: Placement) -> Result<Rig> {
        Rig::with(placement, Threads::PerCore)
    }

    /// A rig on a runtime of the given shape (see `Threads`).
    pub fn with(placement: Placement, threads: Threads) -> Result<Rig> {
        let pins = match placement {
            Placement::Pinned => Pins::for_this_thread().map(|p| match threads {
                Threads::OneWorker => p.workers_from(1),
                Threads::PerCore | Threads::CurrentThread => p,
            }),
            Placement::Free => None,
        };
        let placement = if pins.is_some() {
            Placement::Pinned
        } else {
            Placement::Free
        };
        let (jobs, job_rx) = std::sync::mpsc::channel::<Job>();
        let (burst_tx, bursts) = std::sync::mpsc::channel();
        let (ready_tx, ready) = std::sync::mpsc::channel();
        let driver = std::thread::Builder::new()
            .name("fan-in-driver".into())
            .spawn(move || {
                if let Some(pins) = &pins {
                    ensure!(
                        pin_current(&[pins.first()]),
                        "could not pin the driver to CPU {}",
                        pins.first()
                    );
                }
                let mut bench = match Bench::new(pins, threads) {
                    Ok(bench) => {
                        let _ = ready_tx.send(Ok(bench.rt.handle().clone()));
                        bench
                    }
                    Err(e) => {
                        let _ = ready_tx.send(Err(e));
                        return Ok(());
                    }
                };
                while let Ok(job) = job_rx.recv() {
                    if burst_tx.send(bench.burst(job)).is_err() {
                        break;
                    }
                }
                bench.finish()
            })
            .context("starting the driver thread")?;
        let handle = ready
            .recv()
            .context("the driver thread ended before the rig was built")??;
        Ok(Rig {
            placement,
            threads,
            handle,
            jobs: Some(jobs),
            bursts,
            driver: Some(driver),
        })
    }

    /// Runs `f` on the rig's runtime from the calling thread, outside any
    /// timed region (tests).
    pub fn run<T>(&self, f: impl std::future::Future<Output = T>) -> T {
        self.handle.block_on(f)
    }

    /// Where this rig's threads run.
    pub fn placement(&self) -> Placement {
        self.placement
    }

    /// The runtime this rig built.
    pub fn threads(&self) -> Threads {
        self.threads
    }

    /// One burst of the fair experiment (see `Job::fair`).
    pub fn burst(&mut self, design: Design, kind: SinkKind, workers: usize) -> Result<Burst> {
        self.run_job(Job::fair(design, kind, workers))
    }

    /// One burst on the driver thread (see `Bench::burst`), validated there.
    pub fn run_job(&mut self, job: Job) -> Result<Burst> {
        let jobs = self.jobs.as_ref().context("the rig is finished")?;
        jobs.send(job)
            .map_err(|_| anyhow!("the driver thread has stopped"))?;
        self.bursts
            .recv()
            .map_err(|_| anyhow!("the driver thread stopped during a burst"))?
    }

    /// Ends the driver thread, closes the sinks and checks no stray byte
    /// reached the TCP sink after the last burst it expected.
    pub fn finish(mut self) -> Result<()> {
        self.jobs.take();
        let driver = self.driver.take().context("the rig is finished")?;
        driver
            .join()
            .map_err(|_| anyhow!("the driver thread panicked"))?
    }
}
