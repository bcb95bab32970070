!> `use ep_xios`: the Fortran interface of `xios_adapter/include/ep_xios.h`, XIOS's
!> client/server protocol (start-up, context registration, client buffers, events, finalize)
!> on EPMPI endpoints. Read the header for what each call does on the wire; this module only
!> changes the spelling.
!>
!> Every C function has a subroutine here named in lower case (`EPX_Context_send_event` ->
!> `epx_context_send_event`), with the C argument order. Conventions, as in module `ep_mpi`:
!>
!> * Handles (`EPX_Client`, `EPX_Server`, `EPX_Context`, and the `EP_Comm` endpoints of
!>   `ep_mpi`) are default integers with the C values: a handle crosses between C and Fortran
!>   unchanged. The world communicator of `epx_init_client`/`epx_init_server` is the host's
!>   `use mpi` integer (`MPI_COMM_WORLD`), of the kind `use mpi` gives it.
!> * Counts, ranks, thread indices, event types and `ierror` are of default kind (code built
!>   with `-fdefault-integer-8` passes its own integers; build this module with the same
!>   flags). Values outside the C `int` range reach the library as -huge(0_c_int), which it
!>   refuses. Sizes in bytes and metadata are `integer(int64)`.
!> * Names (code and context ids) are `character(len=*)`; trailing blanks are not part of the
!>   name. A name longer than EPX_MAX_NAME or holding a NUL gives EP_ERR_ARG.
!> * `ierror` is optional and last. When present it receives EP_SUCCESS (0) or an EPMPI error
!>   code (`ep_error_string`/`ep_error_class` of `ep_mpi` read it). When absent, an error
!>   prints a message naming the routine and the cause and aborts the job (the protocol's
!>   endpoints return their errors, so nothing else would report them).
!> * Payloads are `type(*), dimension(..)`: any type, kind and rank; their size is the whole
!>   array's, in bytes. A non-contiguous section is copied (the payload is copied into the
!>   client buffer before `epx_context_send_event` returns, so nothing stays in use).
!> * Received events (`type(epx_event)`) point into the context's receive buffer until the next
!>   wait or test on the context; `epx_event_get_meta` and `epx_event_get_data` copy them out.
!>
!> Thread safety: any number of OpenMP threads may call at once, each on its own handles (one
!> handle, one thread at a time), as XIOS's clients do. The module keeps no state: every
!> routine is `recursive` and no local is initialised in its declaration.
module ep_xios
  use, intrinsic :: iso_c_binding, only: c_int, c_int64_t, c_char, c_ptr, c_null_ptr, c_null_char, &
    c_f_pointer, c_associated
  use, intrinsic :: iso_fortran_env, only: int64
  use mpi, only: MPI_COMM_WORLD
  implicit none
  private

  !> Kind of the host's `use mpi` integers (the world communicator).
  integer, parameter :: mpi_kind = kind(MPI_COMM_WORLD)

  ! ---- constants: the values of ep_xios.h ---------------------------------------------------

  !> Null handles of clients, servers and contexts (0).
  integer, parameter, public :: EPX_CLIENT_NULL = 0, EPX_SERVER_NULL = 0, EPX_CONTEXT_NULL = 0
  !> Transports of `epx_context_init`: XIOS 2's two buffers per server sent with EP_Issend;
  !> XIOS 3's ring per server in a window that the server reads with Get (passive target).
  integer, parameter, public :: EPX_TWO_SIDED = 0, EPX_ONE_SIDED = 1
  !> Longest code or context id, in characters.
  integer, parameter, public :: EPX_MAX_NAME = 255
  !> Most metadata integers in one event.
  integer, parameter, public :: EPX_MAX_META = 64
  !> Buffer size in bytes (per client and server) that `buffer_bytes = 0` selects (1 MiB).
  integer(int64), parameter, public :: EPX_DEFAULT_BUFFER_BYTES = 1048576_int64
  !> Code id of the servers (XIOS's "xios.server"); a model code may not use it.
  character(len=*), parameter, public :: EPX_SERVER_CODE = 'xios.server'
  !> `event%type` after the last event of a context: every client has finalized it.
  integer, parameter, public :: EPX_EVENT_END = -1

  !> One received event, the C struct `EPX_Event` (`epx_context_wait_event`,
  !> `epx_context_test_event`). `meta` (meta_count 64-bit integers) and `data` (`bytes` bytes,
  !> 8-byte aligned) point into the context's receive buffer and stay valid until the next
  !> wait or test on the context: copy them with `epx_event_get_meta`/`epx_event_get_data`.
  type, bind(c), public :: epx_event
    integer(c_int) :: client      !< rank of the sender in the context's client group (0-based)
    integer(c_int) :: type        !< the sender's event type (>= 0), or EPX_EVENT_END
    integer(c_int) :: meta_count  !< number of metadata integers
    integer(c_int) :: reserved    !< padding; 0
    type(c_ptr) :: meta           !< the metadata (int64_t[meta_count])
    integer(c_int64_t) :: bytes   !< payload size in bytes
    type(c_ptr) :: data           !< the payload
  end type epx_event

  public :: epx_init_client, epx_client_info, epx_init_server, epx_server_comm, epx_context_init
  public :: epx_server_accept_context, epx_context_info, epx_context_send_event, epx_context_flush
  public :: epx_context_wait_event, epx_context_test_event, epx_context_finalize
  public :: epx_finalize_client, epx_finalize_server, epx_event_get_meta, epx_event_get_data

  ! ---- C interfaces: ep_xios.h, and ep_xios_glue.c where C must convert -------------------
  ! Outputs are intent(inout): the C functions leave them untouched on error.

  interface
    function c_init_client(world, num_threads, thread, code_id, code_len, model_comm, client) &
        bind(C, name="epx_f_init_client") result(ierror)
      import :: c_int, c_char
      integer(c_int), value :: world, num_threads, thread, code_len
      character(kind=c_char), dimension(*), intent(in) :: code_id
      integer(c_int), intent(inout) :: model_comm, client
      integer(c_int) :: ierror
    end function c_init_client

    function c_init_server(world, server) bind(C, name="epx_f_init_server") result(ierror)
      import :: c_int
      integer(c_int), value :: world
      integer(c_int), intent(inout) :: server
      integer(c_int) :: ierror
    end function c_init_server

    function c_server_comm(server, servers_comm) bind(C, name="EPX_Server_comm") result(ierror)
      import :: c_int
      integer(c_int), value :: server
      integer(c_int), intent(inout) :: servers_comm
      integer(c_int) :: ierror
    end function c_server_comm

    function c_context_init(client, context_id, id_len, transport, buffer_bytes, context) &
        bind(C, name="epx_f_context_init") result(ierror)
      import :: c_int, c_int64_t, c_char
      integer(c_int), value :: client, id_len, transport
      character(kind=c_char), dimension(*), intent(in) :: context_id
      integer(c_int64_t), value :: buffer_bytes
      integer(c_int), intent(inout) :: context
      integer(c_int) :: ierror
    end function c_context_init

    function c_server_accept_context(server, context_id, context) &
        bind(C, name="EPX_Server_accept_context") result(ierror)
      import :: c_int, c_char
      integer(c_int), value :: server
      character(kind=c_char), dimension(*), intent(inout) :: context_id
      integer(c_int), intent(inout) :: context
      integer(c_int) :: ierror
    end function c_server_accept_context

    function c_client_info(client, clients, servers, my_rank) bind(C, name="EPX_Client_info") result(ierror)
      import :: c_int
      integer(c_int), value :: client
      integer(c_int), intent(inout) :: clients, servers, my_rank
      integer(c_int) :: ierror
    end function c_client_info

    function c_context_info(context, clients, servers, my_rank) bind(C, name="EPX_Context_info") result(ierror)
      import :: c_int
      integer(c_int), value :: context
      integer(c_int), intent(inout) :: clients, servers, my_rank
      integer(c_int) :: ierror
    end function c_context_info

    function c_send_event(context, server, type, meta, meta_count, data) &
        bind(C, name="epx_f_send_event") result(ierror)
      import :: c_int, c_int64_t
      integer(c_int), value :: context, server, type, meta_count
      integer(c_int64_t), dimension(*), intent(in) :: meta
      type(*), dimension(..), intent(in), optional :: data
      integer(c_int) :: ierror
    end function c_send_event

    function c_context_flush(context) bind(C, name="EPX_Context_flush") result(ierror)
      import :: c_int
      integer(c_int), value :: context
      integer(c_int) :: ierror
    end function c_context_flush

    function c_wait_event(context, event) bind(C, name="EPX_Context_wait_event") result(ierror)
      import :: c_int, epx_event
      integer(c_int), value :: context
      type(epx_event), intent(inout) :: event
      integer(c_int) :: ierror
    end function c_wait_event

    function c_test_event(context, flag, event) bind(C, name="EPX_Context_test_event") result(ierror)
      import :: c_int, epx_event
      integer(c_int), value :: context
      integer(c_int), intent(inout) :: flag
      type(epx_event), intent(inout) :: event
      integer(c_int) :: ierror
    end function c_test_event

    function c_context_finalize(context) bind(C, name="EPX_Context_finalize") result(ierror)
      import :: c_int
      integer(c_int), intent(inout) :: context
      integer(c_int) :: ierror
    end function c_context_finalize

    function c_finalize_client(client) bind(C, name="EPX_Finalize_client") result(ierror)
      import :: c_int
      integer(c_int), intent(inout) :: client
      integer(c_int) :: ierror
    end function c_finalize_client

    function c_finalize_server(server) bind(C, name="EPX_Finalize_server") result(ierror)
      import :: c_int
      integer(c_int), intent(inout) :: server
      integer(c_int) :: ierror
    end function c_finalize_server

    function c_copy_payload(src, bytes, dst) bind(C, name="epx_f_copy_payload") result(ierror)
      import :: c_ptr, c_int64_t, c_int
      type(c_ptr), value :: src
      integer(c_int64_t), value :: bytes
      type(*), dimension(..), intent(inout) :: dst
      integer(c_int) :: ierror
    end function c_copy_payload

    subroutine c_fatal(code, routine) bind(C, name="epx_f_fatal")
      import :: c_int, c_char
      integer(c_int), value :: code
      character(kind=c_char), dimension(*), intent(in) :: routine
    end subroutine c_fatal
  end interface

contains

  ! ---- helpers (private) --------------------------------------------------------------------

  !> A default integer as a C int; values outside the int range become -huge(0_c_int).
  elemental function c_arg(x) result(c)
    integer, intent(in) :: x
    integer(c_int) :: c
    if (x >= int(-huge(0_c_int), kind(x)) .and. x <= int(huge(0_c_int), kind(x))) then
      c = int(x, c_int)
    else
      c = -huge(0_c_int)
    end if
  end function c_arg

  !> Hands the result of a call to the caller: into `ierror` when present, else an error
  !> aborts the job with a message naming `routine`.
  recursive subroutine finish(c_ierror, routine, ierror)
    integer(c_int), intent(in) :: c_ierror
    character(len=*), intent(in) :: routine
    integer, intent(out), optional :: ierror
    if (present(ierror)) then
      ierror = int(c_ierror)
    else if (c_ierror /= 0) then
      call c_fatal(c_ierror, routine // c_null_char)
    end if
  end subroutine finish

  ! ---- start-up -----------------------------------------------------------------------------

  !> Starts this thread's client endpoint of model code `code_id` (C: `EPX_Init_client`;
  !> XIOS's `CClient::initialize`, `xios_init_client` in XIOS's Fortran). Collective over every
  !> endpoint of `world`: each model process calls it from `num_threads` threads (e.g. inside
  !> `!$omp parallel`, `thread` = 0..num_threads-1, each once), while every server process
  !> calls `epx_init_server`. Processes may have different thread counts. The host must give
  !> MPI_THREAD_MULTIPLE when num_threads > 1.
  !>
  !> world       `use mpi` communicator of the whole job (MPI_COMM_WORLD)
  !> num_threads client endpoints of this process (>= 1); thread: this one's index, 0-based
  !> code_id     the model's code id (not EPX_SERVER_CODE, 1..EPX_MAX_NAME characters)
  !> model_comm  (out) the code's own endpoint communicator (ep_mpi handle, ranks = client
  !>             ranks: process by process in world order, then by thread); free it with
  !>             `ep_comm_free` after `epx_finalize_client`
  !> client      (out) the client handle
  !> Errors: EP_ERR_ARG (bad id, no server process), EP_ERR_COMM, EP_ERR_THREAD_LEVEL, and
  !> those of the EPMPI creation, collective and intercommunicator calls underneath.
  recursive subroutine epx_init_client(world, num_threads, thread, code_id, model_comm, client, ierror)
    integer(mpi_kind), intent(in) :: world
    integer, intent(in) :: num_threads, thread
    character(len=*), intent(in) :: code_id
    integer, intent(out) :: model_comm, client
    integer, intent(out), optional :: ierror
    integer(c_int) :: c_ierror, c_comm, c_client
    c_comm = 0
    c_client = EPX_CLIENT_NULL
    c_ierror = c_init_client(int(world, c_int), c_arg(num_threads), c_arg(thread), code_id, &
      c_arg(len_trim(code_id)), c_comm, c_client)
    model_comm = int(c_comm)
    client = int(c_client)
    call finish(c_ierror, 'epx_init_client', ierror)
  end subroutine epx_init_client

  !> Starts the server endpoint of this process (C: `EPX_Init_server`; XIOS's
  !> `CServer::initialize`): one per server process, from one thread, collective with the
  !> clients' `epx_init_client`. world: `use mpi` communicator; server (out): the handle.
  !> Errors: EP_ERR_COMM, those of the EPMPI calls underneath.
  recursive subroutine epx_init_server(world, server, ierror)
    integer(mpi_kind), intent(in) :: world
    integer, intent(out) :: server
    integer, intent(out), optional :: ierror
    integer(c_int) :: c_ierror, c_server
    c_server = EPX_SERVER_NULL
    c_ierror = c_init_server(int(world, c_int), c_server)
    server = int(c_server)
    call finish(c_ierror, 'epx_init_server', ierror)
  end subroutine epx_init_server

  !> The servers' own endpoint communicator (C: `EPX_Server_comm`): one endpoint per server
  !> process, ranks = server ranks, for ep_mpi collectives among servers. Owned by the server
  !> handle: do not free it. Errors: EP_ERR_ARG (bad handle).
  recursive subroutine epx_server_comm(server, servers_comm, ierror)
    integer, intent(in) :: server
    integer, intent(out) :: servers_comm
    integer, intent(out), optional :: ierror
    integer(c_int) :: c_ierror, c_comm
    c_comm = 0
    c_ierror = c_server_comm(c_arg(server), c_comm)
    servers_comm = int(c_comm)
    call finish(c_ierror, 'epx_server_comm', ierror)
  end subroutine epx_server_comm

  ! ---- contexts -----------------------------------------------------------------------------

  !> Registers context `context_id` of the client's code with the servers (C:
  !> `EPX_Context_init`; XIOS's `xios_context_initialize`, `CContext::initClientSide`).
  !> Collective over all client endpoints of the code (same id, transport and size), matched
  !> by `epx_server_accept_context` on every server.
  !>
  !> transport    EPX_TWO_SIDED or EPX_ONE_SIDED
  !> buffer_bytes size in bytes of each buffer per (client, server) pair, 0 for
  !>              EPX_DEFAULT_BUFFER_BYTES, else 256..2**30; every event must fit in it
  !> context      (out) this endpoint's context handle
  !> Errors: EP_ERR_ARG (bad handle, id or transport), EP_ERR_COUNT (bad buffer size), those
  !> of EPMPI (send, intercommunicator create/merge, window allocation).
  recursive subroutine epx_context_init(client, context_id, transport, buffer_bytes, context, ierror)
    integer, intent(in) :: client, transport
    character(len=*), intent(in) :: context_id
    integer(int64), intent(in) :: buffer_bytes
    integer, intent(out) :: context
    integer, intent(out), optional :: ierror
    integer(c_int) :: c_ierror, c_context
    c_context = EPX_CONTEXT_NULL
    c_ierror = c_context_init(c_arg(client), context_id, c_arg(len_trim(context_id)), c_arg(transport), &
      int(buffer_bytes, c_int64_t), c_context)
    context = int(c_context)
    call finish(c_ierror, 'epx_context_init', ierror)
  end subroutine epx_context_init

  !> Server side of registration (C: `EPX_Server_accept_context`; XIOS's
  !> `CServer::listenContext`): waits until a client code registers a context and builds it
  !> (collective over the servers, which all get the same context). `context` is
  !> EPX_CONTEXT_NULL once every client code has called `epx_finalize_client`: the server is
  !> done. context_id (out): the id, blank-padded (cut if shorter than the id; len
  !> EPX_MAX_NAME holds any). Errors: EP_ERR_ARG (bad handle), those of EPMPI.
  recursive subroutine epx_server_accept_context(server, context_id, context, ierror)
    integer, intent(in) :: server
    character(len=*), intent(out) :: context_id
    integer, intent(out) :: context
    integer, intent(out), optional :: ierror
    character(kind=c_char) :: c_id(EPX_MAX_NAME + 1)
    integer(c_int) :: c_ierror, c_context
    integer :: i
    c_context = EPX_CONTEXT_NULL
    c_id(1) = c_null_char
    c_ierror = c_server_accept_context(c_arg(server), c_id, c_context)
    context = int(c_context)
    context_id = ' '
    do i = 1, min(len(context_id), EPX_MAX_NAME)
      if (c_id(i) == c_null_char) exit
      context_id(i:i) = c_id(i)
    end do
    call finish(c_ierror, 'epx_server_accept_context', ierror)
  end subroutine epx_server_accept_context

  !> Sizes seen from a client endpoint from start-up on (C: `EPX_Client_info`), e.g. to size
  !> buffers before a context exists: endpoints of its code, server endpoints, and its rank in
  !> the code (0-based, = its model_comm rank). Errors: EP_ERR_ARG (bad handle).
  recursive subroutine epx_client_info(client, clients, servers, my_rank, ierror)
    integer, intent(in) :: client
    integer, intent(out) :: clients, servers, my_rank
    integer, intent(out), optional :: ierror
    integer(c_int) :: c_ierror, c_clients, c_servers, c_rank
    c_clients = 0
    c_servers = 0
    c_rank = -1
    c_ierror = c_client_info(c_arg(client), c_clients, c_servers, c_rank)
    clients = int(c_clients)
    servers = int(c_servers)
    my_rank = int(c_rank)
    call finish(c_ierror, 'epx_client_info', ierror)
  end subroutine epx_client_info

  !> Sizes and ranks of a context (C: `EPX_Context_info`): client endpoints, server
  !> endpoints, and this endpoint's rank in its own group (client or server rank, 0-based).
  !> Errors: EP_ERR_ARG (bad handle).
  recursive subroutine epx_context_info(context, clients, servers, my_rank, ierror)
    integer, intent(in) :: context
    integer, intent(out) :: clients, servers, my_rank
    integer, intent(out), optional :: ierror
    integer(c_int) :: c_ierror, c_clients, c_servers, c_rank
    c_clients = 0
    c_servers = 0
    c_rank = -1
    c_ierror = c_context_info(c_arg(context), c_clients, c_servers, c_rank)
    clients = int(c_clients)
    servers = int(c_servers)
    my_rank = int(c_rank)
    call finish(c_ierror, 'epx_context_info', ierror)
  end subroutine epx_context_info

  ! ---- client: events -----------------------------------------------------------------------

  !> Client: sends one event to server rank `server` (C: `EPX_Context_send_event`; XIOS's
  !> `CContextClient::sendEvent`). type >= 0; meta: the event's metadata, size(meta) =
  !> 0..EPX_MAX_META integers; data (optional): the payload, any type, kind and rank, all of
  !> its bytes (storage size x elements). Both are copied into the buffer for that server
  !> before the call returns. Two-sided, a full buffer leaves (EP_Issend) and the call may wait
  !> for the other buffer's previous send; one-sided, it may wait for ring space. Events of one
  !> client reach a server in order. An event takes 24 + 8 x size(meta) bytes plus the payload
  !> rounded up to 8, and must fit in the context's buffer.
  !> Errors: EP_ERR_ARG (bad handle, a server's context), EP_ERR_RANK (server out of range),
  !> EP_ERR_COUNT (negative type, too much metadata, event larger than the buffer), those of
  !> EPMPI.
  recursive subroutine epx_context_send_event(context, server, type, meta, data, ierror)
    integer, intent(in) :: context, server, type
    integer(int64), dimension(:), intent(in) :: meta
    type(*), dimension(..), intent(in), optional :: data
    integer, intent(out), optional :: ierror
    integer(c_int64_t) :: c_meta(max(size(meta), 1))
    integer(c_int) :: c_ierror
    if (size(meta) > 0) c_meta(1:size(meta)) = int(meta, c_int64_t)
    c_ierror = c_send_event(c_arg(context), c_arg(server), c_arg(type), c_meta, c_arg(size(meta)), data)
    call finish(c_ierror, 'epx_context_send_event', ierror)
  end subroutine epx_context_send_event

  !> Client: makes every event sent so far leave for its server (C: `EPX_Context_flush`):
  !> two-sided, partly filled buffers are sent; one-sided, nothing is pending. Does not wait
  !> for the servers. Errors: EP_ERR_ARG, those of EPMPI.
  recursive subroutine epx_context_flush(context, ierror)
    integer, intent(in) :: context
    integer, intent(out), optional :: ierror
    call finish(c_context_flush(c_arg(context)), 'epx_context_flush', ierror)
  end subroutine epx_context_flush

  ! ---- server: events -----------------------------------------------------------------------

  !> Server: the next event of the context, waiting for one (C: `EPX_Context_wait_event`;
  !> XIOS's `CContextServer::eventLoop`). `event%type` is EPX_EVENT_END once every client
  !> has finalized the context and all its events were returned. The event's metadata and
  !> payload are valid until the next wait or test on the context.
  !> Errors: EP_ERR_ARG (bad handle, a client's context), EP_ERR_INTERN (corrupt buffer), EPMPI's.
  recursive subroutine epx_context_wait_event(context, event, ierror)
    integer, intent(in) :: context
    type(epx_event), intent(out) :: event
    integer, intent(out), optional :: ierror
    integer(c_int) :: c_ierror
    event = epx_event(-1, EPX_EVENT_END, 0, 0, c_null_ptr, 0_c_int64_t, c_null_ptr)
    c_ierror = c_wait_event(c_arg(context), event)
    call finish(c_ierror, 'epx_context_wait_event', ierror)
  end subroutine epx_context_wait_event

  !> Server: as `epx_context_wait_event` but returns at once (C: `EPX_Context_test_event`):
  !> flag (out) .true. with the event, .false. when none has arrived (event untouched).
  recursive subroutine epx_context_test_event(context, flag, event, ierror)
    integer, intent(in) :: context
    logical, intent(out) :: flag
    type(epx_event), intent(inout) :: event
    integer, intent(out), optional :: ierror
    integer(c_int) :: c_ierror, c_flag
    c_flag = 0
    c_ierror = c_test_event(c_arg(context), c_flag, event)
    flag = c_flag /= 0
    call finish(c_ierror, 'epx_context_test_event', ierror)
  end subroutine epx_context_test_event

  !> Copies the metadata of a received event into `meta` (Fortran only): the first
  !> min(size(meta), event%meta_count) integers; count (out, optional): event%meta_count.
  recursive subroutine epx_event_get_meta(event, meta, count)
    type(epx_event), intent(in) :: event
    integer(int64), dimension(:), intent(out) :: meta
    integer, intent(out), optional :: count
    integer(c_int64_t), pointer :: values(:)
    integer :: n
    meta = 0
    n = min(size(meta), max(int(event%meta_count), 0))
    if (n > 0 .and. c_associated(event%meta)) then
      call c_f_pointer(event%meta, values, [n])
      meta(1:n) = int(values(1:n), int64)
    end if
    if (present(count)) count = int(event%meta_count)
  end subroutine epx_event_get_meta

  !> Copies the payload of a received event into `buffer` (Fortran only): any type, kind and
  !> rank, contiguous, at least `event%bytes` bytes (the payload fills it from the start).
  !> Errors: EP_ERR_BUFFER (non-contiguous buffer), EP_ERR_TRUNCATE (buffer too small: what
  !> fits is copied).
  recursive subroutine epx_event_get_data(event, buffer, ierror)
    type(epx_event), intent(in) :: event
    type(*), dimension(..), intent(inout) :: buffer
    integer, intent(out), optional :: ierror
    call finish(c_copy_payload(event%data, event%bytes, buffer), 'epx_event_get_data', ierror)
  end subroutine epx_event_get_data

  ! ---- finalize -----------------------------------------------------------------------------

  !> Ends a context on this endpoint and frees it (C: `EPX_Context_finalize`); `context`
  !> becomes EPX_CONTEXT_NULL. Client (XIOS's `xios_context_finalize`): sends the finalize
  !> event to every server, waits until every buffer has left, frees the context (collective
  !> with the servers). Server: call it after EPX_EVENT_END.
  !> Errors: EP_ERR_ARG (bad handle; on a server, before EPX_EVENT_END), those of EPMPI.
  recursive subroutine epx_context_finalize(context, ierror)
    integer, intent(inout) :: context
    integer, intent(out), optional :: ierror
    integer(c_int) :: c_ierror, c_context
    c_context = c_arg(context)
    c_ierror = c_context_finalize(c_context)
    context = int(c_context)
    call finish(c_ierror, 'epx_context_finalize', ierror)
  end subroutine epx_context_finalize

  !> Ends a client endpoint (C: `EPX_Finalize_client`; XIOS's `xios_finalize`): its contexts
  !> must be finalized; collective over the code. `client` becomes EPX_CLIENT_NULL; the model
  !> communicator of `epx_init_client` stays the caller's. Errors: EP_ERR_ARG (bad handle,
  !> contexts still open).
  recursive subroutine epx_finalize_client(client, ierror)
    integer, intent(inout) :: client
    integer, intent(out), optional :: ierror
    integer(c_int) :: c_ierror, c_client
    c_client = c_arg(client)
    c_ierror = c_finalize_client(c_client)
    client = int(c_client)
    call finish(c_ierror, 'epx_finalize_client', ierror)
  end subroutine epx_finalize_client

  !> Ends a server endpoint once `epx_server_accept_context` gave EPX_CONTEXT_NULL (C:
  !> `EPX_Finalize_server`). `server` becomes EPX_SERVER_NULL. Errors: EP_ERR_ARG (bad
  !> handle, before the end, contexts still open).
  recursive subroutine epx_finalize_server(server, ierror)
    integer, intent(inout) :: server
    integer, intent(out), optional :: ierror
    integer(c_int) :: c_ierror, c_server
    c_server = c_arg(server)
    c_ierror = c_finalize_server(c_server)
    server = int(c_server)
    call finish(c_ierror, 'epx_finalize_server', ierror)
  end subroutine epx_finalize_server

end module ep_xios
