// ep_lib collectives, on EPMPI's blocking collectives (one call per endpoint). XIOS passes the
// same buffer as send and receive buffer (CContextClient's MPI_Allreduce of MPI_MIN), which its
// library accepted and MPI does not (MPICH stops: "Buffers must not be aliased"): reductions read
// such a send buffer as MPI_IN_PLACE, the others send a copy.
#include "detail.hpp"

#include <cstring>
#include <vector>

namespace ep_lib
{

namespace
{
/** True when a send buffer is the receive buffer (and not MPI_IN_PLACE or empty). */
bool aliased(const void *sendbuf, const void *recvbuf)
{
    return sendbuf && sendbuf == recvbuf && sendbuf != MPI_IN_PLACE;
}

/** `count` elements of `type` at `buf` copied into `storage`; returns the address that plays
 *  `buf`'s role for the copy (the type's lower bound kept). */
const void *copy_of(const void *buf, int count, MPI_Datatype type, std::vector<char> &storage)
{
    ::MPI_Aint lb = 0, extent = 0, true_lb = 0, true_extent = 0;
    if (count <= 0 || ::MPI_Type_get_extent(type, &lb, &extent) != MPI_SUCCESS ||
        ::MPI_Type_get_true_extent(type, &true_lb, &true_extent) != MPI_SUCCESS)
        return buf; // nothing to copy, or a bad datatype that EPMPI reports
    const std::size_t span = static_cast<std::size_t>((count - 1) * extent + true_extent);
    storage.resize(span > 0 ? span : 1);
    std::memcpy(storage.data(), static_cast<const char *>(buf) + true_lb, span);
    return storage.data() - true_lb;
}
} // namespace

int MPI_Barrier(MPI_Comm comm)
{
    return detail::on_endpoint(comm, "MPI_Barrier", [&](EP_Comm h) { return EP_Barrier(h); });
}

int MPI_Bcast(void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm)
{
    return detail::on_endpoint(comm, "MPI_Bcast", [&](EP_Comm h) { return EP_Bcast(buffer, count, datatype, root, h); });
}

int MPI_Allreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm)
{
    if (aliased(sendbuf, recvbuf))
        sendbuf = MPI_IN_PLACE;
    return detail::on_endpoint(comm, "MPI_Allreduce",
                               [&](EP_Comm h) { return EP_Allreduce(sendbuf, recvbuf, count, datatype, op, h); });
}

int MPI_Reduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, int root,
               MPI_Comm comm)
{
    return detail::on_endpoint(comm, "MPI_Reduce", [&](EP_Comm h) {
        std::vector<char> copy;
        if (aliased(sendbuf, recvbuf)) {
            int rank = -1;
            if (EP_Comm_rank(h, &rank) == EP_SUCCESS && rank == root)
                sendbuf = MPI_IN_PLACE;
            else // recvbuf means nothing off the root: the data are sent
                sendbuf = copy_of(sendbuf, count, datatype, copy);
        }
        return EP_Reduce(sendbuf, recvbuf, count, datatype, op, root, h);
    });
}

int MPI_Scan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm)
{
    if (aliased(sendbuf, recvbuf))
        sendbuf = MPI_IN_PLACE;
    return detail::on_endpoint(comm, "MPI_Scan",
                               [&](EP_Comm h) { return EP_Scan(sendbuf, recvbuf, count, datatype, op, h); });
}

int MPI_Allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                  MPI_Datatype recvtype, MPI_Comm comm)
{
    return detail::on_endpoint(comm, "MPI_Allgather", [&](EP_Comm h) {
        std::vector<char> copy;
        if (aliased(sendbuf, recvbuf))
            sendbuf = copy_of(sendbuf, sendcount, sendtype, copy);
        return EP_Allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, h);
    });
}

int MPI_Allgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                   const int displs[], MPI_Datatype recvtype, MPI_Comm comm)
{
    return detail::on_endpoint(comm, "MPI_Allgatherv", [&](EP_Comm h) {
        std::vector<char> copy;
        if (aliased(sendbuf, recvbuf))
            sendbuf = copy_of(sendbuf, sendcount, sendtype, copy);
        return EP_Allgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, h);
    });
}

int MPI_Gather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
               MPI_Datatype recvtype, int root, MPI_Comm comm)
{
    return detail::on_endpoint(comm, "MPI_Gather", [&](EP_Comm h) {
        std::vector<char> copy;
        if (aliased(sendbuf, recvbuf))
            sendbuf = copy_of(sendbuf, sendcount, sendtype, copy);
        return EP_Gather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, h);
    });
}

int MPI_Gatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                const int displs[], MPI_Datatype recvtype, int root, MPI_Comm comm)
{
    return detail::on_endpoint(comm, "MPI_Gatherv", [&](EP_Comm h) {
        std::vector<char> copy;
        if (aliased(sendbuf, recvbuf))
            sendbuf = copy_of(sendbuf, sendcount, sendtype, copy);
        return EP_Gatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, root, h);
    });
}

int MPI_Alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                 MPI_Datatype recvtype, MPI_Comm comm)
{
    return detail::on_endpoint(comm, "MPI_Alltoall", [&](EP_Comm h) {
        std::vector<char> copy;
        int size = 0;
        if (aliased(sendbuf, recvbuf) && EP_Comm_size(h, &size) == EP_SUCCESS)
            sendbuf = copy_of(sendbuf, sendcount * size, sendtype, copy);
        return EP_Alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, h);
    });
}

int MPI_Reduce_scatter(const void *sendbuf, void *recvbuf, const int recvcounts[], MPI_Datatype datatype, MPI_Op op,
                       MPI_Comm comm)
{
    if (aliased(sendbuf, recvbuf))
        sendbuf = MPI_IN_PLACE;
    return detail::on_endpoint(comm, "MPI_Reduce_scatter", [&](EP_Comm h) {
        return EP_Reduce_scatter(sendbuf, recvbuf, recvcounts, datatype, op, h);
    });
}

} // namespace ep_lib
