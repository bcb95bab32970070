//! Collectives on endpoint communicators (MPI 4.1 chapter 6), called once per endpoint.
//!
//! Hierarchical: the endpoints of a process meet on the communicator's [`board::Board`]
//! (shared memory, no MPI call), their leader makes at most one host MPI collective on the
//! communicator's host communicator for the whole process, and each endpoint copies its
//! result out. Two shortcuts:
//! - when every process has exactly one endpoint and ranks follow host ranks, each endpoint
//!   calls the host collective itself with the user's arguments (plain MPI plus a check);
//! - data moves between processes packed (`MPI_Pack` or `memcpy`), so endpoints may use any
//!   datatypes with matching type signatures, as MPI allows.
//!
//! Rank order is MPI's everywhere: gathered data lands by rank, and reductions with
//! non-commutative ops combine in rank order. When the ranks of each process are not one
//! contiguous block in process order (after some splits or merges), reductions that depend
//! on order gather every contribution instead (see [`all_inputs`]).

pub mod board;
mod bcast;
mod gather;
mod alltoall;
pub mod host_bytes;
pub mod immediate;
pub mod immediate_inter;
pub mod inter;
mod inter_gather;
mod inter_parcel;
mod inter_reduce;
pub mod native;
pub mod nonblocking;
mod reduce;
mod scan;
pub mod typed;

pub use alltoall::{alltoallv, AlltoallvArgs};
pub use bcast::{barrier, bcast};
pub use inter::{allreduce_inter, bcast_inter};
pub use inter_gather::{allgather_inter, alltoall_inter, gather_inter, scatter_inter};
pub use inter_reduce::{reduce_inter, reduce_scatter_inter};
pub use gather::{allgatherv, gatherv, scatterv, AllgathervArgs, GathervArgs, ScattervArgs};
pub use reduce::{allreduce_arrive, allreduce_meet, reduce, reduce_scatter, ReduceArgs};
pub use scan::{scan, ScanArgs};

use super::comm::CommShared;
use super::datatype::{TypeInfo, UserBuf};
use board::AlignedBuf;
use std::os::raw::{c_int, c_void};
use typed::Elems;

/// Element counts and displacements per rank: one count for all (`MPI_Gather`) or arrays
/// (`MPI_Gatherv`), both in elements of the datatype they go with.
#[derive(Clone, Copy)]
pub enum Layout<'a> {
    Uniform(c_int),
    Varied { counts: &'a [c_int], displs: &'a [c_int] },
}

impl Layout<'_> {
    pub fn count(&self, rank: i32) -> c_int {
        match self {
            Layout::Uniform(c) => *c,
            Layout::Varied { counts, .. } => counts[rank as usize],
        }
    }

    /// Displacement of `rank`'s block, in elements.
    pub fn displ(&self, rank: i32) -> isize {
        match self {
            Layout::Uniform(c) => *c as isize * rank as isize,
            Layout::Varied { displs, .. } => displs[rank as usize] as isize,
        }
    }
}

/// A datatype and the address its blocks are relative to (the `recvbuf` of a gather).
#[derive(Clone, Copy)]
pub struct Blocks<'a> {
    pub base: *mut c_void,
    pub dtype: crate::host::sys::MPI_Datatype,
    pub info: TypeInfo,
    pub layout: Layout<'a>,
}

// SAFETY: the user keeps the buffer alive for the duration of the collective.
unsafe impl Send for Blocks<'_> {}
// SAFETY: as for `Send`: a shared `Blocks` only gives out the address and layout; the
// memory is reached through raw pointers under the same contract.
unsafe impl Sync for Blocks<'_> {}

impl Blocks<'_> {
    /// The block of `rank`.
    pub fn of(&self, rank: i32) -> UserBuf {
        let addr = (self.base as *mut u8).wrapping_offset(self.layout.displ(rank) * self.info.extent) as *mut c_void;
        // SAFETY: `base` is a user buffer's address (its `UserBuf`'s invariant), which holds
        // every rank's block at the displacement and count its layout gives (the collective's
        // argument rules, MPI 4.1 section 6.5).
        unsafe { UserBuf::from_parts(addr, self.layout.count(rank), self.dtype, self.info) }
    }

    /// Packed bytes of `rank`'s block.
    pub fn bytes(&self, rank: i32) -> usize {
        self.info.size * self.layout.count(rank) as usize
    }

    /// The blocks of ranks `0..size`, one buffer each (for the nonblocking collectives, which
    /// keep them until they complete).
    pub fn each(&self, size: usize) -> Vec<UserBuf> {
        (0..size as i32).map(|r| self.of(r)).collect()
    }
}

/// Above this many bytes, endpoints of one process copy straight from the buffer the data is in
/// (the root's, or the one the host broadcast landed in; the senders' buffers of an allgather
/// or all-to-all inside one process) rather than through the leader's scratch space, at the
/// cost of holding everyone until all have copied. Measured on MPICH, 1 process x 2
/// endpoints, 4 KiB per endpoint: broadcast 0.42x-0.52x of plain MPI straight against 1.20x
/// through the scratch space, allgather 0.47x against 1.83x, all-to-all 0.40x against 1.51x;
/// an all-to-all of 512 B 0.78x against 1.00x (docs/performance.md).
pub(crate) const DIRECT_COPY_BYTES: usize = 512;

/// The top bit of a direct-copy ballot ([`copy_ballot`]): the endpoint's data is contiguous,
/// so the others can copy straight out of its buffer.
pub(crate) const COPYABLE: u64 = 1 << 63;

/// An endpoint's ballot for [`board::Board::run_or_copy`]: the bytes its buffer holds for the
/// others (saturated: only their sum against [`DIRECT_COPY_BYTES`] matters) and, in
/// [`COPYABLE`], whether it is contiguous.
pub(crate) fn copy_ballot(bytes: usize, contiguous: bool) -> u64 {
    (bytes as u64).min(u32::MAX as u64) | if contiguous { COPYABLE } else { 0 }
}

/// The decision of an allgather or all-to-all among the `n` endpoints of one process, from
/// their ballots: copy straight from each other's buffers when every one is contiguous and
/// they hold more than [`DIRECT_COPY_BYTES`] in all.
pub(crate) fn copies_pay(n: usize, ballot_of: &dyn Fn(usize) -> u64) -> bool {
    let mut bytes = 0u64;
    for i in 0..n {
        let b = ballot_of(i);
        if b & COPYABLE == 0 {
            return false;
        }
        bytes += b & !COPYABLE;
    }
    bytes > DIRECT_COPY_BYTES as u64
}

/// True when a collective of `bytes` per endpoint goes through [`board::Board::exchange`]:
/// a communicator inside one process, few endpoints, small data.
pub fn exchange_fits(s: &CommShared, bytes: usize) -> bool {
    !s.is_multi_process() && s.local_count() <= board::EXCHANGE_MAX_ENDPOINTS && bytes <= board::INLINE_BYTES
}

/// The bytes of `buf` (at most [`board::INLINE_BYTES`]) as an endpoint hands them to the board's
/// exchange: a contiguous buffer's data in place, any other's packed into `packed`, which is
/// zeroed only then (512 bytes of stores on every small collective otherwise).
pub(crate) fn inline_bytes<'a>(buf: &'a UserBuf, packed: &'a mut Option<[u8; board::INLINE_BYTES]>) -> crate::error::EpResult<&'a [u8]> {
    if let Some(data) = buf.contiguous_data() {
        return Ok(data);
    }
    let p = &mut packed.insert([0u8; board::INLINE_BYTES])[..buf.bytes()];
    buf.pack_to(p)?;
    Ok(p)
}

/// True when every process has one endpoint and ranks follow host ranks: then the host
/// collective on the user's arguments is exactly the endpoint collective.
pub fn process_ordered(s: &CommShared) -> bool {
    s.map.is_blocked() && s.map.size() == s.map.nprocs()
}

/// Every rank's `count` elements (same datatype, given by `template`) as typed copies in rank
/// order, for reductions whose order the hierarchy cannot keep. `locals` are this process's
/// inputs in local order. With `root_proc`, only that process receives (`None` elsewhere).
pub fn all_inputs(s: &CommShared, locals: &[Elems], root_proc: Option<u32>) -> crate::error::EpResult<Option<Vec<AlignedBuf>>> {
    let template = locals[0];
    let per = template.info.size * template.count as usize;
    let mut mine = vec![0u8; per * locals.len()];
    for (i, e) in locals.iter().enumerate() {
        // SAFETY: `e` was made from a `UserBuf` (`Elems::of`), whose invariant it keeps.
        let ub = unsafe { UserBuf::from_parts(e.base as *mut c_void, e.count, e.dtype, e.info) };
        ub.pack_to(&mut mine[i * per..(i + 1) * per])?;
    }
    let nprocs = s.map.nprocs();
    let counts: Vec<c_int> = (0..nprocs).map(|p| host_bytes::c_bytes(per * s.map.ranks_of(p as u32).len())).collect::<Result<_, _>>()?;
    let displs = host_bytes::displs_of(&counts)?;
    let mut all = vec![0u8; per * s.map.size()];
    match root_proc {
        _ if nprocs == 1 => all.copy_from_slice(&mine),
        // SAFETY: `all` holds the sum of `counts`, which `displs` lays out end to end, one
        // entry per process.
        None => unsafe { host_bytes::allgatherv(&mine, all.as_mut_ptr(), &counts, &displs, s.host)? },
        Some(root) => {
            // SAFETY: as for the allgather above.
            unsafe { host_bytes::gatherv(&mine, all.as_mut_ptr(), &counts, &displs, root as i32, s.host)? };
            if root != s.my_proc {
                return Ok(None);
            }
        }
    }
    let mut out: Vec<AlignedBuf> = (0..s.map.size()).map(|_| AlignedBuf::default()).collect();
    for p in 0..nprocs as u32 {
        let start = displs[p as usize] as usize;
        for (i, &r) in s.map.ranks_of(p).iter().enumerate() {
            let buf = &mut out[r as usize];
            buf.resize(template.span());
            // SAFETY: `buf` was just resized to the template's span, which holds `count`
            // elements of the template's datatype from `base_for(buf.ptr())`.
            let ub = unsafe { UserBuf::from_parts(template.base_for(buf.ptr()), template.count, template.dtype, template.info) };
            ub.unpack_from(&all[start + i * per..start + (i + 1) * per])?;
        }
    }
    Ok(Some(out))
}

/// The typed elements held by an engine buffer filled by [`all_inputs`] or [`typed::fold`].
pub fn elems_in(buf: &AlignedBuf, template: &Elems) -> Elems {
    template.at(template.base_for(buf.ptr()))
}
