# Install rules for what is not an ordinary CMake library: cargo's files, the package config
# (EPMPIConfig.cmake: it chooses and checks the MPI and defines EPMPI::host_mpi, which the
# exported targets link) and the pkg-config files. The component libraries install themselves
# (EPMPIFortran.cmake, EPMPIXiosAdapter.cmake, EPMPIMpiNames.cmake).
#
# Layout (relative to the prefix; nothing installed names an absolute build-machine path, so
# the prefix can be moved):
#   lib/libepmpi.so.X.Y.Z, libepmpi.so.<soversion>, libepmpi.so, libepmpi.a
#   include/ep_mpi.h                             (and epmpi_mpix.h with the standard-names layer)
#   lib/cmake/EPMPI/EPMPIConfig.cmake, ...ConfigVersion.cmake, EPMPITargets.cmake, ...
#   lib/pkgconfig/epmpi.pc                       (and epmpi-fortran.pc, epmpi-mpi.pc, epmpi-mpi-f.pc)
include(CMakePackageConfigHelpers)

# ---- libraries and header ----
if(EPMPI_SHARED)
    # The SONAME chain is staged as the file and two symlinks; install(FILES) keeps symlinks.
    install(FILES "${EPMPI_STAGE_DIR}/${EPMPI_REALNAME}" DESTINATION "${CMAKE_INSTALL_LIBDIR}"
        PERMISSIONS OWNER_READ OWNER_WRITE OWNER_EXECUTE GROUP_READ GROUP_EXECUTE
                    WORLD_READ WORLD_EXECUTE
        COMPONENT runtime)
    install(FILES "${EPMPI_STAGE_DIR}/${EPMPI_SONAME}"
        DESTINATION "${CMAKE_INSTALL_LIBDIR}" COMPONENT runtime)
    install(FILES "${EPMPI_STAGE_DIR}/${EPMPI_LINKNAME}"
        DESTINATION "${CMAKE_INSTALL_LIBDIR}" COMPONENT development)
endif()
if(EPMPI_STATIC)
    install(FILES "${EPMPI_CARGO_OUT_DIR}/${EPMPI_STATICNAME}"
        DESTINATION "${CMAKE_INSTALL_LIBDIR}" COMPONENT development)
endif()
install(FILES "${PROJECT_SOURCE_DIR}/include/ep_mpi.h"
    DESTINATION "${CMAKE_INSTALL_INCLUDEDIR}" COMPONENT development)

# ---- CMake package ----
set(_epmpi_targets epmpi)
if(EPMPI_STATIC)
    list(APPEND _epmpi_targets epmpi_static)
endif()
install(TARGETS ${_epmpi_targets} EXPORT EPMPITargets)
install(EXPORT EPMPITargets NAMESPACE EPMPI::
    DESTINATION "${EPMPI_INSTALL_CMAKEDIR}" COMPONENT development)

if(PROJECT_VERSION_MAJOR GREATER 0)
    set(_epmpi_compatibility SameMajorVersion)
else()
    set(_epmpi_compatibility SameMinorVersion) # 0.x: every minor release may break (semver)
endif()
write_basic_package_version_file("${PROJECT_BINARY_DIR}/package/EPMPIConfigVersion.cmake"
    COMPATIBILITY ${_epmpi_compatibility})
configure_package_config_file("${PROJECT_SOURCE_DIR}/cmake/EPMPIConfig.cmake.in"
    "${PROJECT_BINARY_DIR}/package/EPMPIConfig.cmake"
    INSTALL_DESTINATION "${EPMPI_INSTALL_CMAKEDIR}")
install(FILES
        "${PROJECT_BINARY_DIR}/package/EPMPIConfig.cmake"
        "${PROJECT_BINARY_DIR}/package/EPMPIConfigVersion.cmake"
        "${PROJECT_SOURCE_DIR}/cmake/EPMPIHostMPI.cmake"
    DESTINATION "${EPMPI_INSTALL_CMAKEDIR}" COMPONENT development)

# ---- pkg-config ----
# Paths relative to the .pc file (${pcfiledir}), so the prefix can be moved; the MPI's flags as
# its C wrapper gives them (the wrapper may also be the compiler: FindMPI then has none).
set(EPMPI_INSTALL_PKGCONFIGDIR "${CMAKE_INSTALL_LIBDIR}/pkgconfig")
file(RELATIVE_PATH EPMPI_PC_TO_PREFIX "/prefix/${EPMPI_INSTALL_PKGCONFIGDIR}" "/prefix")
string(REGEX REPLACE "/$" "" EPMPI_PC_TO_PREFIX "${EPMPI_PC_TO_PREFIX}")
list(TRANSFORM EPMPI_MPI_INCLUDE_DIRS PREPEND "-I" OUTPUT_VARIABLE _epmpi_pc_cflags)
list(TRANSFORM EPMPI_MPI_LIBRARY_DIRS PREPEND "-L" OUTPUT_VARIABLE _epmpi_pc_libdirs)
list(TRANSFORM EPMPI_MPI_LIBRARIES PREPEND "-l" OUTPUT_VARIABLE _epmpi_pc_libs)
list(TRANSFORM EPMPI_STD_NATIVE_LIBS PREPEND "-l" OUTPUT_VARIABLE _epmpi_pc_private)
string(JOIN " " EPMPI_PC_MPI_CFLAGS ${_epmpi_pc_cflags})
string(JOIN " " EPMPI_PC_MPI_LIBS ${_epmpi_pc_libdirs} ${_epmpi_pc_libs})
string(JOIN " " EPMPI_PC_LIBS_PRIVATE ${_epmpi_pc_private})
configure_file("${PROJECT_SOURCE_DIR}/cmake/epmpi.pc.in" "${PROJECT_BINARY_DIR}/package/epmpi.pc" @ONLY)
install(FILES "${PROJECT_BINARY_DIR}/package/epmpi.pc"
    DESTINATION "${EPMPI_INSTALL_PKGCONFIGDIR}" COMPONENT development)
if(EPMPI_FORTRAN)
    configure_file("${PROJECT_SOURCE_DIR}/cmake/epmpi-fortran.pc.in"
        "${PROJECT_BINARY_DIR}/package/epmpi-fortran.pc" @ONLY)
    install(FILES "${PROJECT_BINARY_DIR}/package/epmpi-fortran.pc"
        DESTINATION "${EPMPI_INSTALL_PKGCONFIGDIR}" COMPONENT development)
endif()
if(EPMPI_MPI_NAMES)
    configure_file("${PROJECT_SOURCE_DIR}/cmake/epmpi-mpi.pc.in"
        "${PROJECT_BINARY_DIR}/package/epmpi-mpi.pc" @ONLY)
    install(FILES "${PROJECT_BINARY_DIR}/package/epmpi-mpi.pc"
        DESTINATION "${EPMPI_INSTALL_PKGCONFIGDIR}" COMPONENT development)
    if(EPMPI_MPI_NAMES_FORTRAN)
        configure_file("${PROJECT_SOURCE_DIR}/cmake/epmpi-mpi-f.pc.in"
            "${PROJECT_BINARY_DIR}/package/epmpi-mpi-f.pc" @ONLY)
        install(FILES "${PROJECT_BINARY_DIR}/package/epmpi-mpi-f.pc"
            DESTINATION "${EPMPI_INSTALL_PKGCONFIGDIR}" COMPONENT development)
    endif()
endif()
