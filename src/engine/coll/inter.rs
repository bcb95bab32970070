//! `EP_Bcast` and `EP_Allreduce` on intercommunicators (MPI 4.1 sections 6.2.2, 6.4, 6.9.6).
//!
//! They reuse the intracommunicator collectives: the first of them on an intercommunicator
//! builds, once, an intracommunicator state per group ("group views": same ranks, the group's
//! processes only, local indices renumbered from 0) and a private host communicator over both
//! groups' processes for the few messages that cross between groups. Then
//! - broadcast: the root sends the data to one endpoint of the remote group (on the root's
//!   own process when that process has endpoints of the remote group, else the remote
//!   group's rank 0), which starts an intracommunicator broadcast of its group; the other
//!   endpoints of the root's group return at once;
//! - allreduce: each group reduces to its rank 0 (rank order of the group, so
//!   non-commutative ops are exact), the two ranks 0 swap their results, and each broadcasts
//!   the other group's result to its own group.
//!
//! Messages between groups travel on the private communicator tagged with the collective's
//! sequence number and the receiving group: every endpoint counts the collectives it calls on
//! the intercommunicator, and all call the same ones in the same order, so sender and
//! receiver agree on the tag even when several endpoints of one process send (the roots of
//! consecutive broadcasts need not send in order).

use super::{bcast, reduce, ReduceArgs};
use crate::engine::comm::{CommShared, Endpoint};
use crate::engine::datatype::UserBuf;
use crate::engine::rankmap::{Location, RankMap};
use crate::ep_err;
use crate::error::{EpResult, ERR_TRUNCATE};
use crate::host::{self, check, sys, HostComm, HOST};
use std::os::raw::c_int;
use std::sync::atomic::{AtomicU64, Ordering};
use std::any::Any;
use std::sync::Arc;

/// The value of `EP_ROOT`: the root of an intercommunicator collective names itself so.
pub(crate) const ROOT: c_int = -3;

/// What an intercommunicator's collectives run on (built once, by the first of them).
pub(crate) struct Groups {
    /// Over the processes of both groups, ranked as the intercommunicator's host.
    pub(super) cross: HostComm,
    /// Each group as an intracommunicator, where this process has endpoints of it.
    views: [Option<Arc<CommShared>>; 2],
    /// Collectives called so far by each of the process's endpoints (intercommunicator local
    /// index); each is touched only by the thread using its endpoint.
    calls: Box<[AtomicU64]>,
    /// Sequence numbers wrap around at this (half the host's tag range).
    tag_period: u64,
}

impl Groups {
    /// Host tags of the next collective of endpoint `local`: by receiving group.
    pub(super) fn next_tags(&self, local: u32) -> [c_int; 2] {
        let seq = self.calls[local as usize].fetch_add(1, Ordering::Relaxed) % self.tag_period;
        let base = (2 * seq) as c_int;
        [base, base + 1]
    }
}

impl Drop for Groups {
    fn drop(&mut self) {
        host::free_comm(self.cross);
    }
}

/// The groups of `ep`'s intercommunicator. Every endpoint calls this at the start of every
/// intercommunicator collective but the barrier; the first call of each endpoint is a
/// meeting of all the process's endpoints, whose leader builds the groups with host
/// collectives over all processes of the intercommunicator (all of them get here, because
/// every endpoint of both groups calls every collective).
pub(super) fn groups(ep: &Endpoint) -> EpResult<Arc<Groups>> {
    let s = &ep.shared;
    if let Some(r) = s.inter_coll.get() {
        return r.clone().map(downcast);
    }
    let r = s.meeting.meet((), s.local_count(), ep.local as usize, (), None, |_| {
        let r = build(s).map(Arc::new);
        // Only this leader sets it, while every endpoint of the process waits here.
        let _ = s.inter_coll.set(r.clone().map(|g| g as Arc<dyn Any + Send + Sync>));
        r
    })?;
    Ok((*r).clone())
}

/// One endpoint's intercommunicator collective: what it runs on, the endpoint's group, and the
/// host tags of the collective's messages.
pub(super) struct InterCall<'a> {
    pub groups: Arc<Groups>,
    /// The endpoint's group (0 or 1).
    pub g: usize,
    tags: [c_int; 2],
    /// The other group's ranks.
    pub remote: &'a RankMap,
}

impl InterCall<'_> {
    /// Tag of the messages this endpoint's group receives.
    pub fn to_us(&self) -> c_int {
        self.tags[self.g]
    }

    /// Tag of the messages the other group receives.
    pub fn to_them(&self) -> c_int {
        self.tags[1 - self.g]
    }

    /// Host rank (in `groups.cross`) of rank `r` of the other group.
    pub fn remote_proc(&self, r: i32) -> u32 {
        self.remote.location(r).expect("a rank of the remote group (checked by the caller)").proc
    }
}

/// Starts an intercommunicator collective on `ep` (every endpoint calls it once per collective,
/// `EP_PROC_NULL` ones included, so that all count the same collectives).
pub(super) fn start(ep: &Endpoint) -> EpResult<InterCall<'_>> {
    let groups = groups(ep)?;
    let g = ep.shared.group_of(ep.local) as usize;
    let tags = groups.next_tags(ep.local);
    Ok(InterCall { groups, g, tags, remote: ep.shared.group_map(1 - g as u8) })
}

/// The groups kept by the communicator, which holds them type-erased (they hold communicators
/// themselves); only this module stores them there.
fn downcast(g: Arc<dyn Any + Send + Sync>) -> Arc<Groups> {
    g.downcast::<Groups>().unwrap_or_else(|_| unreachable!("a communicator's `inter_coll` holds its `Groups`"))
}

fn build(s: &CommShared) -> EpResult<Groups> {
    let tag_period = (host::tag_ub()? as u64).div_ceil(2);
    let calls = (0..s.local_count()).map(|_| AtomicU64::new(0)).collect();
    let mut groups = Groups {
        cross: HostComm(HOST.comm_null),
        views: [None, None],
        calls,
        tag_period,
    };
    // SAFETY: `s.host` lives while `s` does; the host writes `groups.cross.0`, a live local.
    unsafe {
        check(
            sys::MPI_Comm_dup(s.host.0, &mut groups.cross.0),
            "MPI_Comm_dup",
        )?
    };
    let maps = [s.group_map(0), s.group_map(1)];
    let member = |g: usize, p: u32| !maps[g].ranks_of(p).is_empty();
    let mine = [member(0, s.my_proc), member(1, s.my_proc)];
    let key = s.my_proc as c_int;
    let split = |color: c_int| -> EpResult<HostComm> {
        let mut c = HostComm(HOST.comm_null);
        // SAFETY: `groups.cross` was made just above; the host writes `c.0`, a live local.
        unsafe {
            check(
                sys::MPI_Comm_split(groups.cross.0, color, key, &mut c.0),
                "MPI_Comm_split",
            )?
        };
        Ok(c)
    };
    // One split when no process holds both groups, else one per group.
    let mut comms = [HostComm(HOST.comm_null), HostComm(HOST.comm_null)];
    if (0..s.nprocs).any(|p| member(0, p) && member(1, p)) {
        for g in 0..2 {
            comms[g] = split(if mine[g] { 0 } else { HOST.undefined })?;
        }
    } else {
        let g = if mine[0] { 0 } else { 1 };
        comms[g] = split(g as c_int)?;
    }
    for g in 0..2 {
        if mine[g] {
            let view =
                CommShared::internal(comms[g], view_map(maps[g], s.my_proc)).inspect_err(|_| {
                    host::free_comm(comms[g]);
                })?;
            groups.views[g] = Some(view);
        }
    }
    Ok(groups)
}

/// A group's map as an intracommunicator of its own processes (in host rank order) with
/// local indices from 0 (the group's endpoints of a process keep their order).
fn view_map(m: &RankMap, my_proc: u32) -> RankMap {
    let procs: Vec<u32> = (0..m.nprocs() as u32)
        .filter(|&p| !m.ranks_of(p).is_empty())
        .collect();
    let index = |p: u32| procs.binary_search(&p).expect("a process of the group") as u32;
    let locations = (0..m.size() as i32)
        .map(|r| {
            let loc = m.location(r).expect("rank");
            let local = m
                .ranks_of(loc.proc)
                .iter()
                .position(|&x| x == r)
                .expect("rank on its process") as u32;
            Location {
                proc: index(loc.proc),
                local,
            }
        })
        .collect();
    RankMap::from_locations(
        locations,
        m.identities().to_vec(),
        procs.len(),
        index(my_proc),
    )
}

/// `ep` as an endpoint of its group's view (same rank).
pub(super) fn view_endpoint(ep: &Endpoint, groups: &Groups) -> Endpoint {
    let s = &ep.shared;
    let g = s.group_of(ep.local);
    let local = ep.local - if g == 1 { s.map.my_count() as u32 } else { 0 };
    let view = groups.views[g as usize]
        .clone()
        .expect("a view of the endpoint's own group");
    let v = Endpoint::new(view, local, ep.errhandler());
    debug_assert_eq!(v.rank, ep.rank);
    v
}

/// The rank of `group` that receives a broadcast from a root on process `root_proc`: the
/// group's lowest rank on that process, else its rank 0.
fn receiver(group: &RankMap, root_proc: u32) -> i32 {
    group.ranks_of(root_proc).iter().min().copied().unwrap_or(0)
}

/// `EP_Bcast` on an intercommunicator; `root` is `EP_ROOT`, `EP_PROC_NULL` or a rank of the
/// remote group (checked by the caller). `buf` is unused with `EP_PROC_NULL`.
pub fn bcast_inter(ep: &Endpoint, buf: Option<UserBuf>, root: c_int) -> EpResult<()> {
    let s = &ep.shared;
    let groups = groups(ep)?;
    let g = s.group_of(ep.local);
    let (own, remote) = (s.group_map(g), s.group_map(1 - g));
    let tags = groups.next_tags(ep.local);
    let Some(buf) = buf else { return Ok(()) };
    if root == ROOT {
        let dest = remote
            .location(receiver(remote, s.my_proc))
            .expect("rank")
            .proc;
        let tag = tags[1 - g as usize];
        // SAFETY: a blocking send of the user's buffer (`count` elements of `dtype`, valid for
        // the call) on `groups.cross`, which lives while the communicator does.
        return unsafe {
            check(
                sys::MPI_Send(
                    buf.addr,
                    buf.count,
                    buf.dtype,
                    dest as c_int,
                    tag,
                    groups.cross.0,
                ),
                "MPI_Send",
            )
        };
    }
    let root_proc = remote
        .location(root)
        .expect("root checked by the caller")
        .proc;
    let first = receiver(own, root_proc);
    let received = if ep.rank == first {
        recv_exact(&buf, root_proc, tags[g as usize], groups.cross, "the root")
    } else {
        Ok(())
    };
    // The first receiver broadcasts even after an error, so that its group does not hang.
    let spread = bcast(&view_endpoint(ep, &groups), buf, first);
    received.and(spread)
}

/// `EP_Allreduce` on an intercommunicator: `args` without `MPI_IN_PLACE` (refused by the
/// caller) and with `recv`; the result is the reduction of the remote group's inputs.
pub fn allreduce_inter(ep: &Endpoint, args: &ReduceArgs) -> EpResult<()> {
    let s = &ep.shared;
    let groups = groups(ep)?;
    let g = s.group_of(ep.local);
    let view = view_endpoint(ep, &groups);
    let tags = groups.next_tags(ep.local);
    let recv = args.recv.expect("allreduce has a receive buffer");
    let to_leader = |recv: Option<UserBuf>| ReduceArgs {
        recv,
        root: Some(0),
        ..*args
    };
    if ep.rank != 0 {
        reduce(&view, &to_leader(None))?;
        return bcast(&view, recv, 0);
    }
    // Rank 0: the group's result into engine memory, swapped with the other rank 0.
    let mut mem = super::board::AlignedBuf::default();
    mem.resize(args.input.span());
    // SAFETY: `mem` was just resized to the input's span, which holds `count` elements of
    // its datatype from `base_for(mem.ptr())`, and lives until the end of this function.
    let ours = unsafe { UserBuf::from_parts(args.input.base_for(mem.ptr()), args.input.count, args.input.dtype, args.input.info) };
    reduce(&view, &to_leader(Some(ours)))?;
    let peer = s.group_map(1 - g).location(0).expect("rank 0").proc as c_int;
    let mut req = HOST.request_null;
    let tag = tags[1 - g as usize];
    // SAFETY: `ours` is typed memory in `mem`, which lives until the end of the function,
    // after the `MPI_Wait` below completes this send even when the receive fails; the host
    // writes `req`, a live local.
    unsafe {
        check(
            sys::MPI_Isend(
                ours.addr,
                ours.count,
                ours.dtype,
                peer,
                tag,
                groups.cross.0,
                &mut req,
            ),
            "MPI_Isend",
        )?
    };
    let received = recv_exact(
        &recv,
        peer as u32,
        tags[g as usize],
        groups.cross,
        "the remote group",
    );
    // SAFETY: `req` is the send started above (the host sets it to `MPI_REQUEST_NULL`).
    let sent = unsafe { check(sys::MPI_Wait(&mut req, HOST.status_ignore), "MPI_Wait") };
    let spread = bcast(&view, recv, 0);
    received.and(sent).and(spread)
}

/// Receives the next message from host rank `source` with `tag` into `buf`, which must
/// hold exactly its size (else the message is dropped and the error says so).
pub(super) fn recv_exact(buf: &UserBuf, source: u32, tag: c_int, comm: HostComm, whom: &str) -> EpResult<()> {
    // SAFETY: the host writes `msg`, `status` and `bytes` (live locals; all-zero is a value
    // of these plain C types) and receives the probed message whole: into the user's `buf` when
    // it holds exactly the message's `bytes`, else into `junk`, which holds them.
    unsafe {
        let mut msg = std::mem::zeroed::<sys::MPI_Message>();
        let mut status = std::mem::zeroed::<sys::MPI_Status>();
        check(
            sys::MPI_Mprobe(source as c_int, tag, comm.0, &mut msg, &mut status),
            "MPI_Mprobe",
        )?;
        let mut bytes: c_int = 0;
        check(
            sys::MPI_Get_count(&status, HOST.byte, &mut bytes),
            "MPI_Get_count",
        )?;
        if bytes as usize == buf.bytes() {
            return check(
                sys::MPI_Mrecv(buf.addr, buf.count, buf.dtype, &mut msg, HOST.status_ignore),
                "MPI_Mrecv",
            );
        }
        let mut junk = vec![0u8; bytes.max(1) as usize];
        check(
            sys::MPI_Mrecv(
                junk.as_mut_ptr() as *mut _,
                bytes,
                HOST.byte,
                &mut msg,
                HOST.status_ignore,
            ),
            "MPI_Mrecv",
        )?;
        Err(ep_err!(
            ERR_TRUNCATE,
            "{whom} sends {bytes} bytes, this endpoint expects {}",
            buf.bytes()
        ))
    }
}
