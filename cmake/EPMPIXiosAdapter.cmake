# The XIOS adapter (EPMPI::xios_adapter): XIOS's `ep_lib` interface in C++ and the client/server
# protocol of ep_xios.h (C11) over the C library, from the sources listed by
# ${EPMPI_XIOS_ADAPTER_SOURCE_DIR}/sources.cmake (relative to that directory). Its headers are
# installed in include/epmpi/xios/, the directory XIOS's build puts on its include path.
epmpi_read_sources("${EPMPI_XIOS_ADAPTER_SOURCE_DIR}" EPMPI_XIOS_ADAPTER_SOURCES) # (EPMPIComponents)
epmpi_read_sources("${EPMPI_XIOS_ADAPTER_SOURCE_DIR}" EPMPI_XIOS_PROTOCOL_SOURCES)
epmpi_read_sources("${EPMPI_XIOS_ADAPTER_SOURCE_DIR}" EPMPI_XIOS_ADAPTER_HEADERS) # all XIOS includes

epmpi_add_component_library(epmpi_xios_adapter xios_adapter
    ${EPMPI_XIOS_ADAPTER_SOURCES} ${EPMPI_XIOS_PROTOCOL_SOURCES})
set_source_files_properties(${EPMPI_XIOS_PROTOCOL_SOURCES} PROPERTIES C_STANDARD 11 C_STANDARD_REQUIRED ON)
set(EPMPI_INSTALL_XIOS_INCLUDEDIR "${CMAKE_INSTALL_INCLUDEDIR}/epmpi/xios")
target_compile_features(epmpi_xios_adapter PUBLIC cxx_std_11) # XIOS builds as C++11
target_include_directories(epmpi_xios_adapter PUBLIC
    "$<BUILD_INTERFACE:${EPMPI_XIOS_ADAPTER_SOURCE_DIR}/include>"
    "$<INSTALL_INTERFACE:${EPMPI_INSTALL_XIOS_INCLUDEDIR}>")
# mpi.h for the C++ sources comes with MPI::MPI_CXX: EPMPI::epmpi brings MPI::MPI_C, which has
# no include directories when the C compiler is the MPI wrapper and the C++ compiler is not.
# Installed, EPMPI::epmpi brings EPMPI::host_mpi, the MPI of the consumer's languages. Threads:
# the protocol's handle table (a static adapter's users get them with EPMPI::epmpi_static).
target_link_libraries(epmpi_xios_adapter
    PUBLIC EPMPI::epmpi "$<BUILD_INTERFACE:MPI::MPI_CXX>"
    PRIVATE "$<BUILD_INTERFACE:Threads::Threads>")

install(TARGETS epmpi_xios_adapter EXPORT EPMPIXiosAdapterTargets
    LIBRARY DESTINATION "${CMAKE_INSTALL_LIBDIR}" COMPONENT runtime NAMELINK_COMPONENT development
    ARCHIVE DESTINATION "${CMAKE_INSTALL_LIBDIR}" COMPONENT development)
install(EXPORT EPMPIXiosAdapterTargets NAMESPACE EPMPI::
    DESTINATION "${EPMPI_INSTALL_CMAKEDIR}" COMPONENT development)
install(FILES ${EPMPI_XIOS_ADAPTER_HEADERS}
    DESTINATION "${EPMPI_INSTALL_XIOS_INCLUDEDIR}" COMPONENT development)
