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

int source(int rank) { return rank == -2 ? EP_ANY_SOURCE : rank; }

void publish(MPI_Status *status)
{
    if (status) {
        status->ep_src = status->MPI_SOURCE;
        status->ep_tag = status->MPI_TAG;
    }
}

int adopt(int rc, EP_Comm handle, MPI_Comm *out)
{
    if (rc == EP_SUCCESS)
        *out = MPI_Comm::from_endpoint(handle);
    return rc;
}

} // namespace detail
} // namespace ep_lib
