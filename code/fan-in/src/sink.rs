//! Where the consumer forwards bytes: a loopback TCP socket read by a thread
//! of its own, or an in-memory tally that costs next to nothing.
use std::io::{self, Read};
use std::net::{SocketAddr, TcpListener};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc as std_mpsc;
use std::sync::Arc;
use std::thread::JoinHandle;

use anyhow::{anyhow, bail, Context, Result};
use serde::{Deserialize, Serialize};
use tokio::io::AsyncWriteExt;
use tokio::net::TcpStream;
use tokio::sync::oneshot;

use crate::burst::Tally;

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum SinkKind {
    Tcp,
    Memory,
}

impl SinkKind {
    pub const ALL: [SinkKind; 2] = [SinkKind::Tcp, SinkKind::Memory];

    pub fn label(self) -> &'static str {
        match self {
            SinkKind::Tcp => "loopback TCP sink",
            SinkKind::Memory => "in-memory sink",
        }
    }
}

/// The consumer's end of the sink. It counts write calls so the page can show
/// how many messages each design hands the sink per call.
pub struct Sink {
    pub writes: u64,
    target: Target,
}

enum Target {
    Tcp(TcpStream),
    Memory(Tally),
    /// A socket whose accepted bytes are counted write call by write call
    /// (the reconstruction of the published bench, see `Accepted`).
    Counted(TcpStream, Arc<Accepted>),
}

/// Bytes the kernel accepted from a consumer, counted call by call: a
/// consumer cancelled in the middle of a batch (the published stop points
/// drop it) still accounts for every byte it handed over.
#[derive(Debug, Default)]
pub struct Accepted {
    pub bytes: AtomicU64,
    pub calls: AtomicU64,
}

impl Accepted {
    pub fn bytes(&self) -> u64 {
        self.bytes.load(Ordering::Relaxed)
    }

    pub fn calls(&self) -> u64 {
        self.calls.load(Ordering::Relaxed)
    }
}

impl Sink {
    pub fn memory() -> Sink {
        Sink {
            writes: 0,
            target: Target::Memory(Tally::default()),
        }
    }

    pub fn tcp(stream: TcpStream) -> Sink {
        Sink {
            writes: 0,
            target: Target::Tcp(stream),
        }
    }

    /// A socket whose accepted bytes and write calls land in `accepted`.
    pub fn counted(stream: TcpStream, accepted: Arc<Accepted>) -> Sink {
        Sink {
            writes: 0,
            target: Target::Counted(stream, accepted),
        }
    }

    pub async fn write_all(&mut self, buf: &[u8]) -> io::Result<()> {
        self.writes += 1;
        match &mut self.target {
            Target::Tcp(stream) => stream.write_all(buf).await,
            Target::Memory(tally) => {
                tally.add(buf);
                Ok(())
            }
            // `write_all`'s own loop, with each call's bytes counted as the
            // kernel takes them.
            Target::Counted(stream, accepted) => {
                let mut rest = buf;
                while !rest.is_empty() {
                    let n = stream.write(rest).await?;
                    if n == 0 {
                        return Err(io::ErrorKind::WriteZero.into());
                    }
                    accepted.bytes.fetch_add(n as u64, Ordering::Relaxed);
                    accepted.calls.fetch_add(1, Ordering::Relaxed);
                    rest = &rest[n..];
                }
                Ok(())
            }
        }
    }

    /// The in-memory tally so far, reset for the next burst (`None` for TCP:
    /// the reading thread keeps that tally).
    pub fn take_memory_tally(&mut self) -> Option<Tally> {
        match &mut self.target {
            Target::Memory(t) => Some(std::mem::take(t)),
            Target::Tcp(_) | Target::Counted(..) => None,
        }
    }

    pub fn take_writes(&mut self) -> u64 {
        std::mem::take(&mut self.writes)
    }
}

struct Expect {
    bytes: u64,
    report: oneshot::Sender<io::Result<Tally>>,
}

/// A thread that accepts one loopback connection and reads it with blocking
/// reads, tallying every byte. Before each burst the driver says how many
/// bytes to expect; the thread answers once that many have arrived.
pub struct TcpSinkServer {
    addr: SocketAddr,
    expect: Option<std_mpsc::Sender<Expect>>,
    thread: Option<JoinHandle<io::Result<()>>>,
}

impl TcpSinkServer {
    /// Starts the reading thread, pinned to `cpu` when given.
    pub fn start(cpu: Option<usize>) -> Result<TcpSinkServer> {
        let listener = TcpListener::bind("127.0.0.1:0").context("binding the loopback sink")?;
        let addr = listener.local_addr()?;
        let (tx, rx) = std_mpsc::channel::<Expect>();
        let thread = std::thread::Builder::new()
            .name("fan-in-tcp-sink".into())
            .spawn(move || {
                if let Some(cpu) = cpu {
                    if !crate::placement::pin_current(&[cpu]) {
                        return Err(io::Error::other(format!(
                            "could not pin the sink's reader to CPU {cpu}"
                        )));
                    }
                }
                serve(listener, rx)
            })?;
        Ok(TcpSinkServer {
            addr,
            expect: Some(tx),
            thread: Some(thread),
        })
    }

    /// Connects the consumer's end. Nagle's algorithm is off: with it, the
    /// last small segment of a burst can wait for a delayed ACK, and the stop
    /// point would measure a kernel timer instead of the design.
    pub async fn connect(&self) -> Result<Sink> {
        let stream = TcpStream::connect(self.addr)
            .await
            .context("connecting to the loopback sink")?;
        stream.set_nodelay(true)?;
        Ok(Sink::tcp(stream))
    }

    /// Arms the thread for the next burst; the receiver resolves when `bytes`
    /// bytes have arrived.
    pub fn expect(&self, bytes: u64) -> Result<oneshot::Receiver<io::Result<Tally>>> {
        let (report, rx) = oneshot::channel();
        self.expect
            .as_ref()
            .ok_or_else(|| anyhow!("the TCP sink was shut down"))?
            .send(Expect { bytes, report })
            .map_err(|_| anyhow!("the TCP sink thread has stopped"))?;
        Ok(rx)
    }

    /// Stops the thread. Call it after dropping the consumer's `Sink`: the
    /// thread then reads to end of stream and fails if any byte arrived that
    /// no burst expected (a design that resends data).
    pub fn shutdown(mut self) -> Result<()> {
        self.expect.take();
        match self.thread.take().map(|t| t.join()) {
            Some(Ok(Ok(()))) | None => Ok(()),
            Some(Ok(Err(e))) => Err(e).context("the TCP sink failed"),
            Some(Err(_)) => bail!("the TCP sink thread panicked"),
        }
    }
}

impl Drop for TcpSinkServer {
    fn drop(&mut self) {
        self.expect.take();
    }
}

fn serve(listener: TcpListener, expect: std_mpsc::Receiver<Expect>) -> io::Result<()> {
    let (mut stream, _) = listener.accept()?;
    let mut buf = vec![0u8; 1 << 16];
    // The thread only reads while a burst is armed, so bytes of one burst can
    // never be credited to the next.
    while let Ok(Expect { bytes, report }) = expect.recv() {
        let mut tally = Tally::default();
        let outcome = loop {
            if tally.bytes >= bytes {
                break Ok(tally);
            }
            let want = (bytes - tally.bytes).min(buf.len() as u64) as usize;
            match stream.read(&mut buf[..want]) {
                Ok(0) => {
                    break Err(io::Error::new(
                        io::ErrorKind::UnexpectedEof,
                        format!("stream closed after {} of {bytes} bytes", tally.bytes),
                    ))
                }
                Ok(n) => tally.add(&buf[..n]),
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => break Err(e),
            }
        };
        let failed = outcome.is_err();
        let _ = report.send(outcome);
        if failed {
            return Err(io::Error::other("a burst failed at the sink"));
        }
    }
    let mut extra = Vec::new();
    stream.read_to_end(&mut extra)?;
    if !extra.is_empty() {
        return Err(io::Error::other(format!(
            "{} bytes arrived that no burst expected",
            extra.len()
        )));
    }
    Ok(())
}
