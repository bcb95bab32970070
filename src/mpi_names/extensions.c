/*
 * extensions.c: EPMPI's own calls under the standard names' handle types (the MPIX_ functions
 * of include/epmpi_mpix.h), and the standard calls whose EPMPI side needs more than the
 * generator's per-argument conversions: the process default error handler set through
 * MPI_COMM_SELF, window attributes whose keyvals and values differ between EPMPI and the host.
 */
#include "runtime.h"
#include <epmpi_mpix.h>

#include <stdatomic.h>
#include <stddef.h>
#include <string.h>

_Static_assert(MPIX_FLAVOR_ENDPOINTS == EP_FLAVOR_ENDPOINTS, "the flavour value is EPMPI's");
_Static_assert(MPIX_COMM_TYPE_PROCESS == EP_COMM_TYPE_PROCESS, "the split type is EPMPI's");
_Static_assert(MPIX_ENDPOINT_TEAM_NULL == EP_ENDPOINT_TEAM_NULL, "the null team is EPMPI's");

int MPIX_Comm_create_endpoint(MPI_Comm parent_comm, int my_num_ep, int index, MPI_Comm *newcomm)
{
    if (EPMPI_IS_EP(parent_comm))
        return MPI_ERR_COMM; /* endpoints are made from a host communicator, as in MPIX_Comm_create_endpoints */
    EP_Comm e = EP_COMM_NULL;
    int rc = EP_Comm_create_endpoint(parent_comm, my_num_ep, index, newcomm ? &e : NULL);
    if (rc == EP_SUCCESS)
        *newcomm = epmpi_comm_out(e);
    return epmpi_rc(rc);
}

int MPIX_Comm_local_info(MPI_Comm comm, int *local_index, int *local_count, int *process_rank)
{
    return epmpi_rc(EP_Comm_local_info(epmpi_comm_in(comm), local_index, local_count, process_rank));
}

int MPIX_Comm_get_host_comm(MPI_Comm comm, MPI_Comm *host_comm)
{
    return epmpi_rc(EP_Comm_get_host_comm(epmpi_comm_in(comm), host_comm));
}

/* EPMPI's text (`len` bytes in `text`) into the program's buffer of the host's size `cap`
 * (Open MPI's object names and version strings are shorter than EPMPI's), cut to fit. */
static void copy_cut(char *out, int cap, const char *text, int len, int *resultlen)
{
    if (len > cap - 1)
        len = cap - 1;
    memcpy(out, text, (size_t)len);
    out[len] = '\0';
    *resultlen = len;
}

int MPIX_Get_library_version(char *version, int *resultlen)
{
    char text[EP_MAX_ERROR_STRING];
    int len = 0;
    int rc = EP_Get_library_version(version && resultlen ? text : NULL, resultlen ? &len : NULL);
    if (rc == EP_SUCCESS)
        copy_cut(version, MPI_MAX_LIBRARY_VERSION_STRING, text, len, resultlen);
    return epmpi_rc(rc);
}

int MPI_Comm_get_name(MPI_Comm comm, char *comm_name, int *resultlen)
{
    if (EPMPI_LIKELY(!EPMPI_IS_EP(comm)))
        return PMPI_Comm_get_name(comm, comm_name, resultlen);
    char text[EP_MAX_OBJECT_NAME];
    int len = 0;
    int rc = EP_Comm_get_name(epmpi_comm_in(comm), comm_name && resultlen ? text : NULL, resultlen ? &len : NULL);
    if (rc == EP_SUCCESS)
        copy_cut(comm_name, MPI_MAX_OBJECT_NAME, text, len, resultlen);
    return epmpi_rc(rc);
}

int MPI_Win_get_name(MPI_Win win, char *win_name, int *resultlen)
{
    if (EPMPI_LIKELY(!EPMPI_IS_EP(win)))
        return PMPI_Win_get_name(win, win_name, resultlen);
    char text[EP_MAX_OBJECT_NAME];
    int len = 0;
    int rc = EP_Win_get_name(epmpi_win_in(win), win_name && resultlen ? text : NULL, resultlen ? &len : NULL);
    if (rc == EP_SUCCESS)
        copy_cut(win_name, MPI_MAX_OBJECT_NAME, text, len, resultlen);
    return epmpi_rc(rc);
}

int MPIX_Debug_live_handles(int *comms, int *requests, int *messages)
{
    return epmpi_rc(EP_Debug_live_handles(comms, requests, messages));
}

int MPIX_Debug_live_objects(int *comm_states, int *requests, int *win_states)
{
    return epmpi_rc(EP_Debug_live_objects(comm_states, requests, win_states));
}

int MPIX_Debug_live_windows(int *windows)
{
    return epmpi_rc(EP_Debug_live_windows(windows));
}

/* Team handles are EPMPI's own on both sides (no host object stands for a team). */
int MPIX_Endpoint_team_create(int team_id, int team_size, MPIX_Endpoint_team *team)
{
    return epmpi_rc(EP_Endpoint_team_create(team_id, team_size, team));
}

int MPIX_Endpoint_join(MPIX_Endpoint_team team)
{
    return epmpi_rc(EP_Endpoint_join(team));
}

int MPIX_Endpoint_leave(MPIX_Endpoint_team team)
{
    return epmpi_rc(EP_Endpoint_leave(team));
}

int MPIX_Endpoint_team_destroy(MPIX_Endpoint_team *team)
{
    return epmpi_rc(EP_Endpoint_team_destroy(team));
}

int MPIX_Isendrecv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, int dest, int sendtag, void *recvbuf,
                   int recvcount, MPI_Datatype recvtype, int source, int recvtag, MPI_Comm comm, MPI_Request *request)
{
#if MPI_VERSION >= 4
    if (!EPMPI_IS_EP(comm))
        return PMPI_Isendrecv(sendbuf, sendcount, sendtype, dest, sendtag, recvbuf, recvcount, recvtype, source,
                              recvtag, comm, request);
#else
    if (!EPMPI_IS_EP(comm))
        return epmpi_host_unsupported("MPIX_Isendrecv", comm);
#endif
    EP_Request r = EP_REQUEST_NULL;
    int rc = EP_Isendrecv(sendbuf, sendcount, sendtype, epmpi_rank_in(dest), sendtag, recvbuf, recvcount, recvtype,
                          epmpi_rank_in(source), epmpi_tag_in(recvtag), epmpi_comm_in(comm), request ? &r : NULL);
    if (rc == EP_SUCCESS)
        *request = epmpi_request_out(r);
    return epmpi_rc(rc);
}

int MPIX_Isendrecv_replace(void *buf, int count, MPI_Datatype datatype, int dest, int sendtag, int source, int recvtag,
                           MPI_Comm comm, MPI_Request *request)
{
#if MPI_VERSION >= 4
    if (!EPMPI_IS_EP(comm))
        return PMPI_Isendrecv_replace(buf, count, datatype, dest, sendtag, source, recvtag, comm, request);
#else
    if (!EPMPI_IS_EP(comm))
        return epmpi_host_unsupported("MPIX_Isendrecv_replace", comm);
#endif
    EP_Request r = EP_REQUEST_NULL;
    int rc = EP_Isendrecv_replace(buf, count, datatype, epmpi_rank_in(dest), sendtag, epmpi_rank_in(source),
                                  epmpi_tag_in(recvtag), epmpi_comm_in(comm), request ? &r : NULL);
    if (rc == EP_SUCCESS)
        *request = epmpi_request_out(r);
    return epmpi_rc(rc);
}

int MPIX_Comm_idup_with_info(MPI_Comm comm, MPI_Info info, MPI_Comm *newcomm, MPI_Request *request)
{
#if MPI_VERSION >= 4
    if (!EPMPI_IS_EP(comm))
        return PMPI_Comm_idup_with_info(comm, info, newcomm, request);
#else
    if (!EPMPI_IS_EP(comm))
        return epmpi_host_unsupported("MPIX_Comm_idup_with_info", comm);
#endif
    EP_Comm c = EP_COMM_NULL;
    EP_Request r = EP_REQUEST_NULL;
    int rc = EP_Comm_idup_with_info(epmpi_comm_in(comm), info, newcomm ? &c : NULL, request ? &r : NULL);
    if (rc == EP_SUCCESS) {
        *newcomm = epmpi_comm_out(c);
        *request = epmpi_request_out(r);
    }
    return epmpi_rc(rc);
}

/* MPI 4.1 section 9.3: errors tied to no communicator go to MPI_COMM_SELF's handler. EPMPI's
 * counterpart is its process default (EP_Comm_set_errhandler on EP_COMM_NULL), which also
 * serves the endpoints made afterwards from host communicators: setting MPI_COMM_SELF's
 * handler through the layer sets both, so that a program that asks for MPI_ERRORS_RETURN
 * there gets it on its endpoints too. */
int MPI_Comm_set_errhandler(MPI_Comm comm, MPI_Errhandler errhandler)
{
    if (EPMPI_LIKELY(!EPMPI_IS_EP(comm))) {
        int rc = PMPI_Comm_set_errhandler(comm, errhandler);
        if (rc == MPI_SUCCESS && comm == MPI_COMM_SELF) {
            EP_Errhandler e = epmpi_errhandler_in(errhandler);
            if (e != (EP_Errhandler)EPMPI_FOREIGN)
                EP_Comm_set_errhandler(EP_COMM_NULL, e);
        }
        return rc;
    }
    return epmpi_rc(EP_Comm_set_errhandler(epmpi_comm_in(comm), epmpi_errhandler_in(errhandler)));
}

/* Window attributes: the host's predefined keyvals to EPMPI's, and MPI_WIN_MODEL's value to
 * the host's (Open MPI's MPI_WIN_UNIFIED is 0, EPMPI's 2). */
static int win_keyval_in(int keyval)
{
    if (keyval == MPI_WIN_BASE)
        return EP_WIN_BASE;
    if (keyval == MPI_WIN_SIZE)
        return EP_WIN_SIZE;
    if (keyval == MPI_WIN_DISP_UNIT)
        return EP_WIN_DISP_UNIT;
    if (keyval == MPI_WIN_CREATE_FLAVOR)
        return EP_WIN_CREATE_FLAVOR;
    if (keyval == MPI_WIN_MODEL)
        return EP_WIN_MODEL;
    return epmpi_keyval_in(keyval);
}

_Static_assert(MPI_WIN_FLAVOR_CREATE == EP_WIN_FLAVOR_CREATE && MPI_WIN_FLAVOR_ALLOCATE == EP_WIN_FLAVOR_ALLOCATE
                   && MPI_WIN_FLAVOR_DYNAMIC == EP_WIN_FLAVOR_DYNAMIC && MPI_WIN_FLAVOR_SHARED == EP_WIN_FLAVOR_SHARED,
               "window flavours are passed through");

int MPI_Win_get_attr(MPI_Win win, int win_keyval, void *attribute_val, int *flag)
{
    if (EPMPI_LIKELY(!EPMPI_IS_EP(win)))
        return PMPI_Win_get_attr(win, win_keyval, attribute_val, flag);
    int ep_keyval = win_keyval_in(win_keyval);
    int rc = EP_Win_get_attr(epmpi_win_in(win), ep_keyval, attribute_val, flag);
    if (rc == EP_SUCCESS && ep_keyval == EP_WIN_MODEL && flag && *flag && attribute_val) {
        static const int unified = MPI_WIN_UNIFIED, separate = MPI_WIN_SEPARATE;
        const int **value = attribute_val;
        *value = **value == EP_WIN_UNIFIED ? &unified : &separate;
    }
    return epmpi_rc(rc);
}

/* EPMPI's windows take the predefined handlers only: under MPI_ERRORS_RETURN there is nothing
 * to run (MPI 4.1 section 9.3.5), under MPI_ERRORS_ARE_FATAL the job ends with the code. */
int MPI_Win_call_errhandler(MPI_Win win, int errorcode)
{
    if (EPMPI_LIKELY(!EPMPI_IS_EP(win)))
        return PMPI_Win_call_errhandler(win, errorcode);
    int handler = EP_ERRORS_ARE_FATAL;
    int rc = EP_Win_get_errhandler(epmpi_win_in(win), &handler);
    if (rc != EP_SUCCESS)
        return epmpi_rc(rc); /* not a live window */
    if (handler == EP_ERRORS_RETURN)
        return MPI_SUCCESS;
    return epmpi_raise("MPI_Win_call_errhandler", EP_COMM_NULL, errorcode);
}

/* An error code the layer returned gives EPMPI's message, which names the call and the cause
 * ("EP_Send: destination rank 8 ..."), when it is this thread's last one; any other code the
 * host's text for it. */
int MPI_Error_string(int errorcode, char *string, int *resultlen)
{
    int ep = epmpi_last_error(errorcode);
    if (ep == EP_SUCCESS || string == NULL || resultlen == NULL)
        return PMPI_Error_string(errorcode, string, resultlen);
    char text[EP_MAX_ERROR_STRING];
    int len = 0;
    if (EP_Error_string(ep, text, &len) != EP_SUCCESS)
        return PMPI_Error_string(errorcode, string, resultlen);
    copy_cut(string, MPI_MAX_ERROR_STRING, text, len, resultlen);
    return MPI_SUCCESS;
}

/* EPMPI's empty group reaches the program as the host's MPI_GROUP_EMPTY, of which the host
 * counts references (Open MPI frees its static object when the count drops to zero): frees of
 * the copies the layer gave out are answered here, the others go to the host. */
static atomic_int empty_groups_given;

void epmpi_empty_group_given(void)
{
    atomic_fetch_add(&empty_groups_given, 1);
}

int MPI_Group_free(MPI_Group *group)
{
    if (group && *group == MPI_GROUP_EMPTY) {
        int n = atomic_load(&empty_groups_given);
        while (n > 0 && !atomic_compare_exchange_weak(&empty_groups_given, &n, n - 1))
            ;
        if (n > 0) {
            *group = MPI_GROUP_NULL;
            return MPI_SUCCESS;
        }
    }
    if (EPMPI_LIKELY(!(group && EPMPI_IS_EP(*group))))
        return PMPI_Group_free(group);
    EP_Group t = epmpi_group_in(*group);
    int rc = EP_Group_free(&t);
    *group = epmpi_group_out(t);
    return epmpi_rc(rc);
}

/* The buffer of buffered-mode sends (MPI 4.1 section 3.6.1) serves the host's communicators and
 * the endpoints alike: attached to both. EPMPI never writes into it (it is the budget of what
 * EPMPI buffers, in memory of its own), so the host may use all of it. Errors tied to no
 * communicator go to MPI_COMM_SELF's handler. */
static int self_error(int ep_code)
{
    int rc = epmpi_rc(ep_code);
    PMPI_Comm_call_errhandler(MPI_COMM_SELF, rc);
    return rc;
}

int MPI_Buffer_attach(void *buffer, int size)
{
    int ep = EP_Buffer_attach(buffer, size);
    if (ep != EP_SUCCESS)
        return self_error(ep); /* a buffer already attached, a bad size */
    int rc = PMPI_Buffer_attach(buffer, size);
    if (rc != MPI_SUCCESS) {
        void *addr;
        int n;
        EP_Buffer_detach(&addr, &n);
    }
    return rc;
}

int MPI_Buffer_detach(void *buffer_addr, int *size)
{
    if (buffer_addr == NULL || size == NULL)
        return PMPI_Buffer_detach(buffer_addr, size);
    void *addr = NULL;
    int n = 0;
    int ep = EP_Buffer_detach(&addr, &n); /* waits for the endpoints' buffered sends */
    int rc = PMPI_Buffer_detach(buffer_addr, size);
    if (ep != EP_SUCCESS && (rc != MPI_SUCCESS || *(void **)buffer_addr == NULL))
        return self_error(ep); /* nothing attached */
    return rc;
}
