//! Elements in the memory layout of their datatype, and reductions over them.
//!
//! Reductions work on "typed" memory (the datatype's own layout, holes included) because
//! `MPI_Reduce_local` and the host's reduction collectives take it; engine-owned typed memory
//! starts at `base = mem - true_lb`, so the datatype's first byte lands on `mem`.

use super::board::AlignedBuf;
use super::native::Native;
use crate::engine::datatype::{TypeInfo, UserBuf};
use crate::ep_err;
use crate::error::{EpResult, ERR_OP};
use crate::host::{check, handle_bits, sys, HOST};
use std::os::raw::{c_int, c_void};

/// A host reduction operation kept inside engine objects.
#[derive(Clone, Copy)]
pub struct HostOp(pub sys::MPI_Op);
// SAFETY: host op handles are plain values, usable from any thread under MPI_THREAD_MULTIPLE.
unsafe impl Send for HostOp {}
// SAFETY: a shared `HostOp` only gives copies of the handle value.
unsafe impl Sync for HostOp {}

/// Checks an op and says whether it is commutative (`MPI_Op_commutative`).
pub fn op_commutative(op: sys::MPI_Op) -> EpResult<bool> {
    if super::native::predefined_op(op).is_some() {
        return Ok(true);
    }
    if handle_bits(op) == handle_bits(HOST.op_null) {
        return Err(ep_err!(ERR_OP, "op is MPI_OP_NULL"));
    }
    let mut c: c_int = 0;
    // SAFETY: `op` is a host op handle other than `MPI_OP_NULL` (the host reports an invalid
    // one); the host writes `c`, a live local.
    unsafe { check(sys::MPI_Op_commutative(op, &mut c), "MPI_Op_commutative").map_err(|_| ep_err!(ERR_OP, "invalid op"))? };
    Ok(c != 0)
}

/// `count` elements of a datatype, read from a user buffer or engine memory.
#[derive(Clone, Copy)]
pub struct Elems {
    /// Address the datatype is relative to (a user's buffer address, or `mem - true_lb`).
    pub base: *const c_void,
    pub count: i32,
    pub dtype: sys::MPI_Datatype,
    pub info: TypeInfo,
}

// SAFETY: see `UserBuf`: the memory outlives the collective that reads it.
unsafe impl Send for Elems {}
// SAFETY: as for `Send`: a shared `Elems` only gives out the address and layout; the
// memory is reached through raw pointers under the same contract.
unsafe impl Sync for Elems {}

impl Elems {
    pub fn of(buf: &UserBuf) -> Elems {
        Elems { base: buf.addr, count: buf.count, dtype: buf.dtype, info: buf.info }
    }

    /// The same datatype and count at another base address.
    pub fn at(&self, base: *const c_void) -> Elems {
        Elems { base, ..*self }
    }

    /// Bytes from the first to the last byte of the elements.
    pub fn span(&self) -> usize {
        self.info.span(self.count as usize)
    }

    /// Where engine memory `mem` must start to hold these elements: `mem - true_lb`.
    pub fn base_for(&self, mem: *mut u8) -> *mut c_void {
        mem.wrapping_offset(-self.info.true_lb) as *mut c_void
    }

    pub fn first_byte(&self) -> *const u8 {
        (self.base as *const u8).wrapping_offset(self.info.true_lb)
    }

    /// Copies the elements' whole span into `buf` (holes too: reading them is harmless, and it
    /// keeps the layout) and returns them at their new place.
    pub fn copy_into(&self, buf: &mut AlignedBuf) -> Elems {
        let span = self.span();
        let dst = buf.resize(span);
        // SAFETY: the source span lies inside the buffer the user passed for `count` elements.
        unsafe { std::ptr::copy_nonoverlapping(self.first_byte(), dst.as_mut_ptr(), span) };
        self.at(self.base_for(buf.ptr()))
    }

    /// Writes the elements (data only, holes untouched) into a user buffer of the same type
    /// signature.
    pub fn store(&self, dst: &UserBuf) -> EpResult<()> {
        let bytes = self.info.size * self.count as usize;
        if bytes == 0 {
            return Ok(());
        }
        // SAFETY: `self` was made from a `UserBuf` (`Elems::of`) or from engine memory of its
        // span, and keeps that buffer's invariant.
        let src = unsafe { UserBuf::from_parts(self.base as *mut c_void, self.count, self.dtype, self.info) };
        dst.copy_from(&src, bytes)
    }
}

/// An op applied to elements of one datatype and count. Whether the engine's own loop does
/// it (contiguous predefined number types, predefined ops) is decided once, when made: the
/// lookup of op and type cost more than adding a few numbers.
#[derive(Clone, Copy)]
pub struct Reducer {
    op: HostOp,
    native: Option<Native>,
}

impl Reducer {
    /// The reducer of `op` over elements shaped like `template`.
    #[inline]
    pub fn new(op: HostOp, template: &Elems) -> Reducer {
        let native = if template.info.contiguous() { Native::of(op.0, template.dtype) } else { None };
        Reducer { op, native }
    }

    /// True when the engine's own loop applies the op (a predefined op on contiguous predefined
    /// numbers): no user function runs, so any thread may apply it to any part of the data.
    pub fn is_native(&self) -> bool {
        self.native.is_some()
    }

    /// `inout = input op inout`, elementwise (`MPI_Reduce_local`, MPI 4.1 section 6.9.7);
    /// `input` has the template's datatype and count, `inout` is typed memory of the same
    /// shape. Errors: the host's, for pairs it refuses (a logical op on floating point).
    #[inline]
    pub fn apply(&self, input: &Elems, inout: *mut c_void) -> EpResult<()> {
        if input.count == 0 {
            return Ok(());
        }
        if let Some(native) = self.native {
            let first = (inout as *mut u8).wrapping_offset(input.info.true_lb);
            // SAFETY: both buffers hold `count` contiguous elements of the datatype.
            unsafe { native.apply(input.first_byte(), first, input.count as usize) };
            return Ok(());
        }
        // SAFETY: `input.base` holds `count` elements of `dtype` (a user's buffer or engine
        // memory placed by `base_for`), and `inout` is typed memory of the same shape (the caller's
        // contract above); the host reads the first and writes the second.
        unsafe { check(sys::MPI_Reduce_local(input.base, inout, input.count, input.dtype, self.op.0), "MPI_Reduce_local") }
    }
}

/// `inout = input op inout`, elementwise (`MPI_Reduce_local`), for a single application.
pub fn reduce_local(input: &Elems, inout: *mut c_void, op: HostOp) -> EpResult<()> {
    Reducer::new(op, input).apply(input, inout)
}

/// Folds `inputs` (in rank order) into `acc`: `inputs[0] op inputs[1] op ... op inputs[n-1]`,
/// evaluated right to left so that non-commutative ops keep rank order. Returns the result
/// (typed, inside `acc`).
pub fn fold(inputs: &[Elems], acc: &mut AlignedBuf, op: HostOp) -> EpResult<Elems> {
    let (last, rest) = inputs.split_last().expect("at least one input");
    let result = last.copy_into(acc);
    let reducer = Reducer::new(op, last);
    for input in rest.iter().rev() {
        reducer.apply(input, result.base as *mut c_void)?;
    }
    Ok(result)
}
