!> The module that `use ep_mpi` becomes under the standard names (tests/fortran/ep_as_mpi.h): the
!> host's `use mpi` and the standard-names layer's own entry points (include/epmpi_mpixf.h:
!> mpix_comm_create_endpoints and EPMPI's other extensions).
module ep_as_mpi
  use mpi
  implicit none
  include 'epmpi_mpixf.h'
end module ep_as_mpi
