//! The loopback server the reconstruction writes to. The published bench
//! opened a new connection in every iteration, so this server accepts one
//! connection after another (never two at once: an iteration's connection
//! is closed before the next one is read) and reads each to its end, with
//! blocking reads on a thread of its own. It keeps a running count and
//! checksum of every byte that arrived on any of them: an iteration that
//! waits for its bytes watches the count grow, with no hand-over to the
//! thread inside the timed region.
use std::io::{self, Read};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;

use anyhow::{anyhow, Context, Result};
use tokio::sync::Notify;

use crate::burst::Tally;

#[derive(Debug, Default)]
struct Shared {
    arrived: AtomicU64,
    tally: Mutex<Tally>,
    connections: AtomicU64,
    /// Rung after every read (a permit is kept if nobody waits).
    grew: Notify,
    /// The address of the connection that stops the thread, once it is
    /// made: connections still queued ahead of it are read first.
    last: Mutex<Option<SocketAddr>>,
}

pub struct ConnectionsSink {
    addr: SocketAddr,
    shared: Arc<Shared>,
    thread: Mutex<Option<JoinHandle<io::Result<()>>>>,
}

/// What arrived over the server's whole life.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Arrived {
    pub tally: Tally,
    pub connections: u64,
}

impl ConnectionsSink {
    pub fn start() -> Result<ConnectionsSink> {
        let listener = TcpListener::bind("127.0.0.1:0").context("binding the loopback sink")?;
        let addr = listener.local_addr()?;
        let shared = Arc::new(Shared::default());
        let thread = {
            let shared = Arc::clone(&shared);
            std::thread::Builder::new()
                .name("fan-in-published-sink".into())
                .spawn(move || serve(listener, &shared))?
        };
        Ok(ConnectionsSink {
            addr,
            shared,
            thread: Mutex::new(Some(thread)),
        })
    }

    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// Bytes that arrived so far, on every connection.
    pub fn arrived(&self) -> u64 {
        self.shared.arrived.load(Ordering::Acquire)
    }

    /// Returns once `target` bytes in all have arrived.
    pub async fn arrived_at_least(&self, target: u64) {
        while self.arrived() < target {
            self.shared.grew.notified().await;
        }
    }

    /// Waits for every connection to close, stops the thread and returns
    /// what arrived. Close every client connection first (drop the runtime
    /// whose tasks hold them).
    pub fn finish(&self) -> Result<Arrived> {
        let thread = self.thread.lock().unwrap().take();
        stop(&self.shared, self.addr)?;
        match thread.map(|t| t.join()) {
            Some(Ok(Ok(()))) => {}
            Some(Ok(Err(e))) => return Err(e).context("the published-bench sink failed"),
            Some(Err(_)) | None => return Err(anyhow!("the published-bench sink panicked")),
        }
        let tally = *self.shared.tally.lock().unwrap();
        Ok(Arrived {
            tally,
            connections: self.shared.connections.load(Ordering::Acquire),
        })
    }
}

impl Drop for ConnectionsSink {
    fn drop(&mut self) {
        if self.thread.get_mut().is_ok_and(|t| t.is_some()) {
            let _ = stop(&self.shared, self.addr);
        }
    }
}

/// Makes the last connection: the thread stops once it has read it (and
/// every connection queued before it) to its end. Its address is known
/// before it closes, so the thread cannot miss it.
fn stop(shared: &Shared, addr: SocketAddr) -> Result<()> {
    let last = TcpStream::connect(addr).context("connecting to stop the sink")?;
    *shared.last.lock().unwrap() = Some(last.local_addr()?);
    Ok(())
}

fn serve(listener: TcpListener, shared: &Shared) -> io::Result<()> {
    let mut buf = vec![0u8; 1 << 16];
    loop {
        let (mut stream, peer) = listener.accept()?;
        // A client that never closes its end fails the run instead of
        // hanging it.
        stream.set_read_timeout(Some(crate::experiment::BURST_TIMEOUT))?;
        loop {
            match stream.read(&mut buf) {
                Ok(0) => break,
                Ok(n) => {
                    shared.tally.lock().unwrap().add(&buf[..n]);
                    shared.arrived.fetch_add(n as u64, Ordering::AcqRel);
                    shared.grew.notify_one();
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
        if *shared.last.lock().unwrap() == Some(peer) {
            return Ok(());
        }
        shared.connections.fetch_add(1, Ordering::AcqRel);
    }
}
