/*
 * fields.h: what the model (demo_fields.f90, the same formulas in Fortran) and the server of
 * the XIOS demo agree on: the grid, the analytic fields, how the grid is split, and the events.
 *
 * Grid: nx x ny x nz cells, 0-based indices i (x), j (y), k (z). Curvilinear, a lon-lat grid
 * sheared both ways (every row and column is a curve):
 *   xi = (i + 0.5) / nx,  yj = (j + 0.5) / ny
 *   nav_lon(i, j) = -180 + 360 xi + 15 sin(2 pi yj)       degrees_east
 *   nav_lat(i, j) =  -75 + 150 yj +  5 cos(2 pi xi)       degrees_north
 * Fields at timestep t (0-based) and level k, with lo, la the cell's lon and lat in radians:
 *   temperature = 28 cos(la)^2 - 2 k + 1.5 sin(lo + 0.3 t)                degC
 *   salinity    = 35 + 0.5 sin(2 la) cos(lo - 0.2 t) + 0.05 k              1e-3 (PSU)
 * The two languages' libm may round differently: compare with DEMO_TOLERANCE, relative to
 * max(1, |value|).
 *
 * Split: a range of n indices over `parts` owners gives owner p the indices
 * [p n / parts, (p + 1) n / parts) (integer division): sizes differ by at most one. Client rank
 * r of C clients owns the i (x) columns of part r over all j and k (its slab); server s of S
 * owns the j (y) rows of part s over all i and k (its band). Every client sends every server
 * the block (its columns x the server's rows x nz) of each field.
 *
 * Events (metadata: int64 values; payload: bytes):
 *   DEMO_EV_DEFINE, from client 0 to every server, first:
 *     meta [nx, ny, nz, timesteps, nfields, transport, model processes]
 *     payload: NUL-terminated strings: the nfields field names, then the model's threads per
 *     process ("3,1")
 *   DEMO_EV_COORDS, once from every client to every server:
 *     meta [i0, ni, j0, nj]; payload ni x nj doubles of nav_lon, then ni x nj of nav_lat
 *     (i fastest)
 *   DEMO_EV_FIELD, per timestep and field from every client to every server:
 *     meta [field, timestep, i0, ni, j0, nj, nz]; payload ni x nj x nz doubles (i fastest,
 *     then j, then k)
 * Clients flush after each timestep. A client whose slab is empty (more clients than
 * columns) sends no coordinate or field event.
 */
#ifndef XIOS_DEMO_FIELDS_H
#define XIOS_DEMO_FIELDS_H

#include <math.h>
#include <stdint.h>

enum { DEMO_EV_DEFINE = 1, DEMO_EV_COORDS = 2, DEMO_EV_FIELD = 3 };
enum { DEMO_DEFINE_META = 7, DEMO_COORDS_META = 4, DEMO_FIELD_META = 7 };
enum { DEMO_FIELD_COUNT = 2 };

/** Relative tolerance of the verification (values differ by libm rounding at most). */
#define DEMO_TOLERANCE 1e-12

/** First index of part p of n indices split over `parts` owners. */
static inline int64_t demo_part_first(int64_t n, int64_t parts, int64_t p)
{
    return p * n / parts;
}

/** Number of indices of part p. */
static inline int64_t demo_part_count(int64_t n, int64_t parts, int64_t p)
{
    return demo_part_first(n, parts, p + 1) - demo_part_first(n, parts, p);
}

static inline double demo_pi(void)
{
    return acos(-1.0);
}

/** nav_lon of cell (i, j), degrees_east. */
static inline double demo_lon(int64_t i, int64_t j, int64_t nx, int64_t ny)
{
    double xi = ((double)i + 0.5) / (double)nx, yj = ((double)j + 0.5) / (double)ny;
    return -180.0 + 360.0 * xi + 15.0 * sin(2.0 * demo_pi() * yj);
}

/** nav_lat of cell (i, j), degrees_north. */
static inline double demo_lat(int64_t i, int64_t j, int64_t nx, int64_t ny)
{
    double xi = ((double)i + 0.5) / (double)nx, yj = ((double)j + 0.5) / (double)ny;
    return -75.0 + 150.0 * yj + 5.0 * cos(2.0 * demo_pi() * xi);
}

/** Field `field` (0 temperature, 1 salinity) at timestep t, level k, lon/lat in degrees. */
static inline double demo_field(int field, int64_t t, int64_t k, double lat, double lon)
{
    double la = lat * demo_pi() / 180.0, lo = lon * demo_pi() / 180.0;
    if (field == 0)
        return 28.0 * (cos(la) * cos(la)) - 2.0 * (double)k + 1.5 * sin(lo + 0.3 * (double)t);
    return 35.0 + 0.5 * sin(2.0 * la) * cos(lo - 0.2 * (double)t) + 0.05 * (double)k;
}

#endif
