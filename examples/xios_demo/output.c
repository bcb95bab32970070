/*
 * output.c: the NetCDF-4 file of the XIOS demo (see output.h), through the system's libnetcdf.
 */
#include "output.h"

#include "fields.h"

#include <math.h>
#include <netcdf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct demo_output {
    int ncid;
    int time_var, lon_var, lat_var;
    int field_var[8];
    demo_layout layout;
};

/* CF attributes of the fields this demo knows; others get units "1". */
static void field_attributes(const char *name, const char **units, const char **standard, const char **long_name)
{
    if (strcmp(name, "temperature") == 0) {
        *units = "degC";
        *standard = "sea_water_temperature";
        *long_name = "sea water temperature";
    } else if (strcmp(name, "salinity") == 0) {
        *units = "1e-3";
        *standard = "sea_water_salinity";
        *long_name = "sea water salinity";
    } else {
        *units = "1";
        *standard = NULL;
        *long_name = name;
    }
}

/* Fills `why` for a NetCDF error; returns -1. */
static int nc_fail(int status, const char *what, char *why, size_t why_len)
{
    snprintf(why, why_len, "NetCDF: %s: %s", what, nc_strerror(status));
    return -1;
}

static int put_text(int ncid, int var, const char *name, const char *text)
{
    return nc_put_att_text(ncid, var, name, strlen(text), text);
}

/* Defines the dimensions, variables and attributes. NC_NOERR or a NetCDF status. */
static int define(demo_output *out)
{
    const demo_layout *l = &out->layout;
    int ncid = out->ncid, st = NC_NOERR, dim_t, dim_z, dim_y, dim_x, z_var;
    st = st ? st : nc_def_dim(ncid, "time", NC_UNLIMITED, &dim_t);
    st = st ? st : nc_def_dim(ncid, "z", (size_t)l->nz, &dim_z);
    st = st ? st : nc_def_dim(ncid, "y", (size_t)l->ny, &dim_y);
    st = st ? st : nc_def_dim(ncid, "x", (size_t)l->nx, &dim_x);
    if (st)
        return st;
    int yx[2] = {dim_y, dim_x}, tzyx[4] = {dim_t, dim_z, dim_y, dim_x};
    st = st ? st : nc_def_var(ncid, "time", NC_DOUBLE, 1, &dim_t, &out->time_var);
    st = st ? st : put_text(ncid, out->time_var, "standard_name", "time");
    st = st ? st : put_text(ncid, out->time_var, "units", "hours since 2000-01-01 00:00:00");
    st = st ? st : put_text(ncid, out->time_var, "calendar", "standard");
    st = st ? st : put_text(ncid, out->time_var, "axis", "T");
    st = st ? st : nc_def_var(ncid, "z", NC_INT, 1, &dim_z, &z_var);
    st = st ? st : put_text(ncid, z_var, "long_name", "model level index");
    st = st ? st : put_text(ncid, z_var, "units", "1");
    st = st ? st : put_text(ncid, z_var, "positive", "down");
    st = st ? st : put_text(ncid, z_var, "axis", "Z");
    st = st ? st : nc_def_var(ncid, "nav_lon", NC_DOUBLE, 2, yx, &out->lon_var);
    st = st ? st : put_text(ncid, out->lon_var, "standard_name", "longitude");
    st = st ? st : put_text(ncid, out->lon_var, "long_name", "longitude");
    st = st ? st : put_text(ncid, out->lon_var, "units", "degrees_east");
    st = st ? st : nc_def_var(ncid, "nav_lat", NC_DOUBLE, 2, yx, &out->lat_var);
    st = st ? st : put_text(ncid, out->lat_var, "standard_name", "latitude");
    st = st ? st : put_text(ncid, out->lat_var, "long_name", "latitude");
    st = st ? st : put_text(ncid, out->lat_var, "units", "degrees_north");
    for (int f = 0; f < l->nfields && !st; f++) {
        const char *units, *standard, *long_name;
        field_attributes(l->names[f], &units, &standard, &long_name);
        st = nc_def_var(ncid, l->names[f], NC_DOUBLE, 4, tzyx, &out->field_var[f]);
        st = st ? st : put_text(ncid, out->field_var[f], "long_name", long_name);
        if (standard != NULL)
            st = st ? st : put_text(ncid, out->field_var[f], "standard_name", standard);
        st = st ? st : put_text(ncid, out->field_var[f], "units", units);
        st = st ? st : put_text(ncid, out->field_var[f], "coordinates", "nav_lat nav_lon");
    }
    st = st ? st : put_text(ncid, NC_GLOBAL, "Conventions", "CF-1.8");
    st = st ? st : put_text(ncid, NC_GLOBAL, "title", "EPMPI XIOS demo: OpenMP client threads as XIOS clients");
    st = st ? st : put_text(ncid, NC_GLOBAL, "source", "examples/xios_demo (EPMPI)");
    st = st ? st : nc_enddef(ncid);
    for (int64_t k = 0; k < l->nz && !st; k++) {
        size_t index = (size_t)k;
        int level = (int)k;
        st = nc_put_var1_int(ncid, z_var, &index, &level);
    }
    return st;
}

demo_output *output_create(const char *path, const demo_layout *layout, char *why, size_t why_len)
{
    if (layout->nfields > 8) {
        snprintf(why, why_len, "too many fields (%d, at most 8)", layout->nfields);
        return NULL;
    }
    demo_output *out = calloc(1, sizeof *out);
    if (out == NULL) {
        snprintf(why, why_len, "no memory");
        return NULL;
    }
    out->layout = *layout;
    int st = nc_create(path, NC_CLOBBER | NC_NETCDF4, &out->ncid);
    if (st) {
        nc_fail(st, path, why, why_len);
        free(out);
        return NULL;
    }
    st = define(out);
    if (st) {
        nc_fail(st, "defining the variables", why, why_len);
        nc_close(out->ncid);
        free(out);
        return NULL;
    }
    return out;
}

int output_write_coords(demo_output *out, int which, int64_t j0, int64_t nj, const double *rows, char *why,
                        size_t why_len)
{
    size_t start[2] = {(size_t)j0, 0}, count[2] = {(size_t)nj, (size_t)out->layout.nx};
    int st = nc_put_vara_double(out->ncid, which == 0 ? out->lon_var : out->lat_var, start, count, rows);
    return st ? nc_fail(st, "writing the coordinates", why, why_len) : 0;
}

int output_write_field(demo_output *out, int field, int64_t t, int64_t j0, int64_t nj, const double *band,
                       char *why, size_t why_len)
{
    size_t start[4] = {(size_t)t, 0, (size_t)j0, 0};
    size_t count[4] = {1, (size_t)out->layout.nz, (size_t)nj, (size_t)out->layout.nx};
    int st = nc_put_vara_double(out->ncid, out->field_var[field], start, count, band);
    if (st)
        return nc_fail(st, out->layout.names[field], why, why_len);
    size_t index = (size_t)t;
    double hours = (double)t;
    st = nc_put_var1_double(out->ncid, out->time_var, &index, &hours);
    return st ? nc_fail(st, "writing time", why, why_len) : 0;
}

int output_close(demo_output *out, char *why, size_t why_len)
{
    int st = nc_close(out->ncid);
    free(out);
    return st ? nc_fail(st, "closing the file", why, why_len) : 0;
}

/* Whether `got` matches `want` within DEMO_TOLERANCE relative to max(1, |want|). */
static int close_enough(double got, double want)
{
    return fabs(got - want) <= DEMO_TOLERANCE * fmax(1.0, fabs(want));
}

/* Checks the length of dimension `name`. 0, or -1 with `why`. */
static int check_dim(int ncid, const char *name, int64_t want, char *why, size_t why_len)
{
    int dim;
    size_t len;
    int st = nc_inq_dimid(ncid, name, &dim);
    st = st ? st : nc_inq_dimlen(ncid, dim, &len);
    if (st)
        return nc_fail(st, name, why, why_len);
    if ((int64_t)len != want) {
        snprintf(why, why_len, "dimension %s has length %zu, expected %lld", name, len, (long long)want);
        return -1;
    }
    return 0;
}

/* Reads the whole variable `name` (of `n` doubles) into `values`. 0, or -1 with `why`. */
static int read_var(int ncid, const char *name, double *values, char *why, size_t why_len)
{
    int var;
    int st = nc_inq_varid(ncid, name, &var);
    st = st ? st : nc_get_var_double(ncid, var, values);
    return st ? nc_fail(st, name, why, why_len) : 0;
}

/* Every check of output_verify on an open file; `plane` holds nx x ny doubles, `field`
 * steps x nz x ny x nx. */
static int64_t verify_open(int ncid, const demo_layout *l, double *lon, double *lat, double *field, char *why,
                           size_t why_len)
{
    int64_t nx = l->nx, ny = l->ny, nz = l->nz, checked = 0;
    if (check_dim(ncid, "time", l->steps, why, why_len) || check_dim(ncid, "z", nz, why, why_len) ||
        check_dim(ncid, "y", ny, why, why_len) || check_dim(ncid, "x", nx, why, why_len))
        return -1;
    if (read_var(ncid, "nav_lon", lon, why, why_len) || read_var(ncid, "nav_lat", lat, why, why_len))
        return -1;
    for (int64_t j = 0; j < ny; j++)
        for (int64_t i = 0; i < nx; i++) {
            double want_lon = demo_lon(i, j, nx, ny), want_lat = demo_lat(i, j, nx, ny);
            if (!close_enough(lon[j * nx + i], want_lon) || !close_enough(lat[j * nx + i], want_lat)) {
                snprintf(why, why_len, "nav_lon/nav_lat at (y %lld, x %lld): %.17g/%.17g, expected %.17g/%.17g",
                         (long long)j, (long long)i, lon[j * nx + i], lat[j * nx + i], want_lon, want_lat);
                return -1;
            }
            checked += 2;
        }
    for (int f = 0; f < l->nfields; f++) {
        if (read_var(ncid, l->names[f], field, why, why_len))
            return -1;
        for (int64_t t = 0; t < l->steps; t++)
            for (int64_t k = 0; k < nz; k++)
                for (int64_t j = 0; j < ny; j++)
                    for (int64_t i = 0; i < nx; i++) {
                        double got = field[((t * nz + k) * ny + j) * nx + i];
                        double want = demo_field(f, t, k, demo_lat(i, j, nx, ny), demo_lon(i, j, nx, ny));
                        if (!close_enough(got, want)) {
                            snprintf(why, why_len, "%s at (time %lld, z %lld, y %lld, x %lld) is %.17g, expected %.17g",
                                     l->names[f], (long long)t, (long long)k, (long long)j, (long long)i, got, want);
                            return -1;
                        }
                        checked++;
                    }
    }
    double *time = malloc((size_t)l->steps * sizeof *time);
    if (time == NULL || read_var(ncid, "time", time, why, why_len)) {
        if (time == NULL)
            snprintf(why, why_len, "no memory");
        free(time);
        return -1;
    }
    for (int64_t t = 0; t < l->steps; t++)
        if (time[t] != (double)t) {
            snprintf(why, why_len, "time[%lld] is %g, expected %lld", (long long)t, time[t], (long long)t);
            free(time);
            return -1;
        }
    free(time);
    return checked;
}

int64_t output_verify(const char *path, const demo_layout *layout, char *why, size_t why_len)
{
    size_t plane = (size_t)(layout->nx * layout->ny);
    double *lon = malloc(plane * sizeof *lon), *lat = malloc(plane * sizeof *lat);
    double *field = malloc(plane * (size_t)(layout->nz * layout->steps) * sizeof *field);
    int64_t checked = -1;
    int ncid, st;
    if (lon == NULL || lat == NULL || field == NULL) {
        snprintf(why, why_len, "no memory to verify %s", path);
    } else if ((st = nc_open(path, NC_NOWRITE, &ncid)) != NC_NOERR) {
        nc_fail(st, path, why, why_len);
    } else {
        checked = verify_open(ncid, layout, lon, lat, field, why, why_len);
        nc_close(ncid);
    }
    free(lon);
    free(lat);
    free(field);
    return checked;
}
