!> Groups, communicators from groups, names, attributes and error handlers from Fortran:
!> the group algebra checked rank by rank with ep_group_translate_ranks, ep_comm_create with
!> disjoint groups (rank mod 2, each in reversed order), ep_comm_create_group called only by
!> the members, ep_comm_split_type with EP_COMM_TYPE_PROCESS, names, keyvals with Fortran
!> copy and delete callbacks counted on dup and free, the MPI-1 names (ep_keyval_create,
!> ep_attr_put/get/delete, whose values are default integers), a Fortran error handler called with
!> the communicator and the error code, and bad input (their classes).
#ifdef EP_TEST_MPI_NAMES
#include "ep_as_mpi.h"
#endif
module groups_callbacks
  use mpi, only: MPI_ADDRESS_KIND
  use ep_mpi
  implicit none
  private
  public :: copy_plus_one, delete_count, record_error, copies, deletes, deleted_sum
  public :: copy_plus_one_int, delete_count_int
  public :: seen_comm, seen_code, handler_calls

  !> Per thread (each endpoint is a thread): what the callbacks saw.
  integer :: copies, deletes, seen_comm, seen_code, handler_calls
  integer(MPI_ADDRESS_KIND) :: deleted_sum
  !$omp threadprivate(copies, deletes, deleted_sum, seen_comm, seen_code, handler_calls)

contains

  subroutine copy_plus_one(oldcomm, comm_keyval, extra_state, attribute_val_in, attribute_val_out, flag, ierror)
    integer :: oldcomm, comm_keyval, ierror
    integer(MPI_ADDRESS_KIND) :: extra_state, attribute_val_in, attribute_val_out
    logical :: flag
    integer :: r
    ! A callback may call EPMPI.
    call ep_comm_rank(oldcomm, r, ierror)
    if (extra_state /= 42 .or. comm_keyval == EP_KEYVAL_INVALID) ierror = EP_ERR_OTHER
    copies = copies + 1
    attribute_val_out = attribute_val_in + 1
    flag = .true.
  end subroutine copy_plus_one

  subroutine delete_count(comm, comm_keyval, attribute_val, extra_state, ierror)
    integer :: comm, comm_keyval, ierror
    integer(MPI_ADDRESS_KIND) :: attribute_val, extra_state
    ierror = EP_SUCCESS
    if (extra_state /= 42 .or. comm == EP_COMM_NULL .or. comm_keyval == EP_KEYVAL_INVALID) ierror = EP_ERR_OTHER
    deletes = deletes + 1
    deleted_sum = deleted_sum + attribute_val
  end subroutine delete_count

  !> The MPI-1 callbacks (MPI_Copy_function, MPI_Delete_function): default integers.
  subroutine copy_plus_one_int(oldcomm, keyval, extra_state, attribute_val_in, attribute_val_out, flag, ierror)
    integer :: oldcomm, keyval, extra_state, attribute_val_in, attribute_val_out, ierror
    logical :: flag
    ierror = EP_SUCCESS
    if (extra_state /= 43 .or. oldcomm == EP_COMM_NULL .or. keyval == EP_KEYVAL_INVALID) ierror = EP_ERR_OTHER
    copies = copies + 1
    attribute_val_out = attribute_val_in + 1
    flag = .true.
  end subroutine copy_plus_one_int

  subroutine delete_count_int(comm, keyval, attribute_val, extra_state, ierror)
    integer :: comm, keyval, attribute_val, extra_state, ierror
    ierror = EP_SUCCESS
    if (extra_state /= 43 .or. comm == EP_COMM_NULL .or. keyval == EP_KEYVAL_INVALID) ierror = EP_ERR_OTHER
    deletes = deletes + 1
    deleted_sum = deleted_sum + attribute_val
  end subroutine delete_count_int

  subroutine record_error(comm, error_code)
    integer :: comm, error_code
    seen_comm = comm
    seen_code = error_code
    handler_calls = handler_calls + 1
  end subroutine record_error
end module groups_callbacks

program groups
  use omp_lib
  use mpi
  use ep_mpi
  use ep_test_support
  use groups_callbacks
  implicit none
  integer :: world_rank, world_size, n, ierr, p
  integer, allocatable :: handles(:), proc_of(:)
  integer :: n_base

  call test_init(world_rank, world_size)
  n = test_count_for(world_rank)
  n_base = 0
  do p = 0, world_size - 1
    n_base = n_base + test_count_for(p)
  end do
  allocate(proc_of(0:n_base))
  block
    integer :: r, i
    r = 0
    do p = 0, world_size - 1
      do i = 1, test_count_for(p)
        proc_of(r) = p
        r = r + 1
      end do
    end do
  end block
  allocate(handles(max(n, 1)))
  call ep_comm_create_endpoints(MPI_COMM_WORLD, n, MPI_INFO_NULL, handles, ierr)
  call check_ok(ierr, 'ep_comm_create_endpoints')
  if (n > 0) then
    !$omp parallel num_threads(n) default(shared)
    call endpoint(handles(omp_get_thread_num() + 1))
    !$omp end parallel
  end if
  call test_finish('groups', world_rank)

contains

  subroutine endpoint(comm_in)
    integer, intent(in) :: comm_in
    integer :: comm, me, size, ierr, i, base, rev, evens, un, cmp, r, newcomm, nsize, nrank, keyval, dup
    integer :: req, eh, got, x, len, pcomm, expect
    integer, allocatable :: ranks(:), out(:)
    integer :: range(3, 1)
    integer(MPI_ADDRESS_KIND) :: value
    logical :: flag
    character(len=EP_MAX_OBJECT_NAME) :: name

    comm = comm_in
    copies = 0
    deletes = 0
    deleted_sum = 0
    handler_calls = 0
    call ep_comm_set_errhandler(comm, EP_ERRORS_RETURN, ierr)
    call ep_comm_rank(comm, me, ierr)
    call ep_comm_size(comm, size, ierr)
    allocate(ranks(size), out(size))

    ! ---- group algebra
    call ep_comm_group(comm, base, ierr)
    call check_ok(ierr, 'ep_comm_group')
    call ep_group_rank(base, r, ierr)
    call check(r == me, 'group rank is the communicator rank')
    ranks = [(size - 1 - i, i = 0, size - 1)]
    call ep_group_incl(base, size, ranks, rev, ierr)
    call check_ok(ierr, 'ep_group_incl reversed')
    call ep_group_rank(rev, r, ierr)
    call check(r == size - 1 - me, 'rank in the reversed group')
    ranks = [(i, i = 0, size - 1)]
    call ep_group_translate_ranks(rev, size, ranks, base, out, ierr)
    call check_ok(ierr, 'ep_group_translate_ranks')
    call check(all(out == [(size - 1 - i, i = 0, size - 1)]), 'translate reversed to base')
    call ep_group_compare(base, rev, cmp, ierr)
    call check(cmp == merge(EP_IDENT, EP_SIMILAR, size == 1), 'compare base and reversed')
    range(:, 1) = [0, size - 1, 2]
    call ep_group_range_incl(base, 1, range, evens, ierr)
    call check_ok(ierr, 'ep_group_range_incl')
    call ep_group_union(evens, rev, un, ierr)
    call check_ok(ierr, 'ep_group_union')
    ! The union: evens in order, then the odds in reversed order.
    call ep_group_translate_ranks(un, size, ranks, base, out, ierr)
    call check_ok(ierr, 'translate union')
    block
      integer :: k, want(size)
      k = 0
      do i = 0, size - 1, 2
        k = k + 1
        want(k) = i
      end do
      do i = size - 1, 0, -1
        if (mod(i, 2) == 1) then
          k = k + 1
          want(k) = i
        end if
      end do
      call check(all(out == want), 'union order')
    end block
    ! Bad input.
    if (size > 1) then
      call ep_group_incl(base, 2, [0, 0], x, ierr)
      call check_class(ierr, EP_ERR_RANK, 'incl with a repeated rank')
    end if
    call ep_group_incl(base, 1, [size], x, ierr)
    call check_class(ierr, EP_ERR_RANK, 'incl of rank size')
    call ep_group_size(12345, x, ierr)
    call check_class(ierr, EP_ERR_GROUP, 'invalid group handle')

    ! ---- ep_comm_create: rank mod 2, each group in reversed rank order
    block
      integer :: k, mine(size)
      k = 0
      do i = size - 1, 0, -1
        if (mod(i, 2) == mod(me, 2)) then
          k = k + 1
          mine(k) = i
        end if
      end do
      call ep_group_incl(base, k, mine, x, ierr)
      call ep_comm_create(comm, x, newcomm, ierr)
      call check_ok(ierr, 'ep_comm_create')
      call ep_comm_size(newcomm, nsize, ierr)
      call ep_comm_rank(newcomm, nrank, ierr)
      call check(nsize == k .and. mine(nrank + 1) == me, 'ep_comm_create rank and size')
      call ep_comm_free(newcomm, ierr)
      ! The same group, created by its members only.
      call ep_comm_create_group(comm, x, 7, newcomm, ierr)
      call check_ok(ierr, 'ep_comm_create_group')
      call ep_comm_rank(newcomm, nrank, ierr)
      call check(mine(nrank + 1) == me, 'ep_comm_create_group rank')
      block
        integer :: s, total
        s = me
        call ep_allreduce(s, total, 1, default_integer_type(), MPI_SUM, newcomm, ierr)
        call check(total == sum(mine(1:k)), 'allreduce on the created group')
      end block
      call ep_comm_free(newcomm, ierr)
      call ep_comm_create_group(comm, x, -1, newcomm, ierr)
      call check_class(ierr, EP_ERR_TAG, 'negative tag')
      call ep_group_free(x, ierr)
      call check(x == EP_GROUP_NULL, 'ep_group_free sets EP_GROUP_NULL')
    end block
    call ep_group_free(un, ierr)
    call ep_group_free(evens, ierr)
    call ep_group_free(rev, ierr)
    call ep_group_free(base, ierr)
    call check_ok(ierr, 'ep_group_free')

    ! ---- split_type by process
    call ep_comm_split_type(comm, int(EP_COMM_TYPE_PROCESS, kind(MPI_COMM_WORLD)), 0, MPI_INFO_NULL, pcomm, ierr)
    call check_ok(ierr, 'ep_comm_split_type(EP_COMM_TYPE_PROCESS)')
    call ep_comm_size(pcomm, nsize, ierr)
    call check(nsize == count(proc_of(0:n_base - 1) == world_rank), 'process communicator size')
    call ep_comm_free(pcomm, ierr)

    ! ---- names
    call ep_comm_get_name(comm, name, len, ierr)
    call check(len == 0 .and. name == ' ', 'default name is empty')
    write(name, '(a, i0)') 'endpoint ', me
    call ep_comm_set_name(comm, name, ierr)
    call check_ok(ierr, 'ep_comm_set_name')
    name = ' '
    call ep_comm_get_name(comm, name, len, ierr)
    block
      character(len=EP_MAX_OBJECT_NAME) :: want
      write(want, '(a, i0)') 'endpoint ', me
      call check(name == want .and. len == len_trim(want), 'name read back')
    end block

    ! ---- attributes with Fortran callbacks
#ifndef EP_TEST_MPI_NAMES
    ! Not under the standard names: libepmpi_mpi_f does not bridge attributes set from Fortran
    ! on endpoint communicators (MPI_Comm_set_attr answers MPI_ERR_UNSUPPORTED_OPERATION).
    call ep_comm_create_keyval(copy_plus_one, delete_count, keyval, 42_MPI_ADDRESS_KIND, ierr)
    call check_ok(ierr, 'ep_comm_create_keyval')
    call ep_comm_set_attr(comm, keyval, int(1000 + me, MPI_ADDRESS_KIND), ierr)
    call ep_comm_get_attr(comm, keyval, value, flag, ierr)
    call check(flag .and. value == 1000 + me, 'attribute read back')
    call ep_comm_dup(comm, dup, ierr)
    call check(copies == 1, 'one copy per endpoint on dup')
    call ep_comm_get_attr(dup, keyval, value, flag, ierr)
    call check(flag .and. value == 1001 + me, 'copied attribute')
    call ep_comm_idup(dup, newcomm, req, ierr)
    call ep_wait(req, EP_STATUS_IGNORE, ierr)
    call check(copies == 2, 'one copy per endpoint on idup')
    call ep_comm_get_attr(newcomm, keyval, value, flag, ierr)
    call check(flag .and. value == 1002 + me, 'idup copied attribute')
    call ep_comm_free(newcomm, ierr)
    call ep_comm_free(dup, ierr)
    call check(deletes == 2 .and. deleted_sum == 2003 + 2 * me, 'deletes on free')
    ! With hints, accepted and ignored.
    block
      integer(kind(MPI_COMM_WORLD)) :: used
      integer :: nkeys
      call ep_comm_dup_with_info(comm, MPI_INFO_NULL, dup, ierr)
      call check_ok(ierr, 'ep_comm_dup_with_info')
      call ep_comm_idup_with_info(comm, MPI_INFO_NULL, newcomm, req, ierr)
      call ep_wait(req, EP_STATUS_IGNORE, ierr)
      call ep_comm_set_info(dup, MPI_INFO_NULL, ierr)
      call check_ok(ierr, 'ep_comm_set_info')
      call ep_comm_get_info(dup, used, ierr)
      call check_ok(ierr, 'ep_comm_get_info')
      call MPI_Info_get_nkeys(used, nkeys, ierr)
      call check(nkeys == 0, 'no hint in use')
      call MPI_Info_free(used, ierr)
      call check(copies == 4, 'copies on dup and idup with info')
      call ep_comm_free(newcomm, ierr)
      call ep_comm_free(dup, ierr)
      call check(deletes == 4 .and. deleted_sum == 4005 + 4 * me, 'deletes of the info dups')
      deletes = 2
      deleted_sum = 2003 + 2 * me
    end block
    call ep_comm_delete_attr(comm, keyval, ierr)
    call check(deletes == 3 .and. deleted_sum == 3003 + 3 * me, 'delete_attr')
    call ep_comm_get_attr(comm, keyval, value, flag, ierr)
    call check(.not. flag, 'deleted attribute gone')
    call ep_comm_free_keyval(keyval, ierr)
    call check(keyval == EP_KEYVAL_INVALID, 'free_keyval sets EP_KEYVAL_INVALID')
    call ep_comm_set_attr(comm, 12345, 0_MPI_ADDRESS_KIND, ierr)
    call check_class(ierr, EP_ERR_KEYVAL, 'invalid keyval')
    ! The predefined copy functions.
    call ep_comm_create_keyval(ep_comm_dup_fn, ep_comm_null_delete_fn, keyval, 0_MPI_ADDRESS_KIND, ierr)
    call ep_comm_set_attr(comm, keyval, 77_MPI_ADDRESS_KIND, ierr)
    call ep_comm_dup(comm, dup, ierr)
    call ep_comm_get_attr(dup, keyval, value, flag, ierr)
    call check(flag .and. value == 77, 'ep_comm_dup_fn copies the value')
    call ep_comm_free(dup, ierr)
    call ep_comm_delete_attr(comm, keyval, ierr)
    call ep_comm_free_keyval(keyval, ierr)
    ! The MPI-1 names, with default-integer values and callbacks.
    block
      integer :: ivalue
      copies = 0
      deletes = 0
      deleted_sum = 0
      call ep_keyval_create(copy_plus_one_int, delete_count_int, keyval, 43, ierr)
      call check_ok(ierr, 'ep_keyval_create')
      call ep_attr_put(comm, keyval, 500 + me, ierr)
      call check_ok(ierr, 'ep_attr_put')
      call ep_attr_get(comm, keyval, ivalue, flag, ierr)
      call check(flag .and. ivalue == 500 + me, 'ep_attr_get reads ep_attr_put')
      call ep_comm_get_attr(comm, keyval, value, flag, ierr)
      call check(flag .and. value == 500 + me, 'ep_comm_get_attr reads ep_attr_put')
      call ep_comm_dup(comm, dup, ierr)
      call check_ok(ierr, 'ep_comm_dup with an MPI-1 copy callback')
      call check(copies == 1, 'the MPI-1 copy callback ran')
      call ep_attr_get(dup, keyval, ivalue, flag, ierr)
      call check_ok(ierr, 'ep_attr_get on the dup')
      call check(flag .and. ivalue == 501 + me, 'copied by the MPI-1 callback')
      call ep_comm_free(dup, ierr)
      call check_ok(ierr, 'ep_comm_free with an MPI-1 delete callback')
      call check(deletes == 1 .and. deleted_sum == 501 + me, 'the MPI-1 delete callback ran on free')
      call ep_attr_delete(comm, keyval, ierr)
      call check_ok(ierr, 'ep_attr_delete')
      call check(deletes == 2 .and. deleted_sum == 1001 + 2 * me, 'ep_attr_delete ran the callback')
      call ep_attr_get(comm, keyval, ivalue, flag, ierr)
      call check_ok(ierr, 'ep_attr_get after the delete')
      call check(.not. flag, 'deleted by ep_attr_delete')
      call ep_keyval_free(keyval, ierr)
      call check_ok(ierr, 'ep_keyval_free')
      call check(keyval == EP_KEYVAL_INVALID, 'ep_keyval_free sets EP_KEYVAL_INVALID')
      ! The predefined MPI-1 callbacks.
      call ep_keyval_create(ep_dup_fn, ep_null_delete_fn, keyval, 0, ierr)
      call ep_attr_put(comm, keyval, 88, ierr)
      call check_ok(ierr, 'ep_attr_put with ep_dup_fn')
      call ep_comm_dup(comm, dup, ierr)
      call check_ok(ierr, 'ep_comm_dup with ep_dup_fn')
      call ep_attr_get(dup, keyval, ivalue, flag, ierr)
      call check_ok(ierr, 'ep_attr_get of ep_dup_fn''s copy')
      call check(flag .and. ivalue == 88, 'ep_dup_fn copies the value')
      call ep_comm_free(dup, ierr)
      call ep_attr_delete(comm, keyval, ierr)
      call ep_keyval_free(keyval, ierr)
      call check_ok(ierr, 'ep_keyval_free of the ep_dup_fn keyval')
      call ep_keyval_create(ep_null_copy_fn, ep_null_delete_fn, keyval, 0, ierr)
      call ep_attr_put(comm, keyval, 89, ierr)
      call check_ok(ierr, 'ep_attr_put with ep_null_copy_fn')
      call ep_comm_dup(comm, dup, ierr)
      call check_ok(ierr, 'ep_comm_dup with ep_null_copy_fn')
      call ep_attr_get(dup, keyval, ivalue, flag, ierr)
      call check_ok(ierr, 'ep_attr_get on the ep_null_copy_fn dup')
      call check(.not. flag, 'ep_null_copy_fn does not copy')
      call ep_comm_free(dup, ierr)
      call ep_attr_delete(comm, keyval, ierr)
      call ep_keyval_free(keyval, ierr)
      call check_ok(ierr, 'ep_keyval_free of the ep_null_copy_fn keyval')
    end block
#endif
    call ep_comm_get_attr(comm, EP_TAG_UB, value, flag, ierr)
    call check(flag .and. value == EP_TAG_UB_VALUE, 'EP_TAG_UB still read')
    ! The MPI-1 name, as legacy models ask for the largest tag: a default integer.
    block
      integer :: tag_ub
      tag_ub = -1
      call ep_attr_get(comm, EP_TAG_UB, tag_ub, flag, ierr)
      call check_ok(ierr, 'ep_attr_get of EP_TAG_UB')
      call check(flag .and. tag_ub == EP_TAG_UB_VALUE, 'EP_TAG_UB read by ep_attr_get')
    end block

    ! ---- a Fortran error handler
    call ep_comm_create_errhandler(record_error, eh, ierr)
    call check_ok(ierr, 'ep_comm_create_errhandler')
    call ep_comm_set_errhandler(comm, eh, ierr)
    call check_ok(ierr, 'set the Fortran handler')
    x = 0
    call ep_send(x, 1, default_integer_type(), size, 0, comm, ierr)
    call check_class(ierr, EP_ERR_RANK, 'send to rank size')
    call check(handler_calls == 1 .and. seen_comm == comm .and. seen_code == ierr, 'handler saw the error')
    call ep_comm_call_errhandler(comm, EP_ERR_OTHER, ierr)
    call check_ok(ierr, 'ep_comm_call_errhandler')
    call check(handler_calls == 2 .and. seen_code == EP_ERR_OTHER, 'handler called explicitly')
    call ep_comm_get_errhandler(comm, got, ierr)
    call check(got == eh, 'get_errhandler returns the handler')
    call ep_errhandler_free(got, ierr)
    call ep_errhandler_free(eh, ierr)
    call check(eh == EP_ERRHANDLER_NULL, 'ep_errhandler_free sets EP_ERRHANDLER_NULL')
    call ep_comm_set_errhandler(comm, EP_ERRORS_RETURN, ierr)
    expect = handler_calls
    call ep_send(x, 1, default_integer_type(), size, 0, comm, ierr)
    call check(handler_calls == expect, 'EP_ERRORS_RETURN again')

    call test_barrier(comm)
    call ep_comm_free(comm, ierr)
    call check_ok(ierr, 'ep_comm_free')
  end subroutine endpoint
end program groups
