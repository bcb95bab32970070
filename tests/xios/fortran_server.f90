!> A Fortran I/O server for the XIOS demo's model (examples/xios_demo/model.f90): the server
!> side of module `ep_xios`, which the demo's C server does not use. Run MPMD after the model,
!> with the model's --grid:
!>
!>   mpirun -np N model --grid G ... : -np S fortran_server --grid G
!>
!> Each server accepts context "demo", takes events with epx_context_test_event and
!> epx_context_wait_event, copies metadata and payloads out with epx_event_get_meta and
!> epx_event_get_data, and checks every value against the formulas of demo_fields.f90, the
!> event counts, errors returned through `ierror` (bad handle, short buffer), the end of the
!> context and of the server. Server 0 prints `xios_fortran_server: PASS ...`.
program fortran_server
  use, intrinsic :: iso_fortran_env, only: int64, real64, output_unit, error_unit
  use, intrinsic :: iso_c_binding, only: c_null_char
  use mpi, only: MPI_COMM_WORLD, MPI_THREAD_MULTIPLE, MPI_INTEGER, MPI_SUM, MPI_Init_thread, MPI_Abort, &
    MPI_Finalize
  use ep_mpi, only: ep_comm_rank, ep_allreduce, ep_error_class, EP_ERR_ARG, EP_ERR_TRUNCATE, EP_SUCCESS
  use ep_xios
  use demo_fields
  use demo_options, only: options, read_options
  implicit none
  type(options) :: opt
  type(epx_event) :: event
  character(len=256) :: error
  character(len=EPX_MAX_NAME) :: id
  integer(int64) :: meta(EPX_MAX_META), steps
  integer :: provided, ierr, server, servers_comm, context, clients, servers, rank, meta_count
  integer :: definitions, coordinates, fields, expected, polled, total, cls
  logical :: flag

  call MPI_Init_thread(MPI_THREAD_MULTIPLE, provided, ierr)
  call read_options(opt, error)
  if (error /= ' ') call fail(trim(error))
  call epx_init_server(MPI_COMM_WORLD, server)
  call epx_server_comm(server, servers_comm)
  call ep_comm_rank(servers_comm, rank)
  call epx_server_accept_context(server, id, context)
  if (id /= 'demo' .or. context == EPX_CONTEXT_NULL) call fail('expected context "demo", got "' // trim(id) // '"')
  call epx_context_info(context, clients, servers, rank)
  call epx_context_info(-7, clients, servers, rank, ierr)
  call ep_error_class(ierr, cls)
  if (cls /= EP_ERR_ARG) call fail('epx_context_info on a bad handle did not give EP_ERR_ARG')
  call epx_context_info(context, clients, servers, rank)

  definitions = 0
  coordinates = 0
  fields = 0
  polled = 0
  steps = -1
  do
    call epx_context_test_event(context, flag, event)
    if (flag) then
      polled = polled + 1
    else
      call epx_context_wait_event(context, event)
    end if
    if (event%type == EPX_EVENT_END) exit
    if (event%client < 0 .or. event%client >= clients) call fail('event from a client rank out of range')
    call epx_event_get_meta(event, meta, meta_count)
    select case (event%type)
    case (DEMO_EV_DEFINE)
      call check_definition(event, meta, meta_count)
      steps = meta(4)
      definitions = definitions + 1
    case (DEMO_EV_COORDS)
      call check_coordinates(event, meta, meta_count)
      coordinates = coordinates + 1
    case (DEMO_EV_FIELD)
      call check_field(event, meta, meta_count)
      fields = fields + 1
    case default
      call fail('unexpected event type')
    end select
  end do

  ! Every client with columns sent its coordinates and each field at each timestep.
  expected = int(min(int(clients, int64), opt%nx))
  if (definitions /= 1 .or. coordinates /= expected .or. fields /= expected * DEMO_FIELD_COUNT * int(steps)) then
    write (error, '(a, 3(1x, i0))') 'event counts (definitions, coordinates, fields):', definitions, coordinates, fields
    call fail(trim(error))
  end if
  call epx_context_finalize(context)
  if (context /= EPX_CONTEXT_NULL) call fail('epx_context_finalize left the handle')
  call epx_server_accept_context(server, id, context)
  if (context /= EPX_CONTEXT_NULL) call fail('a second context arrived')
  call ep_allreduce(fields, total, 1, MPI_INTEGER, MPI_SUM, servers_comm)
  call epx_finalize_server(server)
  if (server /= EPX_SERVER_NULL) call fail('epx_finalize_server left the handle')
  if (rank == 0) then
    write (output_unit, '(a, i0, a, i0, a, i0, a)') 'xios_fortran_server: PASS ', servers, ' servers, ', clients, &
      ' clients, ', total, ' field events checked'
    flush (output_unit)
  end if
  call MPI_Finalize(ierr)

contains

  !> Prints `why` and aborts the job.
  subroutine fail(why)
    character(len=*), intent(in) :: why
    integer :: ignored
    write (error_unit, '(a, a)') 'xios_fortran_server: FAIL: ', why
    flush (error_unit)
    call MPI_Abort(MPI_COMM_WORLD, 4, ignored)
  end subroutine fail

  !> The definition: sizes, field names and a short buffer's EP_ERR_TRUNCATE.
  subroutine check_definition(ev, m, n)
    type(epx_event), intent(in) :: ev
    integer(int64), intent(in) :: m(:)
    integer, intent(in) :: n
    character(len=:), allocatable :: text
    character(len=4) :: short
    integer :: code
    if (n /= 7 .or. any(m(1:3) /= [opt%nx, opt%ny, opt%nz]) .or. m(5) /= DEMO_FIELD_COUNT) &
      call fail('definition metadata')
    allocate(character(len=ev%bytes) :: text)
    call epx_event_get_data(ev, text)
    if (index(text, 'temperature' // c_null_char // 'salinity' // c_null_char) /= 1) call fail('field names')
    call epx_event_get_data(ev, short, code)
    call ep_error_class(code, cls)
    if (cls /= EP_ERR_TRUNCATE .or. short /= 'temp') call fail('a short buffer did not give EP_ERR_TRUNCATE')
  end subroutine check_definition

  !> A coordinate event: nav_lon then nav_lat of a block of this server's rows.
  subroutine check_coordinates(ev, m, n)
    type(epx_event), intent(in) :: ev
    integer(int64), intent(in) :: m(:)
    integer, intent(in) :: n
    real(real64), allocatable :: v(:, :, :)
    integer(int64) :: i, j
    if (n /= 4) call fail('coordinate metadata')
    call check_rows(m(3), m(4))
    allocate(v(m(2), m(4), 2))
    if (ev%bytes /= 8 * size(v, kind=int64)) call fail('coordinate payload size')
    call epx_event_get_data(ev, v)
    do j = 1, m(4)
      do i = 1, m(2)
        call check_value(v(i, j, 1), demo_lon(m(1) + i - 1, m(3) + j - 1, opt%nx, opt%ny), 'nav_lon')
        call check_value(v(i, j, 2), demo_lat(m(1) + i - 1, m(3) + j - 1, opt%nx, opt%ny), 'nav_lat')
      end do
    end do
  end subroutine check_coordinates

  !> A field event: [field, timestep, i0, ni, j0, nj, nz] and ni x nj x nz values.
  subroutine check_field(ev, m, n)
    type(epx_event), intent(in) :: ev
    integer(int64), intent(in) :: m(:)
    integer, intent(in) :: n
    real(real64), allocatable :: v(:, :, :)
    integer(int64) :: i, j, k, gi, gj
    integer :: code
    if (n /= 7 .or. m(7) /= opt%nz) call fail('field metadata')
    call check_rows(m(5), m(6))
    allocate(v(m(4), m(6), m(7)))
    if (ev%bytes /= 8 * size(v, kind=int64)) call fail('field payload size')
    call epx_event_get_data(ev, v, code)
    if (code /= EP_SUCCESS) call fail('epx_event_get_data of a field')
    do k = 1, m(7)
      do j = 1, m(6)
        do i = 1, m(4)
          gi = m(3) + i - 1
          gj = m(5) + j - 1
          call check_value(v(i, j, k), demo_field(int(m(1)), m(2), k - 1, demo_lat(gi, gj, opt%nx, opt%ny), &
            demo_lon(gi, gj, opt%nx, opt%ny)), DEMO_FIELD_NAMES(m(1) + 1))
        end do
      end do
    end do
  end subroutine check_field

  !> The rows of an event are this server's band.
  subroutine check_rows(j0, nj)
    integer(int64), intent(in) :: j0, nj
    if (j0 /= demo_part_first(opt%ny, int(servers, int64), int(rank, int64)) .or. &
        nj /= demo_part_count(opt%ny, int(servers, int64), int(rank, int64))) call fail('rows of an event')
  end subroutine check_rows

  !> `got` equals `want` to 1e-12 relative to max(1, |want|) (same formulas, same libm here).
  subroutine check_value(got, want, what)
    real(real64), intent(in) :: got, want
    character(len=*), intent(in) :: what
    if (abs(got - want) > 1e-12_real64 * max(1.0_real64, abs(want))) call fail('a value of ' // trim(what))
  end subroutine check_value

end program fortran_server
