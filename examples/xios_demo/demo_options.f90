!> Command line of the XIOS demo's model (`model.f90`):
!>
!>   model [--threads K1[,K2,...]] [--transport one-sided|two-sided] [--timesteps T]
!>         [--grid NXxNYxNZ]
!>
!> --threads: OpenMP client threads of each model process, the list cycled over the model
!> processes by world rank (default 2); --transport: the client buffers (default one-sided,
!> XIOS 3's; two-sided is XIOS 2's); --timesteps (default 4); --grid (default 100x100x5).
module demo_options
  use, intrinsic :: iso_fortran_env, only: int64
  use ep_xios, only: EPX_ONE_SIDED, EPX_TWO_SIDED
  implicit none
  private

  !> Most entries of the --threads list.
  integer, parameter, public :: MAX_THREAD_COUNTS = 64

  !> The model's options.
  type, public :: options
    integer :: thread_counts(MAX_THREAD_COUNTS) = 0  !< --threads list
    integer :: thread_count_entries = 0              !< entries in thread_counts
    integer :: transport = EPX_ONE_SIDED             !< EPX_ONE_SIDED or EPX_TWO_SIDED
    integer(int64) :: timesteps = 4                  !< --timesteps
    integer(int64) :: nx = 100, ny = 100, nz = 5     !< --grid
  end type options

  public :: read_options

contains

  !> Reads the command line into `opt`; `error` gets a message, blank when all is well.
  subroutine read_options(opt, error)
    type(options), intent(out) :: opt
    character(len=*), intent(out) :: error
    character(len=256) :: name, value
    integer :: i, stat
    error = ' '
    opt%thread_counts(1) = 2
    opt%thread_count_entries = 1
    i = 1
    do while (i <= command_argument_count())
      call get_command_argument(i, name)
      call get_command_argument(i + 1, value, status=stat)
      if (stat /= 0) then
        error = 'missing value after ' // trim(name)
        return
      end if
      select case (name)
      case ('--threads')
        call read_list(value, opt, error)
      case ('--transport')
        if (value == 'one-sided') then
          opt%transport = EPX_ONE_SIDED
        else if (value == 'two-sided') then
          opt%transport = EPX_TWO_SIDED
        else
          error = 'bad --transport ' // trim(value) // ' (one-sided or two-sided)'
        end if
      case ('--timesteps')
        read (value, *, iostat=stat) opt%timesteps
        if (stat /= 0 .or. opt%timesteps < 1) error = 'bad --timesteps ' // trim(value)
      case ('--grid')
        call read_grid(value, opt, error)
      case default
        error = 'unknown argument ' // trim(name)
      end select
      if (error /= ' ') return
      i = i + 2
    end do
  end subroutine read_options

  !> Parses "K1,K2,..." (each >= 1).
  subroutine read_list(text, opt, error)
    character(len=*), intent(in) :: text
    type(options), intent(inout) :: opt
    character(len=*), intent(inout) :: error
    integer :: n, stat, k
    n = 1
    do k = 1, len_trim(text)
      if (text(k:k) == ',') n = n + 1
    end do
    if (n > MAX_THREAD_COUNTS) then
      error = 'too many --threads entries'
      return
    end if
    opt%thread_count_entries = n
    read (text, *, iostat=stat) opt%thread_counts(1:n)
    if (stat /= 0 .or. any(opt%thread_counts(1:n) < 1)) error = 'bad --threads ' // trim(text)
  end subroutine read_list

  !> Parses "NXxNYxNZ" (each >= 1).
  subroutine read_grid(text, opt, error)
    character(len=*), intent(in) :: text
    type(options), intent(inout) :: opt
    character(len=*), intent(inout) :: error
    character(len=len(text)) :: spaced
    integer :: k, stat
    spaced = text
    do k = 1, len_trim(spaced)
      if (spaced(k:k) == 'x') spaced(k:k) = ' '
    end do
    read (spaced, *, iostat=stat) opt%nx, opt%ny, opt%nz
    if (stat /= 0 .or. min(opt%nx, opt%ny, opt%nz) < 1) error = 'bad --grid ' // trim(text) // ' (NXxNYxNZ)'
  end subroutine read_grid

end module demo_options
