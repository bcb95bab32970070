# Sources of the Fortran module `ep_mpi`, relative to this directory, in compile order (each
# Fortran file uses the modules of the ones before it). Included by the CMake package
# (cmake/EPMPIFortran.cmake); tests/fortran_programs.rs reads it too, so this list is the one
# place that names them.
#
# Build them against the same host MPI as libepmpi: ep_mpi_glue.c with its C compiler
# (MPI::MPI_C; the C compiler that goes with the Fortran one, as the glue includes
# <ISO_Fortran_binding.h>) and include/, the .f90 files with its Fortran compiler
# (MPI::MPI_Fortran: they `use mpi`). Link the result with libepmpi. Users compile against the
# .mod files with the same Fortran compiler and default-kind flags as the module.
set(EPMPI_FORTRAN_SOURCES
    ep_mpi_glue.c
    ep_mpi_c.f90
    ep_mpi.f90
)
