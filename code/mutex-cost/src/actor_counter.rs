//! The counter owned by one task (an actor): other tasks send it requests over
//! an mpsc channel and wait for the reply on a oneshot channel. No lock at all,
//! but every operation is two channel hand-offs and usually two task wake-ups.
use tokio::sync::{mpsc, oneshot};

use crate::{Counter, ACTOR_QUEUE};

enum Request {
    IncreaseBy(i64, oneshot::Sender<()>),
    DecreaseBy(i64, oneshot::Sender<()>),
    Value(oneshot::Sender<i64>),
}

pub struct ActorCounter {
    requests: mpsc::Sender<Request>,
}

// ANCHOR: actor_loop
async fn own_the_counter(mut requests: mpsc::Receiver<Request>) {
    let mut value = 0i64;
    while let Some(request) = requests.recv().await {
        // A requester that gave up is not the actor's problem: ignore send errors.
        match request {
            Request::IncreaseBy(n, done) => {
                value += n;
                let _ = done.send(());
            }
            Request::DecreaseBy(n, done) => {
                value -= n;
                let _ = done.send(());
            }
            Request::Value(reply) => {
                let _ = reply.send(value);
            }
        }
    }
}
// ANCHOR_END: actor_loop

impl ActorCounter {
    async fn ask<T>(&self, request: impl FnOnce(oneshot::Sender<T>) -> Request) -> T {
        let (reply, answer) = oneshot::channel();
        self.requests
            .send(request(reply))
            .await
            .expect("the actor outlives every handle to it");
        answer.await.expect("the actor answers every request")
    }
}

// ANCHOR: actor_counter
impl Counter for ActorCounter {
    /// Spawns the actor, so it must be called inside a tokio runtime.
    fn start() -> Self {
        let (requests, inbox) = mpsc::channel(ACTOR_QUEUE);
        tokio::spawn(own_the_counter(inbox));
        ActorCounter { requests }
    }

    async fn increase_by(&self, n: i64) {
        self.ask(|done| Request::IncreaseBy(n, done)).await
    }

    async fn decrease_by(&self, n: i64) {
        self.ask(|done| Request::DecreaseBy(n, done)).await
    }

    async fn value(&self) -> i64 {
        self.ask(Request::Value).await
    }
}
// ANCHOR_END: actor_counter
