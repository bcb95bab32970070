/*
 * Helpers of the bad-input suite (bad_input.c): one expectation macro that checks the error
 * class of a call and that its error string names the call, and the record of which public
 * functions the suite covered (printed as one line that tests/bad_input.rs compares with the
 * functions declared in include/ep_mpi.h).
 */
#ifndef BAD_INPUT_H
#define BAD_INPUT_H

#include "ep_test.h"

#define BAD_MAX_COVERED 320

static const char *bad_covered[BAD_MAX_COVERED];
static int bad_ncovered = 0;
static int bad_ncases = 0;

/* Records a case of public function `name` (any thread). */
static void bad_cover(const char *name)
{
#pragma omp critical(bad_cover)
    {
        int seen = 0;
        for (int i = 0; i < bad_ncovered && !seen; i++)
            seen = strcmp(bad_covered[i], name) == 0;
        if (!seen && bad_ncovered < BAD_MAX_COVERED)
            bad_covered[bad_ncovered++] = name;
        bad_ncases++;
    }
}

/* Prints the covered functions on one line: "bad_input: covered EP_A EP_B ...". */
static void bad_print_coverage(const char *program)
{
    printf("%s: covered", program);
    for (int i = 0; i < bad_ncovered; i++)
        printf(" %s", bad_covered[i]);
    printf("\n%s: %d cases\n", program, bad_ncases);
    fflush(stdout);
}

/*
 * Checks that `rc`, returned by public function `name` for the case `what`, has class
 * `want`, and that its error string is non-empty and names the function.
 */
static void bad_expect(const char *name, int want, int rc, const char *what, const char *file, int line)
{
    char msg[EP_MAX_ERROR_STRING] = "";
    int len = 0, cls = -1;
    bad_cover(name);
    int rc_class = EP_Error_class(rc, &cls);
    int rc_string = EP_Error_string(rc, msg, &len);
    if (rc_class != EP_SUCCESS || cls != want) {
        _Pragma("omp atomic") ep_test_failures++;
        fprintf(stderr, "FAIL %s:%d: %s (%s): class %d, expected %d; message '%s'\n", file, line, name, what, cls, want, msg);
        return;
    }
    if (want == EP_SUCCESS)
        return;
    if (rc_string != EP_SUCCESS || len <= 0 || (int)strlen(msg) != len || !strstr(msg, name)) {
        _Pragma("omp atomic") ep_test_failures++;
        fprintf(stderr, "FAIL %s:%d: %s (%s): error string '%s' (length %d) does not name the call\n", file, line, name, what, msg, len);
    }
}

/* EXPECT(EP_Send, EP_ERR_RANK, "dest = size", EP_Send(...)): the call gives class EP_ERR_RANK. */
#define EXPECT(fn, want, what, call) bad_expect(#fn, (want), (call), (what), __FILE__, __LINE__)

#endif
