//! One-sided operations with endpoint target ranks (MPI 4.1 sections 12.3, 12.4): each is
//! the host operation on the target endpoint's host window, after the checks MPI asks for
//! (rank, epoch, counts, datatypes, and the target memory against the window's extent).
//!
//! A put or get whose target memory this process can load and store (an endpoint of this
//! process; any rank of a shared window) and whose data is contiguous on both sides is one
//! copy instead ([`LocalCopy`]): through the host, an endpoint's put to another endpoint of
//! its process is the host's operation on its own process, which costs it a loopback. The
//! epoch and its host locks are taken as for any target, so exclusion between origins is the
//! same; the copy is complete at the origin and at the target when it returns, as a flush
//! would leave it, and the epoch's end orders it before the target's later loads as it does
//! the host's. Accumulates stay with the host, whose atomicity covers every origin.

use super::host::{check_rma, HostWin, DYNAMIC_SERIAL, RMA};
use super::ompi4::HOST_IS_OMPI4;
use super::{WinEndpoint, WinFlavor};
use crate::engine::datatype::{check_buffer, type_info, TypeInfo};
use crate::engine::envelope::PROC_NULL;
use crate::ep_err;
use crate::error::{EpResult, ERR_COUNT, ERR_DISP, ERR_OP, ERR_RMA_RANGE};
use crate::host::{handle_bits, sys, HostRequest, HOST};
use std::os::raw::{c_int, c_void};

/// Where an operation lands: host window and target process (rank in its communicator).
#[derive(Clone, Copy)]
pub struct HostTarget {
    pub win: HostWin,
    pub proc: c_int,
    /// The target's rank in the window, whose flag [`HostTarget::issue`] raises (see
    /// [`WinEndpoint::note_issued`]).
    rank: i32,
    /// Layout of the target datatype, as [`WinEndpoint::prepare`] checked the range with it.
    target_info: TypeInfo,
    /// Target displacement in the host window's units (the user's, except in shared
    /// windows, whose host windows count bytes from the start of the process's block).
    pub disp: sys::MPI_Aint,
    /// Issue under [`DYNAMIC_SERIAL`](super::host::DYNAMIC_SERIAL).
    serial: bool,
    /// Complete the operation locally before the next one (`MPI_Win_flush_local`): dynamic
    /// windows on Open MPI 4, in an epoch that holds host locks (passive target, or a start's; see
    /// [`super::ompi4`]).
    flush_local: bool,
    /// `MPI_Rput`/`MPI_Rget` are broken on this window: use `MPI_Put`/`MPI_Get` completed
    /// locally (Open MPI 4, dynamic windows; see [`super::ompi4`]).
    no_request_ops: bool,
}

impl HostTarget {
    /// Makes one host call that starts an operation of endpoint `w` (it waits for other
    /// processes only in the local completion that `flush_local` asks for), noted among what
    /// `w`'s next flush of the target must hand to the host. Noted before the call: a call
    /// that fails may still have started the operation.
    fn issue(&self, w: &WinEndpoint, what: &str, call: impl FnOnce() -> c_int) -> EpResult<()> {
        w.note_issued(self.rank);
        let _serial = self.serial.then(|| DYNAMIC_SERIAL.lock());
        check_rma(call(), what)?;
        if self.flush_local {
            // SAFETY: `self.win` is a live host window and `self.proc` a process of its group,
            // in an epoch that holds a host lock on it (`flush_local` is set only then).
            check_rma(unsafe { sys::MPI_Win_flush_local(self.proc, self.win.0) }, "MPI_Win_flush_local")?;
        }
        Ok(())
    }
}

/// A put or get done by one copy between the origin's buffer and target memory this process
/// reaches (see the module's documentation).
pub struct LocalCopy {
    /// The origin buffer's first byte.
    origin: *const u8,
    /// The target memory's first byte.
    target: *mut u8,
    bytes: usize,
}

impl LocalCopy {
    /// Copies the origin's bytes into the target memory.
    ///
    /// # Safety
    /// The origin buffer is valid for reads of `bytes` bytes (the user's buffer under MPI's
    /// rules; `check_buffer` only refused a null one).
    unsafe fn put(&self) {
        // SAFETY: the target memory is `bytes` bytes inside a window of this process
        // (`local_copy`); the origin is valid (the caller's contract). They may overlap (a
        // put from a window's own memory), hence a copy that allows it. Other threads' access
        // to those bytes meanwhile would be a conflicting access, erroneous in MPI (MPI 4.1
        // section 12.7), as it would be with the host's put.
        unsafe { std::ptr::copy(self.origin, self.target, self.bytes) };
    }

    /// Copies the target memory's bytes into the origin buffer.
    ///
    /// # Safety
    /// The origin buffer is valid for writes of `bytes` bytes (the user's buffer under MPI's
    /// rules; `check_buffer` only refused a null one).
    unsafe fn get(&self) {
        // SAFETY: as in `put`, in the other direction.
        unsafe { std::ptr::copy(self.target.cast_const(), self.origin.cast_mut(), self.bytes) };
    }
}

/// Target memory of an operation: `count` elements of `dtype` at displacement `disp`.
#[derive(Clone, Copy)]
pub struct TargetMem {
    pub rank: i32,
    pub disp: sys::MPI_Aint,
    pub count: c_int,
    pub dtype: sys::MPI_Datatype,
}

impl WinEndpoint {
    /// Checks an operation on `t` and finds its host target; `None` for `EP_PROC_NULL`
    /// (the operation does nothing, MPI 4.1 section 12.3).
    pub fn prepare(&self, t: &TargetMem) -> EpResult<Option<HostTarget>> {
        if t.rank == PROC_NULL {
            return Ok(None);
        }
        let (win, loc) = self.target(t.rank)?;
        let passive = {
            let e = self.epochs.lock();
            e.check_access(t.rank)?;
            // A start's epoch is a host epoch too (locks, or the lock-all epoch of lock words).
            e.check_passive(t.rank).is_ok() || e.in_start(t.rank)
        };
        if t.count < 0 {
            return Err(ep_err!(ERR_COUNT, "target count {} is negative", t.count));
        }
        let info = type_info(t.dtype)?;
        if self.shared.flavor != WinFlavor::Dynamic && t.count > 0 {
            let ex = self.shared.exposed[t.rank as usize];
            if t.disp < 0 {
                return Err(ep_err!(ERR_DISP, "target displacement {} is negative", t.disp));
            }
            let first = (t.disp as i128) * ex.disp_unit as i128 + info.true_lb as i128;
            let end = first + info.span(t.count as usize) as i128;
            if first < 0 || end > ex.size as i128 {
                return Err(ep_err!(
                    ERR_RMA_RANGE,
                    "target bytes {first}..{end} (displacement {} x unit {}) lie outside rank {}'s window of {} bytes",
                    t.disp,
                    ex.disp_unit,
                    t.rank,
                    ex.size
                ));
            }
        }
        let dynamic = self.shared.flavor == WinFlavor::Dynamic;
        let serial = RMA.needs_target_progress != 0 && dynamic;
        let ompi4_dynamic = HOST_IS_OMPI4 && dynamic;
        let disp = match self.shared.shifts.get(t.rank as usize) {
            Some(&shift) => {
                let unit = self.shared.exposed[t.rank as usize].disp_unit;
                (shift as i128 + t.disp as i128 * unit as i128) as sys::MPI_Aint
            }
            None => t.disp,
        };
        let flush_local = ompi4_dynamic && passive;
        Ok(Some(HostTarget { win, proc: loc.proc as c_int, rank: t.rank, target_info: info, disp, serial, flush_local, no_request_ops: ompi4_dynamic }))
    }

    /// The one copy that does a put or get of `ocount` elements of `otype` at `origin` to or
    /// from `t`, where this process reaches the target's memory and both sides are contiguous
    /// with as many bytes (see the module's documentation); `None` where the host must do it.
    /// `t` has passed [`prepare`](Self::prepare), which gave `h` (its range lies inside the
    /// target's window).
    fn local_copy(&self, origin: *const c_void, ocount: c_int, otype: sys::MPI_Datatype, t: &TargetMem, h: &HostTarget) -> EpResult<Option<LocalCopy>> {
        let s = &self.shared;
        if s.flavor == WinFlavor::Dynamic {
            return Ok(None);
        }
        let Some(&base) = s.segments.get(t.rank as usize) else { return Ok(None) };
        if base.0.is_null() {
            return Ok(None);
        }
        let (o, tt) = (type_info(otype)?, h.target_info);
        let bytes = o.size.checked_mul(ocount.max(0) as usize);
        let target_bytes = tt.size.checked_mul(t.count.max(0) as usize);
        let Some(bytes) = bytes.filter(|&b| b > 0 && Some(b) == target_bytes) else { return Ok(None) };
        if !o.contiguous() || !tt.contiguous() {
            return Ok(None);
        }
        // The first target byte's offset, as `prepare` computed it when it checked that
        // `at..at + bytes` lies inside the target's window of `exposed[rank].size` bytes at
        // `base`, memory this process reaches (`segments`).
        let unit = s.exposed[t.rank as usize].disp_unit as i128;
        let Ok(at) = isize::try_from(t.disp as i128 * unit + tt.true_lb as i128) else { return Ok(None) };
        // The origin's first byte is at its datatype's true lower bound (wrapping: an
        // `MPI_BOTTOM` origin is an absolute address).
        let (target, origin) = (base.0.wrapping_offset(at), origin.cast::<u8>().wrapping_offset(o.true_lb));
        Ok(Some(LocalCopy { origin, target, bytes }))
    }

    /// [`prepare`](Self::prepare) for the request forms, which MPI allows only in passive-target
    /// epochs (MPI 4.1 section 12.3.5): `EP_ERR_RMA_SYNC` under fence or start.
    fn prepare_request(&self, t: &TargetMem) -> EpResult<Option<HostTarget>> {
        let h = self.prepare(t)?;
        if h.is_some() {
            self.epochs.lock().check_passive(t.rank)?;
        }
        Ok(h)
    }

    /// `EP_Put`.
    ///
    /// # Safety
    /// The origin (and result, compare) buffers are the user's, valid for the counts and
    /// datatypes given until the operation completes at the origin (MPI 4.1 section 12.3):
    /// they go to the host as they are.
    pub unsafe fn put(&self, origin: *const c_void, ocount: c_int, otype: sys::MPI_Datatype, t: &TargetMem) -> EpResult<()> {
        check_buffer(origin, ocount, otype)?;
        let Some(h) = self.prepare(t)? else { return Ok(()) };
        if let Some(copy) = self.local_copy(origin, ocount, otype, t, &h)? {
            // SAFETY: the origin buffer is the user's, valid for the call (as below).
            unsafe { copy.put() };
            return Ok(());
        }
        // SAFETY: the origin buffer is the user's, `ocount` elements of `otype` (checked
        // above), which MPI requires valid and unchanged until the operation completes at the
        // origin (MPI 4.1 section 12.3); the target range was checked against the target's window
        // (`prepare`; the host checks dynamic windows' attachments); `h.win` is a live host window.
        h.issue(self, "MPI_Put", || unsafe { sys::MPI_Put(origin, ocount, otype, h.proc, h.disp, t.count, t.dtype, h.win.0) })
    }

    /// `EP_Get`.
    ///
    /// # Safety
    /// The origin (and result, compare) buffers are the user's, valid for the counts and
    /// datatypes given until the operation completes at the origin (MPI 4.1 section 12.3):
    /// they go to the host as they are.
    pub unsafe fn get(&self, origin: *mut c_void, ocount: c_int, otype: sys::MPI_Datatype, t: &TargetMem) -> EpResult<()> {
        check_buffer(origin, ocount, otype)?;
        let Some(h) = self.prepare(t)? else { return Ok(()) };
        if let Some(copy) = self.local_copy(origin, ocount, otype, t, &h)? {
            // SAFETY: the origin buffer is the user's, writable for the call.
            unsafe { copy.get() };
            return Ok(());
        }
        // SAFETY: as in `put`, with the origin buffer written by the host until the
        // operation completes.
        h.issue(self, "MPI_Get", || unsafe { sys::MPI_Get(origin, ocount, otype, h.proc, h.disp, t.count, t.dtype, h.win.0) })
    }

    /// `EP_Rput`: `None` for `EP_PROC_NULL` and where the operation completes at once (a
    /// request complete from the start).
    ///
    /// # Safety
    /// The origin (and result, compare) buffers are the user's, valid for the counts and
    /// datatypes given until the operation completes at the origin (MPI 4.1 section 12.3):
    /// they go to the host as they are.
    pub unsafe fn rput(&self, origin: *const c_void, ocount: c_int, otype: sys::MPI_Datatype, t: &TargetMem) -> EpResult<Option<HostRequest>> {
        check_buffer(origin, ocount, otype)?;
        let Some(h) = self.prepare_request(t)? else { return Ok(None) };
        if let Some(copy) = self.local_copy(origin, ocount, otype, t, &h)? {
            // Complete from the start. SAFETY: as in `put`.
            unsafe { copy.put() };
            return Ok(None);
        }
        if h.no_request_ops {
            // Complete from the start: `issue` completes it locally (passive epoch).
            // SAFETY: as in `put`; `issue` completes it locally before returning.
            h.issue(self, "MPI_Put", || unsafe { sys::MPI_Put(origin, ocount, otype, h.proc, h.disp, t.count, t.dtype, h.win.0) })?;
            return Ok(None);
        }
        let mut req = HostRequest(HOST.request_null);
        // SAFETY: as in `put`, the origin buffer valid until the request completes;
        // the host writes `req`, a live local.
        h.issue(self, "MPI_Rput", || unsafe { sys::MPI_Rput(origin, ocount, otype, h.proc, h.disp, t.count, t.dtype, h.win.0, &mut req.0) })?;
        Ok(Some(req))
    }

    /// `EP_Rget`: `None` for `EP_PROC_NULL` and where the operation completes at once.
    ///
    /// # Safety
    /// The origin (and result, compare) buffers are the user's, valid for the counts and
    /// datatypes given until the operation completes at the origin (MPI 4.1 section 12.3):
    /// they go to the host as they are.
    pub unsafe fn rget(&self, origin: *mut c_void, ocount: c_int, otype: sys::MPI_Datatype, t: &TargetMem) -> EpResult<Option<HostRequest>> {
        check_buffer(origin, ocount, otype)?;
        let Some(h) = self.prepare_request(t)? else { return Ok(None) };
        if let Some(copy) = self.local_copy(origin, ocount, otype, t, &h)? {
            // Complete from the start. SAFETY: as in `get`.
            unsafe { copy.get() };
            return Ok(None);
        }
        if h.no_request_ops {
            // SAFETY: as in `get`; `issue` completes it locally before returning.
            h.issue(self, "MPI_Get", || unsafe { sys::MPI_Get(origin, ocount, otype, h.proc, h.disp, t.count, t.dtype, h.win.0) })?;
            return Ok(None);
        }
        let mut req = HostRequest(HOST.request_null);
        // SAFETY: as in `get`, the origin buffer valid until the request completes;
        // the host writes `req`, a live local.
        h.issue(self, "MPI_Rget", || unsafe { sys::MPI_Rget(origin, ocount, otype, h.proc, h.disp, t.count, t.dtype, h.win.0, &mut req.0) })?;
        Ok(Some(req))
    }

    /// `EP_Accumulate`.
    ///
    /// # Safety
    /// The origin (and result, compare) buffers are the user's, valid for the counts and
    /// datatypes given until the operation completes at the origin (MPI 4.1 section 12.3):
    /// they go to the host as they are.
    pub unsafe fn accumulate(&self, origin: *const c_void, ocount: c_int, otype: sys::MPI_Datatype, t: &TargetMem, op: sys::MPI_Op) -> EpResult<()> {
        check_accumulate(origin, ocount, otype, op)?;
        let Some(h) = self.prepare(t)? else { return Ok(()) };
        // SAFETY: as in `put` (the op is not `MPI_OP_NULL`; the host checks the rest).
        h.issue(self, "MPI_Accumulate", || unsafe { sys::MPI_Accumulate(origin, ocount, otype, h.proc, h.disp, t.count, t.dtype, op, h.win.0) })
    }

    /// `EP_Get_accumulate`; with `MPI_NO_OP` the origin buffer is not read.
    ///
    /// # Safety
    /// The origin (and result, compare) buffers are the user's, valid for the counts and
    /// datatypes given until the operation completes at the origin (MPI 4.1 section 12.3):
    /// they go to the host as they are.
    #[allow(clippy::too_many_arguments, reason = "the arguments of MPI_Get_accumulate")]
    pub unsafe fn get_accumulate(
        &self,
        origin: *const c_void,
        ocount: c_int,
        otype: sys::MPI_Datatype,
        result: *mut c_void,
        rcount: c_int,
        rtype: sys::MPI_Datatype,
        t: &TargetMem,
        op: sys::MPI_Op,
    ) -> EpResult<()> {
        check_get_accumulate(origin, ocount, otype, result, rcount, rtype, op)?;
        let Some(h) = self.prepare(t)? else { return Ok(()) };
        // SAFETY: as in `put` for the origin buffer (not read with `MPI_NO_OP`)
        // and as in `get` for `result`, `rcount` elements of `rtype`, both checked above.
        h.issue(self, "MPI_Get_accumulate", || unsafe { sys::MPI_Get_accumulate(origin, ocount, otype, result, rcount, rtype, h.proc, h.disp, t.count, t.dtype, op, h.win.0) })
    }

    /// `EP_Raccumulate`: `None` for `EP_PROC_NULL` and where the operation completes at
    /// once (a request complete from the start), as for [`WinEndpoint::rput`].
    ///
    /// # Safety
    /// The origin (and result, compare) buffers are the user's, valid for the counts and
    /// datatypes given until the operation completes at the origin (MPI 4.1 section 12.3):
    /// they go to the host as they are.
    pub unsafe fn raccumulate(
        &self,
        origin: *const c_void,
        ocount: c_int,
        otype: sys::MPI_Datatype,
        t: &TargetMem,
        op: sys::MPI_Op,
    ) -> EpResult<Option<HostRequest>> {
        check_accumulate(origin, ocount, otype, op)?;
        let Some(h) = self.prepare_request(t)? else { return Ok(None) };
        if h.no_request_ops {
            // SAFETY: as in `accumulate`; `issue` completes it locally before returning.
            h.issue(self, "MPI_Accumulate", || unsafe { sys::MPI_Accumulate(origin, ocount, otype, h.proc, h.disp, t.count, t.dtype, op, h.win.0) })?;
            return Ok(None);
        }
        let mut req = HostRequest(HOST.request_null);
        // SAFETY: as in `accumulate`, the origin buffer valid until the request completes;
        // the host writes `req`, a live local.
        h.issue(self, "MPI_Raccumulate", || unsafe {
            sys::MPI_Raccumulate(origin, ocount, otype, h.proc, h.disp, t.count, t.dtype, op, h.win.0, &mut req.0)
        })?;
        Ok(Some(req))
    }

    /// `EP_Rget_accumulate`: as [`WinEndpoint::raccumulate`]; with `MPI_NO_OP` the origin
    /// buffer is not read.
    ///
    /// # Safety
    /// The origin (and result, compare) buffers are the user's, valid for the counts and
    /// datatypes given until the operation completes at the origin (MPI 4.1 section 12.3):
    /// they go to the host as they are.
    #[allow(clippy::too_many_arguments, reason = "the arguments of MPI_Rget_accumulate")]
    pub unsafe fn rget_accumulate(
        &self,
        origin: *const c_void,
        ocount: c_int,
        otype: sys::MPI_Datatype,
        result: *mut c_void,
        rcount: c_int,
        rtype: sys::MPI_Datatype,
        t: &TargetMem,
        op: sys::MPI_Op,
    ) -> EpResult<Option<HostRequest>> {
        check_get_accumulate(origin, ocount, otype, result, rcount, rtype, op)?;
        let Some(h) = self.prepare_request(t)? else { return Ok(None) };
        if h.no_request_ops {
            // SAFETY: as in `get_accumulate`; `issue` completes it locally before returning.
            h.issue(self, "MPI_Get_accumulate", || unsafe {
                sys::MPI_Get_accumulate(origin, ocount, otype, result, rcount, rtype, h.proc, h.disp, t.count, t.dtype, op, h.win.0)
            })?;
            return Ok(None);
        }
        let mut req = HostRequest(HOST.request_null);
        // SAFETY: as in `get_accumulate`, both buffers valid until the request completes; the
        // host writes `req`, a live local.
        h.issue(self, "MPI_Rget_accumulate", || unsafe {
            sys::MPI_Rget_accumulate(origin, ocount, otype, result, rcount, rtype, h.proc, h.disp, t.count, t.dtype, op, h.win.0, &mut req.0)
        })?;
        Ok(Some(req))
    }

    /// `EP_Fetch_and_op`: one element; with `MPI_NO_OP` the origin is not read.
    ///
    /// # Safety
    /// The origin (and result, compare) buffers are the user's, valid for the counts and
    /// datatypes given until the operation completes at the origin (MPI 4.1 section 12.3):
    /// they go to the host as they are.
    pub unsafe fn fetch_and_op(&self, origin: *const c_void, result: *mut c_void, dtype: sys::MPI_Datatype, rank: i32, disp: sys::MPI_Aint, op: sys::MPI_Op) -> EpResult<()> {
        check_op(op)?;
        if !is_no_op(op) {
            check_buffer(origin, 1, dtype)?;
        }
        check_buffer(result, 1, dtype)?;
        let Some(h) = self.prepare(&TargetMem { rank, disp, count: 1, dtype })? else { return Ok(()) };
        // SAFETY: one element of `dtype` read at `origin` (not with `MPI_NO_OP`)
        // and written at `result`, the user's buffers (checked above); target as in `put`.
        h.issue(self, "MPI_Fetch_and_op", || unsafe { sys::MPI_Fetch_and_op(origin, result, dtype, h.proc, h.disp, op, h.win.0) })
    }

    /// `EP_Compare_and_swap`: one element.
    ///
    /// # Safety
    /// The origin (and result, compare) buffers are the user's, valid for the counts and
    /// datatypes given until the operation completes at the origin (MPI 4.1 section 12.3):
    /// they go to the host as they are.
    pub unsafe fn compare_and_swap(
        &self,
        origin: *const c_void,
        compare: *const c_void,
        result: *mut c_void,
        dtype: sys::MPI_Datatype,
        rank: i32,
        disp: sys::MPI_Aint,
    ) -> EpResult<()> {
        check_buffer(origin, 1, dtype)?;
        check_buffer(compare, 1, dtype)?;
        check_buffer(result, 1, dtype)?;
        let Some(h) = self.prepare(&TargetMem { rank, disp, count: 1, dtype })? else { return Ok(()) };
        // SAFETY: one element of `dtype` read at `origin` and `compare` and
        // written at `result`, the user's buffers (checked above); target as in `put`.
        h.issue(self, "MPI_Compare_and_swap", || unsafe { sys::MPI_Compare_and_swap(origin, compare, result, dtype, h.proc, h.disp, h.win.0) })
    }
}

/// The origin's arguments of `EP_Accumulate` and `EP_Raccumulate`.
fn check_accumulate(origin: *const c_void, ocount: c_int, otype: sys::MPI_Datatype, op: sys::MPI_Op) -> EpResult<()> {
    check_op(op)?;
    check_buffer(origin, ocount, otype)
}

/// The origin's arguments of `EP_Get_accumulate` and `EP_Rget_accumulate`: with `MPI_NO_OP`
/// the origin buffer is not read, so not checked.
fn check_get_accumulate(
    origin: *const c_void,
    ocount: c_int,
    otype: sys::MPI_Datatype,
    result: *mut c_void,
    rcount: c_int,
    rtype: sys::MPI_Datatype,
    op: sys::MPI_Op,
) -> EpResult<()> {
    check_op(op)?;
    if !is_no_op(op) {
        check_buffer(origin, ocount, otype)?;
    }
    check_buffer(result, rcount, rtype)
}

fn is_no_op(op: sys::MPI_Op) -> bool {
    handle_bits(op) == handle_bits(RMA.op_no_op)
}

fn check_op(op: sys::MPI_Op) -> EpResult<()> {
    if handle_bits(op) == handle_bits(HOST.op_null) {
        return Err(ep_err!(ERR_OP, "op is MPI_OP_NULL"));
    }
    Ok(())
}
