//! Memory of shared-memory windows (`EP_Win_allocate_shared`, MPI 4.1 section 12.2.3): one
//! block that every endpoint of the communicator can load from and store into.
//!
//! The endpoints of one process share its memory by construction, so a communicator inside
//! one process takes an ordinary allocation. Across processes the block comes from the host's
//! own shared-memory window (`MPI_Win_allocate_shared` on the communicator's host
//! communicator), which needs every process on one node: the leader checks that with
//! `MPI_Comm_split_type(MPI_COMM_TYPE_SHARED)` first, since MPI makes the call erroneous when
//! the group cannot share memory.
//!
//! Layout: by default the segments follow each other in rank order with no gap (rank `i`'s
//! starts right after rank `i - 1`'s, MPI's contiguous default), whatever processes the ranks
//! live on: the whole block is allocated by the host's rank 0. With the info key
//! `alloc_shared_noncontig` set to "true" on every endpoint, each process allocates its own
//! endpoints' segments (memory near the threads that use it), one after the other in local
//! order, each starting on a cache line of its own.
//!
//! One-sided operations and synchronisation on the window go through the usual host windows
//! (one per local index, made with `MPI_Win_create`: see `create.rs`), so they work exactly
//! as on any other window. Each of them exposes the process's whole block (contiguous layout:
//! the one block) with a displacement unit of 1, and an operation on rank `r` adds the byte
//! offset of `r`'s segment: windows over neighbouring parts of one page lose operations on
//! MPICH 4.0.2 over UCX (its registration cache hands out the wrong window's memory), windows
//! over the same region do not.

use super::host::{check_rma, HostWin, SendPtr, RMA};
use super::Exposed;
use crate::engine::comm::CommShared;
use crate::ep_err;
use crate::engine::meeting::agree;
use crate::error::{EpError, EpResult, ERR_COMM};
use crate::host::{self, check, sys, HostComm, HOST};
use std::os::raw::{c_char, c_int, c_void};

extern "C" {
    fn epmpi_info_is_true(info: sys::MPI_Info, key: *const c_char) -> c_int;
}

/// True when the info handle sets `alloc_shared_noncontig` to "true".
pub fn asks_noncontig(info: sys::MPI_Info) -> bool {
    // SAFETY: `info` is a host info handle given by the user (or `MPI_INFO_NULL`, which the
    // shim checks), the key a NUL-terminated string; the shim reads into its own buffer.
    unsafe { epmpi_info_is_true(info, c"alloc_shared_noncontig".as_ptr()) != 0 }
}

/// Who owns the block: freed with the window, after the host windows over it.
pub enum SharedMemory {
    /// The host's shared-memory window that holds the block (several processes).
    Host(HostWin),
    /// An allocation of this process (16-byte aligned words), held until the window goes.
    Local { _block: Box<[u128]> },
}

impl SharedMemory {
    /// Frees a host block (collective over the host communicator, as `MPI_Win_free` is).
    pub fn free(&self) -> EpResult<()> {
        match self {
            SharedMemory::Host(w) => {
                let mut h = w.0;
                // SAFETY: the host window was made by `allocate` and is freed once, by the
                // window's free (or by the failed creation that made it); `h` is a live local.
                check_rma(unsafe { sys::MPI_Win_free(&mut h) }, "MPI_Win_free")
            }
            SharedMemory::Local { .. } => Ok(()),
        }
    }
}

/// Alignment of blocks, and of segments in the non-contiguous layout: a cache line.
const ALIGN: i64 = 64;

/// The first address at or after `p` on an `ALIGN` boundary (null stays null).
fn align_up(p: *mut u8) -> *mut u8 {
    if p.is_null() {
        return p;
    }
    p.wrapping_add((ALIGN as usize - p as usize % ALIGN as usize) % ALIGN as usize)
}

/// Each rank's byte offset in its process's block, and each process's block size.
fn layout(comm: &CommShared, exposed: &[Exposed], noncontig: bool) -> (Vec<i64>, Vec<i64>) {
    let map = &comm.map;
    let mut offsets = vec![0i64; map.size()];
    let mut blocks = vec![0i64; map.nprocs()];
    if noncontig {
        for p in 0..map.nprocs() as u32 {
            let mut at = 0i64;
            for &r in map.ranks_of(p) {
                at = (at + ALIGN - 1) / ALIGN * ALIGN;
                offsets[r as usize] = at;
                at += exposed[r as usize].size;
            }
            blocks[p as usize] = at;
        }
    } else {
        let mut at = 0i64;
        for (r, e) in exposed.iter().enumerate() {
            offsets[r] = at;
            at += e.size;
        }
        blocks[0] = at;
    }
    (offsets, blocks)
}

/// The memory of a shared window in this process.
pub struct Block {
    /// Every rank's segment address (in this process's address space).
    pub segments: Vec<SendPtr>,
    /// Every rank's byte offset in its process's region.
    pub shifts: Vec<i64>,
    /// What this process exposes in each host window: the whole block (contiguous layout) or
    /// its own endpoints' part (non-contiguous), address and bytes.
    pub region: (SendPtr, i64),
    pub memory: SharedMemory,
}

/// Allocates the block of a shared window whose ranks expose `exposed`. The leader of each
/// process calls it, collectively over the communicator's processes.
///
/// Errors: `EP_ERR_COMM` when the processes do not all share one node's memory; host
/// failures as `EP_ERR_WIN` with the host's message (Open MPI: its one-sided component
/// `sm` must be allowed, e.g. `OMPI_MCA_osc=ucx,sm`).
pub fn allocate(comm: &CommShared, exposed: &[Exposed], noncontig: bool) -> EpResult<Block> {
    let map = &comm.map;
    let (offsets, blocks) = layout(comm, exposed, noncontig);
    let segments = |bases: &[*mut u8]| -> Vec<SendPtr> {
        (0..map.size() as i32)
            .map(|r| {
                let p = if noncontig { map.location(r).expect("rank").proc as usize } else { 0 };
                SendPtr(bases[p].wrapping_offset(offsets[r as usize] as isize))
            })
            .collect()
    };
    // Blocks start on a cache line: each is allocated with room to move its start there.
    let padded = |p: usize| if blocks[p] > 0 { blocks[p] + ALIGN - 1 } else { 0 };
    if !comm.is_multi_process() {
        let mut mem: Box<[u128]> = vec![0u128; (padded(0) as usize).div_ceil(16)].into_boxed_slice();
        let base = align_up(mem.as_mut_ptr() as *mut u8);
        let region = (SendPtr(base), blocks[0]);
        return Ok(Block {
            segments: segments(&[base]),
            shifts: offsets.clone(),
            region,
            memory: SharedMemory::Local { _block: mem },
        });
    }
    check_one_node(comm)?;
    let mut win = HostWin(RMA.win_null);
    let mut mine: *mut u8 = std::ptr::null_mut();
    let made = returning_errors(comm.host, || {
        // SAFETY: the host allocates this process's block (its padded bytes, a valid
        // non-negative size) and writes its address into `mine` and the window into `win.0`,
        // live locals; every process of `comm.host` makes this call (the leaders of a
        // collective creation).
        let rc = unsafe {
            sys::MPI_Win_allocate_shared(
                padded(comm.my_proc as usize) as sys::MPI_Aint,
                1,
                HOST.info_null,
                comm.host.0,
                &mut mine as *mut *mut u8 as *mut c_void,
                &mut win.0,
            )
        };
        check_rma(rc, "MPI_Win_allocate_shared").map_err(|e| {
            let hint = "Open MPI makes shared windows with its `sm` one-sided component: allow it, e.g. OMPI_MCA_osc=ucx,sm";
            EpError::new(e.class, format!("{} ({hint})", e.msg))
        })
    })?;
    // Every process must know whether all made it: the next host calls are collective. A block
    // made here while another process failed stays (its free would be collective too).
    let elsewhere = max_over(comm.host, made.as_ref().err().map_or(0, |e| e.class))?;
    made?;
    agree([elsewhere])?;
    let memory = SharedMemory::Host(win);
    let mut bases = vec![std::ptr::null_mut::<u8>(); map.nprocs()];
    let queried = if noncontig { 0..map.nprocs() } else { 0..1 };
    for p in queried {
        let (mut size, mut unit, mut base): (sys::MPI_Aint, c_int, *mut u8) = (0, 0, std::ptr::null_mut());
        // SAFETY: `win` is the shared window made above and `p` a rank of its group; the
        // host writes the three live locals.
        let rc = unsafe {
            sys::MPI_Win_shared_query(win.0, p as c_int, &mut size, &mut unit, &mut base as *mut *mut u8 as *mut c_void)
        };
        if let Err(e) = check_rma(rc, "MPI_Win_shared_query") {
            let _ = memory.free();
            return Err(e);
        }
        bases[p] = align_up(base);
    }
    let mine = if noncontig { comm.my_proc as usize } else { 0 };
    let region = (SendPtr(bases[mine]), blocks[mine]);
    Ok(Block { segments: segments(&bases), shifts: offsets.clone(), region, memory })
}

/// Runs `call` (host calls on `comm`) with the host's errors returned as codes rather than
/// sent to `comm`'s handler (which aborts by default), then restores the handler.
fn returning_errors<R>(comm: HostComm, call: impl FnOnce() -> R) -> EpResult<R> {
    // SAFETY: `comm` is a live host communicator that only this thread uses during the call
    // (the process's other endpoints wait in the creation's meeting); the host writes `old`, a
    // live local, which is set back and freed below.
    unsafe {
        let mut old = std::mem::zeroed::<sys::MPI_Errhandler>();
        check(sys::MPI_Comm_get_errhandler(comm.0, &mut old), "MPI_Comm_get_errhandler")?;
        check(sys::MPI_Comm_set_errhandler(comm.0, HOST.errors_return), "MPI_Comm_set_errhandler")?;
        let r = call();
        sys::MPI_Comm_set_errhandler(comm.0, old);
        sys::MPI_Errhandler_free(&mut old);
        Ok(r)
    }
}

/// The largest of every process's `class` over the host communicator `comm` (collective).
fn max_over(comm: HostComm, class: c_int) -> EpResult<c_int> {
    let mut all: c_int = 0;
    // SAFETY: one int in and out, live locals; every process of `comm` calls this.
    unsafe {
        check(
            sys::MPI_Allreduce(
                &class as *const c_int as *const c_void,
                &mut all as *mut c_int as *mut c_void,
                1,
                HOST.int_,
                HOST.op_max,
                comm.0,
            ),
            "MPI_Allreduce",
        )?
    };
    Ok(all)
}

/// `EP_ERR_COMM` unless every process of the communicator is on one shared-memory node
/// (collective over the host communicator; every process gets the same answer, as each
/// compares its node's process count with the communicator's).
fn check_one_node(comm: &CommShared) -> EpResult<()> {
    let mut node = HostComm(HOST.comm_null);
    // SAFETY: `comm.host` lives while `comm` does; the host writes `node.0`, a live local.
    unsafe {
        check(
            sys::MPI_Comm_split_type(comm.host.0, RMA.comm_type_shared, 0, HOST.info_null, &mut node.0),
            "MPI_Comm_split_type",
        )?
    };
    let together = host::rank_size(node).map(|(_, n)| n as u32);
    host::free_comm(node);
    let together = together?;
    if together != comm.nprocs {
        return Err(ep_err!(
            ERR_COMM,
            "the communicator's {} processes do not all share memory ({together} of them are on this node): \
             EP_Win_allocate_shared needs every endpoint able to load and store the others' memory \
             (MPI 4.1 section 12.2.3)",
            comm.nprocs
        ));
    }
    Ok(())
}
