# Steers FindMPI to one MPI when several are installed side by side. Used by EPMPI's build and,
# installed next to EPMPIConfig.cmake, by find_package(EPMPI), so both make the same choice.
#
# Debian-style systems install every MPI's wrappers in /usr/bin with a suffix (mpicc.mpich,
# mpif90.mpich, mpiexec.mpich, ...); FindMPI looks them up by plain name unless
# MPI_EXECUTABLE_SUFFIX is set. A user who names only the C wrapper
# (-DMPI_C_COMPILER=mpicc.mpich) would otherwise get MPICH for C but the default MPI's Fortran
# wrapper and mpiexec. MPI_HOME / MPI_ROOT (MPIs in their own prefix) need no help.

# epmpi_choose_mpi([DEFAULT_SUFFIX <suffix>])
#   If MPI_EXECUTABLE_SUFFIX is not set: take it from the suffix of a wrapper the user named
#   (MPI_C_COMPILER=mpicc.mpich -> .mpich), else use DEFAULT_SUFFIX (the suffix EPMPI was built
#   with) when nothing else chooses the MPI and a wrapper with that suffix exists. A macro: the
#   variables it sets are FindMPI's inputs in the caller's scope.
macro(epmpi_choose_mpi)
    cmake_parse_arguments(_epmpi_cm "" "DEFAULT_SUFFIX" "" ${ARGN})
    if(NOT DEFINED MPI_EXECUTABLE_SUFFIX)
        foreach(_epmpi_cm_lang IN ITEMS C CXX Fortran)
            if(MPI_${_epmpi_cm_lang}_COMPILER AND NOT DEFINED MPI_EXECUTABLE_SUFFIX)
                get_filename_component(_epmpi_cm_name "${MPI_${_epmpi_cm_lang}_COMPILER}" NAME)
                # mpicc.mpich, mpicxx.openmpi, mpif90.mpich, mpifort.openmpi, ...
                if(_epmpi_cm_name MATCHES "^mpi[a-zA-Z+0-9]+(\\.[A-Za-z][A-Za-z0-9_-]*)$")
                    set(MPI_EXECUTABLE_SUFFIX "${CMAKE_MATCH_1}")
                endif()
            endif()
        endforeach()
    endif()
    if(NOT DEFINED MPI_EXECUTABLE_SUFFIX AND _epmpi_cm_DEFAULT_SUFFIX
       AND NOT MPI_C_COMPILER AND NOT MPI_CXX_COMPILER AND NOT MPI_Fortran_COMPILER
       AND NOT MPIEXEC_EXECUTABLE AND NOT MPI_HOME AND NOT MPI_ROOT
       AND NOT DEFINED ENV{MPI_HOME} AND NOT DEFINED ENV{MPI_ROOT} AND NOT DEFINED ENV{I_MPI_ROOT})
        # (a cache entry removed at once: NO_CACHE needs CMake 3.21)
        find_program(_epmpi_cm_wrapper NAMES "mpicc${_epmpi_cm_DEFAULT_SUFFIX}")
        if(_epmpi_cm_wrapper)
            set(MPI_EXECUTABLE_SUFFIX "${_epmpi_cm_DEFAULT_SUFFIX}")
        endif()
        unset(_epmpi_cm_wrapper CACHE)
    endif()
    unset(_epmpi_cm_lang)
    unset(_epmpi_cm_name)
    unset(_epmpi_cm_DEFAULT_SUFFIX)
endmacro()
