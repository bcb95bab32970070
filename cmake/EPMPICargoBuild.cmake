# Build step of the epmpi_cargo target (cmake -D<name>=<value>... -P this file; the values come
# from epmpi_add_cargo_library in EPMPICargo.cmake, lists joined with ':'). A script rather than
# a plain command because the step does three things a command line cannot say portably:
#   1. cargo builds libepmpi.so and libepmpi.a against the MPI whose C wrapper is MPICC, with
#      the SONAME and the MPI's rpath that CMake chose;
#   2. libepmpi.so is staged under its installed names (the SONAME chain), which the build tree
#      links and runs with and the install copies; a copy rewritten only when it changed, so an
#      up-to-date build relinks nothing;
#   3. a warning if rustc reports native libraries for libepmpi.a beyond Rust std's and the
#      MPI's, which EPMPI::epmpi_static would lack.
cmake_minimum_required(VERSION 3.20)

set(link_args -C "link-arg=-Wl,-soname,${SONAME}")
string(REPLACE ":" ";" rpath "${RPATH}")
foreach(dir IN LISTS rpath)
    list(APPEND link_args -C "link-arg=-Wl,-rpath,${dir}")
endforeach()
set(native_file "${OUT}/epmpi-native-static-libs.txt") # written when rustc links the crate

# MPI_PKG_CONFIG would take precedence over MPICC in mpi-sys's probe: the MPI is CMake's choice.
# `cargo rustc` passes the extra flags to this crate only.
execute_process(
    COMMAND "${CMAKE_COMMAND}" -E env --unset=MPI_PKG_CONFIG "MPICC=${MPICC}"
            "${CARGO}" rustc --lib ${LOCKED} --manifest-path "${MANIFEST}" --target-dir "${TARGET_DIR}"
            --profile "${PROFILE}" -- ${link_args} --print "native-static-libs=${native_file}"
    RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
    message(FATAL_ERROR "cargo failed (${rc})")
endif()

if(SHARED)
    file(MAKE_DIRECTORY "${STAGE}")
    execute_process(COMMAND "${CMAKE_COMMAND}" -E copy_if_different
        "${OUT}/${LINKNAME}" "${STAGE}/${REALNAME}" COMMAND_ERROR_IS_FATAL ANY)
    file(CREATE_LINK "${REALNAME}" "${STAGE}/${SONAME}" SYMBOLIC)
    file(CREATE_LINK "${SONAME}" "${STAGE}/${LINKNAME}" SYMBOLIC)
endif()

if(EXISTS "${native_file}")
    file(READ "${native_file}" flags)
    string(REGEX MATCHALL "-l[^ \t\r\n]+" libs "${flags}")
    list(TRANSFORM libs REPLACE "^-l" "")
    string(REPLACE ":" ";" known "${STD_LIBS}:${MPI_LIBS}")
    list(REMOVE_ITEM libs ${known})
    if(libs)
        message(WARNING "libepmpi.a needs native libraries beyond Rust std's and the MPI's: "
            "${libs}. EPMPI::epmpi_static does not link them (cmake/EPMPICargo.cmake).")
    endif()
endif()
