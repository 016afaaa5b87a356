//! The messages of experiment A. Each carries its sequence number in its first
//! eight bytes so the receiver can prove every message arrived exactly once.
//!
//! The sizes they come in are one table, [`PAYLOAD_SIZES`], and
//! [`for_size`] turns a size read from it into the type of that size: the
//! one place a number of bytes becomes a `[u8; N]`.
use anyhow::{bail, Result};

use crate::stack;

/// A message type and the stock it is made from. `take` builds message `seq`
/// from the stock, `give` hands a received message back and returns its
/// sequence number. Neither allocates: the stock is prepared before timing.
pub trait Payload: Send + Sized + 'static {
    type Stock: Send;
    /// Bytes of payload one message carries.
    const BYTES: usize;
    fn stock(burst: usize) -> Self::Stock;
    fn take(stock: &mut Self::Stock, seq: u64) -> Self;
    fn give(stock: &mut Self::Stock, msg: Self) -> u64;
}

// ANCHOR: payload
/// By value: every send copies all `N` bytes into the channel and every
/// receive copies them out. The stock is a template to copy from, one page
/// longer than a message: message `seq` is copied from the line
/// [`stack::step`]`(seq)` of that page, so consecutive messages read from
/// addresses far apart within a page, and over a burst every line comes up.
/// Where the template sits on the heap relative to the channel's buffer
/// would otherwise be one draw per process that decides how often a copy's
/// loads are mistaken for ones depending on a store to the buffer (4K
/// aliasing), the heap's share of what [`stack::shifted`] does for the
/// stack.
impl<const N: usize> Payload for [u8; N] {
    type Stock = Box<[u8]>;
    const BYTES: usize = N;

    fn stock(_burst: usize) -> Self::Stock {
        assert!(
            N >= 8,
            "a payload holds at least its 8-byte sequence number"
        );
        vec![0xA5; N + stack::STEPS * stack::STEP_BYTES].into_boxed_slice()
    }

    fn take(stock: &mut Self::Stock, seq: u64) -> Self {
        let at = stack::step(seq) * stack::STEP_BYTES;
        let mut msg: [u8; N] = stock[at..at + N]
            .try_into()
            .expect("the stock is a page longer than a message");
        msg[..8].copy_from_slice(&seq.to_le_bytes());
        msg
    }

    fn give(_stock: &mut Self::Stock, msg: Self) -> u64 {
        u64::from_le_bytes(msg[..8].try_into().unwrap())
    }
}

/// Boxed: only a pointer moves. The boxes are allocated before timing and
/// recycled, so the timed region holds no allocation.
impl<const N: usize> Payload for Box<[u8; N]> {
    type Stock = Vec<Box<[u8; N]>>;
    const BYTES: usize = N;

    fn stock(burst: usize) -> Self::Stock {
        assert!(
            N >= 8,
            "a payload holds at least its 8-byte sequence number"
        );
        (0..burst).map(|_| Box::new([0xA5; N])).collect()
    }

    fn take(stock: &mut Self::Stock, seq: u64) -> Self {
        let mut msg = stock.pop().expect("one box per message of the burst");
        msg[..8].copy_from_slice(&seq.to_le_bytes());
        msg
    }

    fn give(stock: &mut Self::Stock, msg: Self) -> u64 {
        let seq = u64::from_le_bytes(msg[..8].try_into().unwrap());
        stock.push(msg);
        seq
    }
}
// ANCHOR_END: payload

/// Code to run at one payload size, the size as the const `N` (a
/// `[u8; N]` or a `Box<[u8; N]>` message): what [`for_size`] calls.
pub trait ForSize {
    type Out;
    fn run<const N: usize>(self) -> Result<Self::Out>;
}

/// The table of sizes: it defines both [`PAYLOAD_SIZES`] and the one match
/// in [`for_size`], so a size cannot be listed without a type or the
/// reverse.
macro_rules! payload_sizes {
    ($($n:literal),+ $(,)?) => {
        /// Payload sizes in bytes. Every payload starts with an 8-byte sequence
        /// number, which the receiver reads back to prove what arrived.
        pub const PAYLOAD_SIZES: [usize; [$($n),+].len()] = [$($n),+];

        /// Runs `visitor` at the payload size `bytes`, one of [`PAYLOAD_SIZES`];
        /// any other size is an error.
        pub fn for_size<V: ForSize>(bytes: usize, visitor: V) -> Result<V::Out> {
            match bytes {
                $($n => visitor.run::<$n>(),)+
                other => bail!("no payload type for {other} bytes (the sizes are {PAYLOAD_SIZES:?})"),
            }
        }
    };
}

payload_sizes!(8, 64, 256, 512, 1024, 4096, 16384, 32768);

/// What the receiver's sum of sequence numbers must be after one burst.
pub fn burst_checksum(burst: usize) -> u64 {
    let n = burst as u64;
    n * (n - 1) / 2
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Reports the `N` it was run at and the size of the message types
    /// that `N` makes.
    struct Sizes;

    impl ForSize for Sizes {
        type Out = (usize, usize, usize);
        fn run<const N: usize>(self) -> Result<Self::Out> {
            Ok((
                N,
                <[u8; N] as Payload>::BYTES,
                <Box<[u8; N]> as Payload>::BYTES,
            ))
        }
    }

    #[test]
    fn every_listed_size_dispatches_to_its_own_type() {
        for bytes in PAYLOAD_SIZES {
            assert_eq!(for_size(bytes, Sizes).unwrap(), (bytes, bytes, bytes));
        }
        assert!(
            PAYLOAD_SIZES.windows(2).all(|w| w[0] < w[1]),
            "ascending, no repeats"
        );
        assert_eq!(
            PAYLOAD_SIZES[0], 8,
            "the smallest holds the sequence number"
        );
    }

    #[test]
    fn by_value_messages_are_copied_from_every_line_of_a_page_in_turn() {
        let mut stock = <[u8; 64]>::stock(1);
        // Mark each line of the template's first page with its own number.
        for line in 0..stack::STEPS {
            stock[line * stack::STEP_BYTES + 8] = line as u8;
        }
        let base = stock.as_ptr() as usize;
        let mut lines = Vec::new();
        for seq in 0..stack::STEPS as u64 {
            let msg = <[u8; 64]>::take(&mut stock, seq);
            assert_eq!(
                <[u8; 64]>::give(&mut stock, msg),
                seq,
                "the sequence number"
            );
            lines.push(msg[8] as usize);
        }
        assert_eq!(lines[0], 0);
        assert_ne!(lines[1], 1, "neighbours in time sit apart in the page");
        lines.sort_unstable();
        assert_eq!(
            lines,
            (0..stack::STEPS).collect::<Vec<_>>(),
            "every line once"
        );
        assert_eq!(stock.as_ptr() as usize, base, "take never moves the stock");
        // The largest message still fits from the last line.
        let mut big = <[u8; 32768]>::stock(1);
        let last = (0..stack::STEPS as u64).find(|&s| stack::step(s) == stack::STEPS - 1);
        let msg = <[u8; 32768]>::take(&mut big, last.unwrap());
        assert_eq!(msg[32767], 0xA5);
    }

    #[test]
    fn an_unlisted_size_is_refused_by_name() {
        for bytes in [0, 7, 100, 65536] {
            let e = for_size(bytes, Sizes).unwrap_err().to_string();
            assert!(
                e.starts_with(&format!("no payload type for {bytes} bytes")) && e.contains("32768"),
                "{e}"
            );
        }
    }
}
