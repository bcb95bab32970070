# Install rules: libraries, header, Fortran modules, the CMake package and epmpi.pc.
#
# Layout (relative to the prefix; nothing installed names an absolute build-machine path, so
# the prefix can be moved):
#   lib/libepmpi.so.X.Y.Z, libepmpi.so.<soversion>, libepmpi.so, libepmpi.a
#   lib/libepmpi_fortran.*                       (Fortran component)
#   include/ep_mpi.h
#   include/epmpi/<compiler-id>-<version>/*.mod  (Fortran component)
#   lib/libepmpi_xios_adapter.*, include/epmpi/xios/ep_lib.hpp  (xios_adapter component)
#   lib/cmake/EPMPI/EPMPIConfig.cmake, ...ConfigVersion.cmake, EPMPITargets.cmake, ...
#   lib/pkgconfig/epmpi.pc                       (and epmpi-fortran.pc)
include(CMakePackageConfigHelpers)

foreach(dir IN ITEMS CMAKE_INSTALL_LIBDIR CMAKE_INSTALL_INCLUDEDIR)
    if(IS_ABSOLUTE "${${dir}}")
        message(FATAL_ERROR "${dir} (${${dir}}) must be relative to CMAKE_INSTALL_PREFIX: the "
            "EPMPI package finds its files relative to itself so that the prefix can be moved")
    endif()
endforeach()

set(EPMPI_INSTALL_CMAKEDIR "${CMAKE_INSTALL_LIBDIR}/cmake/EPMPI" CACHE STRING
    "Where EPMPIConfig.cmake goes, relative to the prefix")
mark_as_advanced(EPMPI_INSTALL_CMAKEDIR)
set(EPMPI_INSTALL_PKGCONFIGDIR "${CMAKE_INSTALL_LIBDIR}/pkgconfig")

# ---- libraries and header ----
if(EPMPI_SHARED)
    # The SONAME chain is staged as two symlinks and the file; install(FILES) keeps symlinks.
    install(FILES "${EPMPI_STAGE_DIR}/${EPMPI_REALNAME}"
        DESTINATION "${CMAKE_INSTALL_LIBDIR}"
        PERMISSIONS OWNER_READ OWNER_WRITE OWNER_EXECUTE GROUP_READ GROUP_EXECUTE
                    WORLD_READ WORLD_EXECUTE
        COMPONENT runtime)
    install(FILES "${EPMPI_STAGE_DIR}/${EPMPI_SONAME}"
        DESTINATION "${CMAKE_INSTALL_LIBDIR}" COMPONENT runtime)
    install(FILES "${EPMPI_STAGE_DIR}/${EPMPI_LINKNAME}"
        DESTINATION "${CMAKE_INSTALL_LIBDIR}" COMPONENT development)
endif()
if(EPMPI_STATIC)
    install(FILES "${EPMPI_STAGE_DIR}/${EPMPI_STATICNAME}"
        DESTINATION "${CMAKE_INSTALL_LIBDIR}" COMPONENT development)
endif()
install(FILES "${PROJECT_SOURCE_DIR}/include/ep_mpi.h"
    DESTINATION "${CMAKE_INSTALL_INCLUDEDIR}" COMPONENT development)

# ---- CMake package ----
# The libraries come from cargo, not add_library(), so install(EXPORT) cannot describe them:
# EPMPITargets.cmake does by hand what an exported file does, with paths computed from its own
# location. The Fortran library is a CMake target and is exported normally.
file(RELATIVE_PATH EPMPI_CMAKEDIR_TO_PREFIX "/prefix/${EPMPI_INSTALL_CMAKEDIR}" "/prefix")
configure_file("${PROJECT_SOURCE_DIR}/cmake/EPMPITargets.cmake.in"
    "${PROJECT_BINARY_DIR}/package/EPMPITargets.cmake" @ONLY)

if(PROJECT_VERSION_MAJOR GREATER 0)
    set(_epmpi_compatibility SameMajorVersion)
else()
    set(_epmpi_compatibility SameMinorVersion) # 0.x: every minor release may break (semver)
endif()
write_basic_package_version_file("${PROJECT_BINARY_DIR}/package/EPMPIConfigVersion.cmake"
    VERSION "${PROJECT_VERSION}" COMPATIBILITY ${_epmpi_compatibility})
configure_package_config_file("${PROJECT_SOURCE_DIR}/cmake/EPMPIConfig.cmake.in"
    "${PROJECT_BINARY_DIR}/package/EPMPIConfig.cmake"
    INSTALL_DESTINATION "${EPMPI_INSTALL_CMAKEDIR}")

install(FILES
        "${PROJECT_BINARY_DIR}/package/EPMPIConfig.cmake"
        "${PROJECT_BINARY_DIR}/package/EPMPIConfigVersion.cmake"
        "${PROJECT_BINARY_DIR}/package/EPMPITargets.cmake"
        "${EPMPI_STAGE_DIR}/EPMPINativeLibs.cmake"
        "${PROJECT_SOURCE_DIR}/cmake/EPMPIChooseMPI.cmake"
    DESTINATION "${EPMPI_INSTALL_CMAKEDIR}" COMPONENT development)
if(EPMPI_FORTRAN)
    install(EXPORT EPMPIFortranTargets NAMESPACE EPMPI::
        DESTINATION "${EPMPI_INSTALL_CMAKEDIR}" COMPONENT development)
endif()
if(EPMPI_XIOS_ADAPTER)
    install(EXPORT EPMPIXiosAdapterTargets NAMESPACE EPMPI::
        DESTINATION "${EPMPI_INSTALL_CMAKEDIR}" COMPONENT development)
endif()

# ---- pkg-config ----
# Requires the MPI's own .pc when it has one of the same version, so `pkg-config --cflags
# --libs epmpi` is complete; otherwise name the MPI's flags directly.
set(EPMPI_PC_REQUIRES "")
set(EPMPI_PC_MPI_CFLAGS "")
set(EPMPI_PC_MPI_LIBS "")
set(_epmpi_pc_module "")
if(EPMPI_MPI_VENDOR STREQUAL "openmpi")
    set(_epmpi_pc_module ompi-c)
elseif(EPMPI_MPI_VENDOR STREQUAL "mpich")
    set(_epmpi_pc_module mpich)
elseif(EPMPI_MPI_VENDOR STREQUAL "intel")
    set(_epmpi_pc_module impi)
endif()
find_package(PkgConfig QUIET)
if(_epmpi_pc_module AND PKG_CONFIG_EXECUTABLE)
    execute_process(COMMAND "${PKG_CONFIG_EXECUTABLE}" --modversion "${_epmpi_pc_module}"
        OUTPUT_VARIABLE _epmpi_pc_version OUTPUT_STRIP_TRAILING_WHITESPACE
        RESULT_VARIABLE _epmpi_pc_rc ERROR_QUIET)
    if(_epmpi_pc_rc EQUAL 0 AND (NOT EPMPI_MPI_VERSION OR _epmpi_pc_version STREQUAL EPMPI_MPI_VERSION))
        set(EPMPI_PC_REQUIRES "${_epmpi_pc_module}")
    endif()
endif()
if(NOT EPMPI_PC_REQUIRES)
    foreach(_epmpi_dir IN LISTS MPI_C_INCLUDE_DIRS)
        string(APPEND EPMPI_PC_MPI_CFLAGS " -I${_epmpi_dir}")
    endforeach()
    string(JOIN " " EPMPI_PC_MPI_LIBS ${MPI_C_LIBRARIES})
endif()
file(RELATIVE_PATH EPMPI_PC_TO_PREFIX "/prefix/${EPMPI_INSTALL_PKGCONFIGDIR}" "/prefix")
string(REGEX REPLACE "/$" "" EPMPI_PC_TO_PREFIX "${EPMPI_PC_TO_PREFIX}")
# Configured twice: now for what is known, at build time (EPMPICargoBuild.cmake) for the native
# libraries of the static library, which only rustc knows. Hence the self-reference below.
set(EPMPI_PC_LIBS_PRIVATE "@EPMPI_PC_LIBS_PRIVATE@")
configure_file("${PROJECT_SOURCE_DIR}/cmake/epmpi.pc.in" "${PROJECT_BINARY_DIR}/rust/epmpi.pc.in" @ONLY)
install(FILES "${EPMPI_STAGE_DIR}/epmpi.pc"
    DESTINATION "${EPMPI_INSTALL_PKGCONFIGDIR}" COMPONENT development)
if(EPMPI_FORTRAN)
    configure_file("${PROJECT_SOURCE_DIR}/cmake/epmpi-fortran.pc.in"
        "${PROJECT_BINARY_DIR}/package/epmpi-fortran.pc" @ONLY)
    install(FILES "${PROJECT_BINARY_DIR}/package/epmpi-fortran.pc"
        DESTINATION "${EPMPI_INSTALL_PKGCONFIGDIR}" COMPONENT development)
endif()
