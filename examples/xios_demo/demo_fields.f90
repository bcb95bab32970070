!> The model side of what the XIOS demo's model and server agree on: grid, analytic fields,
!> split of index ranges and event layout. `fields.h` (C, the server's copy) documents them in
!> full; keep the two files' formulas identical, operation for operation.
module demo_fields
  use, intrinsic :: iso_fortran_env, only: int64, real64
  implicit none
  private

  !> Event types: definition, coordinates, one field at one timestep.
  integer, parameter, public :: DEMO_EV_DEFINE = 1, DEMO_EV_COORDS = 2, DEMO_EV_FIELD = 3
  !> Number of 3-D fields and their names (field ids 0 and 1).
  integer, parameter, public :: DEMO_FIELD_COUNT = 2
  character(len=*), parameter, public :: DEMO_FIELD_NAMES(DEMO_FIELD_COUNT) = ['temperature', 'salinity   ']

  public :: demo_part_first, demo_part_count, demo_lon, demo_lat, demo_field

contains

  !> First (0-based) index of part p of n indices split over `parts` owners: p n / parts.
  pure function demo_part_first(n, parts, p) result(first)
    integer(int64), intent(in) :: n, parts, p
    integer(int64) :: first
    first = p * n / parts
  end function demo_part_first

  !> Number of indices of part p (sizes differ by at most one).
  pure function demo_part_count(n, parts, p) result(count)
    integer(int64), intent(in) :: n, parts, p
    integer(int64) :: count
    count = demo_part_first(n, parts, p + 1) - demo_part_first(n, parts, p)
  end function demo_part_count

  !> nav_lon (degrees_east) of cell (i, j), 0-based, of an nx x ny grid.
  pure function demo_lon(i, j, nx, ny) result(lon)
    integer(int64), intent(in) :: i, j, nx, ny
    real(real64) :: lon, xi, yj
    xi = (real(i, real64) + 0.5_real64) / real(nx, real64)
    yj = (real(j, real64) + 0.5_real64) / real(ny, real64)
    lon = -180.0_real64 + 360.0_real64 * xi + 15.0_real64 * sin(2.0_real64 * acos(-1.0_real64) * yj)
  end function demo_lon

  !> nav_lat (degrees_north) of cell (i, j), 0-based, of an nx x ny grid.
  pure function demo_lat(i, j, nx, ny) result(lat)
    integer(int64), intent(in) :: i, j, nx, ny
    real(real64) :: lat, xi, yj
    xi = (real(i, real64) + 0.5_real64) / real(nx, real64)
    yj = (real(j, real64) + 0.5_real64) / real(ny, real64)
    lat = -75.0_real64 + 150.0_real64 * yj + 5.0_real64 * cos(2.0_real64 * acos(-1.0_real64) * xi)
  end function demo_lat

  !> Field `field` (0 temperature in degC, 1 salinity in 1e-3) at timestep t and level k
  !> (0-based), at lat/lon in degrees.
  pure function demo_field(field, t, k, lat, lon) result(v)
    integer, intent(in) :: field
    integer(int64), intent(in) :: t, k
    real(real64), intent(in) :: lat, lon
    real(real64) :: v, la, lo
    la = lat * acos(-1.0_real64) / 180.0_real64
    lo = lon * acos(-1.0_real64) / 180.0_real64
    if (field == 0) then
      v = 28.0_real64 * (cos(la) * cos(la)) - 2.0_real64 * real(k, real64) &
        + 1.5_real64 * sin(lo + 0.3_real64 * real(t, real64))
    else
      v = 35.0_real64 + 0.5_real64 * sin(2.0_real64 * la) * cos(lo - 0.2_real64 * real(t, real64)) &
        + 0.05_real64 * real(k, real64)
    end if
  end function demo_field

end module demo_fields
