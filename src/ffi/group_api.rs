//! Groups of endpoints (MPI 4.1 section 7.3): groups of communicators and windows, group
//! queries and the group algebra. Groups are process-local objects: no call here
//! communicates, and any thread may use any group.

use super::boundary::{input, out};
use super::types::*;
use crate::engine::comm::Endpoint;
use crate::engine::group::Group;
use crate::engine::rankmap::{GroupOrder, Identity};
use crate::ep_err;
use crate::error::{EpResult, ERR_ARG, ERR_COMM, ERR_GROUP};
use crate::handles::{endpoint, free_group, group, new_group, window};
use epmpi_macros::c_export;
use std::os::raw::c_int;

/// The identity of endpoint `ep` (the owner of the groups it gives).
pub(crate) fn identity_of(ep: &Endpoint) -> Identity {
    ep.shared.group_map(ep.shared.group_of(ep.local)).identities()[ep.rank as usize]
}

/// `n` ints at `p`, an input array of a group call. Errors: `EP_ERR_ARG` (negative `n`, NULL
/// `p` with `n > 0`).
///
/// # Safety
/// `p` is NULL or points at `n` readable `T`s that outlive `'a`.
unsafe fn array<'a, T>(p: *const T, n: c_int, what: &str) -> EpResult<&'a [T]> {
    let len = usize::try_from(n).map_err(|_| ep_err!(ERR_ARG, "n = {n} is negative"))?;
    if len == 0 {
        return Ok(&[]);
    }
    let p = input(p, what)?;
    // SAFETY: `p` points at `n` readable `T`s living for `'a` (this function's contract).
    Ok(unsafe { std::slice::from_raw_parts(p, len) })
}

/// The group of the endpoints of `comm` (of the local group for an intercommunicator), in rank
/// order (MPI 4.1 section 7.3.2). `EP_Group_rank` of it is the endpoint's rank. Free it with
/// `EP_Group_free`. Errors: `EP_ERR_COMM`, `EP_ERR_ARG` (NULL `group`). Thread safety: any
/// thread.
///
/// # Safety
/// `group` points at a writable `EP_Group` (NULL gives `EP_ERR_ARG`).
#[no_mangle]
#[c_export]
pub unsafe extern "C" fn EP_Comm_group(comm: EP_Comm, group: *mut EP_Group) -> c_int {
    let ep = endpoint(comm)?;
    let group = out(group, "group")?;
    let members = ep.shared.group_map(ep.shared.group_of(ep.local)).identities().to_vec();
    *group = new_group(Group::new(members)?.owned_by(Some(identity_of(&ep))))?;
    Ok(())
}

/// The remote group of an intercommunicator, in its rank order (MPI 4.1 section 7.6.1).
/// Errors: `EP_ERR_COMM` (invalid, or an intracommunicator), `EP_ERR_ARG` (NULL `group`).
/// Thread safety: any thread.
///
/// # Safety
/// `group` points at a writable `EP_Group` (NULL gives `EP_ERR_ARG`).
#[no_mangle]
#[c_export]
pub unsafe extern "C" fn EP_Comm_remote_group(comm: EP_Comm, group: *mut EP_Group) -> c_int {
    let ep = endpoint(comm)?;
    let group = out(group, "group")?;
    if !ep.shared.is_inter() {
        return Err(ep_err!(ERR_COMM, "communicator {comm} is not an intercommunicator"));
    }
    let members = ep.shared.peer_map(ep.local).identities().to_vec();
    *group = new_group(Group::new(members)?.owned_by(Some(identity_of(&ep))))?;
    Ok(())
}

/// The group of the endpoints of a window's communicator, in rank order (MPI 4.1 section
/// 12.2.6); `EP_Group_rank` of it is the window endpoint's rank. Errors: `EP_ERR_WIN`,
/// `EP_ERR_ARG` (NULL `group`). Thread safety: any thread.
///
/// # Safety
/// `group` points at a writable `EP_Group` (NULL gives `EP_ERR_ARG`).
#[no_mangle]
#[c_export]
pub unsafe extern "C" fn EP_Win_get_group(win: EP_Win, group: *mut EP_Group) -> c_int {
    let w = window(win)?;
    let group = out(group, "group")?;
    let map = &w.shared.map;
    let me = map.identities()[map.my_rank(w.local) as usize];
    *group = new_group(Group::new(map.identities().to_vec())?.owned_by(Some(me)))?;
    Ok(())
}

/// Number of endpoints in a group (MPI 4.1 section 7.3.1). Errors: `EP_ERR_GROUP`,
/// `EP_ERR_ARG` (NULL `size`). Thread safety: any thread.
///
/// # Safety
/// `size` points at a writable `int` (NULL gives `EP_ERR_ARG`).
#[no_mangle]
#[c_export]
pub unsafe extern "C" fn EP_Group_size(group: EP_Group, size: *mut c_int) -> c_int {
    let g = self::group(group)?;
    *out(size, "size")? = g.size() as c_int;
    Ok(())
}

/// Rank in `group` of the endpoint the group belongs to (the endpoint whose communicator or
/// window gave it, or gave the first operand of the calls that made it), or `EP_UNDEFINED`
/// when that endpoint is not a member (MPI 4.1 section 7.3.1, where one process is one
/// rank; `EP_GROUP_EMPTY` gives `EP_UNDEFINED`). Errors: `EP_ERR_GROUP`, `EP_ERR_ARG`.
/// Thread safety: any thread.
///
/// # Safety
/// `rank` points at a writable `int` (NULL gives `EP_ERR_ARG`).
#[no_mangle]
#[c_export]
pub unsafe extern "C" fn EP_Group_rank(group: EP_Group, rank: *mut c_int) -> c_int {
    let g = self::group(group)?;
    *out(rank, "rank")? = g.my_rank().unwrap_or(EP_UNDEFINED);
    Ok(())
}

/// A group derived from `g` by `f`, belonging to `g`'s endpoint, written to `*newgroup`.
///
/// # Safety
/// `newgroup` is NULL or points at a writable `EP_Group`.
unsafe fn derive(g: &Group, newgroup: *mut EP_Group, f: impl FnOnce(&Group) -> EpResult<Group>) -> EpResult<()> {
    let newgroup = out(newgroup, "newgroup")?;
    *newgroup = new_group(f(g)?.owned_by(g.owner()))?;
    Ok(())
}

/// The group of the endpoints of ranks `ranks[0..n]` of `group`, in that order (MPI 4.1
/// section 7.3.2); `n = 0` gives `EP_GROUP_EMPTY`. Errors: `EP_ERR_GROUP`, `EP_ERR_RANK`
/// (a rank outside the group, or given twice), `EP_ERR_ARG` (negative `n`, NULL arrays).
/// Thread safety: any thread.
///
/// # Safety
/// `ranks` points at `n` readable `int`s (NULL with `n > 0` gives `EP_ERR_ARG`); `newgroup` at
/// a writable `EP_Group`.
#[no_mangle]
#[c_export]
pub unsafe extern "C" fn EP_Group_incl(group: EP_Group, n: c_int, ranks: *const c_int, newgroup: *mut EP_Group) -> c_int {
    let g = self::group(group)?;
    let ranks = array(ranks, n, "ranks")?;
    derive(&g, newgroup, |g| g.incl(ranks))
}

/// The group of the endpoints of `group` whose ranks are not in `ranks[0..n]`, in group
/// order (MPI 4.1 section 7.3.2). Errors: `EP_ERR_GROUP`, `EP_ERR_RANK` (a rank outside the
/// group, or given twice), `EP_ERR_ARG`. Thread safety: any thread.
///
/// # Safety
/// As `EP_Group_incl`.
#[no_mangle]
#[c_export]
pub unsafe extern "C" fn EP_Group_excl(group: EP_Group, n: c_int, ranks: *const c_int, newgroup: *mut EP_Group) -> c_int {
    let g = self::group(group)?;
    let ranks = array(ranks, n, "ranks")?;
    derive(&g, newgroup, |g| g.excl(ranks))
}

/// `EP_Group_incl` of the ranks of `n` triplets `ranges[i] = {first, last, stride}` (MPI 4.1
/// section 7.3.2: `first, first + stride, ...` up to `last`, in triplet order). Errors:
/// `EP_ERR_GROUP`, `EP_ERR_RANK` (a rank outside the group, or one reached twice),
/// `EP_ERR_ARG` (stride 0, a triplet running away from `last`, negative `n`, NULL arrays).
/// Thread safety: any thread.
///
/// # Safety
/// `ranges` points at `n` readable `int[3]` (NULL with `n > 0` gives `EP_ERR_ARG`); `newgroup`
/// at a writable `EP_Group`.
#[no_mangle]
#[c_export]
pub unsafe extern "C" fn EP_Group_range_incl(group: EP_Group, n: c_int, ranges: *const [c_int; 3], newgroup: *mut EP_Group) -> c_int {
    let g = self::group(group)?;
    let ranges = array(ranges, n, "ranges")?;
    derive(&g, newgroup, |g| g.incl(&g.range_ranks(ranges)?))
}

/// `EP_Group_excl` of the ranks of `n` range triplets, as `EP_Group_range_incl` reads them
/// (MPI 4.1 section 7.3.2). Errors: those of `EP_Group_range_incl`. Thread safety: any thread.
///
/// # Safety
/// As `EP_Group_range_incl`.
#[no_mangle]
#[c_export]
pub unsafe extern "C" fn EP_Group_range_excl(group: EP_Group, n: c_int, ranges: *const [c_int; 3], newgroup: *mut EP_Group) -> c_int {
    let g = self::group(group)?;
    let ranges = array(ranges, n, "ranges")?;
    derive(&g, newgroup, |g| g.excl(&g.range_ranks(ranges)?))
}

/// The two groups of a set operation.
fn pair(group1: EP_Group, group2: EP_Group) -> EpResult<(std::sync::Arc<Group>, std::sync::Arc<Group>)> {
    Ok((group(group1)?, group(group2)?))
}

/// The endpoints of `group1`, then those of `group2` not in `group1`, each in its group's
/// order (MPI 4.1 section 7.3.2). Errors: `EP_ERR_GROUP`, `EP_ERR_ARG` (NULL `newgroup`).
/// Thread safety: any thread.
///
/// # Safety
/// `newgroup` points at a writable `EP_Group` (NULL gives `EP_ERR_ARG`).
#[no_mangle]
#[c_export]
pub unsafe extern "C" fn EP_Group_union(group1: EP_Group, group2: EP_Group, newgroup: *mut EP_Group) -> c_int {
    let (a, b) = pair(group1, group2)?;
    derive(&a, newgroup, |a| Ok(a.union(&b)))
}

/// The endpoints of `group1` that are in `group2`, in `group1`'s order (MPI 4.1 section
/// 7.3.2). Errors: `EP_ERR_GROUP`, `EP_ERR_ARG`. Thread safety: any thread.
///
/// # Safety
/// `newgroup` points at a writable `EP_Group` (NULL gives `EP_ERR_ARG`).
#[no_mangle]
#[c_export]
pub unsafe extern "C" fn EP_Group_intersection(group1: EP_Group, group2: EP_Group, newgroup: *mut EP_Group) -> c_int {
    let (a, b) = pair(group1, group2)?;
    derive(&a, newgroup, |a| Ok(a.intersection(&b)))
}

/// The endpoints of `group1` that are not in `group2`, in `group1`'s order (MPI 4.1 section
/// 7.3.2). Errors: `EP_ERR_GROUP`, `EP_ERR_ARG`. Thread safety: any thread.
///
/// # Safety
/// `newgroup` points at a writable `EP_Group` (NULL gives `EP_ERR_ARG`).
#[no_mangle]
#[c_export]
pub unsafe extern "C" fn EP_Group_difference(group1: EP_Group, group2: EP_Group, newgroup: *mut EP_Group) -> c_int {
    let (a, b) = pair(group1, group2)?;
    derive(&a, newgroup, |a| Ok(a.difference(&b)))
}

/// For each of `ranks1[0..n]` of `group1`, the rank of the same endpoint in `group2`, or
/// `EP_UNDEFINED` when it is not there; `EP_PROC_NULL` gives `EP_PROC_NULL` (MPI 4.1 section
/// 7.3.1). Errors: `EP_ERR_GROUP`, `EP_ERR_RANK` (a rank outside `group1`), `EP_ERR_ARG`
/// (negative `n`, NULL arrays). Thread safety: any thread.
///
/// # Safety
/// `ranks1` points at `n` readable `int`s and `ranks2` at `n` writable ones (NULL with
/// `n > 0` gives `EP_ERR_ARG`).
#[no_mangle]
#[c_export]
pub unsafe extern "C" fn EP_Group_translate_ranks(
    group1: EP_Group,
    n: c_int,
    ranks1: *const c_int,
    group2: EP_Group,
    ranks2: *mut c_int,
) -> c_int {
    let (a, b) = pair(group1, group2)?;
    let ranks1 = array(ranks1, n, "ranks1")?;
    let translated = a.translate(ranks1, &b, EP_UNDEFINED, EP_PROC_NULL)?;
    if n > 0 {
        let ranks2 = out(ranks2, "ranks2")?;
        // SAFETY: `ranks2` points at `n` writable ints (this function's contract); `ranks1`
        // may be the same array, whose values were all read above.
        unsafe { std::slice::from_raw_parts_mut(ranks2 as *mut c_int, translated.len()) }.copy_from_slice(&translated);
    }
    Ok(())
}

/// Compares two groups (MPI 4.1 section 7.3.1): `EP_IDENT` for the same endpoints in the same
/// order, `EP_SIMILAR` for the same endpoints in another order, `EP_UNEQUAL` otherwise.
/// Groups of different communicators over the same endpoints compare `EP_IDENT`. Errors:
/// `EP_ERR_GROUP`, `EP_ERR_ARG` (NULL `result`). Thread safety: any thread.
///
/// # Safety
/// `result` points at a writable `int` (NULL gives `EP_ERR_ARG`).
#[no_mangle]
#[c_export]
pub unsafe extern "C" fn EP_Group_compare(group1: EP_Group, group2: EP_Group, result: *mut c_int) -> c_int {
    let (a, b) = pair(group1, group2)?;
    *out(result, "result")? = match a.compare(&b) {
        GroupOrder::Same => EP_IDENT,
        GroupOrder::Permuted => EP_SIMILAR,
        GroupOrder::Different => EP_UNEQUAL,
    };
    Ok(())
}

/// Frees a group handle and sets `*group` to `EP_GROUP_NULL` (MPI 4.1 section 7.3.3);
/// communicators made from the group are not affected. Freeing `EP_GROUP_EMPTY` only sets
/// the handle to `EP_GROUP_NULL`. Errors: `EP_ERR_GROUP` (null, freed or not a group),
/// `EP_ERR_ARG` (NULL pointer). Thread safety: any thread.
///
/// # Safety
/// `group` points at a readable and writable `EP_Group` (NULL gives `EP_ERR_ARG`).
#[no_mangle]
#[c_export]
pub unsafe extern "C" fn EP_Group_free(group: *mut EP_Group) -> c_int {
    let h = out(group, "group")?;
    if *h == EP_GROUP_NULL {
        return Err(ep_err!(ERR_GROUP, "group handle {} is the null handle", *h));
    }
    free_group(*h)?;
    *h = EP_GROUP_NULL;
    Ok(())
}
