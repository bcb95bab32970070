// The host's predefined handles that ep_lib.hpp hides, the predefined names XIOS reads at global
// scope, and the checks that ep_lib.hpp spells the host's handle types as <mpi.h> does.
#include "host_mpi.hpp"

#include <type_traits>

namespace
{
// Read before ep_lib.hpp #undefs the host's macros of these names.
const ::MPI_Comm host_world = MPI_COMM_WORLD;
const ::MPI_Comm host_comm_null = MPI_COMM_NULL;
const ::MPI_Info host_info_null = MPI_INFO_NULL;
const ::MPI_Datatype host_int = MPI_INT;
const ::MPI_Datatype host_float = MPI_FLOAT;
const ::MPI_Datatype host_double = MPI_DOUBLE;
const ::MPI_Datatype host_char = MPI_CHAR;
const ::MPI_Datatype host_long = MPI_LONG;
const ::MPI_Datatype host_unsigned_long = MPI_UNSIGNED_LONG;
const ::MPI_Datatype host_unsigned_char = MPI_UNSIGNED_CHAR;
const ::MPI_Op host_sum = MPI_SUM;
const ::MPI_Op host_max = MPI_MAX;
const ::MPI_Op host_min = MPI_MIN;
int host_fortran_comm(::MPI_Comm comm) { return static_cast<int>(MPI_Comm_c2f(comm)); }
::MPI_Comm host_comm_of_fortran(int fint) { return MPI_Comm_f2c(static_cast<MPI_Fint>(fint)); }
} // namespace

#include "detail.hpp"

static_assert(std::is_same<ep_lib::host::Comm, ::MPI_Comm>::value, "ep_lib::host::Comm is not the host's MPI_Comm");
static_assert(std::is_same<ep_lib::host::Info, ::MPI_Info>::value, "ep_lib::host::Info is not the host's MPI_Info");
static_assert(std::is_same<ep_lib::host::Datatype, ::MPI_Datatype>::value,
              "ep_lib::host::Datatype is not the host's MPI_Datatype");
static_assert(std::is_same<ep_lib::host::Op, ::MPI_Op>::value, "ep_lib::host::Op is not the host's MPI_Op");
static_assert(std::is_same<ep_lib::host::Aint, ::MPI_Aint>::value, "ep_lib::host::Aint is not the host's MPI_Aint");
static_assert(MPI_UNDEFINED == -32766, "ep_lib.hpp gives MPI_UNDEFINED the value -32766");

namespace ep_lib
{
namespace host
{
Comm comm_world() { return host_world; }
Comm comm_null() { return host_comm_null; }
Info info_null() { return host_info_null; }
int comm_c2f(Comm comm) { return host_fortran_comm(comm); }
Comm comm_f2c(int fint) { return host_comm_of_fortran(fint); }
} // namespace host

MPI_Comm *passage = nullptr;
} // namespace ep_lib

ep_lib::MPI_Datatype MPI_INT = host_int;
ep_lib::MPI_Datatype MPI_FLOAT = host_float;
ep_lib::MPI_Datatype MPI_DOUBLE = host_double;
ep_lib::MPI_Datatype MPI_CHAR = host_char;
ep_lib::MPI_Datatype MPI_LONG = host_long;
ep_lib::MPI_Datatype MPI_UNSIGNED_LONG = host_unsigned_long;
ep_lib::MPI_Datatype MPI_UNSIGNED_CHAR = host_unsigned_char;
ep_lib::MPI_Op MPI_SUM = host_sum;
ep_lib::MPI_Op MPI_MAX = host_max;
ep_lib::MPI_Op MPI_MIN = host_min;
ep_lib::MPI_Comm MPI_COMM_WORLD = ep_lib::MPI_Comm::from_host(host_world);
ep_lib::MPI_Comm MPI_COMM_NULL;
ep_lib::MPI_Status MPI_STATUS_IGNORE;
ep_lib::MPI_Request MPI_REQUEST_NULL;
ep_lib::MPI_Info MPI_INFO_NULL;
