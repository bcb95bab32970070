//! Window creation and free: collective over the endpoints of the communicator. The
//! endpoints of a process meet; the last to arrive creates (or frees) the host windows, one
//! per local index, in the same order in every process.

use super::host::{check_rma, HostWin, SendPtr, RMA};
use super::lock_words::LockWords;
use super::locks::{HostLocks, LockTable};
use super::ompi4::HOST_IS_OMPI4;
use super::pscw::Notices;
use super::shared::{self as shared_mem, SharedMemory};
use super::{Exposed, WinEndpoint, WinFlavor, WinShared};
use crate::engine::coll::host_bytes;
use crate::engine::comm::{is_predefined_handler, CommShared, Endpoint, ERRORS_ARE_FATAL};
use crate::engine::meeting::{agree, MeetingPoint};
use crate::ep_err;
use crate::error::{EpError, EpResult, ERR_BUFFER, ERR_COMM, ERR_DISP, ERR_RMA_SYNC, ERR_SIZE};
use crate::host::{sys, HostComm, HOST};
use parking_lot::Mutex;
use crate::engine::spinlock::SpinMutex;
use std::os::raw::{c_int, c_void};
use std::sync::atomic::AtomicI32;
use std::sync::Arc;

/// A host info handle handed to the creating endpoint (used during the call only).
#[derive(Clone, Copy)]
struct HostInfo(sys::MPI_Info);
// SAFETY: an info handle is a plain value, used by the creating endpoint during
// the call of the endpoint that passed it, under `MPI_THREAD_MULTIPLE`.
unsafe impl Send for HostInfo {}

/// What one endpoint brings to window creation.
#[derive(Clone, Copy)]
struct Offer {
    base: SendPtr,
    size: i64,
    disp_unit: c_int,
    info: HostInfo,
    /// Shared windows: the info asks for the non-contiguous layout (`alloc_shared_noncontig`).
    noncontig: bool,
}

impl Offer {
    /// What an endpoint that takes no part brings: a faulty one, or a missing local index.
    fn none() -> Offer {
        let base = SendPtr(std::ptr::null_mut());
        Offer { base, size: 0, disp_unit: 1, info: HostInfo(HOST.info_null), noncontig: false }
    }
}

type Created = (Arc<WinShared>, Vec<SendPtr>);

/// `EP_Win_create`, `EP_Win_allocate`, `EP_Win_create_dynamic`, `EP_Win_allocate_shared` for
/// one endpoint of `ep`'s communicator: `base` is the user's memory (`Create`), ignored
/// otherwise; `size` in bytes.
/// `fault` is an error in the caller's other arguments (its output pointers). A bad argument
/// or a fault on any endpoint fails the creation on every endpoint of every process: the
/// failure flag travels in the exchange of sizes and displacement units, made before any host
/// window (see [`crate::engine::meeting`]).
pub fn create(
    ep: &Endpoint,
    flavor: WinFlavor,
    base: *mut c_void,
    size: i64,
    disp_unit: c_int,
    info: sys::MPI_Info,
    fault: Option<EpError>,
) -> EpResult<WinEndpoint> {
    let shared = &ep.shared;
    if shared.is_inter() {
        return Err(fault.unwrap_or_else(|| ep_err!(ERR_COMM, "windows need an intracommunicator (merge the intercommunicator first)")));
    }
    let fault = (size < 0)
        .then(|| ep_err!(ERR_SIZE, "window size {size} is negative"))
        .or_else(|| (disp_unit <= 0).then(|| ep_err!(ERR_DISP, "displacement unit {disp_unit} is not positive")))
        .or_else(|| (flavor == WinFlavor::Create && base.is_null() && size > 0).then(|| ep_err!(ERR_BUFFER, "base is NULL with size {size}")))
        .or(fault);
    let noncontig = flavor == WinFlavor::Shared && shared_mem::asks_noncontig(info);
    let offer = match &fault {
        Some(_) => Offer::none(),
        None => Offer { base: SendPtr(base as *mut u8), size, disp_unit, info: HostInfo(info), noncontig },
    };
    let created = shared.meeting.meet((), shared.local_count(), ep.local as usize, offer, fault, |g| {
        let mut offers = g.inputs.clone();
        create_host_windows(shared, flavor, &mut offers, g.fault_class())
    })?;
    let (win, bases) = &*created;
    let (issued, issued_any) = WinEndpoint::no_issued(win.map.size());
    Ok(WinEndpoint {
        issued,
        issued_any,
        shared: win.clone(),
        local: ep.local,
        base: bases[ep.local as usize],
        size: if flavor == WinFlavor::Dynamic { 0 } else { size as sys::MPI_Aint },
        disp_unit: if flavor == WinFlavor::Dynamic { 1 } else { disp_unit },
        epochs: SpinMutex::new(Default::default()),
        attached: Mutex::new(Vec::new()),
        cache: Mutex::new(Default::default()),
        // Windows take only the predefined handlers (a communicator's user handler expects a
        // communicator handle); MPI starts windows with `MPI_ERRORS_ARE_FATAL`.
        errhandler: AtomicI32::new(if is_predefined_handler(ep.errhandler()) { ep.errhandler() } else { ERRORS_ARE_FATAL }),
    })
}

/// Frees host windows made so far when creation fails half-way, the last made first (the
/// windows over a shared block before the block's own window).
struct FreeOnError(Vec<HostWin>);
impl Drop for FreeOnError {
    fn drop(&mut self) {
        for w in self.0.iter_mut().rev() {
            // SAFETY: each window in `made` was created on this process by the loop below
            // and not freed yet; the host sets the handle to `MPI_WIN_NULL`.
            unsafe { sys::MPI_Win_free(&mut w.0) };
        }
    }
}

/// Memory of an `EP_Win_allocate` window for one endpoint where the host does not allocate it
/// (`RMA.allocate_window_memory`): `size` bytes (zeroed) starting on a page boundary, in pages
/// no other window exposes. MPICH's own `MPI_Win_allocate` puts the small windows of one
/// process on one page, and MPICH 4.0.2 over UCX then carries one window's operations into
/// another's memory (plain MPI too: README, host limitations). Its address is `(block, base)`;
/// the block lives in the window's [`WinShared::pages`].
fn page_block(size: usize) -> (Box<[u8]>, SendPtr) {
    if size == 0 {
        return (Box::default(), SendPtr(std::ptr::null_mut()));
    }
    let page = page_size();
    let mut block = vec![0u8; whole_pages(size) + page].into_boxed_slice();
    let skip = block.as_ptr().align_offset(page);
    let base = SendPtr(block[skip..].as_mut_ptr());
    (block, base)
}

fn page_size() -> usize {
    // SAFETY: sysconf has no preconditions.
    usize::try_from(unsafe { libc::sysconf(libc::_SC_PAGESIZE) }).unwrap_or(4096).max(64)
}

/// `size` bytes rounded up to whole pages: the host's allocation for an `EP_Win_allocate`
/// endpoint, so that no two windows share a page.
fn whole_pages(size: usize) -> usize {
    size.next_multiple_of(page_size())
}

/// The leader's part of creation: the sizes and displacement units of every rank (for range
/// checks at the origins), with every process's failure flag (`fault`: this process's error
/// class, 0 for none), then host window `j` for local index `j`.
fn create_host_windows(comm: &CommShared, flavor: WinFlavor, offers: &mut [Offer], fault: c_int) -> EpResult<Created> {
    let map = &comm.map;
    let (exposed, noncontig) = gather_exposed(comm, offers, fault)?;
    let nwins = (0..map.nprocs() as u32).map(|p| map.ranks_of(p).len()).max().unwrap_or(0);
    // Before `made`: on an error the host windows over these pages are freed first.
    let mut pages: Vec<Box<[u8]>> = Vec::new();
    let mut made = FreeOnError(Vec::with_capacity(nwins + 1));
    // A shared window's block first; its host window (if any) is freed last on error.
    let mut segments = vec![SendPtr(std::ptr::null_mut()); map.size()];
    let (mut shifts, mut memory) = (Vec::new(), None);
    if flavor == WinFlavor::Shared {
        let block = shared_mem::allocate(comm, &exposed, noncontig)?;
        match block.memory {
            SharedMemory::Host(w) => made.0.push(w),
            local => memory = Some(local),
        }
        segments = block.segments;
        shifts = block.shifts;
        // Every host window exposes the process's region, counted in bytes (`shared.rs`).
        let (base, size) = block.region;
        for o in offers.iter_mut() {
            (o.base, o.size, o.disp_unit) = (base, size, 1);
        }
    }
    let host_windows_from = made.0.len();
    let mut bases = Vec::with_capacity(offers.len());
    for j in 0..nwins {
        let o = offers.get(j).copied().unwrap_or_else(Offer::none);
        let mut win = HostWin(RMA.win_null);
        let mut base = o.base;
        let host_allocates = flavor == WinFlavor::Allocate && RMA.allocate_window_memory != 0;
        if flavor == WinFlavor::Allocate && !host_allocates {
            let (block, at) = page_block(o.size as usize);
            pages.push(block);
            base = at;
        }
        // SAFETY: the user's memory (`Create`: `size` bytes at `base`, valid until the
        // window is freed, MPI 4.1 section 12.2.1), the library's (`Allocate`: `size` bytes
        // at `base` in a block of `pages`, which the window keeps until after its host windows
        // are freed) or the host's (`Allocate` where the host allocates: it writes the address
        // of at least `size` bytes into `at`, a live local, valid until the window is freed)
        // is exposed; the host writes `win.0`, a live local, which is recorded in `made`
        // (freed on error) before the next host call. `comm.host` lives while `comm` does.
        unsafe {
            match flavor {
                WinFlavor::Allocate if host_allocates => {
                    let mut at: *mut c_void = std::ptr::null_mut();
                    check_rma(
                        sys::MPI_Win_allocate(
                            whole_pages(o.size as usize) as sys::MPI_Aint,
                            o.disp_unit,
                            o.info.0,
                            comm.host.0,
                            (&mut at as *mut *mut c_void).cast(),
                            &mut win.0,
                        ),
                        "MPI_Win_allocate",
                    )?;
                    // Zeroed as the library's own pages are (MPI promises no content).
                    if o.size > 0 {
                        std::ptr::write_bytes(at.cast::<u8>(), 0, o.size as usize);
                        base = SendPtr(at.cast());
                    }
                }
                WinFlavor::Create | WinFlavor::Shared | WinFlavor::Allocate => check_rma(
                    sys::MPI_Win_create(base.0 as *mut c_void, o.size as sys::MPI_Aint, o.disp_unit, o.info.0, comm.host.0, &mut win.0),
                    "MPI_Win_create",
                )?,
                WinFlavor::Dynamic => check_rma(sys::MPI_Win_create_dynamic(o.info.0, comm.host.0, &mut win.0), "MPI_Win_create_dynamic")?,
            }
            made.0.push(win);
            check_rma(sys::MPI_Win_set_errhandler(win.0, HOST.errors_return), "MPI_Win_set_errhandler")?;
        }
        if j < offers.len() {
            bases.push(if flavor == WinFlavor::Dynamic { SendPtr(std::ptr::null_mut()) } else { base });
        }
    }
    for (j, b) in bases.iter_mut().enumerate() {
        let rank = map.my_rank(j as u32) as usize;
        match flavor {
            WinFlavor::Create | WinFlavor::Allocate => segments[rank] = *b,
            WinFlavor::Shared => *b = segments[rank],
            WinFlavor::Dynamic => {}
        }
    }
    let unified = made.0.iter().all(|w| is_unified(*w));
    let exposed = if flavor == WinFlavor::Dynamic { Vec::new() } else { exposed };
    // The notices' own host communicator, last: nothing after it fails, so it needs no
    // freeing on error (`Notices` frees it when the window goes).
    let tag_ub = crate::host::tag_ub()?;
    // Open MPI 4's lock calls are unsafe from several threads on one window (`lock_words.rs`):
    // lock words where two endpoints of a process may lock different processes of one host
    // window at once. With one endpoint per process, a window's host calls come from that
    // endpoint's thread (one thread per endpoint, `EP_Win_create`); with one process, each host
    // window has one target, whose lock and unlock the table's `busy` serialises, and no
    // operation is in flight on it meanwhile. The condition is the same in every process, as
    // the collective creation of the words needs.
    let words_needed = HOST_IS_OMPI4 && nwins > 1 && map.nprocs() > 1;
    let lock_words = if words_needed { Some(Arc::new(LockWords::create(nwins, comm.host)?)) } else { None };
    let mut notices = HostComm(HOST.comm_null);
    // SAFETY: `comm.host` lives while `comm` does; the host writes `notices.0`, a live local.
    let dup = unsafe { check_rma(sys::MPI_Comm_dup(comm.host.0, &mut notices.0), "MPI_Comm_dup (window notices)") };
    if let Err(err) = dup {
        if let Some(words) = &lock_words {
            let _ = words.free();
        }
        return Err(err);
    }
    let notices = Notices::new(notices, nwins as u32, tag_ub);
    let mut made_wins = std::mem::take(&mut made.0);
    if host_windows_from == 1 {
        memory = Some(SharedMemory::Host(made_wins.remove(0)));
    }
    let wins: Box<[HostWin]> = made_wins.into_boxed_slice();
    let shared = WinShared {
        shifts: shifts.into_boxed_slice(),
        segments: segments.into_boxed_slice(),
        memory,
        _pages: pages.into_boxed_slice(),
        unified,
        locks: (0..wins.len() as u32)
            .map(|j| LockTable::new(lock_words.as_ref().map_or(HostLocks::Host, |words| HostLocks::Words(words.clone(), j)), nwins > 1, map.my_proc()))
            .collect(),
        lock_words,
        wins,
        map: map.clone(),
        exposed: exposed.into_boxed_slice(),
        flavor,
        meeting: MeetingPoint::new(),
        notices,
        rank_of: Default::default(),
        _live: crate::live::Counted::new(&crate::live::WIN_STATES),
    };
    Ok((Arc::new(shared), bases))
}

/// Host window `w` has the unified memory model (`MPI_WIN_MODEL` is `MPI_WIN_UNIFIED`).
fn is_unified(w: HostWin) -> bool {
    let mut value: *mut c_int = std::ptr::null_mut();
    let mut flag: c_int = 0;
    // SAFETY: `w` is a live host window; the host writes a pointer to its attribute value
    // into `value` and `flag`, live locals, and the value it points at lives with the window.
    let rc =
        unsafe { sys::MPI_Win_get_attr(w.0, RMA.win_model_key, &mut value as *mut *mut c_int as *mut c_void, &mut flag) };
    // SAFETY: with `flag` set, `value` points at the host's int (see above).
    rc == HOST.success && flag != 0 && !value.is_null() && unsafe { *value } == RMA.win_unified
}

/// Bytes per rank in the exchange of [`gather_exposed`]: size, displacement unit, flags.
const ENTRY: usize = 24;

/// Every rank's (size, displacement unit), through one host allgather of each process's, and
/// whether every rank asked for a non-contiguous shared block. A
/// process with a fault (`fault`, its error class) sends the class negated as the size of
/// its entries, where no valid size is negative; any such entry fails the creation on every
/// process.
fn gather_exposed(comm: &CommShared, offers: &[Offer], fault: c_int) -> EpResult<(Vec<Exposed>, bool)> {
    let map = &comm.map;
    let size_of = |o: &Offer| if fault != 0 { -(fault as i64) } else { o.size };
    let entry = |o: &Offer| [size_of(o), o.disp_unit as i64, o.noncontig as i64];
    let mine: Vec<u8> = offers.iter().flat_map(entry).flat_map(i64::to_ne_bytes).collect();
    let counts: Vec<c_int> = (0..map.nprocs() as u32).map(|p| (map.ranks_of(p).len() * ENTRY) as c_int).collect();
    let displs = host_bytes::displs_of(&counts)?;
    let mut all = vec![0u8; counts.iter().map(|&c| c as usize).sum()];
    // SAFETY: `all` holds the sum of `counts`, which `displs` lays out end to end, one entry
    // per process.
    unsafe { host_bytes::allgatherv(&mine, all.as_mut_ptr(), &counts, &displs, comm.host)? };
    let mut exposed = vec![Exposed::default(); map.size()];
    let mut noncontig = true;
    for p in 0..map.nprocs() as u32 {
        for (local, &rank) in map.ranks_of(p).iter().enumerate() {
            let at = displs[p as usize] as usize + local * ENTRY;
            let word = |k: usize| i64::from_ne_bytes(all[at + 8 * k..at + 8 * k + 8].try_into().unwrap());
            exposed[rank as usize] = Exposed { size: word(0), disp_unit: word(1) };
            noncontig &= word(2) != 0;
        }
    }
    agree(exposed.iter().map(|e| if e.size < 0 { (-e.size) as c_int } else { 0 }))?;
    Ok((exposed, noncontig))
}

/// Checks that the endpoint may free the window: no epoch of lock, lock_all, post or start
/// is open (MPI 4.1 section 12.2.5). Errors: `EP_ERR_RMA_SYNC`.
pub fn check_free(w: &WinEndpoint) -> EpResult<()> {
    let e = w.epochs.lock();
    if e.in_passive() {
        return Err(ep_err!(ERR_RMA_SYNC, "the endpoint still holds passive-target locks (unlock them before freeing)"));
    }
    if e.in_general_active() {
        return Err(ep_err!(ERR_RMA_SYNC, "the endpoint is inside a post or start epoch (complete, wait or test first)"));
    }
    Ok(())
}

/// `EP_Win_free` for one endpoint: collective; the host windows go when every endpoint of
/// every process has called (MPI 4.1 section 12.2.5: no lock may be held).
pub fn free(w: &WinEndpoint) -> EpResult<()> {
    check_free(w)?;
    let shared = &w.shared;
    shared.meeting.meet((), w.local_count(), w.local as usize, (), None, |_| -> EpResult<()> {
        let mut first_error = Ok(());
        for (win, locks) in shared.wins.iter().zip(shared.locks.iter()) {
            let ended = locks.end_epoch(*win);
            if first_error.is_ok() {
                first_error = ended;
            }
            let mut h = win.0;
            // SAFETY: every endpoint of the process has called free (the meeting), and
            // these host windows, made at creation, are freed once, here; `h` is a live local copy.
            let rc = check_rma(unsafe { sys::MPI_Win_free(&mut h) }, "MPI_Win_free");
            if first_error.is_ok() {
                first_error = rc;
            }
        }
        if let Some(words) = &shared.lock_words {
            let rc = words.free();
            if first_error.is_ok() {
                first_error = rc;
            }
        }
        // A shared block goes after the host windows over it.
        if let Some(m) = &shared.memory {
            let rc = m.free();
            if first_error.is_ok() {
                first_error = rc;
            }
        }
        first_error
    })?;
    Ok(())
}
