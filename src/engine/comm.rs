//! Endpoint communicators: the state shared by a process's endpoints of one communicator,
//! and the endpoint objects behind `EP_Comm` handles. Creation is [`super::create`] (array
//! form and dup), [`super::team`], [`super::split`] and [`super::inter`].
//!
//! Each communicator owns a host communicator over the processes that have endpoints in it,
//! whose own context keeps communicators apart, as MPI contexts do. What each layer keeps per
//! communicator is its own type held here: the endpoints' matching state
//! ([`Queues`]), the local channels, the remote transport's data communicator and tags
//! ([`RemoteComm`]), direct mode's host communicators, the collectives' board.
//!
//! Below every operation on a communicator (point-to-point, collectives, progress, requests):
//! the state types it holds come from modules that do not know communicators, and the
//! intercommunicator collectives' state, which holds communicators itself, is kept
//! type-erased (see `inter_coll`).

use super::attr::Cache;
use super::coll::board::Board;
use super::direct::{self, DirectComm};
use super::doorbell::Doorbell;
use super::meeting::MeetingPoint;
use super::p2p::queues::Queues;
use super::rankmap::{Location, RankMap};
use super::spinlock::SpinMutex;
use super::transport::local::Channels;
use super::transport::remote::RemoteComm;
use crate::error::EpResult;
use crate::host::{self, HostComm};
use std::any::Any;
use std::os::raw::c_int;
use std::sync::atomic::{AtomicBool, AtomicI32, AtomicU64, Ordering};
use std::sync::{Arc, OnceLock, Weak};

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
    /// the first of them (`coll::inter::Groups`, which holds communicators of its own, hence
    /// type-erased here; see [`super::coll::inter`]).
    pub(crate) inter_coll: OnceLock<EpResult<Arc<dyn Any + Send + Sync>>>,
    /// The process topology attached by the call that created the communicator
    /// (`topo::Topology`, which holds a communicator of its own, hence type-erased here; see
    /// [`super::topo`]).
    pub(crate) topology: OnceLock<Arc<dyn Any + Send + Sync>>,
    /// Direct mode (see [`super::direct`]): when each of several processes has exactly one
    /// endpoint of this intracommunicator, where its point-to-point calls go (a host
    /// communicators with host rank = endpoint rank, and the messages its probes hold).
    pub direct: Option<Arc<DirectComm>>,
    _live: crate::live::Counted,
}

/// Per-endpoint state inside a communicator. Aligned to two cache lines so that one
/// endpoint's queue lock never shares a line with its neighbour's.
#[repr(align(128))]
pub struct EndpointState {
    /// Matching state, used by the endpoint's own thread.
    pub queues: SpinMutex<Queues>,
    /// Number of nonblocking collectives this endpoint has started on the communicator.
    pub nb_seq: AtomicU64,
    /// Where the endpoint's thread parks under the passive wait policy, rung by local
    /// senders and by local receivers of its rendezvous sends (see [`super::doorbell`]).
    pub bell: Arc<Doorbell>,
}

/// Every communicator state of several processes created so far, dead ones pruned now and then
/// (weak: the list keeps none alive). Their endpoints' pre-posted host receives must not outlive
/// `MPI_Finalize`, and a state may still be alive then without any handle: a thread's
/// communicator lookup cache (`handles::call_state`) keeps the endpoints it last used until
/// that thread's next call, which an idle OpenMP pool thread never makes.
static MULTI_PROCESS: parking_lot::Mutex<Vec<Weak<CommShared>>> = parking_lot::Mutex::new(Vec::new());

/// Withdraws the pre-posted host receives of every communicator state of several processes
/// still alive (the host's `BEFORE_FINALIZE` hook, run at the start of `MPI_Finalize` while the
/// host still works), so the host finalizes cleanly: a receive left posted is reported by some
/// hosts (MPICH over UCX) and its buffer written after it is freed by others. No EPMPI call may
/// run concurrently with `MPI_Finalize` (MPI 4.1 section 11.2.2), so the queues are free. Then
/// advances direct mode's pending receives once.
pub(crate) fn withdraw_host_receives() {
    let alive: Vec<Arc<CommShared>> = MULTI_PROCESS.lock().drain(..).filter_map(|w| w.upgrade()).collect();
    alive.iter().for_each(|shared| shared.withdraw_receives());
    // A freed direct-mode receive whose notice came and that no wait has advanced would leave
    // its sender's rendezvous waiting through the finalize.
    direct::progress_elsewhere();
}

impl Drop for CommShared {
    fn drop(&mut self) {
        // Pre-posted receives go before the communicators they are posted on.
        self.withdraw_receives();
        host::free_comm(self.host);
    }
}

impl CommShared {
    /// Cancels and completes this process's endpoints' pre-posted host receives (each
    /// endpoint posts them again on its next drain, if any comes).
    fn withdraw_receives(&self) {
        for e in self.endpoints.iter() {
            e.queues.lock().remote_rx = None;
        }
    }

    pub(crate) fn new(host: HostComm, map: RankMap, flavor: Flavor) -> EpResult<Arc<CommShared>> {
        CommShared::with_groups(host, map, None, flavor)
    }

    /// Shared state of an intracommunicator (`other` = `None`) or intercommunicator, in direct
    /// mode when it qualifies (collective over `host`).
    pub(crate) fn with_groups(
        host: HostComm,
        map: RankMap,
        other: Option<RankMap>,
        flavor: Flavor,
    ) -> EpResult<Arc<CommShared>> {
        let nprocs = map.nprocs() as u32;
        let one_each = (0..nprocs).all(|p| map.ranks_of(p).len() == 1);
        // Made first: a failure after `build` would free `host` twice (here and the caller's).
        let direct = if other.is_none() && nprocs > 1 && one_each && direct::host_supports()?
        {
            Some(direct::create_comm(host, map.my_rank(0))?)
        } else {
            None
        };
        match CommShared::build(host, map, other, flavor) {
            Ok(mut shared) => {
                shared.direct = direct;
                Ok(shared.share())
            }
            // Dropping `direct` frees its host communicator.
            Err(e) => Err(e),
        }
    }

    /// Shared state of a communicator used only inside the library (never in direct mode:
    /// no user point-to-point travels on it). Not collective beyond what `build` needs.
    pub(crate) fn internal(host: HostComm, map: RankMap) -> EpResult<Arc<CommShared>> {
        CommShared::build(host, map, None, Flavor::Endpoints).map(CommShared::share)
    }

    /// Shares the new communicator's state; one of several processes is registered, so that
    /// [`withdraw_host_receives`] finds it at `MPI_Finalize`.
    fn share(self) -> Arc<CommShared> {
        let shared = Arc::new(self);
        if shared.is_multi_process() {
            let _ = host::BEFORE_FINALIZE.set(withdraw_host_receives);
            let mut all = MULTI_PROCESS.lock();
            // Forgetting the dead ones whenever the list is full keeps it within twice the live
            // ones, at amortized constant cost per creation.
            if all.len() == all.capacity() {
                all.retain(|w| w.strong_count() > 0);
            }
            all.push(Arc::downgrade(&shared));
        }
        shared
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
                queues: SpinMutex::new(Queues::default()),
                nb_seq: AtomicU64::new(0),
                bell: Arc::new(Doorbell::new()),
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
            board: if nprocs > 1 { Board::across_processes(local_count) } else { Board::new(local_count) },
            nb_collectives: MeetingPoint::new(),
            inter_coll: OnceLock::new(),
            topology: OnceLock::new(),
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

/// Error handler values (`EP_ERRORS_ARE_FATAL`, `EP_ERRORS_RETURN`); any other value an
/// endpoint holds is the handle of a user-defined error handler.
pub(crate) const ERRORS_ARE_FATAL: c_int = 1;
pub(crate) const ERRORS_RETURN: c_int = 2;

/// True for the predefined error handlers.
pub(crate) fn is_predefined_handler(h: c_int) -> bool {
    h == ERRORS_ARE_FATAL || h == ERRORS_RETURN
}

/// The object behind an `EP_Comm` handle: one rank of one communicator.
pub struct Endpoint {
    pub shared: Arc<CommShared>,
    pub local: u32,
    pub rank: i32,
    pub errhandler: AtomicI32,
    /// Set (under the endpoint's queue lock) when its handle is freed.
    freed: AtomicBool,
    /// The endpoint's own handle, once it has one (a user error handler receives it).
    handle: AtomicI32,
    /// Name and attributes (MPI 4.1 sections 7.7, 7.8), rarely used: behind their own lock.
    pub cache: parking_lot::Mutex<Cache>,
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
            handle: AtomicI32::new(0),
            cache: parking_lot::Mutex::new(Cache::default()),
        }
    }

    /// The endpoint's handle (0 before the registry gave it one).
    pub fn handle(&self) -> c_int {
        self.handle.load(Ordering::Relaxed)
    }

    pub(crate) fn set_handle(&self, h: c_int) {
        self.handle.store(h, Ordering::Relaxed);
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
