// ep_lib communicators: the MPI_Comm value type, the predefined globals, endpoint creation,
// Fortran integers, queries, dup, free, split, intercommunicators.
#include "detail.hpp"

#include <new>
#include <vector>

namespace ep_lib
{

MPI_Comm *passage = nullptr;
MPI_Comm MPI_COMM_WORLD = MPI_Comm::from_host(host::comm_world());
MPI_Comm MPI_COMM_NULL;
MPI_Info MPI_INFO_NULL;

MPI_Comm MPI_Comm::from_endpoint(EP_Comm handle)
{
    MPI_Comm comm;
    if (handle == EP_COMM_NULL)
        return comm;
    comm.ep_comm = handle;
    comm.ep_comm_ptr.present_ = true;
    ::MPI_Comm host_comm = host::comm_null();
    int inter = 0;
    if (EP_Comm_get_host_comm(handle, &host_comm) == EP_SUCCESS && EP_Comm_test_inter(handle, &inter) == EP_SUCCESS) {
        comm.mpi_comm = host_comm;
        if (inter) {
            comm.ep_comm_ptr.intercomm.present_ = true;
            comm.ep_comm_ptr.intercomm.mpi_inter_comm = host_comm;
        }
    }
    return comm;
}

MPI_Comm MPI_Comm::from_host(::MPI_Comm host_comm)
{
    MPI_Comm comm;
    comm.mpi_comm = host_comm;
    return comm;
}

bool MPI_Comm::is_null() const { return ep_comm == EP_COMM_NULL && mpi_comm == host::comm_null(); }

bool MPI_Comm::operator==(const MPI_Comm &other) const
{
    if (ep_comm != EP_COMM_NULL || other.ep_comm != EP_COMM_NULL)
        return ep_comm == other.ep_comm;
    return mpi_comm == other.mpi_comm;
}

// ---- creation ---------------------------------------------------------------------------------

int MPI_Comm_create_endpoints(::MPI_Comm base_comm, int num_ep, MPI_Info info, MPI_Comm *&out_comm_hdls)
{
    out_comm_hdls = nullptr;
    try {
        std::vector<EP_Comm> handles(num_ep > 0 ? num_ep : 0);
        int rc = EP_Comm_create_endpoints(base_comm, num_ep, info.mpi_info, handles.data());
        if (rc != EP_SUCCESS)
            return rc;
        MPI_Comm *comms = new MPI_Comm[handles.size()];
        for (std::size_t i = 0; i < handles.size(); i++)
            comms[i] = MPI_Comm::from_endpoint(handles[i]);
        out_comm_hdls = comms;
        return EP_SUCCESS;
    } catch (const std::bad_alloc &) {
        return detail::fail(EP_COMM_NULL, EP_ERR_OTHER, "MPI_Comm_create_endpoints", "out of memory");
    }
}

int MPI_Comm_create_endpoints(void *base_comm, int num_ep, MPI_Info info, MPI_Comm *&out_comm_hdls)
{
    int rc = EP_SUCCESS;
    out_comm_hdls = nullptr;
    if (!detail::present(base_comm, "base_comm", "MPI_Comm_create_endpoints", EP_COMM_NULL, &rc))
        return rc;
    return MPI_Comm_create_endpoints(*static_cast<::MPI_Comm *>(base_comm), num_ep, info, out_comm_hdls);
}

int MPI_Comm_create_endpoints(const MPI_Comm &base_comm, int num_ep, MPI_Info info, MPI_Comm *&out_comm_hdls)
{
    out_comm_hdls = nullptr;
    if (base_comm.ep_comm != EP_COMM_NULL)
        return detail::fail(base_comm.ep_comm, EP_ERR_COMM, "MPI_Comm_create_endpoints",
                            "the base communicator is an endpoint communicator: endpoints are created from a host "
                            "communicator (MPI_COMM_WORLD, or comm.mpi_comm)");
    return MPI_Comm_create_endpoints(base_comm.mpi_comm, num_ep, info, out_comm_hdls);
}

// ---- Fortran integers -------------------------------------------------------------------------

MPI_Fint EP_Comm_c2f(MPI_Comm comm)
{
    if (detail::is_host(comm))
        return MPI_Fint(host::comm_c2f(comm.mpi_comm));
    return MPI_Fint(comm.ep_comm);
}

MPI_Comm EP_Comm_f2c(int comm) { return MPI_Comm::from_endpoint(comm); }

MPI_Comm EP_Comm_f2c(MPI_Fint comm) { return MPI_Comm::from_endpoint(comm.mpi_fint); }

// ---- queries ----------------------------------------------------------------------------------

int MPI_Comm_rank(MPI_Comm comm, int *rank)
{
    if (detail::is_host(comm))
        return ::MPI_Comm_rank(comm.mpi_comm, rank);
    return detail::on_endpoint(comm, "MPI_Comm_rank", [&](EP_Comm h) { return EP_Comm_rank(h, rank); });
}

int MPI_Comm_size(MPI_Comm comm, int *size)
{
    if (detail::is_host(comm))
        return ::MPI_Comm_size(comm.mpi_comm, size);
    return detail::on_endpoint(comm, "MPI_Comm_size", [&](EP_Comm h) { return EP_Comm_size(h, size); });
}

int MPI_Comm_remote_size(MPI_Comm comm, int *size)
{
    return detail::on_endpoint(comm, "MPI_Comm_remote_size", [&](EP_Comm h) { return EP_Comm_remote_size(h, size); });
}

int MPI_Comm_test_inter(MPI_Comm comm, int *flag)
{
    return detail::on_endpoint(comm, "MPI_Comm_test_inter", [&](EP_Comm h) { return EP_Comm_test_inter(h, flag); });
}

// ---- new communicators ------------------------------------------------------------------------

int MPI_Comm_dup(MPI_Comm comm, MPI_Comm *newcomm)
{
    return detail::creating(comm, newcomm, "newcomm", "MPI_Comm_dup",
                            [](EP_Comm h, EP_Comm *created) { return EP_Comm_dup(h, created); });
}

int MPI_Comm_free(MPI_Comm *comm)
{
    int rc = EP_SUCCESS;
    if (!detail::present(comm, "comm", "MPI_Comm_free", EP_COMM_NULL, &rc))
        return rc;
    return detail::on_endpoint(*comm, "MPI_Comm_free", [&](EP_Comm h) {
        int rc = EP_Comm_free(&h);
        if (rc == EP_SUCCESS)
            *comm = MPI_Comm();
        return rc;
    });
}

int MPI_Comm_split(MPI_Comm comm, int color, int key, MPI_Comm *newcomm)
{
    if (color == MPI_UNDEFINED) // the host's value, which XIOS passes
        color = EP_UNDEFINED;
    return detail::creating(comm, newcomm, "newcomm", "MPI_Comm_split",
                            [&](EP_Comm h, EP_Comm *created) { return EP_Comm_split(h, color, key, created); });
}

int MPI_Intercomm_create(MPI_Comm local_comm, int local_leader, MPI_Comm peer_comm, int remote_leader, int tag,
                         MPI_Comm *newintercomm)
{
    // Only the local leader reads peer_comm; EPMPI says so when the leader's is unusable.
    return detail::creating(local_comm, newintercomm, "newintercomm", "MPI_Intercomm_create",
                            [&](EP_Comm h, EP_Comm *created) {
                                return EP_Intercomm_create(h, local_leader, peer_comm.ep_comm, remote_leader, tag,
                                                           created);
                            });
}

int MPI_Intercomm_merge(MPI_Comm intercomm, bool high, MPI_Comm *newintracomm)
{
    return detail::creating(intercomm, newintracomm, "newintracomm", "MPI_Intercomm_merge",
                            [&](EP_Comm h, EP_Comm *created) { return EP_Intercomm_merge(h, high ? 1 : 0, created); });
}

} // namespace ep_lib
