# The Fortran module `ep_mpi` (EPMPI::epmpi_fortran): the sources listed by
# ${EPMPI_FORTRAN_SOURCE_DIR}/sources.cmake (EPMPI_FORTRAN_SOURCES, relative to that directory:
# Fortran files, which CMake orders by their module dependencies, and the C glue, compiled with
# MPI::MPI_C's flags) in one library over the C library. Its .mod files are installed in a directory named after the compiler,
# since no other compiler (or gfortran major version) can read them.
set(_epmpi_fortran_list "${EPMPI_FORTRAN_SOURCE_DIR}/sources.cmake")
if(NOT EXISTS "${_epmpi_fortran_list}")
    message(FATAL_ERROR "EPMPI_FORTRAN is ON but ${_epmpi_fortran_list} does not exist")
endif()
set(EPMPI_FORTRAN_SOURCES "")
include("${_epmpi_fortran_list}") # reconfigures when the list changes
if(NOT EPMPI_FORTRAN_SOURCES)
    message(FATAL_ERROR "${_epmpi_fortran_list} sets no EPMPI_FORTRAN_SOURCES")
endif()
list(TRANSFORM EPMPI_FORTRAN_SOURCES PREPEND "${EPMPI_FORTRAN_SOURCE_DIR}/")

# The C glue is compiled on its own: MPI::MPI_Fortran carries the Fortran wrapper's flags
# (MPICH: -fallow-argument-mismatch, ...) for every language, and C compilers warn about them.
set(_epmpi_glue_sources ${EPMPI_FORTRAN_SOURCES})
list(FILTER _epmpi_glue_sources INCLUDE REGEX "\\.c$")
list(FILTER EPMPI_FORTRAN_SOURCES EXCLUDE REGEX "\\.c$")
if(_epmpi_glue_sources)
    add_library(epmpi_fortran_glue OBJECT ${_epmpi_glue_sources})
    set_target_properties(epmpi_fortran_glue PROPERTIES POSITION_INDEPENDENT_CODE ON)
    target_link_libraries(epmpi_fortran_glue PRIVATE ${EPMPI_PRIMARY_TARGET}) # ep_mpi.h, mpi.h
    list(APPEND EPMPI_FORTRAN_SOURCES $<TARGET_OBJECTS:epmpi_fortran_glue>)
endif()

# One kind, following the C library users get by default: shared over libepmpi.so, or static
# over libepmpi.a when only that is built.
if(EPMPI_SHARED)
    add_library(epmpi_fortran SHARED ${EPMPI_FORTRAN_SOURCES})
else()
    add_library(epmpi_fortran STATIC ${EPMPI_FORTRAN_SOURCES})
endif()
add_library(EPMPI::epmpi_fortran ALIAS epmpi_fortran)

string(REGEX REPLACE "\\..*" "" EPMPI_Fortran_COMPILER_MAJOR "${CMAKE_Fortran_COMPILER_VERSION}")
set(EPMPI_INSTALL_MODDIR
    "${CMAKE_INSTALL_INCLUDEDIR}/epmpi/${CMAKE_Fortran_COMPILER_ID}-${CMAKE_Fortran_COMPILER_VERSION}")
get_filename_component(MPI_Fortran_COMPILER_NAME "${MPI_Fortran_COMPILER}" NAME)
set(_epmpi_moddir "${PROJECT_BINARY_DIR}/fortran/mod")

set_target_properties(epmpi_fortran PROPERTIES
    Fortran_MODULE_DIRECTORY "${_epmpi_moddir}"
    VERSION "${PROJECT_VERSION}"
    SOVERSION "${EPMPI_SOVERSION}"
    # libepmpi.so sits next to it once installed, wherever the prefix is moved.
    INSTALL_RPATH "$ORIGIN"
    EXPORT_NAME epmpi_fortran)
target_include_directories(epmpi_fortran PUBLIC
    "$<BUILD_INTERFACE:${_epmpi_moddir}>"
    "$<INSTALL_INTERFACE:${EPMPI_INSTALL_MODDIR}>")
# Users of the module need MPI's own Fortran support too (use mpi: MPI_COMM_WORLD, datatypes).
target_link_libraries(epmpi_fortran PUBLIC ${EPMPI_PRIMARY_TARGET} MPI::MPI_Fortran)

install(TARGETS epmpi_fortran EXPORT EPMPIFortranTargets
    LIBRARY DESTINATION "${CMAKE_INSTALL_LIBDIR}" COMPONENT runtime
            NAMELINK_COMPONENT development
    ARCHIVE DESTINATION "${CMAKE_INSTALL_LIBDIR}" COMPONENT development)
install(DIRECTORY "${_epmpi_moddir}/" DESTINATION "${EPMPI_INSTALL_MODDIR}"
    COMPONENT development
    FILES_MATCHING PATTERN "*.mod" PATTERN "*.smod")
