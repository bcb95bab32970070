/*
 * Host side, <mpi.h> after the endpoints headers (as a library header that includes it later
 * would): the host's macros take the names back from there on, and must mean what ep_lib's
 * globals of the same names hold.
 */
#include "dropin_ep.hpp"

/* ep_lib's globals, taken while the names are still theirs. */
static ep_lib::MPI_Datatype *const ep_int = &MPI_INT;
static ep_lib::MPI_Datatype *const ep_double = &MPI_DOUBLE;
static ep_lib::MPI_Datatype *const ep_long = &MPI_LONG;
static ep_lib::MPI_Datatype *const ep_char = &MPI_CHAR;
static ep_lib::MPI_Op *const ep_sum = &MPI_SUM;
static ep_lib::MPI_Op *const ep_min = &MPI_MIN;
static ep_lib::MPI_Op *const ep_max = &MPI_MAX;
static ep_lib::MPI_Comm *const ep_world = &MPI_COMM_WORLD;
static ep_lib::MPI_Info *const ep_info_null = &MPI_INFO_NULL;
static const void *const ep_in_place = MPI_IN_PLACE;

#include <mpi.h> /* without its C++ bindings: ep_lib.hpp asked for that */

#include "dropin_api.hpp"

#include <type_traits>

static_assert(std::is_same<decltype(ep_lib::MPI_Comm().mpi_comm), MPI_Comm>::value, "mpi_comm is a host MPI_Comm");

int late_host_size(const ep_lib::MPI_Comm &comm)
{
    int n = -1;
    MPI_Comm_size(comm.mpi_comm, &n);
    return n;
}

bool late_constants_agree()
{
    return *ep_int == MPI_INT && *ep_double == MPI_DOUBLE && *ep_long == MPI_LONG && *ep_char == MPI_CHAR &&
           *ep_sum == MPI_SUM && *ep_min == MPI_MIN && *ep_max == MPI_MAX && ep_world->mpi_comm == MPI_COMM_WORLD &&
           ep_info_null->mpi_info == MPI_INFO_NULL && ep_in_place == MPI_IN_PLACE;
}
