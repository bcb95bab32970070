# The standard-names layer libepmpi_mpi (EPMPI::epmpi_mpi): the MPI_* functions on EPMPI handles
# (PMPI_* on the host's), from the C sources listed by ${EPMPI_MPI_NAMES_SOURCE_DIR}/sources.cmake,
# compiled with the host MPI's C flags, over the C library. Its header <epmpi_mpix.h>
# (MPIX_Comm_create_endpoints, MPIX_Threadcomm_*) is installed next to <ep_mpi.h>.
#
# Link order. The layer's MPI_* definitions must be found before the host MPI's: in the link
# of a program, libepmpi_mpi comes before libmpi (a static layer is then the one the linker
# pulls the program's MPI_* references from; a shared one comes first in the program's
# DT_NEEDED list, so the loader binds MPI_* to it). CMake writes a target's own library before
# its usage requirements, so EPMPI::epmpi_mpi gives `libepmpi_mpi libepmpi <host MPI>` as long
# as the program does not name the host MPI before it.
epmpi_read_sources("${EPMPI_MPI_NAMES_SOURCE_DIR}" EPMPI_MPI_NAMES_SOURCES) # (EPMPIComponents)

epmpi_add_component_library(epmpi_mpi epmpi_mpi ${EPMPI_MPI_NAMES_SOURCES})
# <stdatomic.h>, _Static_assert; MPI::MPI_C (the host's mpi.h and libmpi) and include/ (ep_mpi.h,
# epmpi_mpix.h) come with EPMPI::epmpi, and installed EPMPI::epmpi brings EPMPI::host_mpi.
# Threads: the layer's own locks (a static layer's users get them with EPMPI::epmpi_static).
set_target_properties(epmpi_mpi PROPERTIES C_STANDARD 11 C_STANDARD_REQUIRED ON)
target_include_directories(epmpi_mpi PRIVATE "${EPMPI_MPI_NAMES_SOURCE_DIR}") # runtime.h
target_link_libraries(epmpi_mpi
    PUBLIC EPMPI::epmpi
    PRIVATE "$<BUILD_INTERFACE:Threads::Threads>")

install(TARGETS epmpi_mpi EXPORT EPMPIMpiNamesTargets
    LIBRARY DESTINATION "${CMAKE_INSTALL_LIBDIR}" COMPONENT runtime NAMELINK_COMPONENT development
    ARCHIVE DESTINATION "${CMAKE_INSTALL_LIBDIR}" COMPONENT development)
install(EXPORT EPMPIMpiNamesTargets NAMESPACE EPMPI::
    DESTINATION "${EPMPI_INSTALL_CMAKEDIR}" COMPONENT development)
install(FILES "${PROJECT_SOURCE_DIR}/include/epmpi_mpix.h"
    DESTINATION "${CMAKE_INSTALL_INCLUDEDIR}" COMPONENT development)

# The layer's Fortran entry points libepmpi_mpi_f (EPMPI::epmpi_mpi_f): `use mpi` / mpif.h
# programs' mpi_*_ calls on EPMPI handles (pmpi_*_ on the host's), from the files listed by
# ${EPMPI_MPI_NAMES_SOURCE_DIR}/fortran_sources.cmake, when Fortran is enabled. Over the C layer,
# before the host's Fortran library in a program's link (as EPMPI::epmpi_mpi before libmpi). Its
# include file epmpi_mpixf.h (mpix_comm_create_endpoints...) is installed next to epmpi_mpix.h.
if(CMAKE_Fortran_COMPILER_LOADED)
    set(EPMPI_MPI_NAMES_FORTRAN ON)
    set(EPMPI_MPI_NAMES_FORTRAN_SOURCES "")
    include("${EPMPI_MPI_NAMES_SOURCE_DIR}/fortran_sources.cmake")
    list(TRANSFORM EPMPI_MPI_NAMES_FORTRAN_SOURCES PREPEND "${EPMPI_MPI_NAMES_SOURCE_DIR}/")
    # The C files on their own, as the module's glue (EPMPIFortran.cmake): MPI::MPI_Fortran's
    # flags are the Fortran wrapper's, which C compilers warn about.
    set(_epmpi_f_layer_c ${EPMPI_MPI_NAMES_FORTRAN_SOURCES})
    list(FILTER _epmpi_f_layer_c INCLUDE REGEX "\\.c$")
    list(FILTER EPMPI_MPI_NAMES_FORTRAN_SOURCES EXCLUDE REGEX "\\.c$")
    add_library(epmpi_mpi_f_c OBJECT ${_epmpi_f_layer_c})
    set_target_properties(epmpi_mpi_f_c PROPERTIES POSITION_INDEPENDENT_CODE ON C_STANDARD 11 C_STANDARD_REQUIRED ON)
    target_include_directories(epmpi_mpi_f_c PRIVATE "${EPMPI_MPI_NAMES_SOURCE_DIR}")
    target_link_libraries(epmpi_mpi_f_c PRIVATE EPMPI::epmpi) # ep_mpi.h, epmpi_mpix.h, MPI::MPI_C
    epmpi_add_component_library(epmpi_mpi_f epmpi_mpi_f
        ${EPMPI_MPI_NAMES_FORTRAN_SOURCES} $<TARGET_OBJECTS:epmpi_mpi_f_c>)
    # fortran_sentinels.f90 uses the host's `use mpi`; its module files stay in the build tree.
    set_target_properties(epmpi_mpi_f PROPERTIES Fortran_MODULE_DIRECTORY "${PROJECT_BINARY_DIR}/mpi_names_f/mod")
    target_link_libraries(epmpi_mpi_f PUBLIC EPMPI::epmpi_mpi MPI::MPI_Fortran)

    install(TARGETS epmpi_mpi_f EXPORT EPMPIMpiNamesFortranTargets
        LIBRARY DESTINATION "${CMAKE_INSTALL_LIBDIR}" COMPONENT runtime NAMELINK_COMPONENT development
        ARCHIVE DESTINATION "${CMAKE_INSTALL_LIBDIR}" COMPONENT development)
    install(EXPORT EPMPIMpiNamesFortranTargets NAMESPACE EPMPI::
        DESTINATION "${EPMPI_INSTALL_CMAKEDIR}" COMPONENT development)
    install(FILES "${PROJECT_SOURCE_DIR}/include/epmpi_mpixf.h"
        DESTINATION "${CMAKE_INSTALL_INCLUDEDIR}" COMPONENT development)
else()
    set(EPMPI_MPI_NAMES_FORTRAN OFF)
endif()
