//! Host datatypes as the engine needs them: size, layout, packing.
//!
//! Contiguous data (every predefined type, and derived types without holes) moves with
//! `memcpy`; anything else goes through the host's `MPI_Pack`/`MPI_Unpack`, so every derived
//! datatype the host supports works. Sizes of predefined types are cached in a table keyed by
//! handle ([`super::handle_table`]), so the hot path makes no MPI call for them.

use super::handle_table::HandleTable;
use crate::ep_err;
use crate::error::{EpResult, ERR_BUFFER, ERR_COUNT, ERR_TYPE};
use crate::host::{check, handle_bits, sys, HOST};
use std::sync::LazyLock;
use std::os::raw::{c_int, c_void};

/// Layout of `count` elements of a datatype.
#[derive(Clone, Copy, Debug)]
pub struct TypeInfo {
    /// Bytes of data in one element (`MPI_Type_size`).
    pub size: usize,
    /// Offset of the first byte from the buffer address (`MPI_Type_get_true_extent`).
    pub true_lb: isize,
    /// Distance between consecutive elements in memory (`MPI_Type_get_extent`).
    pub extent: isize,
    /// Bytes from the first to the last byte of one element (`MPI_Type_get_true_extent`).
    pub true_extent: isize,
}

impl TypeInfo {
    /// One element's data is one block starting at `true_lb` and elements follow each other
    /// with no gap: `count` elements are `count * size` contiguous bytes. (Computed, not
    /// stored: a flag byte at the end of this struct made its moves read back half-written
    /// words.)
    #[inline]
    pub fn contiguous(&self) -> bool {
        self.true_extent == self.size as isize && self.extent == self.size as isize
    }

    /// Bytes of memory that `count` elements span, from their first byte to their last.
    pub fn span(&self, count: usize) -> usize {
        if count == 0 {
            0
        } else {
            (self.true_extent + (count as isize - 1) * self.extent).max(0) as usize
        }
    }
}

/// Sizes of the predefined datatypes: the hot path finds a predefined type in one or two
/// probes, with no MPI call.
static PREDEFINED: LazyLock<HandleTable<usize>> = LazyLock::new(|| {
    HandleTable::build(
        crate::host::predefined_types()
            .into_iter()
            .filter(|&t| handle_bits(t) != handle_bits(HOST.datatype_null))
            .filter_map(|t| {
                let mut size: c_int = 0;
                // SAFETY: `t` is one of the host's predefined datatypes (not `MPI_DATATYPE_NULL`, filtered
                // above); the host writes `size`, a live local.
                let rc = unsafe { sys::MPI_Type_size(t, &mut size) };
                (rc == HOST.success).then_some((handle_bits(t), size as usize))
            }),
    )
});

/// Layout of a datatype. Errors: `EP_ERR_TYPE` for `MPI_DATATYPE_NULL`, a derived datatype
/// that is not committed, or one the host refuses. A predefined type costs one or two probes
/// of a table and no host call; any other type takes four host calls (see
/// `check_committed`). Thread safety: any thread.
#[inline]
pub fn type_info(t: sys::MPI_Datatype) -> EpResult<TypeInfo> {
    let bits = handle_bits(t);
    if let Some(size) = PREDEFINED.get(bits) {
        return Ok(TypeInfo { size, true_lb: 0, extent: size as isize, true_extent: size as isize });
    }
    derived_type_info(t, bits)
}

/// `type_info` of a datatype that is not predefined: asks the host, every time. Nothing is
/// cached per type: the host may free a type and give its handle value to a new one, and a
/// type may be committed between two calls.
#[cold]
#[inline(never)]
fn derived_type_info(t: sys::MPI_Datatype, bits: u64) -> EpResult<TypeInfo> {
    if bits == handle_bits(HOST.datatype_null) {
        return Err(ep_err!(ERR_TYPE, "datatype is MPI_DATATYPE_NULL"));
    }
    check_committed(t)?;
    let (mut size, mut lb, mut extent, mut tlb, mut textent) = (0, 0, 0, 0, 0);
    // SAFETY: host queries of a datatype that the host accepted above; they write only the
    // locals passed by reference.
    unsafe {
        check(sys::MPI_Type_size_x(t, &mut size), "MPI_Type_size_x")
            .map_err(|_| ep_err!(ERR_TYPE, "invalid datatype"))?;
        check(sys::MPI_Type_get_extent_x(t, &mut lb, &mut extent), "MPI_Type_get_extent_x")?;
        check(sys::MPI_Type_get_true_extent_x(t, &mut tlb, &mut textent), "MPI_Type_get_true_extent_x")?;
    }
    Ok(TypeInfo {
        size: size as usize,
        true_lb: tlb as isize,
        extent: extent as isize,
        true_extent: textent as isize,
    })
}

/// `EP_ERR_TYPE` unless datatype `t` may be used in communication: a derived datatype must be
/// committed (MPI 4.1 section 5.1.9), even a contiguous one that EPMPI copies with `memcpy`.
/// No host query tells whether a type is committed; `MPI_Pack` of zero elements checks it on
/// Open MPI 4.1 and MPICH 4.0 (both return `MPI_ERR_TYPE`, packing nothing), on the quiet
/// communicator so that the answer comes back instead of aborting. `MPI_Pack_size` cannot
/// serve: Open MPI 4.1 does not check commitment there and crashes on an uncommitted
/// non-contiguous type. One host call of about 15 ns, for types outside the predefined table.
fn check_committed(t: sys::MPI_Datatype) -> EpResult<()> {
    let comm = crate::host::quiet_comm()?;
    let (input, mut output, mut pos) = (0u8, 0u8, 0 as c_int);
    // SAFETY: zero elements are read from `input` and zero bytes written into `output` (both
    // valid, non-null addresses); the host writes `pos`, a local.
    let rc = unsafe {
        sys::MPI_Pack(
            &input as *const u8 as *const c_void,
            0,
            t,
            &mut output as *mut u8 as *mut c_void,
            0,
            &mut pos,
            comm.0,
        )
    };
    match rc {
        0 => Ok(()),
        rc if crate::host::error_class(rc) == sys::MPI_ERR_TYPE as c_int => Err(ep_err!(
            ERR_TYPE,
            "datatype is not committed (call MPI_Type_commit before using it in communication) or is otherwise invalid"
        )),
        rc => Err(ep_err!(ERR_TYPE, "the host MPI refuses the datatype (MPI_Pack of 0 elements failed with code {rc})")),
    }
}

/// Checks a (buffer, count, datatype) triple as [`UserBuf::new`] does, for calls that hand the
/// buffer to the host themselves (one-sided operations). Errors as [`UserBuf::new`].
pub fn check_buffer(addr: *const c_void, count: c_int, dtype: sys::MPI_Datatype) -> EpResult<()> {
    // SAFETY: the buffer is only checked; the `UserBuf` is dropped at once, never used.
    unsafe { UserBuf::new(addr, count, dtype) }.map(|_| ())
}

/// A user buffer: address, element count, datatype and its layout.
///
/// Invariant: `addr` is valid for `count` elements of `dtype` (for reading, and for writing
/// when the buffer receives) while the operation that uses it is under way: the user's
/// promise to MPI (MPI 4.1 section 3.7.2), or the engine's for its own memory. It is made only
/// through the `unsafe` constructors ([`UserBuf::new`], [`UserBuf::from_parts`]), which is where
/// that promise is stated; the methods that read or write the memory rely on it.
#[derive(Clone, Copy)]
pub struct UserBuf {
    pub addr: *mut c_void,
    pub count: i32,
    pub dtype: sys::MPI_Datatype,
    pub info: TypeInfo,
    /// Keeps construction to the `unsafe` constructors.
    _valid: (),
}

// SAFETY: the buffer belongs to the user, who keeps it alive and untouched until the
// operation completes (MPI 4.1 section 3.7.2); the engine only moves the address around.
unsafe impl Send for UserBuf {}
// SAFETY: as for `Send`: a shared `UserBuf` only gives out the address, count and type; every
// access to the memory behind it goes through the raw pointer under the same user contract.
unsafe impl Sync for UserBuf {}

/// Copies `n` bytes from `src` to `dst` (not overlapping). Up to 16 bytes, the copy is two
/// overlapping loads and stores in registers: a call into the C library's `memcpy` for the
/// few bytes of a latency-bound message cost about 24 instructions, more than the copy
/// (callgrind, remote 8 B ping-pong on MPICH: `memcpy` went from 48 to 24 instructions per
/// message when this took over the receive's copy).
///
/// # Safety
/// `src` readable and `dst` writable for `n` bytes.
#[inline(always)]
pub unsafe fn copy_bytes(src: *const u8, dst: *mut u8, n: usize) {
    match n {
        0 => {}
        1..=3 => {
            // First, middle and last byte (overlapping for 1 and 2).
            let (a, b, c) = (*src, *src.add(n / 2), *src.add(n - 1));
            *dst = a;
            *dst.add(n / 2) = b;
            *dst.add(n - 1) = c;
        }
        4..=7 => {
            let (a, b) = ((src as *const u32).read_unaligned(), (src.add(n - 4) as *const u32).read_unaligned());
            (dst as *mut u32).write_unaligned(a);
            (dst.add(n - 4) as *mut u32).write_unaligned(b);
        }
        8..=16 => {
            let (a, b) = ((src as *const u64).read_unaligned(), (src.add(n - 8) as *const u64).read_unaligned());
            (dst as *mut u64).write_unaligned(a);
            (dst.add(n - 8) as *mut u64).write_unaligned(b);
        }
        _ => std::ptr::copy_nonoverlapping(src, dst, n),
    }
}

impl UserBuf {
    /// Checks a (buffer, count, datatype) triple as every call does. Errors: `EP_ERR_COUNT`
    /// (negative), `EP_ERR_TYPE` (not a committed datatype), `EP_ERR_BUFFER` (NULL with data).
    ///
    /// # Safety
    /// `addr` is valid for `count` elements of `dtype` (writable if the buffer receives) for as
    /// long as the `UserBuf` or a copy of it is used (see the type's invariant).
    #[inline]
    pub unsafe fn new(addr: *const c_void, count: c_int, dtype: sys::MPI_Datatype) -> EpResult<UserBuf> {
        // The common case built in place: a predefined type and a usable buffer.
        if let Some(size) = PREDEFINED.get(handle_bits(dtype)) {
            if count >= 0 && !(addr.is_null() && count > 0 && size > 0) {
                let info = TypeInfo { size, true_lb: 0, extent: size as isize, true_extent: size as isize };
                return Ok(UserBuf { addr: addr as *mut c_void, count, dtype, info, _valid: () });
            }
        }
        Self::new_checked(addr, count, dtype)
    }

    /// A buffer whose datatype the caller has already looked up (`info` is `dtype`'s layout).
    ///
    /// # Safety
    /// As for [`UserBuf::new`].
    #[inline]
    pub unsafe fn from_parts(addr: *mut c_void, count: c_int, dtype: sys::MPI_Datatype, info: TypeInfo) -> UserBuf {
        UserBuf { addr, count, dtype, info, _valid: () }
    }

    /// `new` for derived datatypes and bad arguments.
    #[cold]
    #[inline(never)]
    fn new_checked(addr: *const c_void, count: c_int, dtype: sys::MPI_Datatype) -> EpResult<UserBuf> {
        if count < 0 {
            return Err(ep_err!(ERR_COUNT, "count {count} is negative"));
        }
        let info = type_info(dtype)?;
        // A null address is MPI_BOTTOM, valid only with absolute addresses in the datatype.
        if addr.is_null() && count > 0 && info.size > 0 && info.true_lb == 0 {
            return Err(ep_err!(ERR_BUFFER, "buffer is NULL with count {count}"));
        }
        Ok(UserBuf { addr: addr as *mut c_void, count, dtype, info, _valid: () })
    }

    /// Bytes of data (packed size).
    #[inline]
    pub fn bytes(&self) -> usize {
        self.info.size * self.count as usize
    }

    pub fn data_ptr(&self) -> *mut u8 {
        (self.addr as *mut u8).wrapping_offset(self.info.true_lb)
    }

    /// The data of a contiguous buffer, in place (`None` for any other): what a packed copy
    /// would hold, without the copy. The slice is the user's memory, valid for the call that
    /// gave the buffer (`UserBuf`'s invariant); an empty buffer gives an empty slice, whatever
    /// its address.
    #[inline]
    pub fn contiguous_data(&self) -> Option<&[u8]> {
        if !self.info.contiguous() {
            return None;
        }
        if self.bytes() == 0 {
            return Some(&[]);
        }
        // SAFETY: the user guarantees `count` elements at `addr`; contiguous, they are
        // `bytes()` bytes from the first one, readable for the call.
        Some(unsafe { std::slice::from_raw_parts(self.data_ptr(), self.bytes()) })
    }

    /// Copies the data of a contiguous buffer into `out` (`out.len() == bytes()`).
    pub fn copy_contiguous_to(&self, out: &mut [u8]) {
        debug_assert!(self.info.contiguous() && out.len() == self.bytes());
        // SAFETY: the user guarantees `count` elements at `addr`.
        unsafe { std::ptr::copy_nonoverlapping(self.data_ptr(), out.as_mut_ptr(), out.len()) };
    }

    /// Writes the packed data into `out`, which holds exactly `bytes()` bytes.
    pub fn pack_to(&self, out: &mut [u8]) -> EpResult<()> {
        debug_assert_eq!(out.len(), self.bytes());
        if out.is_empty() {
            return Ok(());
        }
        if self.info.contiguous() {
            self.copy_contiguous_to(out);
            return Ok(());
        }
        let outsize = c_int::try_from(out.len()).map_err(|_| ep_err!(ERR_COUNT, "more than 2^31-1 bytes to pack"))?;
        // Errors come back as codes, never through a user's communicator handler.
        let comm = crate::host::quiet_comm()?;
        let mut pos: c_int = 0;
        // SAFETY: the user guarantees `count` elements of `dtype` at `addr`; `out` holds
        // `outsize` bytes, exactly their packed size, so the host writes inside it.
        unsafe {
            check(
                sys::MPI_Pack(self.addr, self.count, self.dtype, out.as_mut_ptr() as *mut c_void, outsize, &mut pos, comm.0),
                "MPI_Pack",
            )
        }
    }

    /// Appends the packed data to `out`.
    pub fn pack_into(&self, out: &mut Vec<u8>) -> EpResult<()> {
        let n = self.bytes();
        out.reserve(n);
        if self.info.contiguous() {
            // SAFETY: the user guarantees `count` elements at `addr`.
            unsafe { out.extend_from_slice(std::slice::from_raw_parts(self.data_ptr(), n)) };
            return Ok(());
        }
        let start = out.len();
        let comm = crate::host::quiet_comm()?;
        let mut pos: c_int = 0;
        // SAFETY: the user guarantees `count` elements of `dtype` at `addr`; `reserve` made
        // room for their `n` packed bytes after `start`, and the host initialised the `pos`
        // bytes it reports before the length covers them.
        unsafe {
            check(
                sys::MPI_Pack(self.addr, self.count, self.dtype, out.as_mut_ptr().add(start) as *mut c_void, n as c_int, &mut pos, comm.0),
                "MPI_Pack",
            )?;
            out.set_len(start + pos as usize);
        }
        Ok(())
    }

    /// Unpacks packed `data` into this buffer. The caller has checked `data.len() <= bytes()`;
    /// with a partial last element only whole elements are written.
    #[inline(always)]
    pub fn unpack_from(&self, data: &[u8]) -> EpResult<()> {
        if data.is_empty() {
            return Ok(());
        }
        if self.info.contiguous() {
            // SAFETY: the buffer holds `bytes() >= data.len()` bytes.
            unsafe { copy_bytes(data.as_ptr(), self.data_ptr(), data.len()) };
            return Ok(());
        }
        self.unpack_typed(data)
    }

    /// [`Self::unpack_from`] for a non-contiguous datatype, through the host.
    #[inline(never)]
    fn unpack_typed(&self, data: &[u8]) -> EpResult<()> {
        let elems = data.len().checked_div(self.info.size).unwrap_or(0);
        let comm = crate::host::quiet_comm()?;
        let mut pos: c_int = 0;
        // SAFETY: `data` is readable for its length; the caller checked `data.len() <=
        // bytes()`, so the `elems` whole elements written fit the user's buffer of `count`.
        unsafe {
            check(
                sys::MPI_Unpack(data.as_ptr() as *const c_void, data.len() as c_int, &mut pos, self.addr, elems as c_int, self.dtype, comm.0),
                "MPI_Unpack",
            )
        }
    }

    /// Copies `bytes` bytes of data from `src` into this buffer (single copy when both sides
    /// are contiguous).
    pub fn copy_from(&self, src: &UserBuf, bytes: usize) -> EpResult<()> {
        if bytes == 0 {
            return Ok(());
        }
        if self.info.contiguous() && src.info.contiguous() {
            // SAFETY: both buffers hold at least `bytes` bytes of data (checked by the caller).
            unsafe { std::ptr::copy_nonoverlapping(src.data_ptr(), self.data_ptr(), bytes) };
            return Ok(());
        }
        let mut tmp = Vec::new();
        src.pack_into(&mut tmp)?;
        self.unpack_from(&tmp[..bytes])
    }
}

/// A datatype kept by an object that uses it after the call that made the object returned (a
/// persistent request, a pending nonblocking operation): a copy of a derived datatype, so the
/// program may free its own meanwhile (MPI 4.1 section 5.1.9: freeing a datatype does not
/// affect the operations that use it); a predefined type as it is. Freed with the object.
pub struct HeldType {
    t: sys::MPI_Datatype,
    owned: bool,
}

// SAFETY: a host datatype handle is a plain value, and host datatype calls are thread-safe
// under `MPI_THREAD_MULTIPLE`; the duplicate is freed once, by `Drop`.
unsafe impl Send for HeldType {}
// SAFETY: a shared `HeldType` only gives copies of the handle value.
unsafe impl Sync for HeldType {}

impl HeldType {
    /// Holds datatype `t`, already checked by [`type_info`]: a derived one as a contiguous
    /// type of one `t` (the same type map, so the same layout and signature), not as
    /// `MPI_Type_dup` would, which runs the copy callbacks of the program's attributes on `t`
    /// (and the delete callbacks when the copy is freed) on whichever thread holds it. Three
    /// host calls to make it (one to tell it from the predefined types the engine does not
    /// cache, such as `MPI_2INT`, which are held as they are: see [`is_predefined`]), one to
    /// free it. Errors: `EP_ERR_TYPE` when the host cannot make it.
    pub fn hold(t: sys::MPI_Datatype) -> EpResult<HeldType> {
        if is_predefined(t) {
            return Ok(HeldType { t, owned: false });
        }
        let mut copy = HOST.datatype_null;
        let failed = |_| ep_err!(ERR_TYPE, "the host MPI could not copy the datatype for the operation");
        // SAFETY: `t` is a committed datatype (checked by the caller); the host writes `copy`,
        // a new datatype (MPI 4.1 section 5.1.2) that this function commits or frees.
        check(unsafe { sys::MPI_Type_contiguous(1, t, &mut copy) }, "MPI_Type_contiguous").map_err(failed)?;
        // SAFETY: `copy` is the new datatype above, ours alone.
        if let Err(e) = check(unsafe { sys::MPI_Type_commit(&mut copy) }, "MPI_Type_commit") {
            // SAFETY: as above; freed once, here.
            unsafe { sys::MPI_Type_free(&mut copy) };
            return Err(failed(e));
        }
        Ok(HeldType { t: copy, owned: true })
    }

    /// The datatype to use.
    pub fn get(&self) -> sys::MPI_Datatype {
        self.t
    }

    /// `buf` on a datatype that stays valid while the returned holder lives, for an operation
    /// that uses it after the call that started it has returned (a nonblocking or persistent
    /// operation, whose program may free its datatype meanwhile: MPI 4.1 section 5.1.9): the
    /// same buffer on a copy of a derived datatype ([`HeldType::hold`]), and the copy; a
    /// predefined datatype as it is, and no holder (no host call, but for the first use of
    /// each one the engine does not cache: see [`is_predefined`]). Errors: `EP_ERR_TYPE` when
    /// the host cannot copy it.
    pub fn hold_buf(buf: UserBuf) -> EpResult<(UserBuf, Option<HeldType>)> {
        if is_predefined(buf.dtype) {
            return Ok((buf, None));
        }
        let t = HeldType::hold(buf.dtype)?;
        // SAFETY: the same memory as `buf`, whose validity its own contract gives, on a
        // duplicate of its datatype: the same layout, so `buf.info` describes it.
        let held = unsafe { UserBuf::from_parts(buf.addr, buf.count, t.get(), buf.info) };
        Ok((held, Some(t)))
    }
}

/// The derived datatypes a pending collective uses after its call returned (the buffers it
/// writes when it completes; every datatype of a persistent request), each held once
/// ([`HeldType::hold`]) however many of its buffers name it: an all-to-all of n blocks of one
/// derived type makes one copy, not n. Kept with the collective until it completes, by a
/// persistent request for its life (MPI 4.1 section 5.1.9: the program may free its own
/// datatypes meanwhile). Predefined datatypes take no entry and no allocation.
#[derive(Default)]
pub struct HeldTypes(Vec<(u64, HeldType)>);

impl HeldTypes {
    /// True when nothing is held (predefined datatypes only).
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// The datatype to use in place of the program's `t`: `t` itself when predefined, else
    /// the copy held here (made at its first mention). Errors: `EP_ERR_TYPE` when the host
    /// cannot copy it.
    pub fn dtype(&mut self, t: sys::MPI_Datatype) -> EpResult<sys::MPI_Datatype> {
        if is_predefined(t) {
            return Ok(t);
        }
        let bits = handle_bits(t);
        if let Some((_, h)) = self.0.iter().find(|(b, _)| *b == bits) {
            return Ok(h.get());
        }
        let h = HeldType::hold(t)?;
        let copy = h.get();
        self.0.push((bits, h));
        Ok(copy)
    }

    /// `x` with each of its datatypes as [`HeldTypes::dtype`] gives it. Errors: the first
    /// datatype the host cannot copy (`EP_ERR_TYPE`).
    pub fn hold<T: Holdable>(&mut self, mut x: T) -> EpResult<T> {
        let mut failed = None;
        x.map_types(&mut |t| match self.dtype(t) {
            Ok(copy) => copy,
            Err(e) => {
                failed.get_or_insert(e);
                t
            }
        });
        failed.map_or(Ok(x), Err)
    }

    /// [`HeldTypes::hold`] in place, where an error cannot be returned without hanging other
    /// endpoints (a collective's endpoint must join it): a datatype the host cannot copy
    /// (which only a host out of resources refuses) stays the program's, which is then used
    /// until the operation completes.
    pub fn hold_or_own<T: Holdable>(&mut self, x: &mut T) {
        x.map_types(&mut |t| self.dtype(t).unwrap_or(t));
    }
}

/// What names datatypes that an operation may use after its call returned: buffers, and
/// vectors and options of them (see [`HeldTypes`]).
pub trait Holdable {
    /// Replaces each datatype `t` it names by `f(t)`.
    fn map_types(&mut self, f: &mut dyn FnMut(sys::MPI_Datatype) -> sys::MPI_Datatype);
}

impl Holdable for UserBuf {
    fn map_types(&mut self, f: &mut dyn FnMut(sys::MPI_Datatype) -> sys::MPI_Datatype) {
        self.dtype = f(self.dtype);
    }
}

impl<T: Holdable> Holdable for Vec<T> {
    fn map_types(&mut self, f: &mut dyn FnMut(sys::MPI_Datatype) -> sys::MPI_Datatype) {
        self.iter_mut().for_each(|x| x.map_types(f));
    }
}

impl<T: Holdable> Holdable for Option<T> {
    fn map_types(&mut self, f: &mut dyn FnMut(sys::MPI_Datatype) -> sys::MPI_Datatype) {
        if let Some(x) = self {
            x.map_types(f);
        }
    }
}

/// Predefined datatypes ("named": combiner `MPI_COMBINER_NAMED`, MPI 4.1 section 5.1.13) seen
/// outside [`PREDEFINED`]'s table, such as `MPI_2INT` and the other pair types: a handle's
/// answer never changes (a predefined handle is never freed, and no derived type takes its
/// value), so each is asked of the host once.
static NAMED: parking_lot::RwLock<Vec<u64>> = parking_lot::RwLock::new(Vec::new());

/// True for a predefined datatype, which no program can free: one probe of a table for those
/// the engine caches, a short list or one host call for the others (see [`NAMED`]).
fn is_predefined(t: sys::MPI_Datatype) -> bool {
    let bits = handle_bits(t);
    if PREDEFINED.get(bits).is_some() || NAMED.read().contains(&bits) {
        return true;
    }
    let named = crate::host::type_is_named(t);
    if named {
        NAMED.write().push(bits);
    }
    named
}

impl Drop for HeldType {
    fn drop(&mut self) {
        if self.owned && crate::host::mpi_is_active() && !crate::host::finalizing() {
            // SAFETY: `t` is this object's own duplicate, used by nothing else any more.
            unsafe { sys::MPI_Type_free(&mut self.t) };
        }
    }
}

/// Basic elements of datatype `t` in `bytes` bytes of its data (MPI 4.1 section 5.1.11,
/// `MPI_Get_elements`): the host counts them from the type's signature, partial last
/// element included. `None` when no whole number of basic elements fills the bytes.
/// Errors: `EP_ERR_TYPE`.
pub fn elements_in_bytes(t: sys::MPI_Datatype, bytes: u64) -> EpResult<Option<i64>> {
    type_info(t)?;
    let n = host_elements(&host_status(HOST.byte, bytes as sys::MPI_Count)?, t)?;
    Ok((n != HOST.undefined as sys::MPI_Count).then_some(n as i64))
}

/// Bytes of data in `elements` basic elements of datatype `t` (the inverse of
/// [`elements_in_bytes`], for `MPI_Status_set_elements`): whole elements of `t` by its size,
/// and the bytes of a partial last element found by asking [`elements_in_bytes`] of each
/// length below one element (MPICH 4.0's `MPI_Status_set_elements_x` counts elements of the
/// type instead of basic elements, so the host cannot do it). Errors: `EP_ERR_TYPE`,
/// `EP_ERR_COUNT` (negative).
pub fn bytes_of_elements(t: sys::MPI_Datatype, elements: i64) -> EpResult<u64> {
    if elements < 0 {
        return Err(ep_err!(ERR_COUNT, "count {elements} is negative"));
    }
    let size = type_info(t)?.size as u64;
    let per = match size {
        0 => 0,
        _ => elements_in_bytes(t, size)?.unwrap_or(0),
    };
    if per <= 0 {
        return Ok(0);
    }
    let (whole, rest) = (elements / per, elements % per);
    let mut bytes = whole as u64 * size;
    if rest > 0 {
        for b in 1..size {
            if elements_in_bytes(t, b)? == Some(rest) {
                bytes += b;
                break;
            }
        }
    }
    Ok(bytes)
}

/// A host status recording `n` basic elements of datatype `t` received.
fn host_status(t: sys::MPI_Datatype, n: sys::MPI_Count) -> EpResult<sys::MPI_Status> {
    // SAFETY: an `MPI_Status` is plain data, for which all zeros is a valid value.
    let mut st: sys::MPI_Status = unsafe { std::mem::zeroed() };
    // SAFETY: `st` is a status of ours; `t` is predefined or checked by the caller.
    check(unsafe { sys::MPI_Status_set_elements_x(&mut st, t, n) }, "MPI_Status_set_elements_x")?;
    Ok(st)
}

/// `MPI_Get_elements_x` of host status `st` in datatype `t`.
fn host_elements(st: &sys::MPI_Status, t: sys::MPI_Datatype) -> EpResult<sys::MPI_Count> {
    let mut n: sys::MPI_Count = 0;
    // SAFETY: `st` is a status the host filled; `t` is predefined or checked by the caller;
    // the host writes `n`, a local.
    check(unsafe { sys::MPI_Get_elements_x(st, t, &mut n) }, "MPI_Get_elements_x")?;
    Ok(n)
}

#[cfg(test)]
mod tests {
    use super::copy_bytes;

    #[test]
    fn copy_bytes_copies_exactly_n() {
        let src: Vec<u8> = (1..=64).collect();
        for n in 0..=40 {
            for offset in 0..3 {
                let mut dst = [0u8; 48];
                // SAFETY: both ranges are in bounds.
                unsafe { copy_bytes(src.as_ptr().add(offset), dst.as_mut_ptr().add(offset), n) };
                assert_eq!(&dst[offset..offset + n], &src[offset..offset + n], "n = {n}");
                assert!(dst[..offset].iter().chain(&dst[offset + n..]).all(|&b| b == 0), "n = {n}: wrote outside");
            }
        }
    }
}
