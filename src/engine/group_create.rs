//! Communicators from groups: `EP_Comm_create` (collective over the parent) and
//! `EP_Comm_create_group` (collective over the group's members only), MPI 4.1 section 7.4.2.
//!
//! `EP_Comm_create` is a split: an endpoint in its own group takes as color the parent rank
//! of the group's first member and as key its rank in the group, so the endpoints that pass
//! one group (disjoint groups on different endpoints, as MPI 3 allows) get one communicator
//! ranked in group order, and the others `EP_COMM_NULL`.
//!
//! `EP_Comm_create_group` cannot use the parent's meetings or host collectives: only members
//! call. This process's members meet at a process-wide point keyed by (parent, tag, group);
//! the last one makes the host communicator of the members' processes with
//! `MPI_Comm_create_group` on the parent's host communicator, with a host tag of the range
//! the remote transport keeps for it, then one allreduce on the new host communicator
//! carries every process's failure flag (a NULL output on some endpoint), so the creation
//! fails on every member alike.
//!
//! The host tag comes from the group, not from the user's tag: concurrent creations on one
//! communicator by endpoints of the same processes may pass the same user tag (they are
//! different ranks, which MPI lets do so), but their groups differ: disjoint ones by their
//! first member, those that share an endpoint (which calls them in turn) by their member list
//! (see `RemoteComm::group_tag`).

use super::comm::{CommShared, Endpoint, Flavor};
use super::group::Group;
use super::meeting::{agree, MeetingPoint};
use super::rankmap::{Identity, Location, RankMap};
use super::split;
use crate::ep_err;
use crate::error::{EpError, EpResult, ERR_COMM, ERR_GROUP, ERR_TAG};
use crate::host::{self, HOST};
use std::collections::HashMap;
use std::os::raw::c_int;
use std::sync::Arc;

/// Parent rank of each member of `group`, all of which must be endpoints of `comm`'s
/// communicator. Errors: `EP_ERR_COMM` (an intercommunicator), `EP_ERR_GROUP` (a member
/// outside the communicator).
fn parent_ranks(ep: &Endpoint, group: &Group) -> EpResult<Vec<i32>> {
    if ep.shared.is_inter() {
        return Err(ep_err!(ERR_COMM, "creating from a group needs an intracommunicator"));
    }
    let rank_of: HashMap<Identity, i32> =
        ep.shared.map.identities().iter().enumerate().map(|(r, &id)| (id, r as i32)).collect();
    group
        .members()
        .iter()
        .enumerate()
        .map(|(r, id)| {
            rank_of
                .get(id)
                .copied()
                .ok_or_else(|| ep_err!(ERR_GROUP, "rank {r} of the group is not an endpoint of the communicator"))
        })
        .collect()
}

/// `EP_Comm_create` for one endpoint: `group` (or the error of its handle, `fault` for the
/// other arguments) as this endpoint gives it. `None` when the endpoint is not in its group.
/// Collective over the parent; a bad argument anywhere fails it everywhere (see
/// [`super::meeting`]).
pub fn create(ep: &Endpoint, group: EpResult<Arc<Group>>, fault: Option<EpError>) -> EpResult<Option<Endpoint>> {
    if ep.shared.is_inter() {
        // Every endpoint of the communicator finds this alike: none waits for the others.
        return Err(ep_err!(ERR_COMM, "EP_Comm_create on an intercommunicator is not provided"));
    }
    let me = ep.shared.map.identities()[ep.rank as usize];
    let placed = group.and_then(|g| {
        let ranks = parent_ranks(ep, &g)?;
        Ok(g.rank(me).map(|r| (ranks[0], r)))
    });
    let (color, key, fault) = match (placed, fault) {
        (Err(e), _) | (Ok(_), Some(e)) => (split::UNDEFINED, 0, Some(e)),
        (Ok(Some((color, key))), None) => (color, key, None),
        (Ok(None), None) => (split::UNDEFINED, 0, None),
    };
    split::split(ep, color, key, fault)
}

/// FNV-1a of the members' identities, alike on every process.
fn members_hash(members: &[Identity]) -> u64 {
    members.iter().flat_map(|m| m.to_le_bytes()).fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ b as u64).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

/// Meetings of the members of one process, by (parent communicator, tag, host tag, members).
type Key = (usize, c_int, c_int, Vec<Identity>);
static MEMBERS: MeetingPoint<Key> = MeetingPoint::new();

/// `EP_Comm_create_group` for one endpoint, a member of `group`; `tag >= 0` (checked, and
/// part of the meeting's key). `fault` is an error in the caller's output pointer: the
/// creation then fails on every member. Errors found in the arguments every
/// member gives alike (`EP_ERR_COMM`, `EP_ERR_GROUP`, `EP_ERR_TAG`) return at once.
pub fn create_group(ep: &Endpoint, group: &Group, tag: c_int, fault: Option<EpError>) -> EpResult<Endpoint> {
    let ranks = parent_ranks(ep, group)?;
    if tag < 0 {
        return Err(ep_err!(ERR_TAG, "tag {tag} is negative"));
    }
    let old = &ep.shared;
    let me = old.map.identities()[ep.rank as usize];
    if !group.contains(me) {
        return Err(ep_err!(ERR_GROUP, "the calling endpoint (rank {}) is not in the group", ep.rank));
    }
    let host_tag = old.remote.group_tag(ranks[0], members_hash(group.members()))?;
    // This process's members by local index in the parent.
    let mut locals: Vec<u32> =
        ranks.iter().map(|&r| old.map.location(r).expect("parent rank")).filter(|l| l.proc == old.my_proc).map(|l| l.local).collect();
    locals.sort_unstable();
    let idx = locals.binary_search(&ep.local).expect("a member of this process");
    let key = (Arc::as_ptr(old) as usize, tag, host_tag, group.members().to_vec());
    let shared = old.clone();
    let placement = MEMBERS.meet(key, locals.len(), idx, (), fault, move |g| {
        build(&shared, &ranks, host_tag, g.fault_class())
    })?;
    let (shared, locals) = &*placement;
    let local = locals.iter().find(|(old_local, _)| *old_local == ep.local).expect("placed").1;
    Ok(Endpoint::new(shared.clone(), local, ep.errhandler()))
}

/// The new communicator of a `create_group`, and (old local index, new local index) of this
/// process's members.
type Placement = (Arc<CommShared>, Vec<(u32, u32)>);

/// The leader's part of `create_group`: the new communicator of the members at parent ranks
/// `ranks` (group order).
fn build(old: &CommShared, ranks: &[i32], host_tag: c_int, fault: c_int) -> EpResult<Placement> {
    let mut procs: Vec<u32> = Vec::new();
    let mut counts: Vec<u32> = Vec::new();
    let mut locations = Vec::with_capacity(ranks.len());
    let mut mine = Vec::new();
    for &r in ranks {
        let loc = old.map.location(r).expect("parent rank");
        let p = match procs.iter().position(|&q| q == loc.proc) {
            Some(p) => p,
            None => {
                procs.push(loc.proc);
                counts.push(0);
                procs.len() - 1
            }
        };
        if loc.proc == old.my_proc {
            mine.push((loc.local, counts[p]));
        }
        locations.push(Location { proc: p as u32, local: counts[p] });
        counts[p] += 1;
    }
    let host = host::create_group_comm(old.host, &procs, host_tag)?;
    // Every member process's leader makes this call on the communicator all of them just made.
    let worst = host::allreduce_int(host, fault, HOST.op_max);
    if let Err(e) = worst.and_then(|w| agree([w])) {
        host::free_comm(host);
        return Err(e);
    }
    let my_new_proc = procs.iter().position(|&p| p == old.my_proc).expect("a member process") as u32;
    let identities = ranks.iter().map(|&r| old.map.identities()[r as usize]).collect();
    let map = RankMap::from_locations(locations, identities, procs.len(), my_new_proc);
    match CommShared::new(host, map, Flavor::Endpoints) {
        Ok(shared) => Ok((shared, mine)),
        Err(e) => {
            host::free_comm(host);
            Err(e)
        }
    }
}
