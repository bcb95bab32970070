//! Creating endpoint communicators: the process's part of `EP_Comm_create_endpoints` (the
//! array form, which the team form uses too) and of `EP_Comm_dup`.
//!
//! Above the communicator's state ([`super::comm`]) and the requests: the first communicator a
//! process creates registers what patient blocked calls progress (see
//! [`super::request::patient_progress`]), which every later communicator comes from.

use super::backoff;
use super::comm::{CommShared, Endpoint, Flavor, MAX_ENDPOINTS_PER_PROCESS};
use super::meeting::{agree, failed_elsewhere};
use super::rankmap::RankMap;
use super::request;
use crate::ep_err;
use crate::error::{EpError, EpResult, ERR_ARG, ERR_NOT_INITIALIZED, ERR_THREAD_LEVEL};
use crate::host::{self, check, sys, HostComm, HOST};
use std::os::raw::c_int;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::Arc;

static IDENTITY_SERIAL: AtomicU32 = AtomicU32::new(0);

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
             (initialize with MPI_Init_thread(..., MPI_THREAD_MULTIPLE, ...), or under the standard-names \
             layer set EPMPI_HOST_THREAD_LEVEL=multiple)"
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
    backoff::on_patience(request::patient_progress);
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
    // The `auto` wait policy compares the node's endpoints with its cores (engine::doorbell).
    let on_node = host::node_sum(host_comm, count)?;
    let shared = CommShared::new(host_comm, map, Flavor::Endpoints)?;
    std::mem::forget(guard);
    super::doorbell::note_endpoints(count as usize, on_node as usize);
    Ok(Some(shared))
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
        // Every process of `old.host` gets here when any of them had a fault (its own, or the
        // short communicator above).
        let worst = host::allreduce_int(old.host, fault, HOST.op_max)?;
        return Err(failed_elsewhere(worst.max(1)));
    }
    let shared =
        CommShared::with_groups(host_comm, old.map.clone(), old.other.clone(), old.flavor)?;
    std::mem::forget(guard);
    Ok(shared)
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
