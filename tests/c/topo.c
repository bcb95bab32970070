/*
 * Process topology queries (MPI 4.1 chapter 8), written once and compiled two ways:
 * - by default on EPMPI: each process makes EPMPI_TEST_EPS endpoints of MPI_COMM_WORLD and
 *   every endpoint runs the cases;
 * - with -DTOPO_REFERENCE on the host MPI alone (EP_ names mapped to MPI_ ones), one rank per
 *   process, run with as many processes as the EPMPI job has endpoints.
 * Each rank prints lines "T <case> r<rank>: <values>" (coordinates, shifts, ranks,
 * sub-communicator ranks and sizes, neighbour lists, topology kinds, balanced dims); the
 * test (tests/c_programs.rs, topologies_match_the_host_mpi) sorts both outputs and requires
 * them to be equal, so EPMPI's answers are the host MPI's for a communicator of the same
 * size. Null ranks print as "null", a null communicator as "nullcomm", "undefined" for
 * EP_UNDEFINED, whatever the values of the MPI in use.
 *
 * Dims are compared for up to 64 nodes, where Open MPI 4.1 and MPICH 4.0 agree.
 */
#ifdef TOPO_REFERENCE
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
typedef MPI_Comm EP_Comm;
#define EP_COMM_NULL MPI_COMM_NULL
#define EP_PROC_NULL MPI_PROC_NULL
#define EP_UNDEFINED MPI_UNDEFINED
#define EP_CART MPI_CART
#define EP_DIST_GRAPH MPI_DIST_GRAPH
#define EP_UNWEIGHTED MPI_UNWEIGHTED
#define EP_SUCCESS MPI_SUCCESS
#define EP_Comm_rank MPI_Comm_rank
#define EP_Comm_size MPI_Comm_size
#define EP_Comm_dup MPI_Comm_dup
#define EP_Comm_free MPI_Comm_free
#define EP_Cart_create MPI_Cart_create
#define EP_Dims_create MPI_Dims_create
#define EP_Cart_coords MPI_Cart_coords
#define EP_Cart_rank MPI_Cart_rank
#define EP_Cart_shift MPI_Cart_shift
#define EP_Cart_sub MPI_Cart_sub
#define EP_Cart_get MPI_Cart_get
#define EP_Cartdim_get MPI_Cartdim_get
#define EP_Topo_test MPI_Topo_test
#define EP_Dist_graph_create_adjacent MPI_Dist_graph_create_adjacent
#define EP_Dist_graph_create MPI_Dist_graph_create
#define EP_GRAPH MPI_GRAPH
#define EP_Graph_create MPI_Graph_create
#define EP_Graphdims_get MPI_Graphdims_get
#define EP_Graph_get MPI_Graph_get
#define EP_Graph_neighbors_count MPI_Graph_neighbors_count
#define EP_Graph_neighbors MPI_Graph_neighbors
#define EP_Cart_map MPI_Cart_map
#define EP_Graph_map MPI_Graph_map
#define EP_Dist_graph_neighbors_count MPI_Dist_graph_neighbors_count
#define EP_Dist_graph_neighbors MPI_Dist_graph_neighbors
static int failures = 0;
#define CHECK_OK(call)                                                                     \
    do {                                                                                   \
        if ((call) != MPI_SUCCESS) {                                                       \
            failures++;                                                                    \
            fprintf(stderr, "FAIL %s:%d: %s\n", __FILE__, __LINE__, #call);                \
        }                                                                                  \
    } while (0)
#define CRITICAL_BEGIN
#define CRITICAL_END
#else
#include "ep_test.h"
#define CRITICAL_BEGIN _Pragma("omp critical(topo_print)") {
#define CRITICAL_END }
#endif

#include "topo_graphs.h"

#define MAXD 4
#define LINE 1024

/* Appends a rank to a line: "null" for the null process. */
static void put_rank(char *line, int r)
{
    char b[32];
    if (r == EP_PROC_NULL)
        snprintf(b, sizeof b, " null");
    else
        snprintf(b, sizeof b, " %d", r);
    strncat(line, b, LINE - strlen(line) - 1);
}

static void put_int(char *line, int v)
{
    char b[32];
    snprintf(b, sizeof b, " %d", v);
    strncat(line, b, LINE - strlen(line) - 1);
}

/* The lines of this process, printed by world rank 0 at the end (launchers may interleave
 * the output of several processes within a line). */
static char *lines_text = NULL;
static size_t lines_len = 0, lines_cap = 0;

static void emit(const char *what, int me, const char *line)
{
    char b[LINE + 128];
    int n = snprintf(b, sizeof b, "T %s r%d:%s\n", what, me, line);
    CRITICAL_BEGIN
    if (lines_len + (size_t)n + 1 > lines_cap) {
        lines_cap = 2 * (lines_len + (size_t)n + 1);
        lines_text = realloc(lines_text, lines_cap);
    }
    memcpy(lines_text + lines_len, b, (size_t)n);
    lines_len += (size_t)n;
    CRITICAL_END
}

/* Gathers every process's lines to world rank 0, which prints them. */
static void print_lines(void)
{
    int wr, ws, mine = (int)lines_len;
    MPI_Comm_rank(MPI_COMM_WORLD, &wr);
    MPI_Comm_size(MPI_COMM_WORLD, &ws);
    int *lens = malloc(sizeof(int) * ws), *displs = malloc(sizeof(int) * ws);
    MPI_Gather(&mine, 1, MPI_INT, lens, 1, MPI_INT, 0, MPI_COMM_WORLD);
    int total = 0;
    for (int p = 0; wr == 0 && p < ws; p++) {
        displs[p] = total;
        total += lens[p];
    }
    char *all = malloc((size_t)total + 1);
    MPI_Gatherv(lines_text ? lines_text : "", mine, MPI_CHAR, all, lens, displs, MPI_CHAR, 0, MPI_COMM_WORLD);
    if (wr == 0) {
        fwrite(all, 1, (size_t)total, stdout);
        fflush(stdout);
    }
    free(all);
    free(lens);
    free(displs);
    free(lines_text);
}

/* Everything a rank can ask about a Cartesian communicator, printed. */
static void describe_cart(const char *name, EP_Comm cart)
{
    char line[LINE] = "";
    if (cart == EP_COMM_NULL) {
        return;
    }
    int me, size, status, nd, dims[MAXD], periods[MAXD], coords[MAXD], c2[MAXD];
    CHECK_OK(EP_Comm_rank(cart, &me));
    CHECK_OK(EP_Comm_size(cart, &size));
    CHECK_OK(EP_Topo_test(cart, &status));
    CHECK_OK(EP_Cartdim_get(cart, &nd));
    CHECK_OK(EP_Cart_get(cart, MAXD, dims, periods, coords));
    snprintf(line, sizeof line, " size %d cart %d ndims %d dims", size, status == EP_CART, nd);
    for (int d = 0; d < nd; d++)
        put_int(line, dims[d]);
    strcat(line, " periods");
    for (int d = 0; d < nd; d++)
        put_int(line, periods[d]);
    strcat(line, " coords");
    for (int d = 0; d < nd; d++)
        put_int(line, coords[d]);
    /* Coordinates of every rank, and back. */
    strcat(line, " all");
    for (int r = 0; r < size; r++) {
        int back;
        CHECK_OK(EP_Cart_coords(cart, r, MAXD, c2));
        CHECK_OK(EP_Cart_rank(cart, c2, &back));
        put_int(line, back == r);
        for (int d = 0; d < nd; d++)
            put_int(line, c2[d]);
    }
    /* Shifts by 1, -1, 2 and 3 along each dimension. */
    strcat(line, " shifts");
    for (int d = 0; d < nd; d++) {
        static const int disps[] = {1, -1, 2, 3};
        for (int k = 0; k < 4; k++) {
            int src, dst;
            CHECK_OK(EP_Cart_shift(cart, d, disps[k], &src, &dst));
            put_rank(line, src);
            put_rank(line, dst);
        }
    }
    /* Ranks at coordinates one step away (periodic dimensions wrap around). */
    strcat(line, " wrapped");
    for (int d = 0; d < nd; d++) {
        if (!periods[d])
            continue;
        memcpy(c2, coords, sizeof c2);
        c2[d] = coords[d] - 1 - dims[d];
        int r;
        CHECK_OK(EP_Cart_rank(cart, c2, &r));
        put_int(line, r);
    }
    emit(name, me, line);
    /* Every subgrid of up to 3 dimensions that keeps one at least (with none kept, MPICH 4.0
     * gives MPI_COMM_NULL to all but one rank of each subgrid, where MPI 4.1 section 8.5.7
     * gives each rank a 0-dimensional grid; EPMPI does the latter, tests/c/neighbor.c). */
    for (int mask = 1; nd <= 3 && mask < (1 << nd); mask++) {
        int remain[MAXD];
        for (int d = 0; d < nd; d++)
            remain[d] = (mask >> d) & 1;
        EP_Comm sub;
        CHECK_OK(EP_Cart_sub(cart, remain, &sub));
        int sme, ssize, snd, sdims[MAXD], sper[MAXD], scoords[MAXD];
        CHECK_OK(EP_Comm_rank(sub, &sme));
        CHECK_OK(EP_Comm_size(sub, &ssize));
        CHECK_OK(EP_Cartdim_get(sub, &snd));
        CHECK_OK(EP_Cart_get(sub, MAXD, sdims, sper, scoords));
        char sl[LINE] = "";
        snprintf(sl, sizeof sl, " mask %d rank %d size %d ndims %d", mask, sme, ssize, snd);
        for (int d = 0; d < snd; d++) {
            put_int(sl, sdims[d]);
            put_int(sl, sper[d]);
            put_int(sl, scoords[d]);
        }
        char what[64];
        snprintf(what, sizeof what, "%s-sub%d", name, mask);
        emit(what, me, sl);
        CHECK_OK(EP_Comm_free(&sub));
    }
}

static void cart_case(EP_Comm comm, const char *name, int ndims, const int *dims, const int *periods)
{
    EP_Comm cart;
    int me;
    CHECK_OK(EP_Comm_rank(comm, &me));
    CHECK_OK(EP_Cart_create(comm, ndims, dims, periods, 0, &cart));
    if (cart == EP_COMM_NULL)
        emit(name, me, " nullcomm");
    describe_cart(name, cart);
    if (cart != EP_COMM_NULL)
        CHECK_OK(EP_Comm_free(&cart));
}

static void graph_case(EP_Comm comm, int weighted)
{
    int me, n;
    CHECK_OK(EP_Comm_rank(comm, &me));
    CHECK_OK(EP_Comm_size(comm, &n));
    int *src = malloc(sizeof(int) * 4 * n), *sw = malloc(sizeof(int) * 4 * n), dst[4], dw[4], indeg = 0;
    for (int s = 0; s < n; s++) {
        int d[4], m = graph_out(s, n, d);
        for (int k = 0; k < m; k++)
            if (d[k] == me) {
                sw[indeg] = 10 * s + me;
                src[indeg++] = s;
            }
    }
    int outdeg = graph_out(me, n, dst);
    for (int k = 0; k < outdeg; k++)
        dw[k] = 10 * me + dst[k];
    EP_Comm g;
    CHECK_OK(EP_Dist_graph_create_adjacent(comm, indeg, src, weighted ? sw : EP_UNWEIGHTED, outdeg, dst,
                                           weighted ? dw : EP_UNWEIGHTED, MPI_INFO_NULL, 0, &g));
    int status, gi, go, gw, gme;
    CHECK_OK(EP_Comm_rank(g, &gme));
    CHECK_OK(EP_Topo_test(g, &status));
    CHECK_OK(EP_Dist_graph_neighbors_count(g, &gi, &go, &gw));
    char line[LINE] = "";
    snprintf(line, sizeof line, " rank %d dist %d in %d out %d weighted %d sources", gme, status == EP_DIST_GRAPH,
             gi, go, gw);
    int *rs = malloc(sizeof(int) * (gi + 1)), *rsw = malloc(sizeof(int) * (gi + 1));
    int rd[4], rdw[4];
    CHECK_OK(EP_Dist_graph_neighbors(g, gi, rs, weighted ? rsw : EP_UNWEIGHTED, go, rd,
                                     weighted ? rdw : EP_UNWEIGHTED));
    for (int i = 0; i < gi; i++) {
        put_int(line, rs[i]);
        if (weighted)
            put_int(line, rsw[i]);
    }
    strcat(line, " destinations");
    for (int i = 0; i < go; i++) {
        put_int(line, rd[i]);
        if (weighted)
            put_int(line, rdw[i]);
    }
    emit(weighted ? "graph-weighted" : "graph", me, line);
    CHECK_OK(EP_Comm_free(&g));
    free(src);
    free(sw);
    free(rs);
    free(rsw);
}

static int cmp_pair(const void *a, const void *b)
{
    const int *x = a, *y = b;
    return x[0] != y[0] ? (x[0] > y[0]) - (x[0] < y[0]) : (x[1] > y[1]) - (x[1] < y[1]);
}

/* EP_Dist_graph_create with edges given by other ranks than their ends (r gives r -> r + 2,
 * r + 1 -> r, and from even ranks r - 1 -> r + 1 twice): MPI leaves the neighbour order to
 * the implementation, so the lists print sorted, with their weights. */
static void graph_create_case(EP_Comm comm)
{
    int me, n;
    CHECK_OK(EP_Comm_rank(comm, &me));
    CHECK_OK(EP_Comm_size(comm, &n));
    int s[4], d[4], w[4], deg[4], m = given_edges(me, n, s, d);
    for (int k = 0; k < m; k++) {
        deg[k] = 1;
        w[k] = 100 * s[k] + d[k];
    }
    EP_Comm g;
    CHECK_OK(EP_Dist_graph_create(comm, m, s, deg, d, w, MPI_INFO_NULL, 0, &g));
    int in = 0, out = 0, weighted = 0;
    CHECK_OK(EP_Dist_graph_neighbors_count(g, &in, &out, &weighted));
    int *src = malloc(sizeof(int) * (2 * in + 2)), *dst = malloc(sizeof(int) * (2 * out + 2));
    int *rs = malloc(sizeof(int) * (in + 1)), *rsw = malloc(sizeof(int) * (in + 1));
    int *rd = malloc(sizeof(int) * (out + 1)), *rdw = malloc(sizeof(int) * (out + 1));
    CHECK_OK(EP_Dist_graph_neighbors(g, in, rs, rsw, out, rd, rdw));
    for (int i = 0; i < in; i++)
        src[2 * i] = rs[i], src[2 * i + 1] = rsw[i];
    for (int j = 0; j < out; j++)
        dst[2 * j] = rd[j], dst[2 * j + 1] = rdw[j];
    qsort(src, in, 2 * sizeof(int), cmp_pair);
    qsort(dst, out, 2 * sizeof(int), cmp_pair);
    char line[LINE] = "";
    snprintf(line, sizeof line, " in %d out %d weighted %d sources", in, out, weighted);
    for (int i = 0; i < 2 * in; i++)
        put_int(line, src[i]);
    strcat(line, " destinations");
    for (int j = 0; j < 2 * out; j++)
        put_int(line, dst[j]);
    emit("graph-create", me, line);
    CHECK_OK(EP_Comm_free(&g));
    free(src);
    free(dst);
    free(rs);
    free(rsw);
    free(rd);
    free(rdw);
}

/* EP_Graph_create on all ranks and on all but the last, with every query and the maps. */
static void whole_graph_case(EP_Comm comm, int nnodes, const char *name)
{
    int me, n;
    CHECK_OK(EP_Comm_rank(comm, &me));
    CHECK_OK(EP_Comm_size(comm, &n));
    int *index = malloc(sizeof(int) * (nnodes + 1)), *edges = malloc(sizeof(int) * (4 * nnodes + 1));
    whole_graph(nnodes, index, edges);
    char line[LINE] = "";
    int mapped = -5, cmapped = -5, dims[1] = { nnodes }, periods[1] = { 0 };
    CHECK_OK(EP_Graph_map(comm, nnodes, index, edges, &mapped));
    CHECK_OK(EP_Cart_map(comm, 1, dims, periods, &cmapped));
    /* Ranks outside the graph: MPI says MPI_UNDEFINED, which MPICH 4.0 and EPMPI give and
     * Open MPI 4.1 does not (it gives the rank); neighbor.c checks EPMPI's. */
    if (me < nnodes)
        snprintf(line, sizeof line, " graph_map %d cart_map %d", mapped, cmapped);
    EP_Comm g;
    CHECK_OK(EP_Graph_create(comm, nnodes, index, edges, 0, &g));
    if (g == EP_COMM_NULL) {
        strcat(line, " nullcomm");
    } else {
        int status, nn = 0, ne = 0, gme;
        CHECK_OK(EP_Comm_rank(g, &gme));
        CHECK_OK(EP_Topo_test(g, &status));
        CHECK_OK(EP_Graphdims_get(g, &nn, &ne));
        int *gi = malloc(sizeof(int) * (nn + 1)), *ge = malloc(sizeof(int) * (ne + 1));
        CHECK_OK(EP_Graph_get(g, nn, ne, gi, ge));
        char b[64];
        snprintf(b, sizeof b, " rank %d graph %d nodes %d edges %d index", gme, status == EP_GRAPH, nn, ne);
        strcat(line, b);
        for (int i = 0; i < nn; i++)
            put_int(line, gi[i]);
        strcat(line, " edges");
        for (int i = 0; i < ne; i++)
            put_int(line, ge[i]);
        strcat(line, " neighbours");
        for (int r = 0; r < nn; r++) {
            int k = 0, nb[8];
            CHECK_OK(EP_Graph_neighbors_count(g, r, &k));
            CHECK_OK(EP_Graph_neighbors(g, r, 8, nb));
            put_int(line, k);
            for (int i = 0; i < k && i < 8; i++)
                put_int(line, nb[i]);
        }
        free(gi);
        free(ge);
        CHECK_OK(EP_Comm_free(&g));
    }
    emit(name, me, line);
    free(index);
    free(edges);
}

static void run_cases(EP_Comm comm)
{
    int me, n;
    CHECK_OK(EP_Comm_rank(comm, &me));
    CHECK_OK(EP_Comm_size(comm, &n));
    char line[LINE] = "";
    int status;
    CHECK_OK(EP_Topo_test(comm, &status));
    snprintf(line, sizeof line, " undefined %d", status == EP_UNDEFINED);
    emit("plain", me, line);
    if (me == 0) {
        for (int nodes = 1; nodes <= 64; nodes++) {
            for (int nd = 1; nd <= 4; nd++) {
                int dims[MAXD] = {0, 0, 0, 0};
                CHECK_OK(EP_Dims_create(nodes, nd, dims));
                snprintf(line, sizeof line, " %d %d:", nodes, nd);
                for (int d = 0; d < nd; d++)
                    put_int(line, dims[d]);
                emit("dims", me, line);
            }
            if (nodes % 2 == 0) {
                int dims[3] = {0, 2, 0};
                CHECK_OK(EP_Dims_create(nodes, 3, dims));
                snprintf(line, sizeof line, " %d fixed: %d %d %d", nodes, dims[0], dims[1], dims[2]);
                emit("dims", me, line);
            }
        }
    }
    int ring[1] = {n}, periodic[3] = {1, 1, 0}, open[3] = {0, 0, 0};
    cart_case(comm, "ring", 1, ring, periodic);
    cart_case(comm, "line", 1, ring, open);
    int d2[2] = {0, 0}, d3[3] = {0, 0, 0};
    CHECK_OK(EP_Dims_create(n, 2, d2));
    CHECK_OK(EP_Dims_create(n, 3, d3));
    int p2[2] = {1, 0};
    cart_case(comm, "grid2", 2, d2, p2);
    cart_case(comm, "grid2open", 2, d2, open);
    cart_case(comm, "grid3", 3, d3, periodic);
    int t2[2] = {n, 1};
    cart_case(comm, "column", 2, t2, p2);
    if (n > 1) {
        int fewer[1] = {n - 1};
        cart_case(comm, "fewer", 1, fewer, periodic);
    }
    if (n >= 4) {
        int fewer2[2] = {2, n / 2 - (n % 2 == 0 && n > 4)};
        cart_case(comm, "fewer2", 2, fewer2, p2);
    }
    cart_case(comm, "zero", 0, NULL, NULL);
    graph_case(comm, 0);
    graph_case(comm, 1);
    graph_create_case(comm);
    whole_graph_case(comm, n, "whole-graph");
    whole_graph_case(comm, n - 1, "whole-graph-fewer");
}

#ifdef TOPO_REFERENCE
int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    run_cases(MPI_COMM_WORLD);
    print_lines();
    int total = 0, wr;
    MPI_Comm_rank(MPI_COMM_WORLD, &wr);
    MPI_Allreduce(&failures, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (wr == 0)
        printf("topo_reference: %s\n", total ? "FAIL" : "PASS");
    MPI_Finalize();
    return total != 0;
}
#else
int main(int argc, char **argv)
{
    int wr, ws;
    ep_test_init(&argc, &argv, &wr, &ws);
    int n = ep_test_count_for(wr);
    EP_Comm *comms = malloc(sizeof(EP_Comm) * (n + 1));
    CHECK_OK(EP_Comm_create_endpoints(MPI_COMM_WORLD, n, MPI_INFO_NULL, comms));
#pragma omp parallel num_threads(n > 0 ? n : 1)
    if (n > 0) {
        EP_Comm c = comms[omp_get_thread_num()];
        run_cases(c);
        CHECK_OK(EP_Comm_free(&c));
    }
    free(comms);
    print_lines();
    return ep_test_finish("topo", wr);
}
#endif
