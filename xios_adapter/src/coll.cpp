// ep_lib collectives, on EPMPI's blocking collectives (one call per endpoint).
#include "detail.hpp"

namespace ep_lib
{

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
    return detail::on_endpoint(comm, "MPI_Allreduce",
                               [&](EP_Comm h) { return EP_Allreduce(sendbuf, recvbuf, count, datatype, op, h); });
}

int MPI_Reduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, int root,
               MPI_Comm comm)
{
    return detail::on_endpoint(comm, "MPI_Reduce",
                               [&](EP_Comm h) { return EP_Reduce(sendbuf, recvbuf, count, datatype, op, root, h); });
}

int MPI_Scan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm)
{
    return detail::on_endpoint(comm, "MPI_Scan",
                               [&](EP_Comm h) { return EP_Scan(sendbuf, recvbuf, count, datatype, op, h); });
}

int MPI_Allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                  MPI_Datatype recvtype, MPI_Comm comm)
{
    return detail::on_endpoint(comm, "MPI_Allgather", [&](EP_Comm h) {
        return EP_Allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, h);
    });
}

int MPI_Allgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                   const int displs[], MPI_Datatype recvtype, MPI_Comm comm)
{
    return detail::on_endpoint(comm, "MPI_Allgatherv", [&](EP_Comm h) {
        return EP_Allgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, h);
    });
}

int MPI_Gather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
               MPI_Datatype recvtype, int root, MPI_Comm comm)
{
    return detail::on_endpoint(comm, "MPI_Gather", [&](EP_Comm h) {
        return EP_Gather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, h);
    });
}

int MPI_Gatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                const int displs[], MPI_Datatype recvtype, int root, MPI_Comm comm)
{
    return detail::on_endpoint(comm, "MPI_Gatherv", [&](EP_Comm h) {
        return EP_Gatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, root, h);
    });
}

int MPI_Alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                 MPI_Datatype recvtype, MPI_Comm comm)
{
    return detail::on_endpoint(comm, "MPI_Alltoall", [&](EP_Comm h) {
        return EP_Alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, h);
    });
}

int MPI_Reduce_scatter(const void *sendbuf, void *recvbuf, const int recvcounts[], MPI_Datatype datatype, MPI_Op op,
                       MPI_Comm comm)
{
    return detail::on_endpoint(comm, "MPI_Reduce_scatter", [&](EP_Comm h) {
        return EP_Reduce_scatter(sendbuf, recvbuf, recvcounts, datatype, op, h);
    });
}

} // namespace ep_lib
