/*
 * output.h: the NetCDF-4 file of the XIOS demo's server 0 (output.c). Dimensions time
 * (unlimited), z, y, x; variables time(time), z(z), nav_lon(y, x), nav_lat(y, x) and one
 * (time, z, y, x) variable per field, with CF attributes. Written band by band (the j rows a
 * server assembled), then reopened and checked against the formulas of fields.h.
 */
#ifndef XIOS_DEMO_OUTPUT_H
#define XIOS_DEMO_OUTPUT_H

#include <stddef.h>
#include <stdint.h>

/** What the file holds: sizes, timesteps and field names (DEMO_FIELD_COUNT of them). */
typedef struct demo_layout {
    int64_t nx, ny, nz, steps;
    int nfields;
    char names[8][64];
} demo_layout;

typedef struct demo_output demo_output;

/** Creates `path` (replacing it) and defines everything. NULL on error, `why` filled. */
demo_output *output_create(const char *path, const demo_layout *layout, char *why, size_t why_len);

/** Writes rows j0..j0+nj-1 of nav_lon (which 0) or nav_lat (which 1): nj x nx doubles. */
int output_write_coords(demo_output *out, int which, int64_t j0, int64_t nj, const double *rows, char *why,
                        size_t why_len);

/** Writes rows j0..j0+nj-1 of field `field` at timestep t: nz x nj x nx doubles (x fastest),
 *  and the time value of t. */
int output_write_field(demo_output *out, int field, int64_t t, int64_t j0, int64_t nj, const double *band,
                       char *why, size_t why_len);

/** Closes the file and frees `out`. 0 or -1 (`why` filled). */
int output_close(demo_output *out, char *why, size_t why_len);

/** Reopens `path` and checks its dimensions, variables and every value against fields.h.
 *  Returns the number of values checked, or -1 with `why` saying what differs. */
int64_t output_verify(const char *path, const demo_layout *layout, char *why, size_t why_len);

#endif
