/*
 * The distributed graphs of the topology tests (topo.c, neighbor.c), pure C so that topo.c
 * can use them on the host MPI alone too.
 */
#ifndef TOPO_GRAPHS_H
#define TOPO_GRAPHS_H

/* EP_Dist_graph_create_adjacent's graph: rank s sends to itself when s % 4 == 0, then to
 * (s + k) % n for k = 1..s % 3 (uneven degrees, self loops, repeats on small sizes).
 * Writes s's destinations to `dst` (at most 3); returns how many. */
static int graph_out(int s, int n, int *dst)
{
    int m = 0;
    if (s % 4 == 0)
        dst[m++] = s;
    for (int k = 1; k <= s % 3; k++)
        dst[m++] = (s + k) % n;
    return m;
}

/* EP_Dist_graph_create's edges as rank r gives them: r -> r + 2, r + 1 -> r, and from even
 * ranks r - 1 -> r + 1 twice (mod n), as (source, destination) pairs (at most 4); returns
 * how many. */
static int given_edges(int r, int n, int *s, int *d)
{
    int m = 0;
    s[m] = r, d[m++] = (r + 2) % n;
    s[m] = (r + 1) % n, d[m++] = r;
    if (r % 2 == 0)
        for (int k = 0; k < 2; k++)
            s[m] = (r - 1 + n) % n, d[m++] = (r + 1) % n;
    return m;
}

/* EP_Graph_create's graph on n nodes: node r's neighbours are r - 1 and r + 1, and when n
 * and r are even r + 2 and r - 2 too, mod n (symmetric, as neighbourhood collectives need;
 * repeats and self loops on small n). Fills index[0..n) and edges (at most 4 n); returns
 * the edge count. */
static int whole_graph(int n, int *index, int *edges)
{
    int m = 0;
    for (int r = 0; r < n; r++) {
        edges[m++] = (r - 1 + n) % n;
        edges[m++] = (r + 1) % n;
        if (r % 2 == 0 && n % 2 == 0) {
            edges[m++] = (r + 2) % n;
            edges[m++] = (r - 2 + n) % n;
        }
        index[r] = m;
    }
    return m;
}

#endif
