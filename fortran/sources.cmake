# Sources of the Fortran module `ep_mpi`, in compile order (each Fortran file uses the modules
# of the ones before it). Included by the CMake package; tests/fortran_programs.rs reads it too,
# so this list is the one place that names them.
#
# Build them against the same host MPI as libepmpi: ep_mpi_glue.c with its C compiler
# (MPI::MPI_C, the C compiler that goes with the Fortran one: it includes
# <ISO_Fortran_binding.h>) and the include/ directory, the .f90 files with its Fortran compiler
# (MPI::MPI_Fortran: they `use mpi`). Link the result with libepmpi. Users compile against the
# .mod files with the same Fortran compiler and default-kind flags as the module.
#
# Transitional: while include/ep_mpi.h lacks the collectives of issue 3 (EP_Bcast...), compile
# ep_mpi_glue.c with -DEPMPI_GLUE_WITHOUT_COLLECTIVES, and while it lacks the intercommunicators
# of issue 4 (EP_Intercomm_create), with -DEPMPI_GLUE_WITHOUT_INTERCOMM (those Fortran routines
# then return EP_ERR_UNSUPPORTED).
set(EPMPI_FORTRAN_SOURCES
    ${CMAKE_CURRENT_LIST_DIR}/ep_mpi_glue.c
    ${CMAKE_CURRENT_LIST_DIR}/ep_mpi_c.f90
    ${CMAKE_CURRENT_LIST_DIR}/ep_mpi.f90
)
