//! A same-process rendezvous copy shared by its two threads: the receiver, which matched the
//! message, and the sender, which is waiting for it anyway.
//!
//! A large same-process message is copied once, from the sender's buffer into the
//! receiver's (`transport::local`). Alone, the receiver pulls every line of it from the
//! sender's core while the sender spins. Here the receiver publishes its destination and
//! both threads take chunks of the copy from one counter, each copying its chunks, the
//! sender writing straight into the receiver's buffer; the receive completes once every chunk
//! is copied, and the send with it. A sender that does not come back to test its send (an
//! `EP_Isend` whose owner computes meanwhile) leaves every chunk to the receiver, which then
//! copies as it would alone. Endpoint teams (docs/teams.md) share such copies with their
//! members instead; this is the team of two every rendezvous has.

use super::share::wait_plainly;
use std::sync::atomic::{AtomicPtr, AtomicUsize, Ordering};

/// Messages above this size are shared, in two halves up to twice [`MIN_CHUNK_BYTES`]. It
/// equals the local eager limit (`transport::local::LOCAL_EAGER_BYTES`, where the figures
/// are), so that the rendezvous copy of every standard send is shared; a synchronous send of
/// at most this size that does not land is copied by the receiver alone, since at 8 KiB
/// halves no longer gain (1x2 ping-pong on MPICH: 1.54 us against 1.51 us for a landed copy).
/// Figures for the larger sizes: docs/performance.md, "Same-process messages above 32 bytes".
pub(crate) const SHARED_COPY_ABOVE_BYTES: usize = 8 * 1024;
/// The smallest chunk a thread takes when the copy has more than two.
const MIN_CHUNK_BYTES: usize = 16 * 1024;
/// At most this many chunks: enough to even out two threads that start at different times,
/// few enough that taking one (an atomic add on a line both threads write) stays rare.
const MAX_CHUNKS: usize = 16;

/// The state of one shared copy, inside the local send it belongs to.
#[derive(Default)]
pub struct SharedCopy {
    /// The receiver's destination: null until the receiver has matched and published it
    /// (release), with `bytes` written before.
    dst: AtomicPtr<u8>,
    /// Bytes to copy (the message, or the part of it the receive buffer holds).
    bytes: AtomicUsize,
    /// The next chunk to take.
    next: AtomicUsize,
    /// Chunks copied (each added with release once its bytes are written).
    finished: AtomicUsize,
}

/// The chunk size for `bytes`: at most `MAX_CHUNKS` chunks, of `MIN_CHUNK_BYTES` at least,
/// or halves when the copy is smaller than two of those. Measured (1x2 ping-pong, MPICH):
/// 64 KiB in 16 KiB chunks took 4.1 us, in 8 KiB chunks 5.0 us; 16 KiB in halves 1.85 us.
fn chunk_bytes(bytes: usize) -> usize {
    bytes.div_ceil(MAX_CHUNKS).max(MIN_CHUNK_BYTES.min(bytes.div_ceil(2)))
}

impl SharedCopy {
    /// Whether a copy of `bytes` between contiguous buffers is worth sharing.
    pub fn worth_sharing(bytes: usize) -> bool {
        bytes > SHARED_COPY_ABOVE_BYTES
    }

    /// Receiver side: copies `bytes` bytes from `src` to `dst`, sharing the chunks with the
    /// sender's [`Self::help`] calls; returns once every chunk is copied (by either thread).
    /// While the sender finishes the chunks it took, it waits plainly (spins, then yields:
    /// the caller holds its endpoint's queues, which a patient waiter's progress could need).
    /// Called once per copy.
    ///
    /// # Safety
    /// `src` is readable and `dst` writable for `bytes` bytes, the two do not overlap, and
    /// both stay so until this returns; `src` is the buffer of the send this copy belongs to.
    pub unsafe fn run(&self, src: *const u8, dst: *mut u8, bytes: usize) {
        self.bytes.store(bytes, Ordering::Relaxed);
        self.dst.store(dst, Ordering::Release);
        let chunks = bytes.div_ceil(chunk_bytes(bytes));
        // SAFETY: this function's contract.
        unsafe { self.take_chunks(src, dst, bytes) };
        let mut spins = 0u32;
        while self.finished.load(Ordering::Acquire) < chunks {
            wait_plainly(&mut spins);
        }
    }

    /// Sender side: takes and copies chunks of a copy its receiver has started, if any and
    /// while any are left. Called by the sending thread while its send is not complete.
    ///
    /// # Safety
    /// `src` is the send's buffer, as given to the receiver's [`Self::run`] (readable for the
    /// message's bytes, not modified until the send completes).
    pub unsafe fn help(&self, src: *const u8) {
        let dst = self.dst.load(Ordering::Acquire);
        if dst.is_null() {
            return;
        }
        let bytes = self.bytes.load(Ordering::Relaxed);
        // SAFETY: `dst` was published by the receiver in `run`, which does not return (and
        // so does not hand its buffer back) before every chunk taken here is finished; `src`
        // is this function's contract.
        unsafe { self.take_chunks(src, dst, bytes) };
    }

    /// Takes chunks until none are left, copying each and counting it finished.
    ///
    /// # Safety
    /// As for [`Self::run`]: both ranges valid for `bytes` bytes while chunks are left.
    unsafe fn take_chunks(&self, src: *const u8, dst: *mut u8, bytes: usize) {
        let chunk = chunk_bytes(bytes);
        let chunks = bytes.div_ceil(chunk);
        // A plain load first: once every chunk is taken, a waiting sender's repeated calls
        // stop writing the shared line.
        while self.next.load(Ordering::Relaxed) < chunks {
            let i = self.next.fetch_add(1, Ordering::Relaxed);
            if i >= chunks {
                break;
            }
            let start = i * chunk;
            let len = chunk.min(bytes - start);
            // SAFETY: `start + len <= bytes`, both ranges hold `bytes` bytes (the caller's
            // contract), and each chunk index is taken once, so no two copies write the same
            // bytes.
            unsafe { std::ptr::copy_nonoverlapping(src.add(start), dst.add(start), len) };
            self.finished.fetch_add(1, Ordering::Release);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    #[test]
    fn chunks_cover_the_copy_within_bounds() {
        for bytes in [SHARED_COPY_ABOVE_BYTES + 1, 20_000, 32 * 1024, 100_000, 1 << 20, (16 << 20) + 3] {
            let chunk = chunk_bytes(bytes);
            assert!(chunk >= MIN_CHUNK_BYTES || bytes.div_ceil(chunk) == 2, "{bytes} bytes in chunks of {chunk}");
            assert!(bytes.div_ceil(chunk) <= MAX_CHUNKS);
        }
    }

    /// The receiver alone (the sender never helps) copies everything.
    #[test]
    fn the_receiver_alone_copies_everything() {
        let src: Vec<u8> = (0..300_000u32).map(|i| (i * 7) as u8).collect();
        let mut dst = vec![0u8; src.len()];
        let copy = SharedCopy::default();
        // SAFETY: two distinct vectors of the same length, alive across the call.
        unsafe { copy.run(src.as_ptr(), dst.as_mut_ptr(), src.len()) };
        assert_eq!(src, dst);
    }

    /// A sender helping from another thread: every byte arrives once the receiver returns,
    /// whoever copied it, over many copies (to meet different interleavings). Checked by
    /// mutation: with `run` returning without waiting for `finished`, the comparison fails.
    #[test]
    fn a_helping_sender_and_the_receiver_copy_each_chunk_once() {
        for round in 0..200u32 {
            let bytes = 1 << 20;
            let src: Arc<Vec<u8>> = Arc::new((0..bytes as u32).map(|i| (i ^ round) as u8).collect());
            let mut dst = vec![0u8; bytes];
            let copy = Arc::new(SharedCopy::default());
            let done = Arc::new(std::sync::atomic::AtomicBool::new(false));
            let sender = {
                let (copy, src, done) = (copy.clone(), src.clone(), done.clone());
                std::thread::spawn(move || {
                    while !done.load(Ordering::Acquire) {
                        // SAFETY: `src` is the send's buffer, alive and unchanged until `done`.
                        unsafe { copy.help(src.as_ptr()) };
                    }
                })
            };
            // SAFETY: `src` and `dst` are distinct buffers of `bytes` bytes, alive across the call.
            unsafe { copy.run(src.as_ptr(), dst.as_mut_ptr(), bytes) };
            assert!(dst == **src, "round {round}: the copy differs");
            done.store(true, Ordering::Release);
            sender.join().unwrap();
        }
    }
}
