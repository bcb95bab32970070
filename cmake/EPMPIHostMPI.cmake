# What EPMPI's build needs to know about the MPI that find_package(MPI) found: which
# implementation it is (for messages, the package config and epmpi.pc), whether the launcher and
# the Fortran wrapper belong to the same MPI as the C wrapper, and how to launch tests with it.

# Implementation key and version from an MPI_Get_library_version string (or an mpiexec
# --version text): openmpi, mpich, intel or unknown.
function(_epmpi_mpi_vendor text out_vendor out_version)
    set(vendor unknown)
    set(version "")
    if(text MATCHES "Open MPI v([0-9][0-9.]*)")
        set(vendor openmpi)
        set(version "${CMAKE_MATCH_1}")
    elseif(text MATCHES "Open ?MPI|OpenRTE")
        set(vendor openmpi)
    elseif(text MATCHES "Intel\\(R\\) MPI")
        set(vendor intel)
    elseif(text MATCHES "MPICH Version:[ \t]*([0-9][0-9.a-z]*)")
        set(vendor mpich)
        set(version "${CMAKE_MATCH_1}")
    elseif(text MATCHES "MPICH|HYDRA")
        set(vendor mpich)
    endif()
    set(${out_vendor} "${vendor}" PARENT_SCOPE)
    set(${out_version} "${version}" PARENT_SCOPE)
endfunction()

function(_epmpi_mpi_pretty vendor out)
    set(pretty "${vendor}")
    if(vendor STREQUAL "openmpi")
        set(pretty "Open MPI")
    elseif(vendor STREQUAL "mpich")
        set(pretty "MPICH")
    elseif(vendor STREQUAL "intel")
        set(pretty "Intel MPI")
    elseif(vendor STREQUAL "unknown")
        set(pretty "MPI")
    endif()
    set(${out} "${pretty}" PARENT_SCOPE)
endfunction()

# Sets, in the caller's scope:
#   EPMPI_MPI_VENDOR, EPMPI_MPI_VERSION   what was found (openmpi, 4.1.4)
#   EPMPI_MPI_PRETTY, EPMPI_MPI_DESCRIPTION   "Open MPI 4.1.4", the same with the wrapper path
#   EPMPI_MPI_EXECUTABLE_SUFFIX   wrapper suffix (".mpich") recorded for the package config
#   EPMPI_MPI_LIB_NAMES           MPI_C_LIB_NAMES, recorded so the config can spot another MPI
#   EPMPI_MPICC                   the C wrapper cargo's build scripts use (MPICC)
#   EPMPI_TEST_MPIEXEC_PREFLAGS, EPMPI_TEST_ENVIRONMENT   how tests launch on this MPI
function(epmpi_describe_mpi)
    if(NOT MPI_C_COMPILER)
        # mpi-sys (bindgen) and build.rs (host shim) both need the wrapper, not just flags.
        message(FATAL_ERROR "EPMPI needs the MPI C compiler wrapper (mpicc) of the MPI to build "
            "against; FindMPI found none. Name it with -DMPI_C_COMPILER=/path/to/mpicc.")
    endif()
    _epmpi_mpi_vendor("${MPI_C_LIBRARY_VERSION_STRING}" vendor version)
    if(NOT version)
        set(version "${MPI_C_VERSION}") # the MPI standard version, better than nothing
    endif()

    # The launcher must belong to the same MPI as the library: a job started by another
    # implementation's mpiexec runs N singletons and every test fails in confusing ways.
    if(MPIEXEC_EXECUTABLE)
        execute_process(COMMAND "${MPIEXEC_EXECUTABLE}" --version
            OUTPUT_VARIABLE launcher_text ERROR_VARIABLE launcher_text TIMEOUT 20)
        _epmpi_mpi_vendor("${launcher_text}" launcher_vendor _)
        if(NOT launcher_vendor STREQUAL "unknown" AND NOT vendor STREQUAL "unknown"
           AND NOT launcher_vendor STREQUAL vendor)
            _epmpi_mpi_pretty(${launcher_vendor} launcher_pretty)
            _epmpi_mpi_pretty(${vendor} pretty)
            message(FATAL_ERROR "MPIEXEC_EXECUTABLE (${MPIEXEC_EXECUTABLE}) is ${launcher_pretty}'s "
                "but MPI_C_COMPILER (${MPI_C_COMPILER}) is ${pretty}'s. Choose the MPI with "
                "-DMPI_EXECUTABLE_SUFFIX=.<name> or name MPIEXEC_EXECUTABLE too.")
        endif()
    endif()
    # Same for the Fortran wrapper: its libraries must include the C ones.
    if(MPI_Fortran_FOUND AND MPI_C_LIBRARIES)
        foreach(lib IN LISTS MPI_C_LIBRARIES)
            get_filename_component(lib_name "${lib}" NAME)
            set(seen FALSE)
            foreach(flib IN LISTS MPI_Fortran_LIBRARIES)
                get_filename_component(flib_name "${flib}" NAME)
                if(flib_name STREQUAL lib_name)
                    set(seen TRUE)
                endif()
            endforeach()
            if(NOT seen)
                message(FATAL_ERROR "MPI_Fortran_COMPILER (${MPI_Fortran_COMPILER}) does not link "
                    "${lib_name} of MPI_C_COMPILER (${MPI_C_COMPILER}): two different MPIs. "
                    "Choose the MPI with -DMPI_EXECUTABLE_SUFFIX=.<name> or name both wrappers.")
            endif()
        endforeach()
    endif()

    if(DEFINED MPI_EXECUTABLE_SUFFIX)
        set(suffix "${MPI_EXECUTABLE_SUFFIX}")
    else()
        get_filename_component(cc_name "${MPI_C_COMPILER}" NAME)
        set(suffix "")
        if(cc_name MATCHES "^mpicc(\\.[A-Za-z][A-Za-z0-9_-]*)$")
            set(suffix "${CMAKE_MATCH_1}")
        endif()
    endif()

    # Test launch flags. Open MPI refuses to run as root without --allow-run-as-root, refuses
    # more ranks than cores without --oversubscribe, and binds each process to one core, where
    # all of its endpoint threads would then compete: --bind-to none. Its default one-sided
    # component fails MPI_Win_create on some machines; osc/ucx works.
    set(preflags ${MPIEXEC_PREFLAGS})
    set(environment "")
    if(vendor STREQUAL "openmpi")
        list(APPEND preflags --oversubscribe --bind-to none)
        execute_process(COMMAND id -u OUTPUT_VARIABLE uid OUTPUT_STRIP_TRAILING_WHITESPACE
            ERROR_QUIET)
        if(uid STREQUAL "0")
            list(APPEND preflags --allow-run-as-root)
        endif()
        list(APPEND environment OMPI_MCA_osc=ucx)
    endif()

    _epmpi_mpi_pretty(${vendor} pretty)
    set(EPMPI_MPI_VENDOR "${vendor}" PARENT_SCOPE)
    set(EPMPI_MPI_VERSION "${version}" PARENT_SCOPE)
    set(EPMPI_MPI_PRETTY "${pretty} ${version}" PARENT_SCOPE)
    set(EPMPI_MPI_DESCRIPTION "${pretty} ${version} (${MPI_C_COMPILER})" PARENT_SCOPE)
    set(EPMPI_MPI_EXECUTABLE_SUFFIX "${suffix}" PARENT_SCOPE)
    set(EPMPI_MPI_LIB_NAMES "${MPI_C_LIB_NAMES}" PARENT_SCOPE)
    set(EPMPI_MPICC "${MPI_C_COMPILER}" PARENT_SCOPE)
    set(EPMPI_TEST_MPIEXEC_PREFLAGS "${preflags}" PARENT_SCOPE)
    set(EPMPI_TEST_ENVIRONMENT "${environment}" PARENT_SCOPE)
endfunction()
