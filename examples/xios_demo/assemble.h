/*
 * assemble.h: one context on one server of the XIOS demo (assemble.c). Events of the
 * context's clients (fields.h) fill this server's band of j rows of the coordinates and of
 * each field at each timestep; once a band is complete the servers gather it to server 0 in a
 * fixed order (coordinates, then timestep by timestep, field by field: every server makes the
 * same sequence of EP_Gatherv calls on EPX_Server_comm), which writes it (output.h).
 *
 * Events may come before the definition (other clients' events race client 0's) and events of
 * later timesteps before earlier ones are complete: the first are kept until the definition
 * arrives, the second each fill their own timestep's buffer.
 */
#ifndef XIOS_DEMO_ASSEMBLE_H
#define XIOS_DEMO_ASSEMBLE_H

#include "output.h"

#include <ep_xios.h>
#include <stddef.h>
#include <stdint.h>

typedef struct demo_assembly demo_assembly;

/** The state of context `context` on the server of rank `rank` among `servers` (the ranks of
 *  `servers_comm`); server 0 writes `path`. NULL when out of memory. */
demo_assembly *assembly_new(EPX_Context context, EP_Comm servers_comm, const char *path);

/** Takes one event (not EPX_EVENT_END): stores it, and gathers (and on server 0 writes)
 *  whatever became complete. 0, or -1 with `why` filled (a malformed event, a failed
 *  gather or write). */
int assembly_event(demo_assembly *a, const EPX_Event *event, char *why, size_t why_len);

/** After EPX_EVENT_END: checks that everything arrived and was gathered, and closes the file
 *  on server 0. 0, or -1 with `why`. */
int assembly_end(demo_assembly *a, char *why, size_t why_len);

/** What the context carried: layout (valid once defined), transport, model processes and
 *  threads per process ("3,1"), payload bytes this server received. */
const demo_layout *assembly_layout(const demo_assembly *a);
int assembly_transport(const demo_assembly *a);
int64_t assembly_processes(const demo_assembly *a);
const char *assembly_threads(const demo_assembly *a);
int64_t assembly_bytes(const demo_assembly *a);

void assembly_free(demo_assembly *a);

#endif
