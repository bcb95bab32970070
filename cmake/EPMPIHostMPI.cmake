# Which MPI. EPMPI's build and its installed package (EPMPIConfig.cmake includes this file)
# both use it, so that they steer FindMPI the same way and recognise the MPI they got: EPMPI
# works with the MPI it was built against only (handles and MPI_Status differ between MPIs).

# epmpi_choose_mpi([DEFAULT_SUFFIX <suffix>]) steers FindMPI, before find_package(MPI), to the
# MPI the user named, for every language. FindMPI looks for each language's wrapper and for
# mpiexec by plain name (mpicxx, mpiexec), which on a system with several MPIs can be another
# MPI than the one named for C:
#  - a wrapper with a suffix (Debian: mpicc.mpich, mpif90.openmpi), named as MPI_<lang>_COMPILER
#    or as the compiler itself (CMAKE_C_COMPILER=mpicc.mpich), sets MPI_EXECUTABLE_SUFFIX;
#  - a wrapper named by its path (as a compiler, CMake makes it one) sets MPI_HOME to its
#    prefix (/opt/mpich/bin/mpicc -> /opt/mpich), where FindMPI then looks for the other
#    wrappers and mpiexec first;
#  - DEFAULT_SUFFIX (the package: the suffix EPMPI was built with) applies when the user named
#    no MPI at all and a wrapper with that suffix exists.
# A macro: the variables it sets are FindMPI's inputs in the caller's scope.
macro(epmpi_choose_mpi)
    cmake_parse_arguments(_epmpi_cm "" "DEFAULT_SUFFIX" "" ${ARGN})
    set(_epmpi_cm_named FALSE)
    set(_epmpi_cm_home_free TRUE)
    if(MPI_HOME OR MPI_ROOT OR DEFINED ENV{MPI_HOME} OR DEFINED ENV{MPI_ROOT} OR DEFINED ENV{I_MPI_ROOT})
        set(_epmpi_cm_home_free FALSE)
        set(_epmpi_cm_named TRUE)
    endif()
    if(MPIEXEC_EXECUTABLE OR DEFINED MPI_EXECUTABLE_SUFFIX)
        set(_epmpi_cm_named TRUE)
    endif()
    foreach(_epmpi_cm_var IN ITEMS MPI_C_COMPILER MPI_CXX_COMPILER MPI_Fortran_COMPILER
                                   CMAKE_C_COMPILER CMAKE_CXX_COMPILER CMAKE_Fortran_COMPILER)
        if(_epmpi_cm_var MATCHES "^MPI_" AND ${_epmpi_cm_var})
            set(_epmpi_cm_named TRUE)
        endif()
        get_filename_component(_epmpi_cm_name "${${_epmpi_cm_var}}" NAME)
        # mpicc, mpicxx.openmpi, mpif90.mpich, mpifort, mpiicc...: a wrapper
        if(_epmpi_cm_name MATCHES "^mpi[a-zA-Z+0-9]+(\\.[A-Za-z][A-Za-z0-9_-]*)?$")
            set(_epmpi_cm_named TRUE)
            if(CMAKE_MATCH_1 AND NOT DEFINED MPI_EXECUTABLE_SUFFIX)
                set(MPI_EXECUTABLE_SUFFIX "${CMAKE_MATCH_1}")
            endif()
            if(IS_ABSOLUTE "${${_epmpi_cm_var}}" AND _epmpi_cm_home_free)
                get_filename_component(MPI_HOME "${${_epmpi_cm_var}}" DIRECTORY)
                get_filename_component(MPI_HOME "${MPI_HOME}" DIRECTORY)
                set(_epmpi_cm_home_free FALSE)
            endif()
        endif()
    endforeach()
    if(NOT _epmpi_cm_named AND _epmpi_cm_DEFAULT_SUFFIX)
        find_program(_epmpi_cm_wrapper NAMES "mpicc${_epmpi_cm_DEFAULT_SUFFIX}")
        if(_epmpi_cm_wrapper)
            set(MPI_EXECUTABLE_SUFFIX "${_epmpi_cm_DEFAULT_SUFFIX}")
        endif()
        unset(_epmpi_cm_wrapper CACHE) # (NO_CACHE needs CMake 3.21)
    endif()
endmacro()

# epmpi_mpi_vendor(<text> <vendor-var> <version-var>): openmpi, mpich, intel or unknown, and
# the version, from an MPI_Get_library_version string (FindMPI's
# MPI_<lang>_LIBRARY_VERSION_STRING) or an `mpiexec --version` text.
function(epmpi_mpi_vendor text vendor_var version_var)
    set(vendor unknown)
    set(version "")
    if(text MATCHES "Open ?MPI|OpenRTE")
        set(vendor openmpi)
        if(text MATCHES "Open MPI v([0-9][0-9.]*[0-9])")
            set(version "${CMAKE_MATCH_1}")
        endif()
    elseif(text MATCHES "Intel\\(R\\) MPI")
        set(vendor intel)
    elseif(text MATCHES "MPICH|HYDRA")
        set(vendor mpich)
        if(text MATCHES "MPICH Version:[ \t]*([0-9][0-9.a-z]*)")
            set(version "${CMAKE_MATCH_1}")
        endif()
    endif()
    set(${vendor_var} "${vendor}" PARENT_SCOPE)
    set(${version_var} "${version}" PARENT_SCOPE)
endfunction()

# epmpi_check_mpi(<vendor> <languages> <message-var>): after find_package(MPI) with
# MPI_DETERMINE_LIBRARY_VERSION, sets <message-var> to which of <languages> got another MPI
# than <vendor>, or to "" (also when a library version could not be determined: FindMPI runs
# a program for it, which cross-compiling cannot).
function(epmpi_check_mpi expected languages message_var)
    set(message "")
    foreach(lang IN LISTS languages)
        epmpi_mpi_vendor("${MPI_${lang}_LIBRARY_VERSION_STRING}" vendor _)
        if(MPI_${lang}_FOUND AND NOT vendor STREQUAL expected
           AND NOT vendor STREQUAL "unknown" AND NOT expected STREQUAL "unknown")
            string(REGEX MATCH "^[^\n]*" library "${MPI_${lang}_LIBRARY_VERSION_STRING}")
            set(message "the MPI found for ${lang} is ${vendor} (${MPI_${lang}_COMPILER}: ${library})")
            break()
        endif()
    endforeach()
    set(${message_var} "${message}" PARENT_SCOPE)
endfunction()
