//! The host communicator under an endpoint communicator, for process-level libraries (parallel
//! NetCDF, MPI-IO) that need a plain MPI communicator over the same processes. EPMPI extension;
//! XIOS's endpoints library exposes the same thing as the field `comm.mpi_comm`.

use super::boundary::out;
use crate::handles::endpoint;
use super::types::EP_Comm;
use epmpi_macros::c_export;
use crate::host::sys::MPI_Comm;
use std::os::raw::c_int;

/// Gives in `*host_comm` the host MPI communicator over the processes of the endpoint
/// communicator `comm`: one host rank per process that has endpoints in `comm` (both groups'
/// processes for an intercommunicator, an intracommunicator in either case), the process's
/// host rank being the `process_rank` of `EP_Comm_local_info`. Every endpoint of a process gets
/// the same host communicator.
///
/// It belongs to EPMPI: valid until the last endpoint of this process has freed `comm`; do not
/// free it. Use it for collective calls from one thread per process, not at the same time as
/// EPMPI collectives on `comm`, and not for point-to-point messages (EPMPI's own traffic runs
/// on it); libraries that duplicate it first (MPI-IO, parallel NetCDF and HDF5 do) are fine.
/// `MPI_Comm_dup` it (collective over its processes) to get one without these limits.
///
/// Errors: `EP_ERR_COMM` (invalid handle), `EP_ERR_ARG` (NULL `host_comm`).
/// Thread safety: any thread; no communication.
///
/// # Safety
/// `host_comm` points at a writable `MPI_Comm` (NULL gives `EP_ERR_ARG`).
#[no_mangle]
#[c_export]
pub unsafe extern "C" fn EP_Comm_get_host_comm(comm: EP_Comm, host_comm: *mut MPI_Comm) -> c_int {
    let ep = endpoint(comm)?;
    *out(host_comm, "host_comm")? = ep.shared.host.0;
    Ok(())
}
