!> One client endpoint of the XIOS demo's model: what each OpenMP thread of `model.f90` runs.
!> The events and the split of the grid are those of `fields.h`.
module demo_client
  use, intrinsic :: iso_fortran_env, only: int64, real64, output_unit
  use, intrinsic :: iso_c_binding, only: c_null_char
  use mpi, only: MPI_COMM_WORLD, MPI_INTEGER, MPI_INTEGER8, MPI_SUM
  use ep_mpi, only: ep_comm_local_info, ep_gather, ep_reduce, ep_comm_free, ep_wtime
  use ep_xios
  use demo_fields
  use demo_options, only: options
  implicit none
  private

  public :: run_client

contains

  !> Size of the buffers per (client, server) pair: room for two of the largest field events
  !> (a slab of ceil(nx / clients) columns over a band of ceil(ny / servers) rows), at least
  !> EPX_DEFAULT_BUFFER_BYTES.
  pure function buffer_bytes(opt, clients, servers) result(bytes)
    type(options), intent(in) :: opt
    integer, intent(in) :: clients, servers
    integer(int64) :: bytes, largest
    largest = 8 * ((opt%nx + clients - 1) / clients) * ((opt%ny + servers - 1) / servers) * opt%nz &
        + 24 + 8 * 8
    bytes = max(EPX_DEFAULT_BUFFER_BYTES, 2 * largest)
  end function buffer_bytes

  !> Runs client thread `thread` of `nthreads` of this process: start-up, context "demo",
  !> definition (client 0), coordinates, then every field at every timestep, each as one event
  !> per server; finalize. Client rank 0 prints the one-line summary. Errors abort the job
  !> (the ep_xios and ep_mpi calls are made without ierror).
  recursive subroutine run_client(opt, nthreads, thread)
    type(options), intent(in) :: opt
    integer, intent(in) :: nthreads, thread
    integer :: model_comm, client, context, clients, servers, rank, s, f, size_comm
    integer :: local_index, local_count, process_rank, mine(2)
    integer, allocatable :: layout(:, :)
    integer(int64) :: i0, ni, j0, nj, t, i, j, k, sent, total
    real(real64), allocatable :: lon(:, :), lat(:, :), values(:, :, :), coords(:, :, :)
    real(real64) :: start, elapsed
    character(len=32) :: seconds

    call epx_init_client(MPI_COMM_WORLD, nthreads, thread, 'model', model_comm, client)
    call ep_comm_local_info(model_comm, local_index, local_count, process_rank)
    call epx_client_info(client, size_comm, servers, rank)
    call epx_context_init(client, 'demo', opt%transport, buffer_bytes(opt, size_comm, servers), context)
    call epx_context_info(context, clients, servers, rank)
    start = ep_wtime()
    sent = 0

    ! The layout of the model (process of each client rank, its thread count) for the server.
    mine = [process_rank, local_count]
    allocate(layout(2, clients))
    call ep_gather(mine, 2, MPI_INTEGER, layout, 2, MPI_INTEGER, 0, model_comm)
    if (rank == 0) then
      do s = 0, servers - 1
        call send_definition(opt, context, s, layout, sent)
      end do
    end if

    i0 = demo_part_first(opt%nx, int(clients, int64), int(rank, int64))
    ni = demo_part_count(opt%nx, int(clients, int64), int(rank, int64))
    if (ni > 0) then
      allocate(lon(ni, opt%ny), lat(ni, opt%ny), values(ni, opt%ny, opt%nz))
      do j = 1, opt%ny
        do i = 1, ni
          lon(i, j) = demo_lon(i0 + i - 1, j - 1, opt%nx, opt%ny)
          lat(i, j) = demo_lat(i0 + i - 1, j - 1, opt%nx, opt%ny)
        end do
      end do
      do s = 0, servers - 1
        j0 = demo_part_first(opt%ny, int(servers, int64), int(s, int64))
        nj = demo_part_count(opt%ny, int(servers, int64), int(s, int64))
        if (nj == 0) cycle
        allocate(coords(ni, nj, 2))
        coords(:, :, 1) = lon(:, j0 + 1:j0 + nj)
        coords(:, :, 2) = lat(:, j0 + 1:j0 + nj)
        call epx_context_send_event(context, s, DEMO_EV_COORDS, [i0, ni, j0, nj], coords)
        sent = sent + 8 * size(coords, kind=int64)
        deallocate(coords)
      end do
      do t = 0, opt%timesteps - 1
        do f = 0, DEMO_FIELD_COUNT - 1
          do k = 1, opt%nz
            do j = 1, opt%ny
              do i = 1, ni
                values(i, j, k) = demo_field(f, t, k - 1, lat(i, j), lon(i, j))
              end do
            end do
          end do
          do s = 0, servers - 1
            j0 = demo_part_first(opt%ny, int(servers, int64), int(s, int64))
            nj = demo_part_count(opt%ny, int(servers, int64), int(s, int64))
            if (nj == 0) cycle
            ! A section: the glue copies it into the event (contiguous copy, then the buffer).
            call epx_context_send_event(context, s, DEMO_EV_FIELD, &
              [int(f, int64), t, i0, ni, j0, nj, opt%nz], values(:, j0 + 1:j0 + nj, :))
            sent = sent + 8 * ni * nj * opt%nz
          end do
        end do
        ! Two-sided, partly filled buffers would otherwise wait for more events while the
        ! servers wait for this timestep.
        call epx_context_flush(context)
      end do
    end if

    call epx_context_finalize(context)
    call epx_finalize_client(client)
    elapsed = ep_wtime() - start
    total = 0
    call ep_reduce(sent, total, 1, MPI_INTEGER8, MPI_SUM, 0, model_comm)
    if (rank == 0) then
      write (seconds, '(f12.3)') elapsed
      write (output_unit, '(*(g0))') 'xios_demo model: ', clients, ' clients (', maxval(layout(1, :)) + 1, &
        ' processes x threads ', thread_list(layout), ') sent ', DEMO_FIELD_COUNT, ' fields x ', opt%timesteps, &
        ' timesteps of ', opt%nx, 'x', opt%ny, 'x', opt%nz, ' + coordinates (', total, ' bytes) to ', servers, &
        ' server(s), ', trim(transport_name(opt%transport)), ', in ', trim(adjustl(seconds)), ' s'
      flush (output_unit)
    end if
    call ep_comm_free(model_comm)
  end subroutine run_client

  !> The definition event (fields.h) from client 0 to server `server`.
  recursive subroutine send_definition(opt, context, server, layout, sent)
    type(options), intent(in) :: opt
    integer, intent(in) :: context, server
    integer, dimension(:, :), intent(in) :: layout
    integer(int64), intent(inout) :: sent
    character(len=:), allocatable :: text
    integer :: f
    text = ''
    do f = 1, DEMO_FIELD_COUNT
      text = text // trim(DEMO_FIELD_NAMES(f)) // c_null_char
    end do
    text = text // trim(thread_list(layout)) // c_null_char
    call epx_context_send_event(context, server, DEMO_EV_DEFINE, [opt%nx, opt%ny, opt%nz, opt%timesteps, &
      int(DEMO_FIELD_COUNT, int64), int(opt%transport, int64), int(maxval(layout(1, :)) + 1, int64)], text)
    sent = sent + len(text, kind=int64)
  end subroutine send_definition

  !> "K1,K2,...": the thread count of each model process, from (process, count) per client.
  pure recursive function thread_list(layout) result(text)
    integer, dimension(:, :), intent(in) :: layout
    character(len=:), allocatable :: text
    character(len=16) :: number
    integer :: p, r
    text = ''
    do p = 0, maxval(layout(1, :))
      do r = 1, size(layout, 2)
        if (layout(1, r) == p) exit
      end do
      write (number, '(i0)') layout(2, r)
      if (p > 0) text = text // ','
      text = text // trim(number)
    end do
  end function thread_list

  !> "one-sided" or "two-sided".
  pure function transport_name(transport) result(name)
    integer, intent(in) :: transport
    character(len=9) :: name
    name = merge('one-sided', 'two-sided', transport == EPX_ONE_SIDED)
  end function transport_name

end module demo_client
