//! The team form of creation, `EP_Comm_create_endpoint`: `my_num_ep` threads of a process
//! each call once with their own index. The k-th call of index i on a parent communicator
//! joins the k-th creation on that parent (a meeting keyed by the parent, see
//! [`super::meeting`]); the last thread to arrive performs the collective part for the whole
//! process, the others wait for it.
//!
//! Identity comes from the `index` argument, never from `omp_get_thread_num()`, so nested
//! regions, teams of any size and non-OpenMP threads all work.

use super::comm::CommShared;
use super::create::{check_num_ep, create_shared};
use super::meeting::MeetingPoint;
use crate::ep_err;
use crate::error::{EpError, EpResult, ERR_ARG};
use crate::host::{handle_bits, sys};
use std::os::raw::c_int;
use std::sync::Arc;

/// Team creations in progress, by parent communicator.
static CREATIONS: MeetingPoint<u64> = MeetingPoint::new();

/// Joins the team creation on `parent` as `index` of `my_num_ep`; returns the shared state
/// every member gets. `fault` is an error in this thread's other arguments (its output
/// pointer): the creation then fails on every endpoint of every process. A thread whose
/// `my_num_ep` or `index` is out of range, or whose `my_num_ep` differs from its team's, has
/// no place in the creation and gets `EP_ERR_ARG` alone.
pub fn join(parent: sys::MPI_Comm, my_num_ep: c_int, index: c_int, fault: Option<EpError>) -> EpResult<Arc<CommShared>> {
    check_num_ep(my_num_ep)?;
    if my_num_ep == 0 {
        return Err(ep_err!(ERR_ARG, "my_num_ep = 0: a process with no endpoints calls EP_Comm_create_endpoints"));
    }
    if !(0..my_num_ep).contains(&index) {
        return Err(ep_err!(ERR_ARG, "index {index} is outside 0..{my_num_ep}"));
    }
    let created = CREATIONS.meet(handle_bits(parent), my_num_ep as usize, index as usize, (), fault, |g| {
        create_shared(parent, my_num_ep, g.fault).map(|s| s.expect("my_num_ep > 0 gives a communicator"))
    })?;
    Ok((*created).clone())
}
