//! The work an endpoint team shares (docs/teams.md): a large copy between contiguous buffers,
//! and the fold of a reduction's inputs, cut into chunks of at least
//! [`CHUNK_BYTES`](crate::engine::share::CHUNK_BYTES) that the team's waiting members take.
//! Anything else (non-contiguous datatypes, small data, a thread in no team, a team with no
//! other member) runs on the calling thread as without a team.

use crate::engine::coll::typed::{Elems, HostOp, Reducer};
use crate::engine::coll::board::AlignedBuf;
use crate::engine::datatype::UserBuf;
use crate::engine::share::{self, WorkList, CHUNK_BYTES};
use crate::error::EpResult;
use std::os::raw::c_void;
use std::sync::Arc;

/// The team list a job of `bytes` bytes goes to: the calling thread's team, else `other`'s
/// (the sender's, for a same-process message), when it has a member besides the caller.
fn helpers_for(bytes: usize, other: Option<&Arc<WorkList>>) -> Option<Arc<WorkList>> {
    if !share::worth_sharing(bytes) {
        return None;
    }
    share::current().filter(|l| l.has_helpers()).or_else(|| other.filter(|l| l.has_helpers()).cloned())
}

/// Chunks of `CHUNK_BYTES` covering `bytes`.
fn chunks_of(bytes: usize) -> usize {
    bytes.div_ceil(CHUNK_BYTES)
}

/// A copy between raw byte ranges, shared as chunks.
struct Copy {
    src: *const u8,
    dst: *mut u8,
    bytes: usize,
}

// SAFETY: the addresses are the caller's buffers, valid and unaliased for the copy, which
// returns only after every chunk ran (`WorkList::split`).
unsafe impl Sync for Copy {}

fn copy_chunk(c: &Copy, i: usize) -> EpResult<()> {
    let start = i * CHUNK_BYTES;
    let len = CHUNK_BYTES.min(c.bytes - start);
    // SAFETY: both buffers hold `bytes` bytes (the callers' contract), `start + len <= bytes`,
    // and the chunks are disjoint.
    unsafe { std::ptr::copy_nonoverlapping(c.src.add(start), c.dst.add(start), len) };
    Ok(())
}

/// Copies `bytes` bytes of data from `src` into `dst` (as [`UserBuf::copy_from`]), shared with
/// the calling thread's team, or with `sender`'s team (the team of a same-process message's
/// sender), when both buffers are contiguous and the copy is large.
pub fn copy(dst: &UserBuf, src: &UserBuf, bytes: usize, sender: Option<&Arc<WorkList>>) -> EpResult<()> {
    match helpers_for(bytes, sender) {
        Some(list) if dst.info.contiguous() && src.info.contiguous() => {
            let c = Copy { src: src.data_ptr(), dst: dst.data_ptr(), bytes };
            list.split(chunks_of(bytes), &c, copy_chunk)
        }
        _ => dst.copy_from(src, bytes),
    }
}

/// Copies the elements `input` into `recv` (same type signature) when a one-endpoint
/// communicator of one process reduces with `op` (the result of one input is that input),
/// shared with the calling thread's team; `None` when there is no team to share it with, the
/// buffers are not both contiguous, or `op` is not one the engine applies itself to the
/// datatype (the caller then leaves it to the host, which reports a pair it refuses).
pub fn copy_lone_input(input: &Elems, recv: &UserBuf, op: HostOp) -> Option<EpResult<()>> {
    let bytes = input.info.size * input.count as usize;
    let list = helpers_for(bytes, None)?;
    let contiguous = input.info.contiguous() && recv.info.contiguous() && recv.bytes() == bytes;
    if !contiguous || !Reducer::new(op, input).is_native() {
        return None;
    }
    let c = Copy { src: input.first_byte(), dst: recv.data_ptr(), bytes };
    Some(list.split(chunks_of(bytes), &c, copy_chunk))
}

/// A fold of contiguous inputs into `acc`, shared as chunks of elements.
struct Fold<'a> {
    inputs: &'a [Elems],
    acc: Elems,
    reducer: Reducer,
    per_chunk: usize,
}

// SAFETY: the inputs and the accumulator are memory valid for the fold, which returns only
// after every chunk ran; chunks write disjoint element ranges of the accumulator; the reducer is
// a host op handle and a function choice, both plain values.
unsafe impl Sync for Fold<'_> {}

/// Elements `i * per_chunk ..` of `e`.
fn range(e: &Elems, i: usize, per_chunk: usize) -> Elems {
    let first = i * per_chunk;
    let count = per_chunk.min(e.count as usize - first);
    Elems { base: (e.base as *const u8).wrapping_add(first * e.info.size) as *const c_void, count: count as i32, ..*e }
}

fn fold_chunk(f: &Fold, i: usize) -> EpResult<()> {
    let (last, rest) = f.inputs.split_last().expect("at least one input");
    let acc = range(&f.acc, i, f.per_chunk);
    let src = range(last, i, f.per_chunk);
    let len = src.info.size * src.count as usize;
    // SAFETY: the chunk's elements lie inside `last` and inside the accumulator (same count
    // and contiguous layout), and no other chunk touches them.
    unsafe { std::ptr::copy_nonoverlapping(src.first_byte(), acc.first_byte() as *mut u8, len) };
    for input in rest.iter().rev() {
        f.reducer.apply(&range(input, i, f.per_chunk), acc.base as *mut c_void)?;
    }
    Ok(())
}

/// [`crate::engine::coll::typed::fold`] shared with the calling thread's team when every input
/// is contiguous and large and the op is the engine's own loop (a predefined op on predefined
/// numbers): the fold of each chunk of elements, in the same order (the last
/// input first, then each earlier one applied on it), so the result is the unshared fold's.
/// `None` when it does not apply (the caller folds alone).
pub fn fold(inputs: &[Elems], acc: &mut AlignedBuf, op: HostOp) -> Option<EpResult<Elems>> {
    let bytes = inputs.last()?.info.size * inputs.last()?.count as usize;
    let list = helpers_for(bytes, None)?;
    fold_on(&list, inputs, acc, op, CHUNK_BYTES)
}

/// The fold of [`fold`] shared as chunks of about `chunk_bytes` on `list` (a team's, or a
/// collective board's, whose waiting endpoints take them), when there are two chunks at least,
/// every input is contiguous and the op is the engine's own loop; `None` otherwise.
pub fn fold_on(list: &WorkList, inputs: &[Elems], acc: &mut AlignedBuf, op: HostOp, chunk_bytes: usize) -> Option<EpResult<Elems>> {
    let last = inputs.last()?;
    let bytes = last.info.size * last.count as usize;
    if bytes < 2 * chunk_bytes || last.info.size == 0 || !inputs.iter().all(|e| e.info.contiguous()) {
        return None;
    }
    // A user's op runs on the thread that calls the collective only: it may keep state per thread.
    let reducer = Reducer::new(op, last);
    if !reducer.is_native() {
        return None;
    }
    let result = last.at(last.base_for(acc.resize(last.span()).as_mut_ptr()));
    let per_chunk = (chunk_bytes / last.info.size).max(1);
    let f = Fold { inputs, acc: result, reducer, per_chunk };
    Some(list.split((last.count as usize).div_ceil(per_chunk), &f, fold_chunk).map(|()| result))
}
