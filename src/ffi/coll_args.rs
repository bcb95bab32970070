//! Checks of collective arguments shared by the intracommunicator and intercommunicator forms
//! of the collectives (`coll_api.rs`, `coll_inter.rs`): `MPI_IN_PLACE`, roots, user buffers,
//! per-rank arrays and blocks laid out by them.

use super::types::*;
use crate::engine::coll::{Blocks, Layout};
use crate::engine::comm::Endpoint;
use crate::engine::datatype::{type_info, UserBuf};
use crate::ep_err;
use crate::error::{EpResult, ERR_ARG, ERR_BUFFER, ERR_COUNT, ERR_ROOT};
use crate::host::sys::MPI_Datatype;
use crate::host::HOST;
use std::os::raw::{c_int, c_void};

/// True for the host's `MPI_IN_PLACE`.
pub(super) fn is_in_place(p: *const c_void) -> bool {
    std::ptr::eq(p, HOST.in_place)
}

/// The root argument of an intercommunicator collective (MPI 4.1 section 6.2.2): `EP_ROOT`,
/// `EP_PROC_NULL` or a rank of the remote group.
pub(super) fn check_inter_root(ep: &Endpoint, root: c_int) -> EpResult<()> {
    let remote = ep.shared.peer_map(ep.local).size() as c_int;
    if root == EP_ROOT || root == EP_PROC_NULL || (0..remote).contains(&root) {
        return Ok(());
    }
    let hint = if root == HOST.root && root != EP_ROOT {
        " (that is the host's MPI_ROOT: pass EP_ROOT)"
    } else if root == HOST.proc_null && root != EP_PROC_NULL {
        " (that is the host's MPI_PROC_NULL: pass EP_PROC_NULL)"
    } else {
        ""
    };
    Err(ep_err!(
        ERR_ROOT,
        "root {root} of an intercommunicator collective is none of EP_ROOT, EP_PROC_NULL, 0..{remote}{hint}"
    ))
}

/// A user buffer that must not be `MPI_IN_PLACE`. Inline, as is `reduction_input`: their
/// results, returned through memory, were written field by field and copied on whole, which
/// waited on the store forwarding twice per small reduction.
///
/// # Safety
/// The buffer arguments are the user's: valid for their counts and datatypes until the
/// operation completes (MPI 4.1 section 3.7.2), as the calling C function's contract says.
#[inline(always)]
pub(super) unsafe fn data_buf(p: *const c_void, count: c_int, t: MPI_Datatype, what: &str) -> EpResult<UserBuf> {
    if is_in_place(p) {
        return Err(ep_err!(ERR_BUFFER, "{what} is MPI_IN_PLACE, which MPI does not allow here"));
    }
    UserBuf::new(p, count, t)
}

/// A per-rank array of `n` ints given by the user (counts are checked non-negative).
///
/// # Safety
/// `p` (if not NULL) holds `n` readable ints for the call.
pub(super) unsafe fn per_rank_n<'a>(p: *const c_int, n: usize, what: &str, are_counts: bool) -> EpResult<&'a [c_int]> {
    if p.is_null() {
        return Err(ep_err!(ERR_ARG, "{what} is NULL"));
    }
    let v = std::slice::from_raw_parts(p, n);
    if are_counts {
        if let Some((r, c)) = v.iter().enumerate().find(|(_, &c)| c < 0) {
            return Err(ep_err!(ERR_COUNT, "{what}[{r}] = {c} is negative"));
        }
    }
    Ok(v)
}

/// Blocks of datatype `t` at `base` laid out by `layout` (a receive or send buffer of
/// blocks per rank): counts non-negative, not `MPI_IN_PLACE`, not NULL with data.
pub(super) fn blocks<'a>(base: *mut c_void, t: MPI_Datatype, layout: Layout<'a>, what: &str) -> EpResult<Blocks<'a>> {
    if let Layout::Uniform(c) = layout {
        if c < 0 {
            return Err(ep_err!(ERR_COUNT, "{what} count {c} is negative"));
        }
    }
    let info = type_info(t)?;
    if is_in_place(base) {
        return Err(ep_err!(ERR_BUFFER, "{what} is MPI_IN_PLACE, which MPI does not allow here"));
    }
    // Checked here, before the endpoint joins the collective: an endpoint that fails after
    // joining leaves its process's other endpoints waiting for a collective that never comes.
    let has_data = info.size > 0
        && match layout {
            Layout::Uniform(c) => c > 0,
            Layout::Varied { counts, .. } => counts.iter().any(|&c| c > 0),
        };
    if base.is_null() && has_data {
        return Err(ep_err!(ERR_BUFFER, "{what} is NULL with data to hold"));
    }
    Ok(Blocks { base, dtype: t, info, layout })
}
