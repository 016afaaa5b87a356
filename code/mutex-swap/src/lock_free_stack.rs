//! The `AtomicPtr` swap the published post suggested. A `Vec` behind an
//! `AtomicPtr` cannot be pushed into without owning it, so the shared thing
//! becomes a linked stack: producers push one node each with a
//! compare-and-swap, and the consumer takes the whole stack with one `swap`.
//! The price is one heap allocation per message, and each batch comes out
//! newest first.
use std::ptr;
use std::sync::atomic::{AtomicPtr, Ordering};

use crate::inbox::{Inbox, Sink};

struct Node {
    message: u64,
    next: *mut Node,
}

pub struct LockFreeStack {
    head: AtomicPtr<Node>,
}

// ANCHOR: lock_free
impl Inbox for LockFreeStack {
    fn with_producers(_: usize) -> Self {
        LockFreeStack {
            head: AtomicPtr::new(ptr::null_mut()),
        }
    }

    async fn push(&self, _: usize, message: u64) -> bool {
        let node = Box::into_raw(Box::new(Node {
            message,
            next: ptr::null_mut(),
        }));
        let mut head = self.head.load(Ordering::Relaxed);
        loop {
            // Safety: `node` is ours until the exchange below publishes it.
            unsafe { (*node).next = head };
            // No ABA hazard: nodes are only ever removed as a whole stack,
            // so whatever `head` points at when the exchange succeeds is
            // the live top, and linking to it is right.
            match self
                .head
                .compare_exchange_weak(head, node, Ordering::Release, Ordering::Relaxed)
            {
                Ok(_) => return head.is_null(),
                Err(now) => head = now,
            }
        }
    }

    async fn drain(&self, _spare: &mut Vec<u64>, sink: &mut Sink) -> u64 {
        let mut node = self.head.swap(ptr::null_mut(), Ordering::Acquire);
        let mut taken = 0;
        while !node.is_null() {
            // Safety: the swap detached this stack; the consumer alone owns
            // it, and the Acquire pairs with each push's Release.
            let owned = unsafe { Box::from_raw(node) };
            sink.accept(owned.message);
            node = owned.next;
            taken += 1;
        }
        taken
    }
}
// ANCHOR_END: lock_free

impl Drop for LockFreeStack {
    fn drop(&mut self) {
        let mut node = *self.head.get_mut();
        while !node.is_null() {
            // Safety: `&mut self` means no producer or consumer is left.
            let owned = unsafe { Box::from_raw(node) };
            node = owned.next;
        }
    }
}
