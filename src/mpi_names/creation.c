/*
 * creation.c: MPIX_Comm_create_endpoints, the MPI Forum proposal's creation call, under the
 * standard names (include/epmpi_mpix.h).
 */
#include "runtime.h"
#include <epmpi_mpix.h>

#include <stdlib.h>

/* Creates `n` endpoints of this process on the host communicator `parent`; `eps` receives their
 * EPMPI handles. Shared with MPIX_Threadcomm_init. */
int epmpi_create_endpoints(MPI_Comm parent, int n, MPI_Info info, EP_Comm *eps)
{
    if (EPMPI_IS_EP(parent)) {
        /* Endpoints are created from a host communicator; MPI_ERR_COMM as EPMPI gives for any
         * handle it cannot use as a parent. */
        return MPI_ERR_COMM;
    }
    return epmpi_rc(EP_Comm_create_endpoints(parent, n, info, eps));
}

int MPIX_Comm_create_endpoints(MPI_Comm parent_comm, int my_num_ep, MPI_Info info, MPI_Comm out_comm_handles[])
{
    if (my_num_ep < 0 || (my_num_ep > 0 && out_comm_handles == NULL))
        return epmpi_rc(EP_Comm_create_endpoints(parent_comm, my_num_ep, info, NULL)); /* its error, agreed */
    EP_Comm *eps = malloc(sizeof(EP_Comm) * (size_t)(my_num_ep > 0 ? my_num_ep : 1));
    if (eps == NULL)
        return MPI_ERR_NO_MEM;
    int rc = epmpi_create_endpoints(parent_comm, my_num_ep, info, eps);
    if (rc == MPI_SUCCESS) {
        for (int i = 0; i < my_num_ep; i++)
            out_comm_handles[i] = epmpi_comm_out(eps[i]);
    }
    free(eps);
    return rc;
}
