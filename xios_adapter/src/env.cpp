// ep_lib environment calls: initialisation, finalisation, abort, time, memory.
#include "detail.hpp"

#include <cstdio>

namespace ep_lib
{

int MPI_Init(int *argc, char ***argv)
{
    int provided = MPI_THREAD_SINGLE;
    if (::MPI_Init_thread(argc, argv, MPI_THREAD_MULTIPLE, &provided) != MPI_SUCCESS)
        return detail::fail(EP_COMM_NULL, EP_ERR_OTHER, "MPI_Init", "the host's MPI_Init_thread failed");
    if (provided != MPI_THREAD_MULTIPLE) {
        char why[160];
        std::snprintf(why, sizeof why,
                      "the host MPI provides thread level %d, endpoints need MPI_THREAD_MULTIPLE (%d)", provided,
                      MPI_THREAD_MULTIPLE);
        return detail::fail(EP_COMM_NULL, EP_ERR_THREAD_LEVEL, "MPI_Init", why);
    }
    return EP_SUCCESS;
}

int MPI_Initialized(int *flag)
{
    int rc = EP_SUCCESS;
    if (!detail::present(flag, "flag", "MPI_Initialized", EP_COMM_NULL, &rc))
        return rc;
    return ::MPI_Initialized(flag);
}

int MPI_Finalize() { return ::MPI_Finalize(); }

int MPI_Abort(MPI_Comm comm, int errorcode)
{
    if (detail::is_host(comm))
        return ::MPI_Abort(comm.mpi_comm, errorcode);
    return EP_Abort(comm.ep_comm, errorcode);
}

double MPI_Wtime() { return EP_Wtime(); }

int MPI_Alloc_mem(MPI_Aint size, MPI_Info info, void *baseptr)
{
    int rc = EP_SUCCESS;
    if (!detail::present(baseptr, "baseptr", "MPI_Alloc_mem", EP_COMM_NULL, &rc))
        return rc;
    if (size < 0)
        return detail::fail(EP_COMM_NULL, EP_ERR_ARG, "MPI_Alloc_mem", "the size is negative");
    return ::MPI_Alloc_mem(size, info.mpi_info, baseptr);
}

int MPI_Free_mem(void *base) { return ::MPI_Free_mem(base); }

} // namespace ep_lib
