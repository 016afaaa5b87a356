//! How a burst can be driven: the tokio runtime's flavour and worker
//! threads, and which thread polls the burst. The fair sweep uses one of
//! these (a current-thread runtime, `block_on` per burst); the published
//! sweep did not say which it used, and a reproducer could pick any.
use anyhow::{Context, Result};
use tokio::runtime::{Builder, Runtime};

/// The runtime's flavour.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Flavour {
    CurrentThread,
    /// `workers: None` is one per core, what `Runtime::new()` and
    /// `#[tokio::main]` give.
    MultiThread {
        workers: Option<usize>,
    },
}

impl Flavour {
    /// Worker threads this flavour runs on this machine (0: none, the
    /// caller's thread does the work).
    pub fn workers(self) -> usize {
        match self {
            Flavour::CurrentThread => 0,
            Flavour::MultiThread { workers } => workers.unwrap_or_else(cores),
        }
    }

    /// A runtime of this flavour with the IO and time drivers enabled, as
    /// `#[tokio::main]` builds it.
    pub fn build(self) -> Result<Runtime> {
        let mut b = match self {
            Flavour::CurrentThread => Builder::new_current_thread(),
            Flavour::MultiThread { .. } => {
                let mut b = Builder::new_multi_thread();
                b.worker_threads(self.workers());
                b
            }
        };
        b.enable_all()
            .build()
            .with_context(|| format!("building a {} runtime", self.describe()))
    }

    pub fn describe(self) -> String {
        match self {
            Flavour::CurrentThread => "current-thread".into(),
            Flavour::MultiThread { workers } => format!(
                "multi-thread ({} worker{}{})",
                self.workers(),
                if self.workers() == 1 { "" } else { "s" },
                if workers.is_none() {
                    ", one per core"
                } else {
                    ""
                }
            ),
        }
    }
}

/// Cores this process may run on: the default worker count.
pub fn cores() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// Who runs a burst, and how criterion's loop reaches it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Driver {
    /// A sync channel: the measuring thread itself.
    Thread,
    /// criterion's `to_async(&rt).iter(..)`: one `block_on` per sample,
    /// every burst of the sample awaited inside it.
    ToAsync(Flavour),
    /// `rt.block_on(burst)` per burst: the burst is polled by the thread
    /// that calls `block_on`, never by a worker.
    BlockOn(Flavour),
    /// `rt.block_on(tokio::spawn(burst))` per burst: a worker polls the
    /// burst, the calling thread waits for it.
    Spawned(Flavour),
}

impl Driver {
    pub fn flavour(self) -> Option<Flavour> {
        match self {
            Driver::Thread => None,
            Driver::ToAsync(f) | Driver::BlockOn(f) | Driver::Spawned(f) => Some(f),
        }
    }
}

/// The runtimes one run drives bursts on, built once: building a
/// multi-thread runtime starts threads, which is not what is timed.
pub struct Runtimes {
    pub current: Runtime,
    /// One worker per core.
    pub multi: Runtime,
    pub multi_one: Runtime,
}

impl Runtimes {
    pub fn new() -> Result<Runtimes> {
        Ok(Runtimes {
            current: Flavour::CurrentThread.build()?,
            multi: Flavour::MultiThread { workers: None }.build()?,
            multi_one: Flavour::MultiThread { workers: Some(1) }.build()?,
        })
    }

    /// The runtime of `flavour`; only the three flavours above exist.
    pub fn of(&self, flavour: Flavour) -> &Runtime {
        match flavour {
            Flavour::CurrentThread => &self.current,
            Flavour::MultiThread { workers: Some(1) } => &self.multi_one,
            Flavour::MultiThread { .. } => &self.multi,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flavours_say_how_many_workers_they_run() {
        assert_eq!(Flavour::CurrentThread.workers(), 0);
        assert_eq!(Flavour::MultiThread { workers: Some(1) }.workers(), 1);
        assert_eq!(Flavour::MultiThread { workers: None }.workers(), cores());
        assert_eq!(
            Flavour::MultiThread { workers: Some(1) }.describe(),
            "multi-thread (1 worker)"
        );
        assert!(Flavour::MultiThread { workers: None }
            .describe()
            .ends_with(", one per core)"));
        assert_eq!(Driver::Thread.flavour(), None);
    }

    #[test]
    fn each_flavour_finds_its_runtime() {
        let rts = Runtimes::new().unwrap();
        let workers = |rt: &Runtime| rt.metrics().num_workers();
        assert_eq!(workers(rts.of(Flavour::CurrentThread)), 1);
        assert_eq!(
            workers(rts.of(Flavour::MultiThread { workers: Some(1) })),
            1
        );
        assert_eq!(
            workers(rts.of(Flavour::MultiThread { workers: None })),
            cores()
        );
    }
}
