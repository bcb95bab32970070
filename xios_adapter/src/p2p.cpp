// ep_lib point-to-point and completion calls, on EPMPI's EP_Send... (XIOS's wildcard source -2
// and the ep_src/ep_tag status fields are handled here).
#include "detail.hpp"

#include <new>
#include <vector>

namespace ep_lib
{

int MPI_Send(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm)
{
    return detail::on_endpoint(comm, "MPI_Send", [&](EP_Comm h) { return EP_Send(buf, count, datatype, dest, tag, h); });
}

int MPI_Recv(void *buf, int count, MPI_Datatype datatype, int src, int tag, MPI_Comm comm, MPI_Status *status)
{
    return detail::on_endpoint(comm, "MPI_Recv", [&](EP_Comm h) {
        EP_Status st;
        int rc = EP_Recv(buf, count, datatype, detail::source(src), tag, h, detail::fill(status, &st));
        detail::publish(st, status); // filled on truncation too
        return rc;
    });
}

int MPI_Isend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
              MPI_Request *request)
{
    return detail::on_endpoint(comm, request, "request", "MPI_Isend", [&](EP_Comm h) {
        return EP_Isend(buf, count, datatype, dest, tag, h, &request->ep_request);
    });
}

int MPI_Issend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
               MPI_Request *request)
{
    return detail::on_endpoint(comm, request, "request", "MPI_Issend", [&](EP_Comm h) {
        return EP_Issend(buf, count, datatype, dest, tag, h, &request->ep_request);
    });
}

int MPI_Irecv(void *buf, int count, MPI_Datatype datatype, int src, int tag, MPI_Comm comm, MPI_Request *request)
{
    return detail::on_endpoint(comm, request, "request", "MPI_Irecv", [&](EP_Comm h) {
        return EP_Irecv(buf, count, datatype, detail::source(src), tag, h, &request->ep_request);
    });
}

int MPI_Iprobe(int source, int tag, MPI_Comm comm, int *flag, MPI_Status *status)
{
    return detail::on_endpoint(comm, "MPI_Iprobe", [&](EP_Comm h) {
        EP_Status st;
        int rc = EP_Iprobe(detail::source(source), tag, h, flag, detail::fill(status, &st));
        detail::publish(st, status);
        return rc;
    });
}

int MPI_Test(MPI_Request *request, int *flag, MPI_Status *status)
{
    EP_Status st;
    int rc = EP_Test(request ? &request->ep_request : nullptr, flag, detail::fill(status, &st));
    detail::publish(st, status);
    return rc;
}

int MPI_Wait(MPI_Request *request, MPI_Status *status)
{
    EP_Status st;
    int rc = EP_Wait(request ? &request->ep_request : nullptr, detail::fill(status, &st));
    detail::publish(st, status);
    return rc;
}

int MPI_Waitall(int count, MPI_Request *array_of_requests, MPI_Status *array_of_statuses)
{
    if (count <= 0 || !array_of_requests) // nothing to copy: EPMPI checks (and reports) the arguments
        return EP_Waitall(count, nullptr, EP_STATUSES_IGNORE);
    try {
        std::vector<EP_Request> requests(count);
        const bool want = !detail::ignored(array_of_statuses);
        std::vector<EP_Status> statuses(want ? count : 0);
        for (int i = 0; i < count; i++)
            requests[i] = array_of_requests[i].ep_request;
        int rc = EP_Waitall(count, requests.data(), want ? statuses.data() : EP_STATUSES_IGNORE);
        for (int i = 0; i < count; i++) {
            array_of_requests[i].ep_request = requests[i];
            if (want)
                detail::publish(statuses[i], &array_of_statuses[i]);
        }
        return rc;
    } catch (const std::bad_alloc &) {
        return detail::fail(EP_COMM_NULL, EP_ERR_OTHER, "MPI_Waitall", "out of memory");
    }
}

int MPI_Get_count(const MPI_Status *status, MPI_Datatype datatype, int *count)
{
    if (detail::ignored(status)) // EPMPI reports the NULL status
        return EP_Get_count(nullptr, datatype, count);
    EP_Status st = detail::to_ep(*status);
    return EP_Get_count(&st, datatype, count);
}

} // namespace ep_lib
