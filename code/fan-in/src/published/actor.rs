//! The published swap consumer (`mutex_actor` in buffered-mpsc's src/lib.rs),
//! for both mutexes: it connects once it first runs, swaps the shared
//! buffer for its own and writes what it got, forever. It never clears its
//! buffer, so the buffer it hands back still holds what it wrote: every
//! pass resends all earlier bytes of that buffer, and the bench never
//! checked. (A commit before the last one cleared it; the last commit's
//! message says the clear was not needed.) Its writes are counted as the
//! kernel accepts them, so the reconstruction can check what arrived.
use std::io;
use std::net::SocketAddr;
use std::sync::Arc;

use tokio::net::TcpStream;

use crate::sink::{Accepted, Sink};

// ANCHOR: actor
// The guard is dropped before the write; clippy cannot see it (the
// published code carried the same allowance).
#[allow(clippy::await_holding_lock)]
pub async fn std_swap(
    inbox: Arc<std::sync::Mutex<Vec<u8>>>,
    capacity: usize,
    sink: SocketAddr,
    accepted: Arc<Accepted>,
) -> io::Result<()> {
    let mut buffer = Vec::with_capacity(capacity);
    let mut stream = Sink::counted(TcpStream::connect(sink).await?, accepted);
    loop {
        let mut current = inbox.lock().unwrap();
        std::mem::swap(&mut buffer, &mut *current);
        drop(current);
        // An empty buffer writes nothing and never yields: the loop spins
        // until a producer pushes.
        stream.write_all(&buffer).await?;
    }
}
// ANCHOR_END: actor

pub async fn tokio_swap(
    inbox: Arc<tokio::sync::Mutex<Vec<u8>>>,
    capacity: usize,
    sink: SocketAddr,
    accepted: Arc<Accepted>,
) -> io::Result<()> {
    let mut buffer = Vec::with_capacity(capacity);
    let mut stream = Sink::counted(TcpStream::connect(sink).await?, accepted);
    loop {
        let mut current = inbox.lock().await;
        std::mem::swap(&mut buffer, &mut *current);
        drop(current);
        stream.write_all(&buffer).await?;
    }
}
