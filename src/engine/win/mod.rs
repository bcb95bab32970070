//! One-sided communication on endpoint communicators (MPI 4.1 chapter 12).
//!
//! A window over an endpoint communicator is one host window per local index (the XIOS
//! note, section 8, generalised): host window `j` spans the processes of the communicator,
//! and each process exposes in it the memory of its endpoint with local index `j` (nothing
//! when it has none). An operation on endpoint rank `r` at (process `p`, local index `j`) is
//! the host operation on window `j`, target `p`. So the host's target of a lock is exactly
//! one endpoint, the host's atomicity of accumulates covers every origin (endpoints of the
//! target's own process included, which go through the host too), and dynamic windows take
//! the host's addresses unchanged. Endpoints of one process share host locks through
//! [`locks::LockTable`].

pub mod create;
pub mod epoch;
pub mod host;
pub mod lock_words;
pub mod locks;
pub mod ompi4;
pub mod ops;
pub mod pscw;
pub mod shared;
pub mod sync;

use super::meeting::MeetingPoint;
use super::group::Group;
use super::rankmap::{Identity, Location, RankMap};
use crate::ep_err;
use crate::error::{EpResult, ERR_GROUP, ERR_RANK};
use crate::host::sys;
use epoch::Epochs;
use host::HostWin;
use locks::LockTable;
use parking_lot::Mutex;
use super::spinlock::SpinMutex;
use std::os::raw::c_int;
use std::sync::atomic::{AtomicBool, AtomicI32, Ordering};
use std::collections::HashMap;
use std::sync::{Arc, OnceLock};

/// How a window's memory came about.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WinFlavor {
    /// `EP_Win_create`: memory of the user.
    Create,
    /// `EP_Win_allocate`: each endpoint's memory in pages of its own, the library's or, where
    /// the host reaches its own faster (Open MPI), the host's `MPI_Win_allocate`'s.
    Allocate,
    /// `EP_Win_create_dynamic`: regions attached later; displacements are addresses.
    Dynamic,
    /// `EP_Win_allocate_shared`: one block every endpoint can load and store (see [`shared`]).
    Shared,
}

/// What one endpoint exposes: used for range checks at every origin.
#[derive(Clone, Copy, Debug, Default)]
pub struct Exposed {
    /// Bytes of the window at the endpoint.
    pub size: i64,
    /// Displacement unit in bytes.
    pub disp_unit: i64,
}

/// State of one window shared by this process's endpoints.
pub struct WinShared {
    /// Host window `j` exposes the endpoints of local index `j`.
    pub wins: Box<[HostWin]>,
    /// Lock state of each host window's targets for this process's endpoints.
    pub locks: Box<[LockTable]>,
    /// The targets' lock words, where the host's lock calls cannot serve ([`lock_words`]).
    pub lock_words: Option<Arc<lock_words::LockWords>>,
    /// Ranks of the window's communicator.
    pub map: RankMap,
    /// Size and displacement unit of every rank (empty for dynamic windows).
    pub exposed: Box<[Exposed]>,
    pub flavor: WinFlavor,
    /// Every rank's memory where this process can load and store it (`EP_Win_shared_query`):
    /// every rank's in a shared window, this process's ranks' in windows of user or host
    /// memory, null elsewhere (and everywhere in dynamic windows).
    pub segments: Box<[host::SendPtr]>,
    /// Shared windows: where each rank's segment starts in its process's block, in bytes (the
    /// host windows expose the whole block, so that no two of them cover different parts of
    /// one page: MPICH 4.0.2 over UCX then sends operations to the wrong window's memory).
    /// Empty for other flavors.
    pub shifts: Box<[i64]>,
    /// The block of a shared window (freed after the host windows over it).
    pub memory: Option<shared::SharedMemory>,
    /// The memory of this process's endpoints in an `EP_Win_allocate` window where the
    /// library allocates it (dropped with the window, after its host windows are freed);
    /// empty for other flavors and where the host allocates it.
    pub _pages: Box<[Box<[u8]>]>,
    /// Every host window has the unified memory model (`MPI_WIN_MODEL`).
    pub unified: bool,
    /// Where this process's endpoints meet for fence and free.
    pub meeting: MeetingPoint,
    /// The post and complete notices of general active-target epochs ([`pscw`]).
    pub notices: pscw::Notices,
    /// Window rank of each endpoint identity, made at the first post or start that names a
    /// group.
    pub rank_of: OnceLock<HashMap<Identity, i32>>,
    pub(crate) _live: crate::live::Counted,
}

/// The object behind an `EP_Win` handle: one endpoint's view of a window.
pub struct WinEndpoint {
    pub shared: Arc<WinShared>,
    /// Local index of the endpoint (its host window).
    pub local: u32,
    /// Memory this endpoint exposes (`EP_Win_allocate` returns it; the base attribute).
    pub base: host::SendPtr,
    /// Bytes this endpoint exposes and its displacement unit (the size and displacement unit
    /// attributes, which `EP_Win_get_attr` hands out by address).
    pub size: sys::MPI_Aint,
    pub disp_unit: c_int,
    /// Only the endpoint's own calls take it (one thread at a time): a lock released by a
    /// store, where `parking_lot`'s unlock is a second read-modify-write in every operation
    /// and flush.
    pub epochs: SpinMutex<Epochs>,
    /// Regions this endpoint attached to a dynamic window (start addresses).
    pub attached: Mutex<Vec<usize>>,
    /// This endpoint's name of the window and its attributes (`EP_Win_set_name`,
    /// `EP_Win_set_attr`).
    pub cache: Mutex<crate::engine::attr::Cache>,
    pub errhandler: AtomicI32,
    /// Per target rank: this endpoint has started an operation on it through the host since
    /// its last flush of that target (`HostTarget::issue`). A flush of a target with none
    /// (every put and get one copy within the process, or nothing done) has nothing to ask
    /// the host. Atomics because `WinEndpoint` is shared between threads; relaxed, because
    /// only the endpoint's own calls read and write them, one at a time (MPI's rule for one
    /// process's calls on a window, which an endpoint is), ordered by whatever hands the
    /// endpoint from one thread to the next.
    issued: Box<[AtomicBool]>,
    /// Some flag of `issued` was raised since the last `EP_Win_flush_all` under `lock_all`
    /// (flushes of single targets leave it raised: the next one flushes every host window).
    issued_any: AtomicBool,
}

impl WinEndpoint {
    /// Flags for a window of `size` ranks, none raised (see the `issued` field).
    pub fn no_issued(size: usize) -> (Box<[AtomicBool]>, AtomicBool) {
        ((0..size).map(|_| AtomicBool::new(false)).collect(), AtomicBool::new(false))
    }

    /// Notes an operation of this endpoint on `rank` started through the host.
    pub fn note_issued(&self, rank: i32) {
        if let Some(f) = self.issued.get(rank as usize) {
            f.store(true, Ordering::Relaxed);
        }
        self.issued_any.store(true, Ordering::Relaxed);
    }

    /// True when an operation of this endpoint on `rank` went through the host since its
    /// last flush of that target ([`WinEndpoint::flushed`]).
    pub fn issued_to(&self, rank: i32) -> bool {
        self.issued.get(rank as usize).is_none_or(|f| f.load(Ordering::Relaxed))
    }

    /// True when some operation of this endpoint went through the host since its last
    /// `EP_Win_flush_all` ([`WinEndpoint::flushed_all`]).
    pub fn issued_to_any(&self) -> bool {
        self.issued_any.load(Ordering::Relaxed)
    }

    /// Notes that a flush completed this endpoint's operations on `rank` at the target.
    pub fn flushed(&self, rank: i32) {
        if let Some(f) = self.issued.get(rank as usize) {
            f.store(false, Ordering::Relaxed);
        }
    }

    /// Notes that a flush completed every operation of this endpoint at its target.
    pub fn flushed_all(&self) {
        for f in self.issued.iter() {
            f.store(false, Ordering::Relaxed);
        }
        self.issued_any.store(false, Ordering::Relaxed);
    }

    pub fn errhandler(&self) -> c_int {
        self.errhandler.load(Ordering::Relaxed)
    }

    /// The host window and target process of endpoint rank `rank`.
    pub fn target(&self, rank: i32) -> EpResult<(HostWin, Location)> {
        let loc = self.shared.map.location(rank).ok_or_else(|| {
            ep_err!(ERR_RANK, "target rank {rank} is not in the window's communicator (size {})", self.shared.map.size())
        })?;
        Ok((self.shared.wins[loc.local as usize], loc))
    }

    /// `EP_Win_shared_query`: size in bytes, displacement unit and address of `rank`'s memory
    /// where this endpoint can load and store it (size 0 and null where it cannot: other
    /// processes' memory outside shared windows, dynamic windows). `PROC_NULL` names the lowest
    /// rank whose memory has bytes (MPI 4.1 section 12.2.3); when none has, size 0 and null.
    pub fn shared_query(&self, rank: i32) -> EpResult<(i64, i64, *mut u8)> {
        let s = &self.shared;
        let rank = if rank == crate::engine::envelope::PROC_NULL {
            let reachable = |r: &usize| !s.segments[*r].0.is_null() && s.exposed[*r].size > 0;
            match (0..s.map.size()).find(reachable) {
                Some(r) => r as i32,
                None => return Ok((0, s.exposed.first().map_or(1, |e| e.disp_unit), std::ptr::null_mut())),
            }
        } else {
            rank
        };
        if rank < 0 || rank as usize >= s.map.size() {
            return Err(ep_err!(ERR_RANK, "rank {rank} is not in the window's communicator (size {})", s.map.size()));
        }
        let base = s.segments.get(rank as usize).map_or(std::ptr::null_mut(), |p| p.0);
        let e = s.exposed.get(rank as usize).copied().unwrap_or(Exposed { size: 0, disp_unit: 1 });
        if base.is_null() {
            return Ok((0, e.disp_unit, std::ptr::null_mut()));
        }
        Ok((e.size, e.disp_unit, base))
    }

    /// The window ranks of `group`'s endpoints, in the group's order (a post's origins, a
    /// start's targets). Errors: `EP_ERR_GROUP` when an endpoint of the group is not in the
    /// window.
    pub fn ranks_in(&self, group: &Group) -> EpResult<Vec<i32>> {
        let map = &self.shared.map;
        let rank_of = self.shared.rank_of.get_or_init(|| map.identities().iter().enumerate().map(|(r, &id)| (id, r as i32)).collect());
        group
            .members()
            .iter()
            .enumerate()
            .map(|(i, id)| {
                rank_of.get(id).copied().ok_or_else(|| ep_err!(ERR_GROUP, "rank {i} of the group is not an endpoint of the window's communicator"))
            })
            .collect()
    }

    /// `EP_Win_get_info`: a new host info object with the hints in use on the host window
    /// that exposes this endpoint's memory (MPI 4.1 section 12.2.7); the caller frees it.
    pub fn info_used(&self) -> EpResult<sys::MPI_Info> {
        let mut info = crate::host::HOST.info_null;
        // SAFETY: the host window lives as long as `self.shared`; the host writes `info`, a
        // live local, with a new info object.
        host::check_rma(unsafe { sys::MPI_Win_get_info(self.shared.wins[self.local as usize].0, &mut info) }, "MPI_Win_get_info")?;
        Ok(info)
    }

    /// Number of local endpoints of this process in the window.
    pub fn local_count(&self) -> usize {
        self.shared.map.my_count()
    }
}
