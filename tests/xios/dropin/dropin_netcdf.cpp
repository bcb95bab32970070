/*
 * Host side, NetCDF-like: <mpi.h> came first, so MPI_Comm and MPI_Info at global scope are the
 * host's; ep_lib's communicators and infos reach them through `.mpi_comm` and `.mpi_info`.
 */
#include "dropin_host.hpp"

#include "dropin_api.hpp"

#include <type_traits>

static_assert(std::is_same<decltype(ep_lib::MPI_Comm().mpi_comm), MPI_Comm>::value, "mpi_comm is a host MPI_Comm");
static_assert(std::is_same<decltype(ep_lib::MPI_Info().mpi_info), MPI_Info>::value, "mpi_info is a host MPI_Info");
static_assert(std::is_same<ep_lib::MPI_Datatype, MPI_Datatype>::value, "ep_lib datatypes are the host's");
static_assert(std::is_same<ep_lib::MPI_Op, MPI_Op>::value, "ep_lib ops are the host's");

namespace nclike
{
/* The shape of NetCDF's nc_create_par: host communicator and info by value. */
static int create_par(const char *path, int mode, MPI_Comm comm, MPI_Info info, long *value)
{
    (void)path;
    (void)mode;
    if (info != MPI_INFO_NULL.mpi_info)
        return -1;
    MPI_Comm mine;
    if (MPI_Comm_dup(comm, &mine) != MPI_SUCCESS)
        return -1;
    long sum = 0;
    int rc = MPI_Allreduce(value, &sum, 1, MPI_LONG, MPI_SUM, mine);
    MPI_Comm_free(&mine);
    *value = sum;
    return rc == MPI_SUCCESS ? 0 : -1;
}
} // namespace nclike

void host_rank_size_of_fint(int fint, int *rank, int *size)
{
    MPI_Comm comm = MPI_Comm_f2c(fint);
    *rank = *size = -1;
    MPI_Comm_rank(comm, rank);
    MPI_Comm_size(comm, size);
}

int host_fint_null() { return (int)MPI_Comm_c2f(ep_lib::host::comm_null()); }

int host_fint_world() { return (int)MPI_Comm_c2f(ep_lib::host::comm_world()); }

long host_parallel_open(const ep_lib::MPI_Comm &comm, long value)
{
    ep_lib::MPI_Info info_null;
    long v = value;
    int rc = nclike::create_par("file.nc", 0, static_cast<MPI_Comm>(comm.mpi_comm), info_null.mpi_info, &v);
    return rc == 0 ? v : -1;
}

int host_world_sum(int value)
{
    int sum = 0;
    MPI_Allreduce(&value, &sum, 1, MPI_INT, MPI_SUM, ep_lib::host::comm_world());
    return sum;
}
