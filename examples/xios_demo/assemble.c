/*
 * assemble.c: one context on one server of the XIOS demo (see assemble.h and fields.h).
 */
#define _XOPEN_SOURCE 700 /* PATH_MAX */
#include "assemble.h"

#include "fields.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* An event kept until the definition arrives. */
typedef struct pending {
    int type, meta_count;
    int64_t meta[EPX_MAX_META];
    int64_t bytes;
    char *data;
    struct pending *next;
} pending;

struct demo_assembly {
    EPX_Context context;
    EP_Comm servers_comm;
    int rank, servers;
    char path[PATH_MAX];
    int defined;
    demo_layout layout;
    int transport;
    int64_t processes;
    char threads[256];
    int64_t j0, nj;            /* this server's band */
    double *coords;            /* nav_lon then nav_lat rows of the band: 2 x nj x nx */
    int64_t coord_cells;       /* cells received, per coordinate */
    double **step;             /* [steps] field bands (nfields x nz x nj x nx), NULL until used */
    int64_t *step_cells;       /* [steps] values received */
    int64_t next;              /* next item to gather: -1 coordinates, then timesteps */
    pending *first, *last;     /* before the definition, in arrival order */
    int64_t bytes;
    demo_output *out;          /* server 0 */
    double *gathered;          /* server 0: nfields x nz x ny x nx, or 2 x ny x nx */
    int *counts, *displs;      /* [servers] */
};

demo_assembly *assembly_new(EPX_Context context, EP_Comm servers_comm, const char *path)
{
    demo_assembly *a = calloc(1, sizeof *a);
    if (a == NULL)
        return NULL;
    a->context = context;
    a->servers_comm = servers_comm;
    EP_Comm_rank(servers_comm, &a->rank);
    EP_Comm_size(servers_comm, &a->servers);
    snprintf(a->path, sizeof a->path, "%s", path);
    a->next = -1;
    a->counts = calloc((size_t)a->servers, sizeof *a->counts);
    a->displs = calloc((size_t)a->servers, sizeof *a->displs);
    if (a->counts == NULL || a->displs == NULL) {
        assembly_free(a);
        return NULL;
    }
    return a;
}

static int fail(char *why, size_t why_len, const char *what)
{
    snprintf(why, why_len, "%s", what);
    return -1;
}

/* The definition: sizes, names, layout; allocates the band buffers; creates the file. */
static int define(demo_assembly *a, const int64_t *meta, int meta_count, const char *text, int64_t bytes,
                  char *why, size_t why_len)
{
    if (a->defined)
        return fail(why, why_len, "a second definition event");
    if (meta_count != DEMO_DEFINE_META)
        return fail(why, why_len, "definition event with wrong metadata count");
    demo_layout *l = &a->layout;
    l->nx = meta[0];
    l->ny = meta[1];
    l->nz = meta[2];
    l->steps = meta[3];
    l->nfields = (int)meta[4];
    a->transport = (int)meta[5];
    a->processes = meta[6];
    if (l->nx < 1 || l->ny < 1 || l->nz < 1 || l->steps < 1 || l->nfields < 1 || l->nfields > 8 ||
        l->nx * l->ny * l->nz * l->nfields > ((int64_t)1 << 31) - 1)
        return fail(why, why_len, "definition event with bad sizes (or a field over 2^31 values)");
    /* The payload: nfields + 1 NUL-terminated strings. */
    int64_t at = 0;
    for (int s = 0; s <= l->nfields; s++) {
        const char *end = at < bytes ? memchr(text + at, '\0', (size_t)(bytes - at)) : NULL;
        if (end == NULL || end - (text + at) >= 64)
            return fail(why, why_len, "definition event with a bad list of names");
        snprintf(s < l->nfields ? l->names[s] : a->threads, s < l->nfields ? sizeof l->names[s] : sizeof a->threads,
                 "%s", text + at);
        at = end - text + 1;
    }
    a->j0 = demo_part_first(l->ny, a->servers, a->rank);
    a->nj = demo_part_count(l->ny, a->servers, a->rank);
    size_t band = (size_t)(l->nx * a->nj);
    a->coords = malloc((2 * band + 1) * sizeof *a->coords);
    a->step = calloc((size_t)l->steps, sizeof *a->step);
    a->step_cells = calloc((size_t)l->steps, sizeof *a->step_cells);
    if (a->coords == NULL || a->step == NULL || a->step_cells == NULL)
        return fail(why, why_len, "no memory for the band buffers");
    if (a->rank == 0) {
        a->gathered = malloc((size_t)(l->nx * l->ny * (l->nz > 2 ? l->nz : 2)) * sizeof *a->gathered);
        if (a->gathered == NULL)
            return fail(why, why_len, "no memory for the gather buffer");
        a->out = output_create(a->path, l, why, why_len);
        if (a->out == NULL)
            return -1;
    }
    a->defined = 1;
    return 0;
}

/* Checks the column range and band of an event. */
static int check_block(const demo_assembly *a, int64_t i0, int64_t ni, int64_t j0, int64_t nj, char *why,
                       size_t why_len)
{
    if (i0 < 0 || ni < 1 || i0 + ni > a->layout.nx || j0 != a->j0 || nj != a->nj) {
        snprintf(why, why_len, "event for columns %lld+%lld, rows %lld+%lld: this server has rows %lld+%lld of %lld columns",
                 (long long)i0, (long long)ni, (long long)j0, (long long)nj, (long long)a->j0, (long long)a->nj,
                 (long long)a->layout.nx);
        return -1;
    }
    return 0;
}

static int coords_event(demo_assembly *a, const int64_t *meta, int meta_count, const double *data, int64_t bytes,
                        char *why, size_t why_len)
{
    if (meta_count != DEMO_COORDS_META)
        return fail(why, why_len, "coordinate event with wrong metadata count");
    int64_t i0 = meta[0], ni = meta[1], j0 = meta[2], nj = meta[3], nx = a->layout.nx;
    if (check_block(a, i0, ni, j0, nj, why, why_len))
        return -1;
    if (bytes != 2 * ni * nj * 8 || a->next > -1)
        return fail(why, why_len, "coordinate event with a wrong size, or after the coordinates were complete");
    for (int c = 0; c < 2; c++)
        for (int64_t jj = 0; jj < nj; jj++)
            memcpy(a->coords + c * nj * nx + jj * nx + i0, data + (c * nj + jj) * ni, (size_t)ni * sizeof(double));
    a->coord_cells += ni * nj;
    if (a->coord_cells > nx * nj)
        return fail(why, why_len, "more coordinates than the band has");
    return 0;
}

static int field_event(demo_assembly *a, const int64_t *meta, int meta_count, const double *data, int64_t bytes,
                       char *why, size_t why_len)
{
    const demo_layout *l = &a->layout;
    if (meta_count != DEMO_FIELD_META)
        return fail(why, why_len, "field event with wrong metadata count");
    int64_t f = meta[0], t = meta[1], i0 = meta[2], ni = meta[3], j0 = meta[4], nj = meta[5], nz = meta[6];
    if (check_block(a, i0, ni, j0, nj, why, why_len))
        return -1;
    if (f < 0 || f >= l->nfields || t < 0 || t >= l->steps || nz != l->nz || bytes != ni * nj * nz * 8)
        return fail(why, why_len, "field event with a bad field, timestep, level count or size");
    if (t < a->next)
        return fail(why, why_len, "field event for a timestep already gathered");
    int64_t band = l->nx * nj * nz;
    if (a->step[t] == NULL && (a->step[t] = malloc((size_t)(band * l->nfields) * sizeof(double))) == NULL)
        return fail(why, why_len, "no memory for a timestep");
    double *dest = a->step[t] + f * band;
    for (int64_t k = 0; k < nz; k++)
        for (int64_t jj = 0; jj < nj; jj++)
            memcpy(dest + (k * nj + jj) * l->nx + i0, data + (k * nj + jj) * ni, (size_t)ni * sizeof(double));
    a->step_cells[t] += ni * nj * nz;
    if (a->step_cells[t] > band * l->nfields)
        return fail(why, why_len, "more values for a timestep than the band has");
    return 0;
}

/* Gathers `per_row` x nx values of each server's rows (nj rows of this one, at `band`) to
 * server 0's a->gathered, server after server. */
static int gather(demo_assembly *a, const double *band, int64_t per_row, char *why, size_t why_len)
{
    const demo_layout *l = &a->layout;
    for (int s = 0, at = 0; s < a->servers; s++) {
        a->counts[s] = (int)(per_row * l->nx * demo_part_count(l->ny, a->servers, s));
        a->displs[s] = at;
        at += a->counts[s];
    }
    int rc = EP_Gatherv(band, a->counts[a->rank], MPI_DOUBLE, a->gathered, a->counts, a->displs, MPI_DOUBLE, 0,
                        a->servers_comm);
    if (rc != EP_SUCCESS) {
        char text[EP_MAX_ERROR_STRING];
        int len;
        EP_Error_string(rc, text, &len);
        snprintf(why, why_len, "EP_Gatherv: %s", text);
        return -1;
    }
    return 0;
}

/* Gathers and writes every item that is complete here, in order. */
static int gather_ready(demo_assembly *a, char *why, size_t why_len)
{
    const demo_layout *l = &a->layout;
    if (a->next == -1 && a->coord_cells == l->nx * a->nj) {
        for (int c = 0; c < 2; c++) {
            if (gather(a, a->coords + c * a->nj * l->nx, 1, why, why_len))
                return -1;
            for (int s = 0; a->rank == 0 && s < a->servers; s++)
                if (output_write_coords(a->out, c, demo_part_first(l->ny, a->servers, s),
                                        demo_part_count(l->ny, a->servers, s), a->gathered + a->displs[s], why,
                                        why_len))
                    return -1;
        }
        a->next = 0;
    }
    int64_t band = l->nx * a->nj * l->nz;
    while (a->next >= 0 && a->next < l->steps && a->step_cells[a->next] == band * l->nfields) {
        int64_t t = a->next;
        if (a->step[t] == NULL) /* an empty band: nothing arrived, nothing to send */
            a->step[t] = malloc(sizeof(double));
        if (a->step[t] == NULL)
            return fail(why, why_len, "no memory");
        for (int f = 0; f < l->nfields; f++) {
            if (gather(a, a->step[t] + f * band, l->nz, why, why_len))
                return -1;
            for (int s = 0; a->rank == 0 && s < a->servers; s++)
                if (output_write_field(a->out, f, t, demo_part_first(l->ny, a->servers, s),
                                       demo_part_count(l->ny, a->servers, s), a->gathered + a->displs[s], why, why_len))
                    return -1;
        }
        free(a->step[t]);
        a->step[t] = NULL;
        a->next++;
    }
    return 0;
}

/* One event on a defined assembly. */
static int apply(demo_assembly *a, int type, const int64_t *meta, int meta_count, const void *data, int64_t bytes,
                 char *why, size_t why_len)
{
    switch (type) {
    case DEMO_EV_COORDS:
        return coords_event(a, meta, meta_count, data, bytes, why, why_len);
    case DEMO_EV_FIELD:
        return field_event(a, meta, meta_count, data, bytes, why, why_len);
    default:
        snprintf(why, why_len, "unexpected event type %d", type);
        return -1;
    }
}

int assembly_event(demo_assembly *a, const EPX_Event *event, char *why, size_t why_len)
{
    a->bytes += event->bytes;
    if (event->type == DEMO_EV_DEFINE) {
        if (define(a, event->meta, event->meta_count, event->data, event->bytes, why, why_len))
            return -1;
        while (a->first != NULL) {
            pending *p = a->first;
            int rc = apply(a, p->type, p->meta, p->meta_count, p->data, p->bytes, why, why_len);
            a->first = p->next;
            free(p->data);
            free(p);
            if (rc)
                return -1;
        }
        a->last = NULL;
    } else if (!a->defined) {
        pending *p = calloc(1, sizeof *p);
        if (p == NULL || event->meta_count < 0 || event->meta_count > EPX_MAX_META ||
            (p->data = malloc((size_t)event->bytes + 1)) == NULL) {
            free(p);
            return fail(why, why_len, "no memory to keep an early event (or a bad one)");
        }
        p->type = event->type;
        p->meta_count = event->meta_count;
        memcpy(p->meta, event->meta, (size_t)event->meta_count * sizeof(int64_t));
        p->bytes = event->bytes;
        memcpy(p->data, event->data, (size_t)event->bytes);
        if (a->last != NULL)
            a->last->next = p;
        else
            a->first = p;
        a->last = p;
        return 0;
    } else if (apply(a, event->type, event->meta, event->meta_count, event->data, event->bytes, why, why_len)) {
        return -1;
    }
    return gather_ready(a, why, why_len);
}

int assembly_end(demo_assembly *a, char *why, size_t why_len)
{
    if (!a->defined)
        return fail(why, why_len, "the context ended without a definition event");
    if (a->next != a->layout.steps) {
        snprintf(why, why_len, "the context ended with data missing (next item to gather: %lld of %lld timesteps)",
                 (long long)a->next, (long long)a->layout.steps);
        return -1;
    }
    if (a->out != NULL) {
        demo_output *out = a->out;
        a->out = NULL;
        return output_close(out, why, why_len);
    }
    return 0;
}

const demo_layout *assembly_layout(const demo_assembly *a)
{
    return &a->layout;
}

int assembly_transport(const demo_assembly *a)
{
    return a->transport;
}

int64_t assembly_processes(const demo_assembly *a)
{
    return a->processes;
}

const char *assembly_threads(const demo_assembly *a)
{
    return a->threads;
}

int64_t assembly_bytes(const demo_assembly *a)
{
    return a->bytes;
}

void assembly_free(demo_assembly *a)
{
    if (a == NULL)
        return;
    char ignored[8];
    if (a->out != NULL)
        output_close(a->out, ignored, sizeof ignored);
    while (a->first != NULL) {
        pending *p = a->first;
        a->first = p->next;
        free(p->data);
        free(p);
    }
    for (int64_t t = 0; a->step != NULL && t < a->layout.steps; t++)
        free(a->step[t]);
    free(a->step);
    free(a->step_cells);
    free(a->coords);
    free(a->gathered);
    free(a->counts);
    free(a->displs);
    free(a);
}
