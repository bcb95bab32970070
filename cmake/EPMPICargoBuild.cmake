# Build step of the epmpi_cargo target (cmake -DEPMPI_BUILD_VARS=<file> -P this file):
#   1. cargo builds libepmpi.so and libepmpi.a against the MPI whose wrapper is MPICC;
#   2. the libraries are staged under their installed names (SONAME chain);
#   3. the native libraries rustc reports for the static library are written where the package
#      config (EPMPINativeLibs.cmake) and epmpi.pc (Libs.private) pick them up.
# Every output is rewritten only when its content changes, so an up-to-date build relinks
# nothing.
cmake_minimum_required(VERSION 3.20)
include("${EPMPI_BUILD_VARS}")
include("${EPMPI_HELPERS}") # _epmpi_link_flags_to_libs

set(out_dir "${EPMPI_TARGET_DIR}/${EPMPI_PROFILE_DIR}")
# rustc writes the list only when it links the crate; the file then stays next to the artefacts
# it describes (a fresh build leaves both alone).
set(native_file "${out_dir}/epmpi-native-static-libs.txt")

# MPI_PKG_CONFIG would take precedence over MPICC in mpi-sys's probe: the MPI is CMake's choice.
# `cargo rustc` passes the extra flags to this crate only (SONAME, MPI rpath, the print request).
execute_process(
    COMMAND "${CMAKE_COMMAND}" -E env --unset=MPI_PKG_CONFIG "MPICC=${EPMPI_MPICC}"
            "${EPMPI_CARGO}" rustc --lib ${EPMPI_LOCKED} --manifest-path "${EPMPI_MANIFEST}"
            --target-dir "${EPMPI_TARGET_DIR}" --profile "${EPMPI_PROFILE}"
            -- ${EPMPI_RUSTC_ARGS} --print "native-static-libs=${native_file}"
    RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
    message(FATAL_ERROR "cargo failed (${rc})")
endif()

file(MAKE_DIRECTORY "${EPMPI_STAGE_DIR}")
function(stage_copy from to)
    execute_process(COMMAND "${CMAKE_COMMAND}" -E copy_if_different "${from}" "${to}"
        RESULT_VARIABLE rc)
    if(NOT rc EQUAL 0)
        message(FATAL_ERROR "cannot copy ${from} to ${to}")
    endif()
endfunction()
function(stage_symlink target link)
    if(IS_SYMLINK "${link}")
        file(READ_SYMLINK "${link}" current)
        if(current STREQUAL target)
            return()
        endif()
    endif()
    file(REMOVE "${link}")
    file(CREATE_LINK "${target}" "${link}" SYMBOLIC)
endfunction()

if(EPMPI_SHARED)
    stage_copy("${out_dir}/${EPMPI_LINKNAME}" "${EPMPI_STAGE_DIR}/${EPMPI_REALNAME}")
    stage_symlink("${EPMPI_REALNAME}" "${EPMPI_STAGE_DIR}/${EPMPI_SONAME}")
    stage_symlink("${EPMPI_SONAME}" "${EPMPI_STAGE_DIR}/${EPMPI_LINKNAME}")
endif()
if(EPMPI_STATIC)
    stage_copy("${out_dir}/${EPMPI_STATICNAME}" "${EPMPI_STAGE_DIR}/${EPMPI_STATICNAME}")
endif()

if(NOT EXISTS "${native_file}")
    message(FATAL_ERROR "${native_file} is missing although cargo considers libepmpi.a current; "
        "delete ${out_dir} (or run cargo clean with --target-dir ${EPMPI_TARGET_DIR}) and build again")
endif()
file(READ "${native_file}" native_flags)
string(STRIP "${native_flags}" native_flags)
_epmpi_link_flags_to_libs("${native_flags}" "${EPMPI_MPI_LIB_NAMES}" native_libs)

# The build-tree EPMPI::epmpi_static was set up at configure time with Rust std's list; say so
# if this crate ever needs more (a new dependency with a native library).
set(extra "")
foreach(lib IN LISTS native_libs)
    if(NOT lib IN_LIST EPMPI_STD_NATIVE_LIBS)
        list(APPEND extra "${lib}")
    endif()
endforeach()
if(extra)
    message(WARNING "libepmpi.a needs native libraries beyond Rust std's: ${extra}. The "
        "installed package carries them; the build-tree EPMPI::epmpi_static (cmake/EPMPICargo.cmake) "
        "does not.")
endif()

set(EPMPI_NATIVE_STATIC_LIBS "${native_libs}")
file(CONFIGURE OUTPUT "${EPMPI_STAGE_DIR}/EPMPINativeLibs.cmake" @ONLY CONTENT [[
# Native libraries of libepmpi.a as rustc reports them (cargo rustc --print native-static-libs),
# without the MPI libraries, which MPI::MPI_C links. Written by EPMPI's build.
set(EPMPI_NATIVE_STATIC_LIBS "@EPMPI_NATIVE_STATIC_LIBS@")
]])

# epmpi.pc: the template was configured at configure time except for this line.
set(EPMPI_PC_LIBS_PRIVATE "")
foreach(lib IN LISTS native_libs)
    if(lib MATCHES "^-")
        string(APPEND EPMPI_PC_LIBS_PRIVATE " ${lib}")
    else()
        string(APPEND EPMPI_PC_LIBS_PRIVATE " -l${lib}")
    endif()
endforeach()
string(STRIP "${EPMPI_PC_LIBS_PRIVATE}" EPMPI_PC_LIBS_PRIVATE)
configure_file("${EPMPI_PC_TEMPLATE}" "${EPMPI_STAGE_DIR}/epmpi.pc" @ONLY)
