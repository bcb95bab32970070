# Sources of the XIOS adapter library (namespace ep_lib over EPMPI), relative to this
# directory. Included by the CMake package (cmake/EPMPIXiosAdapter.cmake); tests/xios_adapter.rs
# reads it too, so this list is the one place that names them.
#
# Build them with the host MPI's C++ compiler wrapper (mpicxx of the MPI libepmpi was built
# against), C++11 or later, with include/ and xios_adapter/include/ on the include path; link
# the result with libepmpi. Users include <ep_lib.hpp> (installed in include/epmpi/xios/).
set(EPMPI_XIOS_ADAPTER_SOURCES
    src/globals.cpp
    src/detail.cpp
    src/env.cpp
    src/comm.cpp
    src/p2p.cpp
    src/coll.cpp
)

# The headers to install, all in one directory (include/epmpi/xios/): the directory a user puts in
# place of XIOS's extern/src_ep_dev, so it holds every header XIOS includes from there
# (ep_lib.hpp, ep_declaration.hpp) and nothing that XIOS's build (FCM) would compile.
set(EPMPI_XIOS_ADAPTER_HEADERS
    include/ep_lib.hpp
    include/ep_declaration.hpp
    include/ep_xios.h
)

# The XIOS client/server protocol (C11, <ep_xios.h>), relative to this directory: start-up,
# context registration, two-sided and one-sided client buffers. Build with the host MPI's C
# wrapper, with include/, xios_adapter/include/ and xios_adapter/protocol/ on the include path.
set(EPMPI_XIOS_PROTOCOL_SOURCES
    protocol/handles.c
    protocol/records.c
    protocol/startup.c
    protocol/context.c
    protocol/events.c
    protocol/two_sided.c
    protocol/one_sided.c
)

# Sources of the Fortran module `ep_xios` (the binding of include/ep_xios.h), relative to this
# directory, in compile order. Build ep_xios_glue.c with the host MPI's C compiler (C11,
# include/ and xios_adapter/include/ on the include path; it reads Fortran descriptors through
# <ISO_Fortran_binding.h>) and ep_xios.f90 with its Fortran compiler (it uses `mpi`); link with
# the protocol sources and libepmpi. Users compile against ep_xios.mod with the same Fortran
# compiler and default-kind flags. tests/xios_demo.rs reads this list.
set(EPMPI_XIOS_FORTRAN_SOURCES
    fortran/ep_xios_glue.c
    fortran/ep_xios.f90
)
