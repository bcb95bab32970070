// Helpers shared by the adapter's sources (see detail.hpp).
#include "detail.hpp"

#include <cstdio>

namespace ep_lib
{
namespace detail
{

int fail(EP_Comm about, int error_class, const char *call, const char *why)
{
    int handler = EP_ERRORS_ARE_FATAL;
    int rc = EP_Comm_get_errhandler(about, &handler);
    if (rc != EP_SUCCESS)
        return rc; // an invalid `about`: EPMPI's handler has dealt with it
    if (handler == EP_ERRORS_RETURN)
        return error_class;
    std::fprintf(stderr, "EPMPI fatal error in ep_lib::%s: %s; aborting (set EP_ERRORS_RETURN to handle errors)\n",
                 call, why);
    std::fflush(stderr);
    EP_Abort(about, error_class);
    return error_class; // not reached while MPI runs
}

bool endpoint(const MPI_Comm &comm, const char *call, EP_Comm *handle, int *rc)
{
    if (comm.ep_comm != EP_COMM_NULL) {
        *handle = comm.ep_comm;
        return true;
    }
    const char *why = comm.is_null() ? "the communicator is MPI_COMM_NULL"
                                     : "the communicator is a host communicator (such as MPI_COMM_WORLD), not an "
                                       "endpoint communicator: create endpoints from it with MPI_Comm_create_endpoints";
    *rc = fail(EP_COMM_NULL, EP_ERR_COMM, call, why);
    return false;
}

bool present(const void *p, const char *what, const char *call, EP_Comm about, int *rc)
{
    if (p)
        return true;
    char why[128];
    std::snprintf(why, sizeof why, "%s is NULL", what);
    *rc = fail(about, EP_ERR_ARG, call, why);
    return false;
}

int source(int rank)
{
    if (rank == -2 || rank == MPI_ANY_SOURCE)
        return EP_ANY_SOURCE;
    if (rank == MPI_PROC_NULL)
        return EP_PROC_NULL;
    return rank;
}

static_assert(sizeof(EP_Status) == 6 * sizeof(int) && EP_STATUS_SIZE == 6,
              "ep_lib::MPI_Status holds the six words of EP_Status");

EP_Status to_ep(const MPI_Status &status)
{
    EP_Status ep;
    ep.MPI_SOURCE = status.MPI_SOURCE;
    ep.MPI_TAG = status.MPI_TAG;
    ep.MPI_ERROR = status.MPI_ERROR;
    ep.ep_count_lo = status.ep_private[0];
    ep.ep_count_hi = status.ep_private[1];
    ep.ep_cancelled = status.ep_private[2];
    return ep;
}

void publish(const EP_Status &from, MPI_Status *status)
{
    if (ignored(status))
        return;
    status->MPI_SOURCE = from.MPI_SOURCE;
    status->MPI_TAG = from.MPI_TAG;
    status->MPI_ERROR = from.MPI_ERROR;
    status->ep_private[0] = from.ep_count_lo;
    status->ep_private[1] = from.ep_count_hi;
    status->ep_private[2] = from.ep_cancelled;
    status->ep_src = from.MPI_SOURCE;
    status->ep_tag = from.MPI_TAG;
}

EP_Status *fill(MPI_Status *status, EP_Status *scratch)
{
    if (ignored(status))
        return EP_STATUS_IGNORE;
    *scratch = to_ep(*status);
    return scratch;
}

int adopt(int rc, EP_Comm handle, MPI_Comm *out)
{
    if (rc == EP_SUCCESS)
        *out = MPI_Comm::from_endpoint(handle);
    return rc;
}

} // namespace detail
} // namespace ep_lib
