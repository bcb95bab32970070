//! Intercommunicators: `EP_Intercomm_create` and `EP_Intercomm_merge` (MPI 4.1 sections
//! 7.6.2 and 7.6.3), for groups on disjoint processes and groups that share processes.
//!
//! Creation: the two leaders swap their groups' endpoint identities over the peer
//! communicator (the user's tag), each leader broadcasts the other group's list to its own
//! group, and then every process knows both groups in rank order. Group 0 is the group whose
//! leader has the smaller identity, so both sides label alike. The intercommunicator's host
//! communicator spans the union of both groups' processes (ordered by world rank), made with
//! `MPI_Comm_create_group` on `MPI_COMM_WORLD` by one thread of each of those processes. A
//! process's local indices number its endpoints of group 0 first, then of group 1, so one
//! process may hold endpoints of both groups (the shared-process case) and point-to-point
//! between them stays on the local transport.
//!
//! Errors agree across both groups: each group first agrees on its failure flag and its
//! leader (one allreduce), the leaders send the flag instead of, or before, their lists, and
//! the broadcast of the remote list carries both groups' flags (see [`create`]).
//!
//! Merge: the endpoints of a process meet, one host allreduce tells every process both
//! groups' `high` and every process's failure flag, and the new intracommunicator ranks the
//! low group first.

use super::coll::{self, typed::{Elems, HostOp}};
use super::comm::{CommShared, Endpoint, Flavor};
use super::datatype::UserBuf;
use super::meeting::{agree, failed_elsewhere, MeetingPoint};
use super::envelope::Pattern;
use super::p2p;
use super::rankmap::{Identity, Location, RankMap};
use super::request;
use crate::ep_err;
use crate::error::{EpError, EpResult, ERR_ARG, ERR_COMM, ERR_INTERN, ERR_RANK, ERR_TAG};
use crate::host::{self, check, sys, HostComm, HOST};
use std::os::raw::{c_int, c_void};
use std::sync::Arc;

/// Lists travel as one message of the length and up to this many entries, and a second
/// message with the rest when they are longer: one message for groups of up to 61 endpoints (a list
/// also holds the failure flag and the leader's rank).
const FIRST_PART: usize = 64;

/// The first message of a list: its length and its first entries, `FIRST_PART` slots.
fn first_part(list: &[u64]) -> [u64; FIRST_PART] {
    let mut first = [0u64; FIRST_PART];
    let n = list.len().min(FIRST_PART - 1);
    first[0] = list.len() as u64;
    first[1..=n].copy_from_slice(&list[..n]);
    first
}

/// The list announced by `first`, with room for the entries of the second message (returned
/// as the range to fill).
fn list_from_first(first: &[u64; FIRST_PART]) -> (Vec<u64>, std::ops::Range<usize>) {
    let len = first[0] as usize;
    let n = len.min(FIRST_PART - 1);
    let mut list = first[1..=n].to_vec();
    list.resize(len, 0);
    (list, n..len)
}

/// Bytes of `v` as a buffer to send from or receive into.
///
/// # Safety
/// The returned buffer is used only while `v` is alive and not moved.
unsafe fn u64_buf(v: &mut [u64]) -> EpResult<UserBuf> {
    // SAFETY: `v` holds `8 * len` writable bytes, for as long as the caller promises.
    unsafe { UserBuf::new(v.as_mut_ptr() as *const c_void, (v.len() * 8) as c_int, HOST.byte) }
}

/// Sends `data` to `peer` and receives the peer's list from it on `ep`'s communicator with
/// `tag` (nonblocking sends, so two leaders exchanging at once cannot block each other).
fn swap_lists(ep: &Endpoint, peer: i32, tag: c_int, data: &[u64]) -> EpResult<Vec<u64>> {
    let s = &ep.shared;
    let loc = s.peer_location(ep.local, peer).ok_or_else(|| ep_err!(ERR_RANK, "remote_leader {peer} is not a rank of peer_comm"))?;
    let env = super::envelope::Envelope { source: ep.rank, tag };
    let send = |b: UserBuf| p2p::start_send(s, ep.local, loc, env, b, false, false);
    let mut mine = (first_part(data).to_vec(), data.get(FIRST_PART - 1..).unwrap_or(&[]).to_vec());
    let exchanged = (|| {
        // SAFETY: `mine` outlives the send: it is waited for below on success, and on failure
        // `mine` is leaked (after this closure), so an orphaned send still reads live memory.
        let s1 = send(unsafe { u64_buf(&mut mine.0)? })?;
        let s2 = if mine.1.is_empty() {
            None
        } else {
            // SAFETY: as for the first part.
            Some(send(unsafe { u64_buf(&mut mine.1)? })?)
        };
        let pattern = Pattern { source: peer, tag };
        let mut first = [0u64; FIRST_PART];
        // SAFETY: `first` outlives the receive, which is blocking.
        p2p::recv_blocking(s, ep.local, pattern, unsafe { u64_buf(&mut first)? })?;
        let (mut theirs, rest) = list_from_first(&first);
        if !rest.is_empty() {
            // SAFETY: `theirs` outlives the receive, which is blocking.
            p2p::recv_blocking(s, ep.local, pattern, unsafe { u64_buf(&mut theirs[rest])? })?;
        }
        request::wait_send(ep, s1)?;
        if let Some(s2) = s2 {
            request::wait_send(ep, s2)?;
        }
        Ok(theirs)
    })();
    if exchanged.is_err() {
        // A send that did not complete was handed to the orphanage, whose host request may
        // still read this memory: it stays (a small leak on a failure path).
        std::mem::forget(mine);
    }
    exchanged
}

/// Broadcasts a list of u64 from `root` over the intracommunicator of `ep`.
fn bcast_list(ep: &Endpoint, root: i32, list: &mut Vec<u64>) -> EpResult<()> {
    let mut first = first_part(list);
    // SAFETY: `first` outlives the broadcast, a blocking call.
    coll::bcast(ep, unsafe { u64_buf(&mut first)? }, root)?;
    let (mut all, rest) = list_from_first(&first);
    if !rest.is_empty() {
        if ep.rank == root {
            all.copy_from_slice(list);
        }
        // SAFETY: `all` outlives the broadcast, a blocking call.
        coll::bcast(ep, unsafe { u64_buf(&mut all[rest])? }, root)?;
    }
    *list = all;
    Ok(())
}

fn world_of(id: Identity) -> u32 {
    (id >> 32) as u32
}

/// Both groups' maps over the union of their processes (ordered by world rank).
fn union_maps(ids: [&[Identity]; 2], my_world: u32) -> (Vec<u32>, RankMap, RankMap) {
    let mut worlds: Vec<u32> = ids.iter().flat_map(|g| g.iter().map(|&i| world_of(i))).collect();
    worlds.sort_unstable();
    worlds.dedup();
    let proc_of = |w: u32| worlds.binary_search(&w).expect("a member's process") as u32;
    let my_proc = proc_of(my_world);
    let mut next_local = vec![0u32; worlds.len()];
    let mut maps = Vec::with_capacity(2);
    for g in ids {
        let locations: Vec<Location> = g
            .iter()
            .map(|&id| {
                let p = proc_of(world_of(id));
                let local = next_local[p as usize];
                next_local[p as usize] += 1;
                Location { proc: p, local }
            })
            .collect();
        maps.push(RankMap::from_locations(locations, g.to_vec(), worlds.len(), my_proc));
    }
    let map1 = maps.pop().unwrap();
    let map0 = maps.pop().unwrap();
    (worlds, map0, map1)
}

/// The MAX of two ints over the endpoints of `ep`'s intracommunicator (an allreduce).
fn allreduce_max(ep: &Endpoint, mut mine: [c_int; 2]) -> EpResult<[c_int; 2]> {
    let mut all = [0 as c_int; 2];
    // SAFETY: `mine` and `all` hold 2 ints each and outlive the allreduce below.
    let send = unsafe { UserBuf::new(mine.as_mut_ptr() as *const c_void, 2, HOST.int_)? };
    // SAFETY: as above.
    let recv = unsafe { UserBuf::new(all.as_mut_ptr() as *const c_void, 2, HOST.int_)? };
    let args = coll::ReduceArgs {
        input: Elems::of(&send),
        in_place: false,
        recv: Some(recv),
        op: HostOp(HOST.op_max),
        commutative: true,
        root: None,
        scatter: None,
    };
    coll::reduce(ep, &args)?;
    Ok(all)
}

/// `EP_Intercomm_create` for one endpoint of `local` (an intracommunicator). `peer` and
/// `remote_leader` matter only on the local leader. `fault` is an error in the caller's
/// other arguments (its output pointer, its `peer_comm` handle).
///
/// Agreement (see [`super::meeting`]): the group first agrees on its failure flag and on the
/// leader (an allreduce of the largest error class and the largest valid `local_leader`, so
/// an endpoint with a bad `local_leader` still learns who leads); the leader sends the flag
/// to the remote leader in place of its list, or with it; the leader's broadcast of the
/// remote list carries the larger of both groups' flags. So every endpoint of both groups
/// fails alike when any of them brought a fault, at the cost of that one allreduce of two
/// ints: the others' faults can reach the remote group only through their leader, before it
/// sends. A fault that stops the leader from reaching the remote leader (a bad `peer_comm`,
/// `remote_leader` or `tag` on the leader) fails its own group only; the remote group then
/// waits for the leader's message, as with MPI.
pub fn create(
    ep: &Endpoint,
    local_leader: c_int,
    peer: Option<&Endpoint>,
    remote_leader: c_int,
    tag: c_int,
    fault: Option<EpError>,
) -> EpResult<Endpoint> {
    let s = &ep.shared;
    // Errors every endpoint of the communicator sees alike need no agreement; an endpoint's
    // own fault still comes first, as it would with no communication at all.
    if s.is_inter() {
        return Err(fault.unwrap_or_else(|| ep_err!(ERR_COMM, "local_comm is an intercommunicator")));
    }
    let size = s.map.size() as c_int;
    let leader_ok = (0..size).contains(&local_leader);
    let is_leader = ep.rank == local_leader;
    let mut fault = (!leader_ok)
        .then(|| ep_err!(ERR_RANK, "local_leader {local_leader} is outside 0..{size}"))
        .or_else(|| (tag < 0).then(|| ep_err!(ERR_TAG, "tag {tag} is negative")))
        .or(fault);
    // The leader's way to the remote leader, when its arguments give one.
    let mut route = None;
    if is_leader && tag >= 0 {
        match peer {
            None => fault = fault.or_else(|| Some(ep_err!(ERR_COMM, "peer_comm is EP_COMM_NULL on the local leader"))),
            Some(p) if p.shared.peer_location(p.local, remote_leader).is_none() => {
                fault = fault.or_else(|| Some(ep_err!(ERR_RANK, "remote_leader {remote_leader} is not a rank of peer_comm")))
            }
            Some(p) => route = Some(p),
        }
    }
    let flag = fault.as_ref().map_or(0, |e| e.class);
    let [group_flag, leader] = allreduce_max(ep, [flag, if leader_ok { local_leader } else { -1 }])?;
    let failed = |class: c_int, own: Option<EpError>| -> EpResult<Endpoint> { Err(own.unwrap_or_else(|| failed_elsewhere(class))) };
    if leader < 0 {
        return failed(group_flag, fault);
    }
    let mut theirs = vec![group_flag as u64];
    if let (true, Some(peer)) = (ep.rank == leader, route) {
        let mine: Vec<u64> = if group_flag == 0 {
            [0, leader as u64].into_iter().chain(s.map.identities().iter().copied()).collect()
        } else {
            vec![group_flag as u64]
        };
        let their_flag = match swap_lists(peer, remote_leader, tag, &mine) {
            Ok(list) if list.first() == Some(&0) && list.len() < 3 => ERR_ARG,
            Ok(list) if list.first() == Some(&0) => {
                if group_flag == 0 {
                    theirs = list;
                }
                0
            }
            Ok(list) => list.first().map_or(ERR_ARG, |&f| f as c_int),
            Err(e) => {
                let class = e.class;
                fault.get_or_insert(e);
                class
            }
        };
        if their_flag != 0 {
            theirs = vec![group_flag.max(their_flag) as u64];
        }
    }
    bcast_list(ep, leader, &mut theirs)?;
    match theirs.first() {
        Some(&0) => {}
        Some(&f) => return failed(f as c_int, fault),
        None => return failed(ERR_INTERN, fault),
    }
    let their_leader = theirs[1] as usize;
    let their_ids = &theirs[2..];
    let my_ids = s.map.identities();
    let my_leader_id = my_ids[local_leader as usize];
    let their_leader_id = *their_ids.get(their_leader).ok_or_else(|| ep_err!(ERR_ARG, "remote leader rank out of range"))?;
    let (ids, my_group) = if my_leader_id < their_leader_id { ([my_ids, their_ids], 0) } else { ([their_ids, my_ids], 1) };
    let my_world = world_of(my_ids[ep.rank as usize]);
    let (worlds, map0, map1) = union_maps(ids, my_world);
    let my_local = if my_group == 0 { map0.location(ep.rank) } else { map1.location(ep.rank) }.expect("own rank").local;
    let key = (ids[0][0], ids[1][0], tag);
    let expected = map0.my_count() + map1.my_count();
    // The process's endpoints of both groups meet under `key`; the last to arrive builds the
    // communicator. Creations with one key complete in order.
    let shared = CREATIONS.meet(key, expected, my_local as usize, (), None, move |_| {
        let host = union_host(&worlds, key)?;
        CommShared::with_groups(host, map0, Some(map1), Flavor::Endpoints).inspect_err(|_| {
            host::free_comm(host);
        })
    })?;
    Ok(Endpoint::new((*shared).clone(), my_local, ep.errhandler()))
}

/// The host communicator over the processes of `worlds` (world ranks, ascending).
fn union_host(worlds: &[u32], key: (u64, u64, c_int)) -> EpResult<HostComm> {
    let tag_ub = host::tag_ub()? as u64;
    // Distinct creations that overlap in processes run concurrently only with distinct
    // keys; the tag keeps their host messages apart. Open MPI sends them as point-to-point
    // messages on MPI_COMM_WORLD with this tag, so it is taken from the top half of the tag
    // range, away from the small tags applications use there.
    let hash = (key.0 ^ key.1.rotate_left(17) ^ key.2 as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 33;
    let tag = tag_ub - hash % (tag_ub / 2 + 1);
    host::create_group_comm(HostComm(HOST.comm_world), worlds, tag as c_int)
}

/// Intercommunicator creations in progress, by (both groups' first identities, tag).
static CREATIONS: MeetingPoint<(u64, u64, c_int)> = MeetingPoint::new();

/// `EP_Intercomm_merge` for one endpoint of an intercommunicator. `fault` is an error in
/// the caller's other arguments (its output pointer): the merge then fails on every endpoint
/// of both groups (the flag travels in the host allreduce, see [`super::meeting`]).
pub fn merge(ep: &Endpoint, high: bool, fault: Option<EpError>) -> EpResult<Endpoint> {
    let s = &ep.shared;
    if !s.is_inter() {
        return Err(fault.unwrap_or_else(|| ep_err!(ERR_COMM, "communicator is not an intercommunicator")));
    }
    let group = s.group_of(ep.local);
    let merged = s.meeting.meet((), s.local_count(), ep.local as usize, (group, high), fault, |g| merge_shared(s, &g.inputs, g.fault_class()))?;
    let (shared, new_locals) = &*merged;
    Ok(Endpoint::new(shared.clone(), new_locals[ep.local as usize], ep.errhandler()))
}

type Merged = (Arc<CommShared>, Vec<u32>);

/// The leader's part of a merge; `fault`: the class of this process's fault (0: none).
fn merge_shared(s: &CommShared, inputs: &[(u8, bool)], fault: c_int) -> EpResult<Merged> {
    // Each group's `high` as this process knows it (-1: no endpoint of that group here),
    // then the maximum over the processes: every process learns both, and every process's
    // failure flag.
    let mut highs: [c_int; 3] = [-1, -1, fault];
    for &(g, h) in inputs {
        highs[g as usize] = highs[g as usize].max(h as c_int);
    }
    let mut all: [c_int; 3] = [-1, -1, 0];
    // SAFETY: three ints read from `highs` and three written to `all`, live locals; `s.host`
    // is alive while `s` is borrowed.
    unsafe {
        check(
            sys::MPI_Allreduce(highs.as_ptr() as *const c_void, all.as_mut_ptr() as *mut c_void, 3, HOST.int_, HOST.op_max, s.host.0),
            "MPI_Allreduce",
        )?
    };
    agree([all[2]])?;
    let first: u8 = if all[0] > all[1] { 1 } else { 0 };
    let order = [first, 1 - first];
    let nprocs = s.map.nprocs();
    let mut next_local = vec![0u32; nprocs];
    let mut locations = Vec::new();
    let mut identities = Vec::new();
    let mut new_locals = vec![0u32; s.local_count()];
    for g in order {
        let m = s.group_map(g);
        for r in 0..m.size() as i32 {
            let loc = m.location(r).unwrap();
            let local = next_local[loc.proc as usize];
            next_local[loc.proc as usize] += 1;
            if loc.proc == s.my_proc {
                new_locals[loc.local as usize] = local;
            }
            locations.push(Location { proc: loc.proc, local });
            identities.push(m.identities()[r as usize]);
        }
    }
    let map = RankMap::from_locations(locations, identities, nprocs, s.my_proc);
    let mut host = HostComm(HOST.comm_null);
    // SAFETY: `s.host` is alive while `s` is borrowed; the host writes `host.0`, a live local.
    unsafe { check(sys::MPI_Comm_dup(s.host.0, &mut host.0), "MPI_Comm_dup")? };
    let shared = CommShared::new(host, map, Flavor::Endpoints).inspect_err(|_| {
        host::free_comm(host);
    })?;
    Ok((shared, new_locals))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Lists of every length around the split survive first part + rest.
    #[test]
    fn lists_split_and_join() {
        for len in [0, 1, 2, FIRST_PART - 2, FIRST_PART - 1, FIRST_PART, FIRST_PART + 1, 3 * FIRST_PART] {
            let list: Vec<u64> = (0..len as u64).map(|i| i * 7 + 1).collect();
            let first = first_part(&list);
            let (mut joined, rest) = list_from_first(&first);
            assert_eq!(rest.len(), len.saturating_sub(FIRST_PART - 1), "length {len}");
            joined[rest.clone()].copy_from_slice(&list[rest]);
            assert_eq!(joined, list, "length {len}");
        }
    }
}
