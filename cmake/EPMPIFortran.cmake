# The Fortran module `ep_mpi` (EPMPI::epmpi_fortran): the sources listed by
# ${EPMPI_FORTRAN_SOURCE_DIR}/sources.cmake (Fortran files, which CMake orders by their module
# dependencies, and C glue) in one library over the C library. Its .mod files are installed in
# a directory named after the compiler, since no other compiler (or gfortran major version) can
# read them.
epmpi_read_sources("${EPMPI_FORTRAN_SOURCE_DIR}" EPMPI_FORTRAN_SOURCES) # (EPMPIComponents)

# The C glue is compiled on its own: MPI::MPI_Fortran carries the Fortran wrapper's flags
# (MPICH: -fallow-argument-mismatch, ...) for every language, and C compilers warn about them.
set(_epmpi_glue_sources ${EPMPI_FORTRAN_SOURCES})
list(FILTER _epmpi_glue_sources INCLUDE REGEX "\\.c$")
list(FILTER EPMPI_FORTRAN_SOURCES EXCLUDE REGEX "\\.c$")
if(_epmpi_glue_sources)
    add_library(epmpi_fortran_glue OBJECT ${_epmpi_glue_sources})
    set_target_properties(epmpi_fortran_glue PROPERTIES POSITION_INDEPENDENT_CODE ON)
    target_link_libraries(epmpi_fortran_glue PRIVATE EPMPI::epmpi) # ep_mpi.h, MPI::MPI_C
    list(APPEND EPMPI_FORTRAN_SOURCES $<TARGET_OBJECTS:epmpi_fortran_glue>)
endif()

epmpi_add_component_library(epmpi_fortran epmpi_fortran ${EPMPI_FORTRAN_SOURCES})

string(REGEX REPLACE "\\..*" "" EPMPI_Fortran_COMPILER_MAJOR "${CMAKE_Fortran_COMPILER_VERSION}")
set(EPMPI_INSTALL_MODDIR
    "${CMAKE_INSTALL_INCLUDEDIR}/epmpi/${CMAKE_Fortran_COMPILER_ID}-${CMAKE_Fortran_COMPILER_VERSION}")
get_filename_component(MPI_Fortran_COMPILER_NAME "${MPI_Fortran_COMPILER}" NAME)
set(_epmpi_moddir "${PROJECT_BINARY_DIR}/fortran/mod")

set_target_properties(epmpi_fortran PROPERTIES Fortran_MODULE_DIRECTORY "${_epmpi_moddir}")
target_include_directories(epmpi_fortran PUBLIC
    "$<BUILD_INTERFACE:${_epmpi_moddir}>"
    "$<INSTALL_INTERFACE:${EPMPI_INSTALL_MODDIR}>")
# Users of the module need MPI's own Fortran support too (use mpi: MPI_COMM_WORLD, datatypes).
target_link_libraries(epmpi_fortran PUBLIC EPMPI::epmpi MPI::MPI_Fortran)

install(TARGETS epmpi_fortran EXPORT EPMPIFortranTargets
    LIBRARY DESTINATION "${CMAKE_INSTALL_LIBDIR}" COMPONENT runtime NAMELINK_COMPONENT development
    ARCHIVE DESTINATION "${CMAKE_INSTALL_LIBDIR}" COMPONENT development)
install(EXPORT EPMPIFortranTargets NAMESPACE EPMPI::
    DESTINATION "${EPMPI_INSTALL_CMAKEDIR}" COMPONENT development)
install(DIRECTORY "${_epmpi_moddir}/" DESTINATION "${EPMPI_INSTALL_MODDIR}"
    COMPONENT development FILES_MATCHING PATTERN "*.mod" PATTERN "*.smod")
