//! Process topologies (MPI 4.1 chapter 8, sections 8.5.1 to 8.5.7): Cartesian grids and
//! distributed graphs on endpoint intracommunicators, and their queries. Ranks are endpoint
//! ranks; a topology lives on the communicator its creating call returns.
//!
//! `reorder` is accepted and ranks are kept (rank r of the new communicator is rank r of the
//! old one): endpoint ranks are numbered process by process, so in MPI's row-major grid order
//! neighbours along the last dimensions already share a process wherever the counts allow.
//! `EP_Comm_dup` keeps the topology (a new private communicator for the neighbourhood
//! collectives comes with it); `EP_Comm_split` gives communicators without one.

use super::boundary::out;
use super::comm_api::handle_or_null;
use super::types::*;
use crate::engine::comm::Endpoint;
use crate::engine::topo::{self, create, Adjacency, Cart};
use crate::ep_err;
use crate::error::{EpError, EpResult, ERR_ARG, ERR_COMM, ERR_DIMS, ERR_RANK};
use crate::handles::endpoint;
use crate::host::sys::MPI_Info;
use epmpi_macros::c_export;
use std::os::raw::c_int;

/// `EP_Topo_test` status of a Cartesian communicator (MPI's `MPI_CART`).
pub const EP_CART: c_int = 1;
/// `EP_Topo_test` status of a graph communicator (MPI's `MPI_GRAPH`, `EP_Graph_create`).
pub const EP_GRAPH: c_int = 2;
/// `EP_Topo_test` status of a distributed graph communicator (MPI's `MPI_DIST_GRAPH`).
pub const EP_DIST_GRAPH: c_int = 3;

/// Values of `EP_UNWEIGHTED` and `EP_WEIGHTS_EMPTY` (the header's `((int *)2)`, `((int *)3)`):
/// addresses no array has.
const UNWEIGHTED: usize = 2;
const WEIGHTS_EMPTY: usize = 3;

/// The endpoint of an intracommunicator: topologies exist on intracommunicators only.
pub(super) fn intra(comm: EP_Comm) -> EpResult<std::sync::Arc<Endpoint>> {
    let ep = endpoint(comm)?;
    if ep.shared.is_inter() {
        return Err(ep_err!(ERR_COMM, "communicator {comm} is an intercommunicator; topologies need an intracomm"));
    }
    Ok(ep)
}

/// `n` ints read from a user array; `EP_ERR_ARG` when it is NULL and `n > 0`.
///
/// # Safety
/// `p` is NULL or readable for `n` ints.
pub(super) unsafe fn ints(p: *const c_int, n: usize, what: &str) -> EpResult<Vec<c_int>> {
    if n == 0 {
        return Ok(Vec::new());
    }
    if p.is_null() {
        return Err(ep_err!(ERR_ARG, "{what} is NULL"));
    }
    // SAFETY: non-null and readable for `n` ints (this function's contract).
    Ok(unsafe { std::slice::from_raw_parts(p, n) }.to_vec())
}

/// Writes `v` into a user array; `EP_ERR_ARG` when it is NULL and `v` is not empty.
///
/// # Safety
/// `p` is NULL or writable for `v.len()` ints.
pub(super) unsafe fn write_ints(p: *mut c_int, v: &[c_int], what: &str) -> EpResult<()> {
    if v.is_empty() {
        return Ok(());
    }
    if p.is_null() {
        return Err(ep_err!(ERR_ARG, "{what} is NULL"));
    }
    // SAFETY: non-null and writable for `v.len()` ints (this function's contract).
    unsafe { std::ptr::copy_nonoverlapping(v.as_ptr(), p, v.len()) };
    Ok(())
}

/// A user's array length argument (`maxdims`, `maxindegree`...): `EP_ERR_ARG` if negative.
pub(super) fn length(n: c_int, what: &str) -> EpResult<usize> {
    usize::try_from(n).map_err(|_| ep_err!(ERR_ARG, "{what} {n} is negative"))
}

/// The grid `EP_Cart_create` was given.
///
/// # Safety
/// `dims` and `periods` are NULL or readable for `ndims` ints.
pub(super) unsafe fn grid(ndims: c_int, dims: *const c_int, periods: *const c_int) -> EpResult<Cart> {
    if ndims < 0 {
        return Err(ep_err!(ERR_DIMS, "ndims {ndims} is negative"));
    }
    let n = ndims as usize;
    // SAFETY: the caller's contract, passed on.
    let dims = unsafe { ints(dims, n, "dims")? };
    // SAFETY: as above.
    let periods = unsafe { ints(periods, n, "periods")? }.iter().map(|&p| p != 0).collect();
    Ok(Cart { dims, periods })
}

/// Makes a communicator with a Cartesian topology (MPI 4.1 section 8.5.1): a grid of
/// `ndims >= 0` dimensions of extents `dims[0..ndims]` (each > 0), periodic where
/// `periods[d]` is nonzero. Ranks `0..product(dims)` of `comm_old` form the grid, row-major
/// (the last dimension varies fastest), keeping their ranks whatever `reorder` says (see the
/// module documentation); the other endpoints get `EP_COMM_NULL`. Collective over
/// `comm_old`, with the same `ndims`, `dims`, `periods` on every endpoint.
/// Errors: `EP_ERR_COMM` (invalid handle, intercommunicator), `EP_ERR_DIMS` (`ndims < 0`, a
/// dimension <= 0, a grid larger than `comm_old`), `EP_ERR_ARG` (NULL arrays with
/// `ndims > 0`, NULL `comm_cart`). A bad argument on any endpoint fails the call on every
/// endpoint of every process (the others get its error class; docs/errors.md).
/// Thread safety: one call per endpoint, concurrently.
///
/// # Safety
/// `dims` and `periods` are NULL or readable for `ndims` ints; `comm_cart` points at a
/// writable `EP_Comm` (NULL gives `EP_ERR_ARG`).
#[no_mangle]
#[c_export]
pub unsafe extern "C" fn EP_Cart_create(
    comm_old: EP_Comm,
    ndims: c_int,
    dims: *const c_int,
    periods: *const c_int,
    reorder: c_int,
    comm_cart: *mut EP_Comm,
) -> c_int {
    let _ = reorder;
    let ep = intra(comm_old)?;
    let comm_cart = out(comm_cart, "comm_cart");
    let cart = grid(ndims, dims, periods);
    let fault = cart.as_ref().err().or(comm_cart.as_ref().err()).cloned();
    let new = create::cart_create(&ep, cart.ok(), fault)?;
    *comm_cart? = handle_or_null(new)?;
    Ok(())
}

/// Fills the zero entries of `dims[0..ndims]` with a balanced grid of `nnodes` ranks (MPI
/// 4.1 section 8.5.2): the product of all entries is `nnodes`, positive entries are kept, the
/// filled ones are non-increasing and as close to each other as possible (smallest
/// difference between the largest and the smallest, then smallest sum: MPICH's choice; Open
/// MPI 4.1 differs for some sizes, e.g. 72 in 2 dimensions is 9 x 8 here and 12 x 6 there).
/// Local: no communication. Errors: `EP_ERR_ARG` (`nnodes <= 0`, NULL `dims` with
/// `ndims > 0`), `EP_ERR_DIMS` (`ndims < 0`, a negative entry, kept entries whose product
/// does not divide `nnodes`). Thread safety: any thread.
///
/// # Safety
/// `dims` is NULL or readable and writable for `ndims` ints.
#[no_mangle]
#[c_export]
pub unsafe extern "C" fn EP_Dims_create(nnodes: c_int, ndims: c_int, dims: *mut c_int) -> c_int {
    if ndims < 0 {
        return Err(ep_err!(ERR_DIMS, "ndims {ndims} is negative"));
    }
    let mut d = ints(dims, ndims as usize, "dims")?;
    topo::dims_create(nnodes, &mut d)?;
    write_ints(dims, &d, "dims")
}

/// Coordinates of `rank` in the communicator's grid (MPI 4.1 section 8.5.5): writes
/// `min(maxdims, ndims)` ints to `coords`. Local. Errors: `EP_ERR_COMM`, `EP_ERR_TOPOLOGY`
/// (no Cartesian topology), `EP_ERR_RANK` (`rank` outside the grid), `EP_ERR_ARG`
/// (negative `maxdims`, NULL `coords`). Thread safety: any thread.
///
/// # Safety
/// `coords` is NULL or writable for `maxdims` ints.
#[no_mangle]
#[c_export]
pub unsafe extern "C" fn EP_Cart_coords(comm: EP_Comm, rank: c_int, maxdims: c_int, coords: *mut c_int) -> c_int {
    let ep = endpoint(comm)?;
    let c = topo::cart_of(&ep.shared)?;
    let max = length(maxdims, "maxdims")?;
    let xy = c.coords(rank)?;
    write_ints(coords, &xy[..max.min(xy.len())], "coords")
}

/// Rank at `coords[0..ndims]` in the communicator's grid (MPI 4.1 section 8.5.5): periodic
/// dimensions wrap around. Local. Errors: `EP_ERR_COMM`, `EP_ERR_TOPOLOGY`, `EP_ERR_ARG`
/// (a coordinate outside a non-periodic dimension, NULL arguments).
/// Thread safety: any thread.
///
/// # Safety
/// `coords` is NULL or readable for `ndims` ints; `rank` points at a writable `int`.
#[no_mangle]
#[c_export]
pub unsafe extern "C" fn EP_Cart_rank(comm: EP_Comm, coords: *const c_int, rank: *mut c_int) -> c_int {
    let ep = endpoint(comm)?;
    let c = topo::cart_of(&ep.shared)?;
    let rank = out(rank, "rank")?;
    *rank = c.rank(&ints(coords, c.ndims(), "coords")?)?;
    Ok(())
}

/// Source and destination of a shift by `disp` along dimension `direction` (MPI 4.1 section
/// 8.5.6): `*rank_dest` is `disp` steps ahead of the calling endpoint, `*rank_source` `disp`
/// steps behind; `EP_PROC_NULL` past the edge of a non-periodic dimension. Local.
/// Errors: `EP_ERR_COMM`, `EP_ERR_TOPOLOGY`, `EP_ERR_DIMS` (`direction` outside
/// `0..ndims`), `EP_ERR_ARG` (NULL outputs). Thread safety: one thread per endpoint.
///
/// # Safety
/// `rank_source` and `rank_dest` point at writable `int`s.
#[no_mangle]
#[c_export]
pub unsafe extern "C" fn EP_Cart_shift(
    comm: EP_Comm,
    direction: c_int,
    disp: c_int,
    rank_source: *mut c_int,
    rank_dest: *mut c_int,
) -> c_int {
    let ep = endpoint(comm)?;
    let c = topo::cart_of(&ep.shared)?;
    let (source_out, dest_out) = (out(rank_source, "rank_source")?, out(rank_dest, "rank_dest")?);
    let (source, dest) = c.shift(ep.rank, direction, disp)?;
    (*source_out, *dest_out) = (source, dest);
    Ok(())
}

/// Splits a Cartesian communicator into subgrids (MPI 4.1 section 8.5.7): dimension d is
/// kept where `remain_dims[d]` is nonzero; the endpoints that share their coordinates in
/// the dropped dimensions form one new Cartesian communicator of the kept dimensions (their
/// extents and periods), ranked in the old rank order (row-major in the kept dimensions).
/// With no dimension kept each endpoint gets a communicator of its own with 0 dimensions.
/// Collective over `comm`. Errors: `EP_ERR_COMM`, `EP_ERR_TOPOLOGY` (no Cartesian
/// topology; every endpoint gets it at once), `EP_ERR_ARG` (NULL `remain_dims` or
/// `newcomm`; a bad argument on any endpoint fails the call on every endpoint).
/// Thread safety: one call per endpoint, concurrently.
///
/// # Safety
/// `remain_dims` is NULL or readable for `ndims` ints; `newcomm` points at a writable
/// `EP_Comm`.
#[no_mangle]
#[c_export]
pub unsafe extern "C" fn EP_Cart_sub(comm: EP_Comm, remain_dims: *const c_int, newcomm: *mut EP_Comm) -> c_int {
    let ep = intra(comm)?;
    let ndims = topo::cart_of(&ep.shared)?.ndims();
    let newcomm = out(newcomm, "newcomm");
    let remain = ints(remain_dims, ndims, "remain_dims").map(|v| v.iter().map(|&r| r != 0).collect());
    let fault = remain.as_ref().err().or(newcomm.as_ref().err()).cloned();
    let new = create::cart_sub(&ep, remain.ok(), fault)?;
    *newcomm? = handle_or_null(Some(new))?;
    Ok(())
}

/// The grid of a Cartesian communicator (MPI 4.1 section 8.5.5): extents, periods (1 or 0)
/// and the calling endpoint's coordinates, `min(maxdims, ndims)` ints each. Local.
/// Errors: `EP_ERR_COMM`, `EP_ERR_TOPOLOGY`, `EP_ERR_ARG` (negative `maxdims`, NULL arrays).
/// Thread safety: one thread per endpoint.
///
/// # Safety
/// `dims`, `periods` and `coords` are NULL or writable for `maxdims` ints.
#[no_mangle]
#[c_export]
pub unsafe extern "C" fn EP_Cart_get(
    comm: EP_Comm,
    maxdims: c_int,
    dims: *mut c_int,
    periods: *mut c_int,
    coords: *mut c_int,
) -> c_int {
    let ep = endpoint(comm)?;
    let c = topo::cart_of(&ep.shared)?;
    let n = length(maxdims, "maxdims")?.min(c.ndims());
    let p: Vec<c_int> = c.periods.iter().map(|&p| p as c_int).collect();
    let xy = c.coords(ep.rank)?;
    write_ints(dims, &c.dims[..n], "dims")?;
    write_ints(periods, &p[..n], "periods")?;
    write_ints(coords, &xy[..n], "coords")
}

/// Number of dimensions of a Cartesian communicator (MPI 4.1 section 8.5.5). Local.
/// Errors: `EP_ERR_COMM`, `EP_ERR_TOPOLOGY`, `EP_ERR_ARG` (NULL `ndims`).
/// Thread safety: any thread.
///
/// # Safety
/// `ndims` points at a writable `int`.
#[no_mangle]
#[c_export]
pub unsafe extern "C" fn EP_Cartdim_get(comm: EP_Comm, ndims: *mut c_int) -> c_int {
    let ep = endpoint(comm)?;
    let c = topo::cart_of(&ep.shared)?;
    *out(ndims, "ndims")? = c.ndims() as c_int;
    Ok(())
}

/// The topology of a communicator (MPI 4.1 section 8.5.5): `EP_CART`, `EP_GRAPH`,
/// `EP_DIST_GRAPH`, or `EP_UNDEFINED` for none (intercommunicators included). Local. Errors: `EP_ERR_COMM`,
/// `EP_ERR_ARG` (NULL `status`). Thread safety: any thread.
///
/// # Safety
/// `status` points at a writable `int`.
#[no_mangle]
#[c_export]
pub unsafe extern "C" fn EP_Topo_test(comm: EP_Comm, status: *mut c_int) -> c_int {
    let ep = endpoint(comm)?;
    *out(status, "status")? = create::status(&ep.shared).unwrap_or(EP_UNDEFINED);
    Ok(())
}

/// One side of an endpoint's edges: the ranks and the weights (`None`: `EP_UNWEIGHTED`).
///
/// # Safety
/// `ranks` is NULL or readable for `degree` ints; `weights` is `EP_UNWEIGHTED`,
/// `EP_WEIGHTS_EMPTY`, NULL or readable for `degree` ints.
unsafe fn edges(
    degree: c_int,
    ranks: *const c_int,
    weights: *const c_int,
    size: usize,
    what: &str,
) -> EpResult<(Vec<c_int>, Option<Vec<c_int>>)> {
    let n = length(degree, &format!("{what} degree"))?;
    let ranks = ints(ranks, n, what)?;
    if let Some((i, r)) = ranks.iter().enumerate().find(|(_, &r)| !(0..size as c_int).contains(&r)) {
        return Err(ep_err!(ERR_RANK, "{what}[{i}] = {r} is outside 0..{size}"));
    }
    let weights = match weights as usize {
        UNWEIGHTED => None,
        WEIGHTS_EMPTY if n > 0 => return Err(ep_err!(ERR_ARG, "{what} weights are EP_WEIGHTS_EMPTY with degree {n}")),
        WEIGHTS_EMPTY => Some(Vec::new()),
        _ => Some(ints(weights, n, &format!("{what} weights"))?),
    };
    if let Some((i, w)) = weights.iter().flatten().enumerate().find(|(_, &w)| w < 0) {
        return Err(ep_err!(ERR_ARG, "{what} weight {i} = {w} is negative"));
    }
    Ok((ranks, weights))
}

/// The edges `EP_Dist_graph_create_adjacent` was given.
///
/// # Safety
/// As for [`edges`], for both sides.
#[allow(clippy::too_many_arguments, reason = "MPI's adjacency arguments")]
unsafe fn adjacency(
    indegree: c_int,
    sources: *const c_int,
    sourceweights: *const c_int,
    outdegree: c_int,
    destinations: *const c_int,
    destweights: *const c_int,
    size: usize,
) -> EpResult<Adjacency> {
    let (sources, sw) = edges(indegree, sources, sourceweights, size, "sources")?;
    let (destinations, dw) = edges(outdegree, destinations, destweights, size, "destinations")?;
    let weighted = match (sw.is_some(), dw.is_some()) {
        (a, b) if a == b => a,
        _ => return Err(ep_err!(ERR_ARG, "sourceweights and destweights must both be EP_UNWEIGHTED or neither")),
    };
    Ok(Adjacency {
        sources,
        source_weights: sw.unwrap_or_default(),
        destinations,
        dest_weights: dw.unwrap_or_default(),
        weighted,
    })
}

/// Makes a communicator with a distributed graph topology in which each endpoint gives its
/// own edges (MPI 4.1 section 8.5.4): `indegree` in-neighbours `sources[i]` and `outdegree`
/// out-neighbours `destinations[j]` (ranks of `comm_old`, repeats allowed), with weights
/// (`indegree`/`outdegree` non-negative ints), or `EP_UNWEIGHTED` for both, or
/// `EP_WEIGHTS_EMPTY` for a weighted side of degree 0. The edges must agree between
/// endpoints (j lists i as a source as often as i lists j as a destination), as MPI
/// requires. Every endpoint of `comm_old` is in the new communicator with its rank
/// (`reorder` is accepted and ignored, see the module documentation; `info` too).
/// Collective over `comm_old`. Errors: `EP_ERR_COMM` (invalid handle, intercommunicator),
/// `EP_ERR_ARG` (negative degree, NULL arrays with a degree > 0, negative weights, only one
/// side `EP_UNWEIGHTED`, NULL `comm_dist_graph`), `EP_ERR_RANK` (a neighbour outside
/// `comm_old`). A bad argument on any endpoint fails the call on every endpoint of every
/// process (docs/errors.md). Thread safety: one call per endpoint, concurrently.
///
/// # Safety
/// The arrays are NULL or readable for their degrees (weights may also be `EP_UNWEIGHTED` or
/// `EP_WEIGHTS_EMPTY`); `info` is a valid host info handle or `MPI_INFO_NULL`;
/// `comm_dist_graph` points at a writable `EP_Comm`.
#[no_mangle]
#[c_export]
#[allow(clippy::too_many_arguments, reason = "MPI's signature")]
pub unsafe extern "C" fn EP_Dist_graph_create_adjacent(
    comm_old: EP_Comm,
    indegree: c_int,
    sources: *const c_int,
    sourceweights: *const c_int,
    outdegree: c_int,
    destinations: *const c_int,
    destweights: *const c_int,
    info: MPI_Info,
    reorder: c_int,
    comm_dist_graph: *mut EP_Comm,
) -> c_int {
    let _ = (info, reorder);
    let ep = intra(comm_old)?;
    let comm_dist_graph = out(comm_dist_graph, "comm_dist_graph");
    let size = ep.shared.map.size();
    let adj = adjacency(indegree, sources, sourceweights, outdegree, destinations, destweights, size);
    let fault: Option<EpError> = adj.as_ref().err().or(comm_dist_graph.as_ref().err()).cloned();
    let new = create::dist_graph_create_adjacent(&ep, adj.ok(), fault)?;
    *comm_dist_graph? = handle_or_null(Some(new))?;
    Ok(())
}

/// The edges `EP_Dist_graph_create` was given, and whether they are weighted.
///
/// # Safety
/// As for `EP_Dist_graph_create`.
unsafe fn given_edges(
    n: c_int,
    sources: *const c_int,
    degrees: *const c_int,
    destinations: *const c_int,
    weights: *const c_int,
    size: usize,
) -> EpResult<(Vec<create::Edge>, bool)> {
    let n = length(n, "n")?;
    let sources = ints(sources, n, "sources")?;
    let degrees = ints(degrees, n, "degrees")?;
    if let Some((i, d)) = degrees.iter().enumerate().find(|(_, &d)| d < 0) {
        return Err(ep_err!(ERR_ARG, "degrees[{i}] = {d} is negative"));
    }
    let total = degrees.iter().map(|&d| d as usize).sum();
    let (destinations, weights) = edges(total as c_int, destinations, weights, size, "destinations")?;
    if let Some((i, r)) = sources.iter().enumerate().find(|(_, &r)| !(0..size as c_int).contains(&r)) {
        return Err(ep_err!(ERR_RANK, "sources[{i}] = {r} is outside 0..{size}"));
    }
    let mut list = Vec::with_capacity(total);
    let mut k = 0;
    for (i, &s) in sources.iter().enumerate() {
        for _ in 0..degrees[i] {
            list.push((s, destinations[k], weights.as_ref().map_or(0, |w| w[k])));
            k += 1;
        }
    }
    Ok((list, weights.is_some()))
}

/// Makes a communicator with a distributed graph topology from edges that any endpoint may
/// give (MPI 4.1 section 8.5.3): this endpoint gives, for each i in `0..n`, the edges from
/// `sources[i]` to the next `degrees[i]` entries of `destinations`, with as many `weights`
/// (or `EP_UNWEIGHTED` on every endpoint; `EP_WEIGHTS_EMPTY` when it gives no edge of a
/// weighted graph). Every endpoint then has as sources the edges that end at it and as
/// destinations those that start at it, each list in the order of the endpoints that gave
/// the edges (by rank) and then the order they were given in; neighbourhood collectives use
/// that order. Ranks kept (`reorder`, `info` accepted and ignored). Collective over
/// `comm_old` (two allgathers, then as `EP_Dist_graph_create_adjacent`). Errors:
/// `EP_ERR_COMM`, `EP_ERR_ARG` (negative `n` or degree, negative weights, NULL arrays with
/// edges, weighted and unweighted endpoints mixed, NULL `comm_dist_graph`), `EP_ERR_RANK`
/// (ranks outside `comm_old`). A bad argument on any endpoint fails the call on every
/// endpoint. Thread safety: one call per endpoint, concurrently.
///
/// # Safety
/// `sources` and `degrees` are NULL or readable for `n` ints, `destinations` and `weights`
/// (unless `EP_UNWEIGHTED`/`EP_WEIGHTS_EMPTY`) for the sum of the degrees; `info` is a valid
/// host info handle or `MPI_INFO_NULL`; `comm_dist_graph` points at a writable `EP_Comm`.
#[no_mangle]
#[c_export]
#[allow(clippy::too_many_arguments, reason = "MPI's signature")]
pub unsafe extern "C" fn EP_Dist_graph_create(
    comm_old: EP_Comm,
    n: c_int,
    sources: *const c_int,
    degrees: *const c_int,
    destinations: *const c_int,
    weights: *const c_int,
    info: MPI_Info,
    reorder: c_int,
    comm_dist_graph: *mut EP_Comm,
) -> c_int {
    let _ = (info, reorder);
    let ep = intra(comm_old)?;
    let comm_dist_graph = out(comm_dist_graph, "comm_dist_graph");
    let given = given_edges(n, sources, degrees, destinations, weights, ep.shared.map.size());
    // A faulty endpoint's flag is never compared: the fault is reported first.
    let weighted = given.as_ref().map_or(true, |g| g.1);
    let edges = match (given, &comm_dist_graph) {
        (Ok((list, _)), Ok(_)) => Ok(list),
        (Ok(_), Err(e)) => Err(e.clone()),
        (Err(e), _) => Err(e),
    };
    let new = create::dist_graph_create(&ep, edges, weighted)?;
    *comm_dist_graph? = handle_or_null(Some(new))?;
    Ok(())
}

/// Degrees of the calling endpoint in a distributed graph (MPI 4.1 section 8.5.5):
/// `*indegree`, `*outdegree`, and `*weighted` (0 when the graph was made with
/// `EP_UNWEIGHTED`). Local. Errors: `EP_ERR_COMM`, `EP_ERR_TOPOLOGY` (no distributed graph
/// topology), `EP_ERR_ARG` (NULL outputs). Thread safety: one thread per endpoint.
///
/// # Safety
/// The three outputs point at writable `int`s.
#[no_mangle]
#[c_export]
pub unsafe extern "C" fn EP_Dist_graph_neighbors_count(
    comm: EP_Comm,
    indegree: *mut c_int,
    outdegree: *mut c_int,
    weighted: *mut c_int,
) -> c_int {
    let ep = endpoint(comm)?;
    let a = topo::graph_of(&ep.shared, ep.local)?;
    let (i, o, w) = (out(indegree, "indegree")?, out(outdegree, "outdegree")?, out(weighted, "weighted")?);
    (*i, *o, *w) = (a.sources.len() as c_int, a.destinations.len() as c_int, a.weighted as c_int);
    Ok(())
}

/// The calling endpoint's edges in a distributed graph, in the order it gave them (MPI 4.1
/// section 8.5.5): the first `min(maxindegree, indegree)` sources and their weights, the
/// first `min(maxoutdegree, outdegree)` destinations and their weights. Weights are written
/// only for a weighted graph and when the weights argument is neither NULL nor
/// `EP_UNWEIGHTED`. Local. Errors: `EP_ERR_COMM`, `EP_ERR_TOPOLOGY`, `EP_ERR_ARG` (negative
/// maximum, NULL rank arrays with room > 0). Thread safety: one thread per endpoint.
///
/// # Safety
/// Each array is NULL or writable for its maximum (weights may be `EP_UNWEIGHTED`).
#[no_mangle]
#[c_export]
pub unsafe extern "C" fn EP_Dist_graph_neighbors(
    comm: EP_Comm,
    maxindegree: c_int,
    sources: *mut c_int,
    sourceweights: *mut c_int,
    maxoutdegree: c_int,
    destinations: *mut c_int,
    destweights: *mut c_int,
) -> c_int {
    let ep = endpoint(comm)?;
    let a = topo::graph_of(&ep.shared, ep.local)?;
    let ni = length(maxindegree, "maxindegree")?.min(a.sources.len());
    let no = length(maxoutdegree, "maxoutdegree")?.min(a.destinations.len());
    write_ints(sources, &a.sources[..ni], "sources")?;
    write_ints(destinations, &a.destinations[..no], "destinations")?;
    let wanted = |p: *mut c_int| a.weighted && !p.is_null() && p as usize != UNWEIGHTED && p as usize != WEIGHTS_EMPTY;
    if wanted(sourceweights) {
        write_ints(sourceweights, &a.source_weights[..ni], "sourceweights")?;
    }
    if wanted(destweights) {
        write_ints(destweights, &a.dest_weights[..no], "destweights")?;
    }
    Ok(())
}
