# The XIOS adapter (EPMPI::xios_adapter): XIOS's `ep_lib` interface in C++ over the C library,
# from the sources listed by ${EPMPI_XIOS_ADAPTER_SOURCE_DIR}/sources.cmake
# (EPMPI_XIOS_ADAPTER_SOURCES, relative to that directory). One library over the C library
# (shared over libepmpi.so, or static when only libepmpi.a is built); its header ep_lib.hpp is
# installed in include/epmpi/xios/, the directory XIOS's build puts on its include path.
epmpi_read_sources("${EPMPI_XIOS_ADAPTER_SOURCE_DIR}" EPMPI_XIOS_ADAPTER_SOURCES) # (EPMPIComponents)
# The client/server protocol of ep_xios.h (C11) lives in the same library.
epmpi_read_sources("${EPMPI_XIOS_ADAPTER_SOURCE_DIR}" EPMPI_XIOS_PROTOCOL_SOURCES)

epmpi_add_component_library(epmpi_xios_adapter xios_adapter
    ${EPMPI_XIOS_ADAPTER_SOURCES} ${EPMPI_XIOS_PROTOCOL_SOURCES})
set_source_files_properties(${EPMPI_XIOS_PROTOCOL_SOURCES} PROPERTIES C_STANDARD 11 C_STANDARD_REQUIRED ON)
find_package(Threads REQUIRED) # the protocol's handle table
target_link_libraries(epmpi_xios_adapter PRIVATE Threads::Threads)

set(EPMPI_INSTALL_XIOS_INCLUDEDIR "${CMAKE_INSTALL_INCLUDEDIR}/epmpi/xios")
set_target_properties(epmpi_xios_adapter PROPERTIES POSITION_INDEPENDENT_CODE ON)
target_compile_features(epmpi_xios_adapter PUBLIC cxx_std_11) # XIOS builds as C++11
target_include_directories(epmpi_xios_adapter PUBLIC
    "$<BUILD_INTERFACE:${EPMPI_XIOS_ADAPTER_SOURCE_DIR}/include>"
    "$<INSTALL_INTERFACE:${EPMPI_INSTALL_XIOS_INCLUDEDIR}>")
# ep_mpi.h and mpi.h come with the C library's target (MPI::MPI_C's headers are C++-clean).
target_link_libraries(epmpi_xios_adapter PUBLIC ${EPMPI_PRIMARY_TARGET})

install(TARGETS epmpi_xios_adapter EXPORT EPMPIXiosAdapterTargets
    LIBRARY DESTINATION "${CMAKE_INSTALL_LIBDIR}" COMPONENT runtime
            NAMELINK_COMPONENT development
    ARCHIVE DESTINATION "${CMAKE_INSTALL_LIBDIR}" COMPONENT development)
install(FILES "${EPMPI_XIOS_ADAPTER_SOURCE_DIR}/include/ep_lib.hpp" "${EPMPI_XIOS_ADAPTER_SOURCE_DIR}/include/ep_xios.h"
    DESTINATION "${EPMPI_INSTALL_XIOS_INCLUDEDIR}" COMPONENT development)
