/*
 * What an XIOS source sees of the endpoints library: the two headers of the directory that
 * replaces extern/src_ep_dev, reached by the relative path XIOS's sources use, and nothing of
 * <mpi.h>. The test harness (tests/xios_adapter.rs) builds the tree
 *   <dir>/extern/src_ep_dev -> xios_adapter/include,  <dir>/src/<these files>
 * so that the path below resolves as it does in an XIOS checkout.
 */
#ifndef DROPIN_EP_HPP
#define DROPIN_EP_HPP

#include <omp.h>

#include "../extern/src_ep_dev/ep_lib.hpp"
#include "../extern/src_ep_dev/ep_declaration.hpp"

#endif
