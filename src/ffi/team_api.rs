//! Endpoint teams (docs/teams.md, after the IBM proposal "MPI3: Hybrid Programming" extension
//! for horizontal parallelism; no MPI 4.1 counterpart): `EP_Endpoint_team_create`,
//! `EP_Endpoint_join`, `EP_Endpoint_leave`, `EP_Endpoint_team_destroy`.
//!
//! Threads with nothing to communicate in a phase join a team; the large same-process copies
//! and local reductions that members start meanwhile are shared among the members waiting in the
//! library, and `EP_Endpoint_leave` is the members' barrier, working on the team's share until
//! all have left. A team changes who does the work, never what MPI sees: matching, order and
//! completion stay those of the endpoint the call was made on.
//!
//! No communicator is involved, so errors go through the default error handler (the one
//! `EP_Comm_set_errhandler(EP_COMM_NULL, ...)` sets).
#![allow(non_camel_case_types)]

use super::boundary::out;
use crate::engine::endpoint_team;
use crate::handles::teams::{destroy_team, new_team, team};
use epmpi_macros::c_export;
use std::os::raw::c_int;

/// An endpoint team handle: the same value in C and Fortran.
pub type EP_Endpoint_team = c_int;

/// The null endpoint team handle; `EP_Endpoint_team_destroy` sets the handle to it.
pub const EP_ENDPOINT_TEAM_NULL: EP_Endpoint_team = 0;

/// Creates endpoint team `team_id` of `team_size` members, or joins the creation of the
/// other members' calls with the same `team_id` in this process, and stores a handle of its own
/// in `*team`. Called once by each of the `team_size` threads that will be members; does not
/// wait for the others (after the IBM endpoint-teams proposal; no MPI 4.1 counterpart). A
/// `team_id` is unique among the live teams of the process and may be reused once every
/// creator destroyed its handle.
///
/// Errors: `EP_ERR_ARG` for `team_id` < 0, `team_size` < 1, a live team `team_id` of another
/// size, a team already created by `team_size` calls, NULL `team`. Thread safety: any thread.
///
/// # Safety
/// `team` points at a writable `EP_Endpoint_team` (NULL gives `EP_ERR_ARG`).
#[no_mangle]
#[c_export]
pub unsafe extern "C" fn EP_Endpoint_team_create(
    team_id: c_int,
    team_size: c_int,
    team: *mut EP_Endpoint_team,
) -> c_int {
    let out = out(team, "team")?;
    *out = new_team(endpoint_team::create(team_id, team_size)?)?;
    Ok(())
}

/// Makes the calling thread a member of `team` until its `EP_Endpoint_leave`: from now on the
/// large copies and local reductions of the other members (same-process messages above 512 KiB
/// between contiguous buffers, `EP_Allreduce`/`EP_Reduce` folds of at least 512 KiB) may be
/// shared with this thread whenever it waits in the library, and its own are shared with them.
/// Does not wait. A thread is a member of one team at a time.
///
/// Errors: `EP_ERR_ARG` for a handle that is not a live team's, a thread that is already a
/// member (of this team or another), more than `team_size` members joining one round. Thread
/// safety: any thread; the membership is the calling thread's.
///
/// # Safety
/// No pointer argument; any handle value is accepted (a bad one is an error).
#[no_mangle]
#[c_export]
pub unsafe extern "C" fn EP_Endpoint_join(team: EP_Endpoint_team) -> c_int {
    endpoint_team::join(&self::team(team)?)
}

/// Leaves `team`: collective and blocking over the team's `team_size` members, it returns once
/// every member of the round has called it, and meanwhile takes a share of the work the
/// members started (as a waiter in `MPI_Wait` progresses communication). On return the calling
/// thread is in no team.
///
/// Takes the team handle (the proposal's `MPI_ENDPOINT_LEAVE` takes none): EPMPI keeps every
/// identity in handles, and the handle lets a program that leaves a team it did not join be
/// told so rather than wait on the wrong barrier.
///
/// Errors: `EP_ERR_ARG` for a handle that is not a live team's, a thread that did not join
/// `team` (or joined another team). Thread safety: any thread; each member calls it once per
/// join. A member that never calls it keeps the others waiting (as a barrier would).
///
/// # Safety
/// No pointer argument; any handle value is accepted (a bad one is an error).
#[no_mangle]
#[c_export]
pub unsafe extern "C" fn EP_Endpoint_leave(team: EP_Endpoint_team) -> c_int {
    endpoint_team::leave(&self::team(team)?)
}

/// Destroys the calling thread's handle of a team and sets `*team` to
/// `EP_ENDPOINT_TEAM_NULL`; the team itself goes with the last of its creators' handles, and its
/// `team_id` may then be created again. Does not wait.
///
/// Errors: `EP_ERR_ARG` for NULL `team`, a handle that is not a live team's, a caller that is a
/// member (between join and leave), or a round in progress (a member joined and the round is
/// not over); the handle then stays valid. Thread safety: any thread.
///
/// # Safety
/// `team` points at a readable and writable `EP_Endpoint_team` (NULL gives `EP_ERR_ARG`).
#[no_mangle]
#[c_export]
pub unsafe extern "C" fn EP_Endpoint_team_destroy(team: *mut EP_Endpoint_team) -> c_int {
    let h = out(team, "team")?;
    destroy_team(*h, endpoint_team::destroy)?;
    *h = EP_ENDPOINT_TEAM_NULL;
    Ok(())
}
