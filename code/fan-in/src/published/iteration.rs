//! One iteration of the published bench, the way criterion's `to_async`
//! runs it: polled by the measuring thread's `block_on`, which also polls
//! the swap consumer through a `LocalSet`, with the workers spawned into a
//! `JoinSet` from that thread. A `Recipe` says which of the published
//! flaws the iteration keeps (see `ladder::Step`).
use std::cell::RefCell;
use std::future::Future;
use std::io;
use std::net::SocketAddr;
use std::sync::Arc;

use tokio::net::TcpStream;
use tokio::sync::mpsc::unbounded_channel;
use tokio::task::{JoinSet, LocalSet};

use super::actor;
use super::ladder::{Recipe, Stop};
use super::sink::ConnectionsSink;
use super::SHARED_CAPACITY;
use crate::burst::LiveProducers;
use crate::experiment::BURST_TIMEOUT;
use crate::sink::{Accepted, Sink};
use crate::swap_loops::{StdSwap, SwapLoops, TokioSwap};
use crate::{mpsc_recv_many, mpsc_unbounded, Design};

/// What the iterations of one timing share.
pub struct Env<'a> {
    pub design: Design,
    pub workers: usize,
    pub recipe: Recipe,
    pub sink: &'a ConnectionsSink,
    /// Bytes and write calls of every consumer of the timing.
    pub accepted: Arc<Accepted>,
    /// The one connection when the recipe connects once.
    stream: RefCell<Option<Sink>>,
    pub ledger: RefCell<Ledger>,
}

/// What the iterations did, checked once the timing is over.
#[derive(Clone, Debug, Default)]
pub struct Ledger {
    pub iterations: u64,
    /// Producers that had sent all their messages when an iteration ended,
    /// summed over iterations.
    pub finished: u64,
    /// Bytes the sink must hold once the last iteration that stopped at
    /// the sink is over.
    pub due: u64,
    pub failure: Option<String>,
}

impl<'a> Env<'a> {
    pub fn new(
        design: Design,
        workers: usize,
        recipe: Recipe,
        sink: &'a ConnectionsSink,
    ) -> Env<'a> {
        Env {
            design,
            workers,
            recipe,
            sink,
            accepted: Arc::default(),
            stream: RefCell::new(None),
            ledger: RefCell::default(),
        }
    }

    /// Opens the one connection of a recipe that connects once (outside
    /// any timing).
    pub async fn connect_once(&self) -> io::Result<()> {
        let sink = connect(self.sink.addr(), self.nodelay(), Arc::clone(&self.accepted)).await?;
        *self.stream.borrow_mut() = Some(sink);
        Ok(())
    }

    /// Closes the one connection, if any.
    pub fn disconnect(&self) {
        self.stream.borrow_mut().take();
    }

    /// Nagle's algorithm stays on (the published client never switched it
    /// off) until the stop point waits for the last byte.
    fn nodelay(&self) -> bool {
        self.recipe.stop == Stop::SinkHasAll
    }

    /// The consumer's sink: a connection it opens when it first runs, as
    /// the published consumers did, or the one opened before the timing.
    fn sink_for_consumer(&self) -> impl Future<Output = io::Result<Sink>> + Send + 'static {
        let stored = if self.recipe.connect_each_iteration {
            None
        } else {
            Some(self.stream.borrow_mut().take())
        };
        let (addr, nodelay, accepted) =
            (self.sink.addr(), self.nodelay(), Arc::clone(&self.accepted));
        async move {
            match stored {
                None => connect(addr, nodelay, accepted).await,
                Some(Some(sink)) => Ok(sink),
                Some(None) => Err(io::Error::other(
                    "the connection was lost by an earlier iteration",
                )),
            }
        }
    }

    /// Bytes the sink must hold when this iteration is over.
    fn due_after(&self) -> u64 {
        self.ledger.borrow().due + (self.workers * self.recipe.per_worker) as u64
    }

    /// The end of an iteration that stops at the sink: waits until every
    /// byte has arrived and keeps the connection if it is the one.
    async fn all_arrived(&self, due: u64, sink: Sink) {
        self.sink.arrived_at_least(due).await;
        if !self.recipe.connect_each_iteration {
            *self.stream.borrow_mut() = Some(sink);
        }
        self.ledger.borrow_mut().due = due;
    }
}

async fn connect(addr: SocketAddr, nodelay: bool, accepted: Arc<Accepted>) -> io::Result<Sink> {
    let stream = TcpStream::connect(addr).await?;
    stream.set_nodelay(nodelay)?;
    Ok(Sink::counted(stream, accepted))
}

/// One iteration, recorded in the ledger. After a failure the remaining
/// iterations return at once (criterion cannot be stopped from inside).
pub async fn run(env: &Env<'_>) {
    if env.ledger.borrow().failure.is_some() {
        return;
    }
    let outcome = tokio::time::timeout(BURST_TIMEOUT, iteration(env)).await;
    let mut ledger = env.ledger.borrow_mut();
    match outcome {
        Ok(Ok(finished)) => {
            ledger.iterations += 1;
            ledger.finished += finished;
        }
        Ok(Err(e)) => ledger.failure = Some(e.to_string()),
        Err(_) => {
            ledger.failure = Some(format!(
                "an iteration did not finish within {BURST_TIMEOUT:?}"
            ))
        }
    }
}

/// Returns how many producers finished inside the iteration.
async fn iteration(env: &Env<'_>) -> io::Result<u64> {
    match env.design {
        Design::StdMutexSwap => swap::<StdSwap>(env).await,
        Design::TokioMutexSwap => swap::<TokioSwap>(env).await,
        Design::MpscUnbounded | Design::MpscRecvMany => mpsc(env).await,
        other => Err(io::Error::other(format!(
            "the published bench had no {}",
            other.label()
        ))),
    }
}

/// The two swaps differ only in their mutex; their loops are the designs'
/// own (`SwapLoops`), the rest is the published bench's.
trait Swap: SwapLoops {
    fn inbox() -> Self::Inbox;
    fn published(
        inbox: Self::Inbox,
        capacity: usize,
        sink: SocketAddr,
        accepted: Arc<Accepted>,
    ) -> impl Future<Output = io::Result<()>> + 'static;
}

impl Swap for StdSwap {
    fn inbox() -> Self::Inbox {
        Arc::new(std::sync::Mutex::new(Vec::with_capacity(SHARED_CAPACITY)))
    }
    fn published(
        inbox: Self::Inbox,
        capacity: usize,
        sink: SocketAddr,
        accepted: Arc<Accepted>,
    ) -> impl Future<Output = io::Result<()>> + 'static {
        actor::std_swap(inbox, capacity, sink, accepted)
    }
}

impl Swap for TokioSwap {
    fn inbox() -> Self::Inbox {
        Arc::new(tokio::sync::Mutex::new(Vec::with_capacity(SHARED_CAPACITY)))
    }
    fn published(
        inbox: Self::Inbox,
        capacity: usize,
        sink: SocketAddr,
        accepted: Arc<Accepted>,
    ) -> impl Future<Output = io::Result<()>> + 'static {
        actor::tokio_swap(inbox, capacity, sink, accepted)
    }
}

// ANCHOR: swap
async fn swap<S: Swap>(env: &Env<'_>) -> io::Result<u64> {
    let (workers, recipe) = (env.workers, env.recipe);
    let due = env.due_after();
    let inbox = S::inbox();
    let live = LiveProducers::new(workers);
    let mut producers = JoinSet::new();
    // The consumer runs on this thread, the one that drives `block_on`.
    let local = LocalSet::new();
    let consumer = if recipe.clears {
        let (inbox, live, sink) = (inbox.clone(), live.clone(), env.sink_for_consumer());
        local.spawn_local(async move { S::consume(inbox, live, sink.await?).await.map(Some) })
    } else {
        let capacity = workers * recipe.per_worker;
        let (addr, accepted) = (env.sink.addr(), Arc::clone(&env.accepted));
        let published = S::published(inbox.clone(), capacity, addr, accepted);
        local.spawn_local(async move { published.await.map(|()| None) })
    };
    for w in 0..workers {
        producers.spawn(S::produce(
            inbox.clone(),
            live.enlist(),
            w,
            recipe.per_worker,
        ));
    }
    let mut finished = 0;
    match recipe.stop {
        Stop::Published => {
            // Whichever ends first: the consumer (only by an error, or the
            // fair consumer once every producer is done) or any producer.
            tokio::select! {
                ended = local.run_until(consumer) => {
                    ended.map_err(io::Error::other)??;
                }
                first = producers.join_next() => {
                    finished += u64::from(matches!(first, Some(Ok(()))));
                }
            }
            // `JoinSet::shutdown`, counting the producers that finished.
            producers.abort_all();
        }
        Stop::SinkHasAll => {
            let sink = local
                .run_until(consumer)
                .await
                .map_err(io::Error::other)??;
            let sink = sink.ok_or_else(|| io::Error::other("the consumer kept its sink"))?;
            env.all_arrived(due, sink).await;
        }
    }
    while let Some(ended) = producers.join_next().await {
        finished += u64::from(ended.is_ok());
    }
    Ok(finished)
}
// ANCHOR_END: swap

// ANCHOR: mpsc
async fn mpsc(env: &Env<'_>) -> io::Result<u64> {
    let (workers, recipe) = (env.workers, env.recipe);
    let due = env.due_after();
    let (tx, rx) = unbounded_channel::<u8>();
    let mut producers = JoinSet::new();
    let sink = env.sink_for_consumer();
    let batches = env.design == Design::MpscRecvMany;
    let consumer = tokio::spawn(async move {
        let sink = sink.await?;
        if batches {
            mpsc_recv_many::consume(rx, sink).await
        } else {
            mpsc_unbounded::consume(rx, sink).await
        }
    });
    for w in 0..workers {
        producers.spawn(mpsc_unbounded::produce(tx.clone(), w, recipe.per_worker));
    }
    let mut finished = 0;
    match recipe.stop {
        Stop::Published => {
            // Every message queued: the published stop point. The consumer
            // is aborted wherever it is in its writes.
            while let Some(ended) = producers.join_next().await {
                finished += u64::from(ended.is_ok());
            }
            consumer.abort();
        }
        Stop::SinkHasAll => {
            drop(tx);
            let sink = consumer.await.map_err(io::Error::other)??;
            env.all_arrived(due, sink).await;
            while let Some(ended) = producers.join_next().await {
                finished += u64::from(ended.is_ok());
            }
        }
    }
    Ok(finished)
}
// ANCHOR_END: mpsc
