//! Graph topologies given whole to every rank (MPI 4.1 section 8.5.3, `MPI_Graph_create`
//! and its queries) and the mapping calls of low-level topology construction (MPI 4.1
//! section 8.5.8). Ranks are endpoint ranks; ranks are kept, as for the other topologies
//! (see `topo_api`).

use super::boundary::out;
use super::comm_api::handle_or_null;
use super::topo_api::{grid, intra, ints, length, write_ints};
use super::types::*;
use crate::engine::topo::{self, create, Graph};
use crate::error::EpResult;
use crate::handles::endpoint;
use epmpi_macros::c_export;
use std::os::raw::c_int;

/// The graph `EP_Graph_create` or `EP_Graph_map` was given.
///
/// # Safety
/// `index` is NULL or readable for `nnodes` ints, `edges` for `index[nnodes-1]` ints.
unsafe fn given_graph(nnodes: c_int, index: *const c_int, edges: *const c_int) -> EpResult<Graph> {
    let n = length(nnodes, "nnodes")?;
    // SAFETY: the caller's contract, passed on.
    let index = unsafe { ints(index, n, "index")? };
    let total = index.last().copied().unwrap_or(0);
    let total = length(total, "index[nnodes-1]")?;
    // SAFETY: as above; `total` is the edge count the caller's `index` gives.
    let edges = unsafe { ints(edges, total, "edges")? };
    Ok(Graph { index, edges })
}

/// Makes a communicator with a graph topology that every rank gives whole (MPI 4.1 section
/// 8.5.3): `nnodes` nodes, node r's neighbours `edges[index[r-1]..index[r]]` (`index[-1]` =
/// 0). Ranks `0..nnodes` of `comm_old` are the nodes, keeping their ranks whatever `reorder`
/// says; the others get `EP_COMM_NULL`. Neighbourhood collectives use each node's neighbours
/// as both its sources and destinations, in the order given. Collective over `comm_old`, with
/// the same graph on every endpoint. Errors: `EP_ERR_COMM` (invalid handle,
/// intercommunicator), `EP_ERR_ARG` (negative `nnodes`, more nodes than ranks, decreasing
/// `index`, NULL arrays with nodes or edges, NULL `comm_graph`), `EP_ERR_RANK` (an edge
/// outside `0..nnodes`). A bad argument on any endpoint fails the call on every endpoint of
/// every process. Thread safety: one call per endpoint, concurrently.
///
/// # Safety
/// `index` is NULL or readable for `nnodes` ints, `edges` for `index[nnodes-1]` ints;
/// `comm_graph` points at a writable `EP_Comm`.
#[no_mangle]
#[c_export]
pub unsafe extern "C" fn EP_Graph_create(
    comm_old: EP_Comm,
    nnodes: c_int,
    index: *const c_int,
    edges: *const c_int,
    reorder: c_int,
    comm_graph: *mut EP_Comm,
) -> c_int {
    let _ = reorder;
    let ep = intra(comm_old)?;
    let comm_graph = out(comm_graph, "comm_graph");
    let graph = given_graph(nnodes, index, edges);
    let fault = graph.as_ref().err().or(comm_graph.as_ref().err()).cloned();
    let new = create::graph_create(&ep, graph.ok(), fault)?;
    *comm_graph? = handle_or_null(new)?;
    Ok(())
}

/// Number of nodes and of edges of a graph communicator (MPI 4.1 section 8.5.5). Local.
/// Errors: `EP_ERR_COMM`, `EP_ERR_TOPOLOGY` (no `EP_Graph_create` graph), `EP_ERR_ARG` (NULL
/// outputs). Thread safety: any thread.
///
/// # Safety
/// `nnodes` and `nedges` point at writable `int`s.
#[no_mangle]
#[c_export]
pub unsafe extern "C" fn EP_Graphdims_get(comm: EP_Comm, nnodes: *mut c_int, nedges: *mut c_int) -> c_int {
    let ep = endpoint(comm)?;
    let g = topo::graph_whole_of(&ep.shared)?;
    let (n, e) = (out(nnodes, "nnodes")?, out(nedges, "nedges")?);
    (*n, *e) = (g.index.len() as c_int, g.edges.len() as c_int);
    Ok(())
}

/// The graph of a graph communicator (MPI 4.1 section 8.5.5): the first `maxindex` entries
/// of `index` and `maxedges` of `edges` (or fewer, when the graph has fewer). Local.
/// Errors: `EP_ERR_COMM`, `EP_ERR_TOPOLOGY`, `EP_ERR_ARG` (negative maximum, NULL arrays).
/// Thread safety: any thread.
///
/// # Safety
/// `index` is NULL or writable for `maxindex` ints, `edges` for `maxedges` ints.
#[no_mangle]
#[c_export]
pub unsafe extern "C" fn EP_Graph_get(
    comm: EP_Comm,
    maxindex: c_int,
    maxedges: c_int,
    index: *mut c_int,
    edges: *mut c_int,
) -> c_int {
    let ep = endpoint(comm)?;
    let g = topo::graph_whole_of(&ep.shared)?;
    let ni = length(maxindex, "maxindex")?.min(g.index.len());
    let ne = length(maxedges, "maxedges")?.min(g.edges.len());
    write_ints(index, &g.index[..ni], "index")?;
    write_ints(edges, &g.edges[..ne], "edges")
}

/// Number of neighbours of `rank` in a graph communicator (MPI 4.1 section 8.5.5). Local.
/// Errors: `EP_ERR_COMM`, `EP_ERR_TOPOLOGY`, `EP_ERR_RANK` (outside the graph), `EP_ERR_ARG`
/// (NULL output). Thread safety: any thread.
///
/// # Safety
/// `nneighbors` points at a writable `int`.
#[no_mangle]
#[c_export]
pub unsafe extern "C" fn EP_Graph_neighbors_count(comm: EP_Comm, rank: c_int, nneighbors: *mut c_int) -> c_int {
    let ep = endpoint(comm)?;
    let g = topo::graph_whole_of(&ep.shared)?;
    let n = out(nneighbors, "nneighbors")?;
    *n = g.neighbours(rank)?.len() as c_int;
    Ok(())
}

/// The first `maxneighbors` neighbours of `rank` in a graph communicator, in the order given
/// (MPI 4.1 section 8.5.5). Local. Errors: `EP_ERR_COMM`, `EP_ERR_TOPOLOGY`, `EP_ERR_RANK`,
/// `EP_ERR_ARG` (negative maximum, NULL array). Thread safety: any thread.
///
/// # Safety
/// `neighbors` is NULL or writable for `maxneighbors` ints.
#[no_mangle]
#[c_export]
pub unsafe extern "C" fn EP_Graph_neighbors(
    comm: EP_Comm,
    rank: c_int,
    maxneighbors: c_int,
    neighbors: *mut c_int,
) -> c_int {
    let ep = endpoint(comm)?;
    let g = topo::graph_whole_of(&ep.shared)?;
    let all = g.neighbours(rank)?;
    let n = length(maxneighbors, "maxneighbors")?.min(all.len());
    write_ints(neighbors, &all[..n], "neighbors")
}

/// Where the calling endpoint would go in a grid (MPI 4.1 section 8.5.8): its own rank when
/// it is below the product of `dims`, `EP_UNDEFINED` otherwise (EPMPI keeps ranks, as
/// `EP_Cart_create` does). Local. Errors: `EP_ERR_COMM`, `EP_ERR_DIMS` (as `EP_Cart_create`),
/// `EP_ERR_ARG` (NULL arrays or output). Thread safety: any thread.
///
/// # Safety
/// `dims` and `periods` are NULL or readable for `ndims` ints; `newrank` points at a
/// writable `int`.
#[no_mangle]
#[c_export]
pub unsafe extern "C" fn EP_Cart_map(
    comm: EP_Comm,
    ndims: c_int,
    dims: *const c_int,
    periods: *const c_int,
    newrank: *mut c_int,
) -> c_int {
    let ep = intra(comm)?;
    let cart = grid(ndims, dims, periods)?;
    create::check_grid(&cart.dims, ep.shared.map.size())?;
    *out(newrank, "newrank")? = if ep.rank < cart.size() { ep.rank } else { EP_UNDEFINED };
    Ok(())
}

/// Where the calling endpoint would go in a graph (MPI 4.1 section 8.5.8): its own rank when
/// it is below `nnodes`, `EP_UNDEFINED` otherwise. Local. Errors: `EP_ERR_COMM`, those of the
/// graph arguments of `EP_Graph_create` (`EP_ERR_ARG`, `EP_ERR_RANK`), `EP_ERR_ARG` (NULL
/// output). Thread safety: any thread.
///
/// # Safety
/// As for `EP_Graph_create`'s graph arguments; `newrank` points at a writable `int`.
#[no_mangle]
#[c_export]
pub unsafe extern "C" fn EP_Graph_map(
    comm: EP_Comm,
    nnodes: c_int,
    index: *const c_int,
    edges: *const c_int,
    newrank: *mut c_int,
) -> c_int {
    let ep = intra(comm)?;
    let g = given_graph(nnodes, index, edges)?;
    create::check_graph(&g, ep.shared.map.size())?;
    *out(newrank, "newrank")? = if (ep.rank as usize) < g.index.len() { ep.rank } else { EP_UNDEFINED };
    Ok(())
}
