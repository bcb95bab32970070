//! Endpoint communicators: the state shared by a process's endpoints of one communicator,
//! the endpoint objects behind `EP_Comm` handles, creation (array and team forms) and dup.
//!
//! Each communicator owns a host communicator over the processes that have endpoints in it,
//! whose own context keeps communicators apart, as MPI contexts do. What each transport keeps
//! per communicator is its own struct held here: the local channels, the remote transport's
//! data communicator and tags ([`RemoteComm`]).

use super::coll::{self, board::Board};
use super::meeting::{agree, failed_elsewhere, MeetingPoint};
use super::transport::local::Channels;
use super::p2p::Queues;
use super::rankmap::{Location, RankMap};
use super::transport::remote::RemoteComm;
use crate::ep_err;
use crate::error::{EpError, EpResult, ERR_ARG, ERR_NOT_INITIALIZED, ERR_THREAD_LEVEL};
use crate::host::{self, check, sys, HostComm, HOST};
use std::os::raw::{c_int, c_void};
use std::sync::atomic::{AtomicBool, AtomicI32, AtomicU32, AtomicU64, Ordering};
use std::sync::Arc;

/// Most endpoints one process may have in one communicator. Far above what threads need;
/// the real bound is the host's tag range (one host tag per local index), checked too.
pub(crate) const MAX_ENDPOINTS_PER_PROCESS: i32 = 1 << 16;

/// The kind of communicator, reported by the `EP_COMM_FLAVOR` attribute.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Flavor {
    Endpoints = 1,
}

/// State shared by all endpoints of one communicator in this process.
pub struct CommShared {
    pub host: HostComm,
    /// The remote transport's state: where rendezvous payloads travel, with which tags.
    pub remote: RemoteComm,
    /// Rank of this process in `host`.
    pub my_proc: u32,
    pub nprocs: u32,
    /// Ranks of the communicator (of group 0 of an intercommunicator).
    pub map: RankMap,
    /// Group 1 of an intercommunicator. Both group maps place ranks on the processes of
    /// `host` (the union of both groups' processes) and on local indices that number all of
    /// a process's endpoints: group 0's first, then group 1's.
    pub other: Option<RankMap>,
    /// Matching state of this process's endpoints, by local index.
    pub endpoints: Box<[EndpointState]>,
    /// Local transport channels between this process's endpoints.
    pub channels: Channels,
    pub flavor: Flavor,
    /// Process-local meeting point for collective communicator operations.
    pub meeting: MeetingPoint,
    /// Where this process's endpoints meet for blocking collectives.
    pub board: Board,
    /// Nonblocking collectives some but not all of this process's endpoints have joined,
    /// by sequence number.
    pub nb_collectives: MeetingPoint<u64>,
    /// Intercommunicators: what their collectives other than the barrier run on, built by
    /// the first of them (see [`coll::inter`]).
    pub(crate) inter_coll: std::sync::OnceLock<EpResult<Arc<coll::inter::Groups>>>,
    /// Direct mode (see [`super::direct`]): when each of several processes has exactly one
    /// endpoint of this intracommunicator, where its point-to-point calls go (a host
    /// communicator with host rank = endpoint rank, and its receive queue).
    pub direct: Option<Arc<super::direct::DirectComm>>,
    _live: crate::live::Counted,
}

/// Per-endpoint state inside a communicator. Aligned to two cache lines so that one
/// endpoint's queue lock never shares a line with its neighbour's.
#[repr(align(128))]
pub struct EndpointState {
    /// Matching state, used by the endpoint's own thread.
    pub queues: super::spinlock::SpinMutex<Queues>,
    /// Number of nonblocking collectives this endpoint has started on the communicator.
    pub nb_seq: AtomicU64,
}

impl Drop for CommShared {
    fn drop(&mut self) {
        // Pre-posted receives go before the communicators they are posted on.
        for e in self.endpoints.iter() {
            e.queues.lock().remote_rx = None;
        }
        host::free_comm(self.host);
    }
}

static IDENTITY_SERIAL: AtomicU32 = AtomicU32::new(0);

impl CommShared {
    pub(crate) fn new(host: HostComm, map: RankMap, flavor: Flavor) -> EpResult<CommShared> {
        CommShared::with_groups(host, map, None, flavor)
    }

    /// Shared state of an intracommunicator (`other` = `None`) or intercommunicator, in direct
    /// mode when it qualifies (collective over `host`).
    pub(crate) fn with_groups(
        host: HostComm,
        map: RankMap,
        other: Option<RankMap>,
        flavor: Flavor,
    ) -> EpResult<CommShared> {
        let nprocs = map.nprocs() as u32;
        let one_each = (0..nprocs).all(|p| map.ranks_of(p).len() == 1);
        // Made first: a failure after `build` would free `host` twice (here and the caller's).
        let direct = if other.is_none() && nprocs > 1 && one_each && super::direct::host_supports()?
        {
            Some(super::direct::create_comm(host, map.my_rank(0))?)
        } else {
            None
        };
        match CommShared::build(host, map, other, flavor) {
            Ok(mut shared) => {
                shared.direct = direct;
                Ok(shared)
            }
            // Dropping `direct` frees its host communicator.
            Err(e) => Err(e),
        }
    }

    /// Shared state of a communicator used only inside the library (never in direct mode:
    /// no user point-to-point travels on it). Not collective beyond what `build` needs.
    pub(crate) fn internal(host: HostComm, map: RankMap) -> EpResult<CommShared> {
        CommShared::build(host, map, None, Flavor::Endpoints)
    }

    fn build(
        host: HostComm,
        map: RankMap,
        other: Option<RankMap>,
        flavor: Flavor,
    ) -> EpResult<CommShared> {
        let (my_proc, nprocs) = host::rank_size(host)?;
        // Payload tags start above the largest number of endpoints any process has here.
        let per_proc =
            |p: u32| map.ranks_of(p).len() + other.as_ref().map_or(0, |o| o.ranks_of(p).len());
        let headers = (0..nprocs as u32).map(per_proc).max().unwrap_or(0) as u32;
        let remote = RemoteComm::new(host, headers)?;
        let local_count = map.my_count() + other.as_ref().map_or(0, |o| o.my_count());
        let channels = Channels::new(local_count);
        let endpoints = (0..local_count)
            .map(|_| EndpointState {
                queues: super::spinlock::SpinMutex::new(Queues::default()),
                nb_seq: AtomicU64::new(0),
            })
            .collect();
        Ok(CommShared {
            host,
            remote,
            my_proc: my_proc as u32,
            nprocs: nprocs as u32,
            map,
            other,
            endpoints,
            channels,
            flavor,
            meeting: MeetingPoint::new(),
            board: Board::new(local_count),
            nb_collectives: MeetingPoint::new(),
            inter_coll: std::sync::OnceLock::new(),
            direct: None,
            _live: crate::live::Counted::new(&crate::live::COMM_STATES),
        })
    }

    /// True when the communicator spans several processes (remote traffic is possible).
    #[inline]
    pub fn is_multi_process(&self) -> bool {
        self.nprocs > 1
    }

    /// Number of endpoints in this process.
    pub fn local_count(&self) -> usize {
        self.endpoints.len()
    }

    /// Location of a rank, if it is one (intracommunicators).
    #[inline]
    pub fn location(&self, rank: i32) -> Option<Location> {
        self.map.location(rank)
    }

    /// True for an intercommunicator.
    #[inline]
    pub fn is_inter(&self) -> bool {
        self.other.is_some()
    }

    /// The group (0 or 1) of this process's endpoint with local index `local`.
    #[inline]
    pub fn group_of(&self, local: u32) -> u8 {
        (self.other.is_some() && local as usize >= self.map.my_count()) as u8
    }

    /// The ranks of group `g`.
    pub fn group_map(&self, g: u8) -> &RankMap {
        match (&self.other, g) {
            (Some(o), 1) => o,
            _ => &self.map,
        }
    }

    /// The ranks that endpoint `local` names in point-to-point calls: its own group's in an
    /// intracommunicator, the other group's in an intercommunicator.
    #[inline]
    pub fn peer_map(&self, local: u32) -> &RankMap {
        match &self.other {
            None => &self.map,
            Some(o) => {
                if self.group_of(local) == 0 {
                    o
                } else {
                    &self.map
                }
            }
        }
    }

    /// Location of the rank that endpoint `local` names (see [`CommShared::peer_map`]).
    #[inline]
    pub fn peer_location(&self, local: u32, rank: i32) -> Option<Location> {
        self.peer_map(local).location(rank)
    }
}

/// Error handler values (`EP_ERRORS_ARE_FATAL`, `EP_ERRORS_RETURN`).
pub(crate) const ERRORS_ARE_FATAL: c_int = 1;
pub(crate) const ERRORS_RETURN: c_int = 2;

/// The object behind an `EP_Comm` handle: one rank of one communicator.
pub struct Endpoint {
    pub shared: Arc<CommShared>,
    pub local: u32,
    pub rank: i32,
    pub errhandler: AtomicI32,
    /// Set (under the endpoint's queue lock) when its handle is freed.
    freed: AtomicBool,
}

impl Endpoint {
    pub fn new(shared: Arc<CommShared>, local: u32, errhandler: c_int) -> Endpoint {
        let rank = shared.group_map(shared.group_of(local)).my_rank(local);
        Endpoint {
            shared,
            local,
            rank,
            errhandler: AtomicI32::new(errhandler),
            freed: AtomicBool::new(false),
        }
    }

    pub fn state(&self) -> &EndpointState {
        &self.shared.endpoints[self.local as usize]
    }

    pub fn errhandler(&self) -> c_int {
        self.errhandler.load(Ordering::Relaxed)
    }

    /// True once the endpoint's handle is freed (read under its queue lock).
    pub(crate) fn is_freed(&self) -> bool {
        self.freed.load(Ordering::Relaxed)
    }

    pub(crate) fn mark_freed(&self) {
        self.freed.store(true, Ordering::Relaxed);
    }
}

/// Checks that MPI is initialized at `MPI_THREAD_MULTIPLE`.
pub fn check_host_ready() -> EpResult<()> {
    if !host::mpi_is_active() {
        return Err(ep_err!(
            ERR_NOT_INITIALIZED,
            "MPI is not initialized (call MPI_Init_thread first) or is finalized"
        ));
    }
    host::install_finalize_hook();
    let mut provided = 0;
    // SAFETY: MPI is active (checked above); the host writes `provided`, a live local.
    unsafe { check(sys::MPI_Query_thread(&mut provided), "MPI_Query_thread")? };
    if provided != HOST.thread_multiple {
        return Err(ep_err!(
            ERR_THREAD_LEVEL,
            "the host MPI provides thread level {provided}, endpoints need MPI_THREAD_MULTIPLE \
             (initialize with MPI_Init_thread(..., MPI_THREAD_MULTIPLE, ...))"
        ));
    }
    Ok(())
}

/// Checks a `my_num_ep` argument.
pub fn check_num_ep(my_num_ep: c_int) -> EpResult<()> {
    if !(0..=MAX_ENDPOINTS_PER_PROCESS).contains(&my_num_ep) {
        return Err(ep_err!(
            ERR_ARG,
            "my_num_ep = {my_num_ep} is outside 0..={MAX_ENDPOINTS_PER_PROCESS}"
        ));
    }
    Ok(())
}

/// The process's part of endpoint creation over the host communicator `parent` (collective
/// over `parent`, one call per process). `None` for a process that asks for no endpoints.
///
/// `fault` is an error in the caller's other arguments (an output pointer). A process with a
/// fault, or a `my_num_ep` out of range, still takes part in the host exchange and carries its
/// error class there, so creation fails on every process alike (see [`super::meeting`]).
/// Errors found before any host call (MPI not ready, `MPI_COMM_NULL`) are this process's alone,
/// as in MPI, where such a call cannot reach the others.
pub fn create_shared(parent: sys::MPI_Comm, my_num_ep: c_int, fault: Option<EpError>) -> EpResult<Option<Arc<CommShared>>> {
    check_host_ready()?;
    if host::handle_bits(parent) == host::handle_bits(HOST.comm_null) {
        return Err(ep_err!(
            crate::error::ERR_COMM,
            "parent communicator is MPI_COMM_NULL"
        ));
    }
    let tag_ub = host::tag_ub()?;
    let fault = fault.or_else(|| check_num_ep(my_num_ep).err()).or_else(|| {
        (my_num_ep - 1 > tag_ub).then(|| {
            ep_err!(ERR_ARG, "my_num_ep = {my_num_ep} exceeds the host's MPI_TAG_UB + 1 = {}", tag_ub as i64 + 1)
        })
    });
    let flag = fault.as_ref().map_or(0, |e| e.class);
    // Processes without endpoints leave: the host communicators hold only those with some,
    // so later collectives involve exactly the processes of the endpoint communicator. A
    // process with a fault stays, to carry it.
    let mut host_comm = HostComm(HOST.comm_null);
    let (parent_rank, _) = host::rank_size(HostComm(parent))?;
    let count = if fault.is_some() { 0 } else { my_num_ep };
    let color = if count > 0 || fault.is_some() { 0 } else { HOST.undefined };
    // SAFETY: MPI is active (`check_host_ready`); `parent` is the user's host communicator,
    // valid by the contract of `EP_Comm_create_endpoints`; the host writes `host_comm.0`, a
    // live local.
    unsafe {
        check(
            sys::MPI_Comm_split(parent, color, parent_rank, &mut host_comm.0),
            "MPI_Comm_split",
        )?
    };
    if color != 0 {
        return Ok(None);
    }
    let guard = FreeOnError(host_comm);
    let (_, nprocs) = host::rank_size(host_comm)?;
    let (world_rank, _) = host::rank_size(HostComm(HOST.comm_world))?;
    let id_base = IDENTITY_SERIAL.fetch_add(count as u32, Ordering::Relaxed);
    let mine = [count, world_rank, id_base as i32, flag];
    let mut all = vec![0 as c_int; 4 * nprocs as usize];
    // SAFETY: `mine` holds the 4 ints sent and `all` has room for the 4 ints of each of the
    // `nprocs` processes of `host_comm`, the new communicator the split made; both outlive the
    // blocking call.
    unsafe {
        check(
            sys::MPI_Allgather(
                mine.as_ptr() as *const _,
                4,
                HOST.int_,
                all.as_mut_ptr() as *mut _,
                4,
                HOST.int_,
                host_comm.0,
            ),
            "MPI_Allgather",
        )?;
    }
    if let Err(agreed) = agree(all.chunks(4).map(|c| c[3])) {
        return Err(fault.unwrap_or(agreed));
    }
    let counts: Vec<u32> = all.chunks(4).map(|c| c[0] as u32).collect();
    let world: Vec<u32> = all.chunks(4).map(|c| c[1] as u32).collect();
    let bases: Vec<u32> = all.chunks(4).map(|c| c[2] as u32).collect();
    let (my_proc, _) = host::rank_size(host_comm)?;
    let map = RankMap::from_counts(&counts, &world, &bases, my_proc as u32);
    let shared = CommShared::new(host_comm, map, Flavor::Endpoints)?;
    std::mem::forget(guard);
    Ok(Some(Arc::new(shared)))
}

/// Frees a host communicator if creation fails half-way.
struct FreeOnError(HostComm);
impl Drop for FreeOnError {
    fn drop(&mut self) {
        host::free_comm(self.0);
    }
}

/// The process's part of `EP_Comm_dup`: same ranks, new contexts. `fault` is the class of
/// an error in the arguments of one of this process's endpoints (0: none).
///
/// The new host communicator comes from `MPI_Comm_split` rather than `MPI_Comm_dup`, because
/// its color can carry the failure flag at no extra host call: processes with a fault leave
/// (`MPI_UNDEFINED`), so the others get a communicator smaller than the old one and know that
/// the dup failed somewhere; then, on this failure path only, one allreduce over the old host
/// communicator tells everyone the largest error class (see [`super::meeting`]).
pub fn dup_shared(old: &CommShared, fault: c_int) -> EpResult<Arc<CommShared>> {
    let mut host_comm = HostComm(HOST.comm_null);
    let color = if fault == 0 { 0 } else { HOST.undefined };
    // SAFETY: `old.host` lives as long as `old`, which the caller borrows; every process of
    // it makes this call (the leader of each process's meeting); the host writes
    // `host_comm.0`, a live local.
    unsafe {
        check(
            sys::MPI_Comm_split(old.host.0, color, old.my_proc as c_int, &mut host_comm.0),
            "MPI_Comm_split",
        )?
    };
    let guard = FreeOnError(host_comm);
    let complete = fault == 0 && host::rank_size(host_comm)?.1 as u32 == old.nprocs;
    if !complete {
        let mut worst: c_int = 0;
        // SAFETY: one int read from `fault` and one written to `worst`, live locals; every
        // process of `old.host` gets here when any of them had a fault (its own, or the
        // short communicator above).
        unsafe {
            check(
                sys::MPI_Allreduce(
                    &fault as *const c_int as *const c_void,
                    &mut worst as *mut c_int as *mut c_void,
                    1,
                    HOST.int_,
                    HOST.op_max,
                    old.host.0,
                ),
                "MPI_Allreduce",
            )?
        };
        return Err(failed_elsewhere(worst.max(1)));
    }
    let shared =
        CommShared::with_groups(host_comm, old.map.clone(), old.other.clone(), old.flavor)?;
    std::mem::forget(guard);
    Ok(Arc::new(shared))
}

/// `EP_Comm_dup` for one endpoint: the process's endpoints meet, the last one duplicates the
/// host communicators, each leaves with its endpoint of the new communicator. `fault` is an
/// error in this endpoint's other arguments (its output pointer): the dup then fails on every
/// endpoint.
pub fn dup(ep: &Endpoint, fault: Option<EpError>) -> EpResult<Endpoint> {
    let shared = ep.shared.clone();
    let n = shared.local_count();
    let new = ep.shared.meeting.meet((), n, ep.local as usize, (), fault, move |g| dup_shared(&shared, g.fault_class()))?;
    Ok(Endpoint::new((*new).clone(), ep.local, ep.errhandler()))
}
