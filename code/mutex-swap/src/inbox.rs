//! What every design offers: producers push one message at a time, the
//! consumer takes everything there is in one pass and hands it to a [`Sink`].
use std::future::Future;

/// A many-producer, one-consumer inbox of `u64` messages.
pub trait Inbox: Send + Sync + 'static {
    fn with_producers(producers: usize) -> Self;

    /// Adds `message` from producer number `producer`. Returns whether the
    /// inbox (or the producer's shard of it) was empty before: only then can
    /// the consumer be asleep, so only then does the producer wake it.
    fn push(&self, producer: usize, message: u64) -> impl Future<Output = bool> + Send;

    /// One consumer pass: moves every queued message into `sink`, using
    /// `spare` as the empty buffer to swap in. Returns how many it moved.
    fn drain(&self, spare: &mut Vec<u64>, sink: &mut Sink) -> impl Future<Output = u64>;
}

/// Where the consumer puts messages: it counts and sums them (the
/// validation) and mixes each into a checksum `work_rounds` times, a
/// stand-in for real work per message that the optimiser cannot remove.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Sink {
    pub count: u64,
    pub sum: u64,
    pub mix: u64,
    pub work_rounds: u32,
}

impl Sink {
    pub fn with_work(work_rounds: u32) -> Self {
        Sink {
            work_rounds,
            ..Sink::default()
        }
    }

    #[inline]
    pub fn accept(&mut self, message: u64) {
        self.count += 1;
        self.sum = self.sum.wrapping_add(message);
        for _ in 0..self.work_rounds {
            self.mix = splitmix64(self.mix ^ message);
        }
    }

    /// The sum a burst of messages `0..n` must arrive at.
    pub fn expected_sum(n: u64) -> u64 {
        if n == 0 {
            0
        } else {
            n.wrapping_mul(n - 1) / 2
        }
    }
}

fn splitmix64(x: u64) -> u64 {
    let mut z = x.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}
