/*
 * detail.hpp: helpers shared by the adapter's sources (not installed): reporting errors the
 * adapter finds itself, reaching the EPMPI handle of a communicator, statuses, wildcards.
 */
#ifndef EPMPI_XIOS_DETAIL_HPP
#define EPMPI_XIOS_DETAIL_HPP

#include "host_mpi.hpp" // first: see there

#include "ep_lib.hpp"

namespace ep_lib
{
namespace detail
{

/** Reports an error found by the adapter (not by EPMPI) in ep_lib call `call`, as EPMPI reports
 *  its own: through the error handler of endpoint `about` (EP_COMM_NULL: the process default).
 *  With EP_ERRORS_RETURN gives back `error_class`; with EP_ERRORS_ARE_FATAL prints
 *  "EPMPI fatal error in ep_lib::<call>: <why>" and aborts the job (EP_Abort). Any thread. */
int fail(EP_Comm about, int error_class, const char *call, const char *why);

/** The EPMPI handle of `comm` in `*handle`; for a null or host communicator reports
 *  EP_ERR_COMM (see fail) into `*rc` and returns false. */
bool endpoint(const MPI_Comm &comm, const char *call, EP_Comm *handle, int *rc);

/** True for a host communicator (not an endpoint one, not null). */
inline bool is_host(const MPI_Comm &comm) { return comm.ep_comm == EP_COMM_NULL && !comm.is_null(); }

/** False with EP_ERR_ARG reported into `*rc` when the output pointer `p` (named `what`) is
 *  NULL. */
bool present(const void *p, const char *what, const char *call, EP_Comm about, int *rc);

/** The EPMPI source rank of an ep_lib source argument: XIOS's wildcard literal -2 and the host's
 *  MPI_ANY_SOURCE are EP_ANY_SOURCE, the host's MPI_PROC_NULL (where it is not -2) is
 *  EP_PROC_NULL, other values are ranks. */
int source(int rank);

/** `call_ep(handle)` on the endpoint of `comm`: the error of a null or host communicator
 *  (see endpoint) otherwise. */
template <typename F> int on_endpoint(const MPI_Comm &comm, const char *call, F call_ep)
{
    EP_Comm h;
    int rc;
    return endpoint(comm, call, &h, &rc) ? call_ep(h) : rc;
}

/** on_endpoint, the required output pointer `out` (named `what`) checked first. */
template <typename F> int on_endpoint(const MPI_Comm &comm, const void *out, const char *what, const char *call, F call_ep)
{
    EP_Comm h;
    int rc;
    return endpoint(comm, call, &h, &rc) && present(out, what, call, h, &rc) ? call_ep(h) : rc;
}

/** `rc`, and when it is EP_SUCCESS the communicator of `handle` in `*out`. */
int adopt(int rc, EP_Comm handle, MPI_Comm *out);

/** A call that makes a communicator: `call_ep(handle, &created)` on the endpoint of `comm`, then
 *  `*out` (required, named `what`) becomes the communicator of `created`. */
template <typename F> int creating(const MPI_Comm &comm, MPI_Comm *out, const char *what, const char *call, F call_ep)
{
    return on_endpoint(comm, out, what, call, [&](EP_Comm h) {
        EP_Comm created = EP_COMM_NULL;
        int rc = call_ep(h, &created);
        return adopt(rc, created, out);
    });
}

/** True when `status` asks for nothing: NULL or &MPI_STATUS_IGNORE. */
inline bool ignored(const MPI_Status *status) { return !status || status == &::MPI_STATUS_IGNORE; }

/** The EPMPI status of an ep_lib status (its words, as they are). */
EP_Status to_ep(const MPI_Status &status);

/** Copies an EPMPI status into an ep_lib one and sets XIOS's ep_src and ep_tag from it
 *  (nothing when `status` is ignored, see ignored). */
void publish(const EP_Status &from, MPI_Status *status);

/** A status for EPMPI to fill: `*scratch` primed with `*status`'s words (an untouched status
 *  keeps its value), EP_STATUS_IGNORE when `status` is ignored. */
EP_Status *fill(MPI_Status *status, EP_Status *scratch);

} // namespace detail
} // namespace ep_lib

#endif /* EPMPI_XIOS_DETAIL_HPP */
