//! `EP_Comm_split` and `EP_Comm_split_type` (MPI 4.1 sections 7.4.2): new communicators by
//! color, ranks ordered by key across all endpoints of all processes, ties by old rank.
//!
//! The endpoints of a process meet; their leader allgathers (old rank, color, key) of every
//! endpoint over the host communicator, so every process computes every new rank map alike.
//! Host communicators for the new ones come from one `MPI_Comm_split` when no process has
//! endpoints of two colors, else from `MPI_Comm_create_group` per color, in ascending color
//! order on every process (a total order, so overlapping groups cannot deadlock). Processes
//! of a new communicator are ranked by their first new rank, and each process's endpoints
//! take local indices in new-rank order, so ranks keep contiguous per process whenever keys
//! allow it (hierarchical collectives then keep MPI's order cheaply).
//!
//! A bad color or split type, or a fault the caller reports (a NULL output pointer), fails
//! the split on every endpoint: the faulty endpoint still meets the others with the color
//! `EP_UNDEFINED`, and its process's entries in the allgathered table carry the error class
//! as a negative color (`fault_color`), which every process sees (see [`super::meeting`]).

use super::comm::{CommShared, Endpoint, Flavor};
use super::meeting::agree;
use super::rankmap::{Location, RankMap};
use crate::ep_err;
use crate::error::{EpError, EpResult, ERR_ARG};
use crate::host::{self, check, sys, HostComm, HOST};
use std::collections::BTreeMap;
use std::os::raw::{c_int, c_void};
use std::sync::Arc;

/// EPMPI's `EP_UNDEFINED` (the header's value, `crate::ffi::types::EP_UNDEFINED`): the value
/// user colors and split types are compared with, and the one the per-endpoint tables carry
/// between processes. The host's `MPI_UNDEFINED` may differ; it appears only as the argument
/// of the host's own `MPI_Comm_split` (`host_color`).
pub(crate) const UNDEFINED: c_int = -32766;

/// Result of a split for each of the process's old endpoints: the new communicator and the
/// endpoint's local index there, or `None` (`EP_UNDEFINED`).
type Placement = Vec<Option<(Arc<CommShared>, u32)>>;

/// The color argument of `EP_Comm_split`: `Some(color)` for `color >= 0`, `None` for
/// `EP_UNDEFINED`; any other value is `EP_ERR_ARG`.
fn split_color(color: c_int) -> EpResult<Option<c_int>> {
    match color {
        UNDEFINED => Ok(None),
        c if c >= 0 => Ok(Some(c)),
        c => Err(ep_err!(ERR_ARG, "color {c} is negative (use EP_UNDEFINED = {UNDEFINED} to leave the endpoint out)")),
    }
}

/// EPMPI's `EP_COMM_TYPE_PROCESS` (the header's value): the split type that groups the
/// endpoints of each process. Chosen apart from the split types Open MPI and MPICH define.
pub(crate) const COMM_TYPE_PROCESS: c_int = 17744;

/// What a split type keeps together.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum SplitKind {
    /// The host's `MPI_COMM_TYPE_SHARED`: the endpoints of processes that share memory.
    Node,
    /// `EP_COMM_TYPE_PROCESS`: the endpoints of one process.
    Process,
}

/// The split type argument of `EP_Comm_split_type`: the host's `MPI_COMM_TYPE_SHARED`
/// (`shared`, passed in by the caller) or `EP_COMM_TYPE_PROCESS`; `None` for `EP_UNDEFINED`;
/// any other value is `EP_ERR_ARG`.
fn split_kind(split_type: c_int, shared: c_int) -> EpResult<Option<SplitKind>> {
    match split_type {
        UNDEFINED => Ok(None),
        t if t == shared => Ok(Some(SplitKind::Node)),
        COMM_TYPE_PROCESS => Ok(Some(SplitKind::Process)),
        t => Err(ep_err!(
            ERR_ARG,
            "split_type {t} is neither MPI_COMM_TYPE_SHARED ({shared}), EP_COMM_TYPE_PROCESS ({COMM_TYPE_PROCESS}) \
             nor EP_UNDEFINED ({UNDEFINED})"
        )),
    }
}

/// The color argument of the host's `MPI_Comm_split` for a process with host color `color`
/// (`None`: the process takes no part), where the host's `MPI_UNDEFINED` is `host_undefined`.
fn host_color(color: Option<c_int>, host_undefined: c_int) -> c_int {
    color.unwrap_or(host_undefined)
}

/// `EP_Comm_split` for one endpoint. `color` is `>= 0` or `EP_UNDEFINED` (`UNDEFINED`);
/// anything else is `EP_ERR_ARG`. Collective over the endpoints of `ep`'s communicator.
/// `fault` is an error in the caller's other arguments (its output pointer). A bad color or a
/// fault fails the split on every endpoint of every process (see [`super::meeting`]).
pub fn split(ep: &Endpoint, color: c_int, key: c_int, fault: Option<EpError>) -> EpResult<Option<Endpoint>> {
    let fault = split_color(color).err().or(fault);
    let color = if fault.is_some() { UNDEFINED } else { color };
    meet_and_split(ep, (color, key), fault, |_, inputs| Ok(inputs.to_vec()))
}

/// `EP_Comm_split_type` for one endpoint: the host's `MPI_COMM_TYPE_SHARED` groups the
/// endpoints of a node (processes that share memory, as the host sees them),
/// `EP_COMM_TYPE_PROCESS` the endpoints of one process; `EP_UNDEFINED` leaves the endpoint
/// out; anything else is `EP_ERR_ARG`. `fault` and agreement as for [`split`].
pub fn split_type(ep: &Endpoint, split_type: c_int, key: c_int, fault: Option<EpError>) -> EpResult<Option<Endpoint>> {
    let fault = split_kind(split_type, HOST.comm_type_shared).err().or(fault);
    let split_type = if fault.is_some() { UNDEFINED } else { split_type };
    meet_and_split(ep, (split_type, key), fault, |old, inputs| {
        let node = node_color(old)?;
        // Node colors are host ranks, so process colors start above them.
        let process = old.nprocs as c_int + old.my_proc as c_int;
        let shared = HOST.comm_type_shared;
        inputs
            .iter()
            .map(|&(t, k)| {
                let color = match split_kind(t, shared)? {
                    Some(SplitKind::Node) => node,
                    Some(SplitKind::Process) => process,
                    None => UNDEFINED,
                };
                Ok((color, k))
            })
            .collect()
    })
}

/// The process's endpoints meet; the leader turns their inputs into (color, key) pairs with
/// `colors` (which must accept a faulty endpoint's placeholder, `EP_UNDEFINED`, and make the
/// same host calls whatever the inputs) and performs the split for all of them.
fn meet_and_split(
    ep: &Endpoint,
    input: (c_int, c_int),
    fault: Option<EpError>,
    colors: impl FnOnce(&CommShared, &[(c_int, c_int)]) -> EpResult<Vec<(c_int, c_int)>>,
) -> EpResult<Option<Endpoint>> {
    let old = &ep.shared;
    let placement = old.meeting.meet((), old.local_count(), ep.local as usize, input, fault, |g| {
        let ck = colors(old, &g.inputs)?;
        split_shared(old, &ck, g.fault_class())
    })?;
    Ok(placement[ep.local as usize].as_ref().map(|(shared, local)| Endpoint::new(shared.clone(), *local, ep.errhandler())))
}

/// The color a process with a fault of class `class` (> 0) sends for each of its endpoints:
/// negative and not `EP_UNDEFINED`, which no valid color is, so the table carries the failure
/// flag with no extra data.
fn fault_color(class: c_int) -> c_int {
    -class
}

/// The failure flag a table entry's color carries (0: none).
fn flag_of(color: c_int) -> c_int {
    if color < 0 && color != UNDEFINED {
        -color
    } else {
        0
    }
}

/// A color shared by the processes of one node: the lowest host rank among them.
fn node_color(old: &CommShared) -> EpResult<c_int> {
    let mut node = HostComm(HOST.comm_null);
    // SAFETY: `old.host` is alive while `old` is borrowed; the host writes `node.0`, a live
    // local.
    unsafe {
        check(
            sys::MPI_Comm_split_type(old.host.0, HOST.comm_type_shared, 0, HOST.info_null, &mut node.0),
            "MPI_Comm_split_type",
        )?
    };
    let mine = old.my_proc as c_int;
    let mut lowest: c_int = 0;
    // SAFETY: one int read from `mine` and one written to `lowest`, live locals; `node` was
    // made just above and is freed after the call.
    let rc = unsafe {
        check(
            sys::MPI_Allreduce(&mine as *const c_int as *const c_void, &mut lowest as *mut c_int as *mut c_void, 1, HOST.int_, HOST.op_min, node.0),
            "MPI_Allreduce",
        )
    };
    host::free_comm(node);
    rc.map(|_| lowest)
}

/// Every endpoint's (color, key) by old rank, from every process. `fault` (an error class,
/// 0 for none) travels as the color of this process's entries ([`fault_color`]); any process's
/// flag makes this an error on every process.
fn gather_table(old: &CommShared, mine: &[(c_int, c_int)], fault: c_int) -> EpResult<Vec<(c_int, c_int)>> {
    let nprocs = old.map.nprocs();
    let mut send: Vec<c_int> = Vec::with_capacity(3 * mine.len());
    for (local, &(color, key)) in mine.iter().enumerate() {
        let color = if fault != 0 { fault_color(fault) } else { color };
        send.extend([old.map.my_rank(local as u32), color, key]);
    }
    let counts: Vec<c_int> = (0..nprocs).map(|p| 3 * old.map.ranks_of(p as u32).len() as c_int).collect();
    let mut displs = Vec::with_capacity(nprocs);
    let mut at = 0;
    for &c in &counts {
        displs.push(at);
        at += c;
    }
    let mut all = vec![0 as c_int; at as usize];
    if nprocs == 1 {
        all.copy_from_slice(&send);
    } else {
        // SAFETY: `send` holds this process's `3 * mine.len()` ints, which is its entry of
        // `counts`; `all` holds `at`, the sum of `counts`, with `displs` the running sums, so every
        // process's block lands inside it; all live across the blocking call on `old.host`.
        unsafe {
            check(
                sys::MPI_Allgatherv(
                    send.as_ptr() as *const c_void,
                    send.len() as c_int,
                    HOST.int_,
                    all.as_mut_ptr() as *mut c_void,
                    counts.as_ptr(),
                    displs.as_ptr(),
                    HOST.int_,
                    old.host.0,
                ),
                "MPI_Allgatherv",
            )?
        };
    }
    agree(all.chunks(3).map(|e| flag_of(e[1])))?;
    let mut table = vec![(0, 0); old.map.size()];
    for e in all.chunks(3) {
        table[e[0] as usize] = (e[1], e[2]);
    }
    Ok(table)
}

/// One new communicator as every process computes it.
struct Group {
    /// Old host ranks of its processes, in new process order.
    procs: Vec<u32>,
    map_locations: Vec<Location>,
    /// Old ranks in new rank order.
    members: Vec<i32>,
}

fn group_of(old: &CommShared, table: &[(c_int, c_int)], color: c_int) -> Group {
    let mut members: Vec<i32> = (0..table.len() as i32).filter(|&r| table[r as usize].0 == color).collect();
    members.sort_by_key(|&r| (table[r as usize].1, r));
    let mut procs: Vec<u32> = Vec::new();
    let mut counts: Vec<u32> = Vec::new();
    let mut map_locations = Vec::with_capacity(members.len());
    for &r in &members {
        let p = old.map.location(r).expect("old rank").proc;
        let idx = match procs.iter().position(|&q| q == p) {
            Some(i) => i,
            None => {
                procs.push(p);
                counts.push(0);
                procs.len() - 1
            }
        };
        map_locations.push(Location { proc: idx as u32, local: counts[idx] });
        counts[idx] += 1;
    }
    Group { procs, map_locations, members }
}

/// The leader's part: new communicators for this process's colors. `fault`: the class of
/// this process's fault (0: none), carried by the host allgather.
fn split_shared(old: &CommShared, mine: &[(c_int, c_int)], fault: c_int) -> EpResult<Placement> {
    let table = gather_table(old, mine, fault)?;
    // Colors per process, to choose between one host split and one group creation per color.
    let mut colors_of: Vec<Vec<c_int>> = vec![Vec::new(); old.map.nprocs()];
    for (r, &(color, _)) in table.iter().enumerate() {
        if color != UNDEFINED {
            let list = &mut colors_of[old.map.location(r as i32).unwrap().proc as usize];
            if !list.contains(&color) {
                list.push(color);
            }
        }
    }
    let one_color_each = colors_of.iter().all(|c| c.len() <= 1);
    let mut my_colors = colors_of[old.my_proc as usize].clone();
    my_colors.sort_unstable();
    // Distinct host tags per color for MPI_Comm_create_group: its index among all colors.
    let all_colors: BTreeMap<c_int, usize> = {
        let mut v: Vec<c_int> = colors_of.iter().flatten().copied().collect();
        v.sort_unstable();
        v.dedup();
        v.into_iter().enumerate().map(|(i, c)| (c, i)).collect()
    };
    let mut placement: Placement = vec![None; mine.len()];
    if one_color_each {
        let color = my_colors.first().copied();
        let key = match color {
            Some(c) => group_of(old, &table, c).procs.iter().position(|&p| p == old.my_proc).unwrap() as c_int,
            None => 0,
        };
        let mut host = HostComm(HOST.comm_null);
        // SAFETY: a collective host call on the communicator's own host communicator, which
        // every process of it makes here; the host writes only `host.0`.
        unsafe {
            check(
                sys::MPI_Comm_split(old.host.0, host_color(color, HOST.undefined), key, &mut host.0),
                "MPI_Comm_split",
            )?
        };
        if let Some(color) = color {
            place(old, &table, color, host, &mut placement)?;
        }
        return Ok(placement);
    }
    // MPI_Comm_create_group exchanges point-to-point messages on its parent with the given
    // tag (Open MPI does), which the pre-posted receives on `old.host` would steal: create the
    // groups on a fresh duplicate instead.
    let mut parent = HostComm(HOST.comm_null);
    // SAFETY: `old.host` is alive while `old` is borrowed; the host writes `parent.0`, a live
    // local, freed below.
    unsafe { check(sys::MPI_Comm_dup(old.host.0, &mut parent.0), "MPI_Comm_dup")? };
    let result = create_per_color(old, &table, &my_colors, &all_colors, parent, &mut placement);
    host::free_comm(parent);
    result.map(|_| placement)
}

/// One host communicator per color of this process, made on `parent` in ascending color
/// order (every process uses the same order, so overlapping groups cannot deadlock).
fn create_per_color(
    old: &CommShared,
    table: &[(c_int, c_int)],
    my_colors: &[c_int],
    all_colors: &BTreeMap<c_int, usize>,
    parent: HostComm,
    placement: &mut Placement,
) -> EpResult<()> {
    let tag_ub = host::tag_ub()?;
    for &color in my_colors {
        let g = group_of(old, table, color);
        let tag = (all_colors[&color] as i64 % (tag_ub as i64 + 1)) as c_int;
        let host = host::create_group_comm(parent, &g.procs, tag)?;
        place(old, table, color, host, placement)?;
    }
    Ok(())
}

/// Builds the new communicator of `color` on its host communicator and records where this
/// process's endpoints go.
fn place(old: &CommShared, table: &[(c_int, c_int)], color: c_int, host: HostComm, placement: &mut Placement) -> EpResult<()> {
    let g = group_of(old, table, color);
    let my_new_proc = g.procs.iter().position(|&p| p == old.my_proc).expect("this process has the color") as u32;
    let identities = g.members.iter().map(|&r| old.map.identities()[r as usize]).collect();
    let map = RankMap::from_locations(g.map_locations.clone(), identities, g.procs.len(), my_new_proc);
    let shared = match CommShared::new(host, map, Flavor::Endpoints) {
        Ok(s) => s,
        Err(e) => {
            host::free_comm(host);
            return Err(e);
        }
    };
    for (new_rank, &old_rank) in g.members.iter().enumerate() {
        let loc = g.map_locations[new_rank];
        if loc.proc == my_new_proc {
            let old_local = old.map.location(old_rank).expect("old rank").local;
            placement[old_local as usize] = Some((shared.clone(), loc.local));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A user's color as the host's `MPI_Comm_split` receives it, where the host's
    /// `MPI_UNDEFINED` is `host_undefined`.
    fn to_host(color: c_int, host_undefined: c_int) -> EpResult<c_int> {
        Ok(host_color(split_color(color)?, host_undefined))
    }

    /// `EP_UNDEFINED` is EPMPI's constant: colors are compared with it and never with the
    /// host's `MPI_UNDEFINED`, which only the host call receives. Open MPI 4.1 and MPICH 4.0
    /// both define `MPI_UNDEFINED` as -32766 too, so only other host values can tell.
    #[test]
    fn colors_compare_with_ep_undefined_whatever_the_host_value() {
        for host_undefined in [-1, -2, -3, -32767, UNDEFINED] {
            assert_eq!(to_host(UNDEFINED, host_undefined).unwrap(), host_undefined, "host value {host_undefined}");
            assert_eq!(to_host(0, host_undefined).unwrap(), 0);
            assert_eq!(to_host(7, host_undefined).unwrap(), 7);
            if host_undefined < 0 && host_undefined != UNDEFINED {
                let e = to_host(host_undefined, host_undefined).unwrap_err();
                assert_eq!(e.class, ERR_ARG, "the host's MPI_UNDEFINED {host_undefined} is not a color");
            }
            for bad in [-1, -2, -32765, -32767, c_int::MIN] {
                assert_eq!(to_host(bad, host_undefined).unwrap_err().class, ERR_ARG, "color {bad}");
            }
        }
    }

    /// `EP_Comm_split_type`: the host's `MPI_COMM_TYPE_SHARED` (0 in Open MPI, 1 in MPICH)
    /// keeps the node, `EP_COMM_TYPE_PROCESS` the process, EPMPI's `EP_UNDEFINED` leaves the
    /// endpoint out, anything else is refused.
    #[test]
    fn split_types_compare_with_ep_undefined() {
        for shared in [0, 1, 5] {
            assert_eq!(split_kind(shared, shared).unwrap(), Some(SplitKind::Node));
            assert_eq!(split_kind(COMM_TYPE_PROCESS, shared).unwrap(), Some(SplitKind::Process));
            assert_eq!(split_kind(UNDEFINED, shared).unwrap(), None);
            for bad in [shared + 1, -1, 12345, UNDEFINED + 1] {
                assert_eq!(split_kind(bad, shared).unwrap_err().class, ERR_ARG, "split type {bad}");
            }
        }
    }
}
