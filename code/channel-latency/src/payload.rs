//! The messages of experiment A. Each carries its sequence number in its first
//! eight bytes so the receiver can prove every message arrived exactly once.

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
/// receive copies them out. The stock is a template to copy from.
impl<const N: usize> Payload for [u8; N] {
    type Stock = Box<[u8; N]>;
    const BYTES: usize = N;

    fn stock(_burst: usize) -> Self::Stock {
        assert!(
            N >= 8,
            "a payload holds at least its 8-byte sequence number"
        );
        Box::new([0xA5; N])
    }

    fn take(stock: &mut Self::Stock, seq: u64) -> Self {
        let mut msg: [u8; N] = **stock;
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

/// What the receiver's sum of sequence numbers must be after one burst.
pub fn burst_checksum(burst: usize) -> u64 {
    let n = burst as u64;
    n * (n - 1) / 2
}
