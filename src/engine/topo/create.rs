//! Creating communicators with a topology: `EP_Cart_create`, `EP_Graph_create`,
//! `EP_Cart_sub`, `EP_Dist_graph_create_adjacent`, `EP_Dist_graph_create` (MPI 4.1 sections
//! 8.5.1, 8.5.3, 8.5.4, 8.5.7).
//!
//! Each is a split of the old communicator ([`super::super::split::split`], which agrees on
//! errors: a bad argument on one endpoint fails the call on every endpoint of every process),
//! then a meeting of the new communicator's endpoints in each process whose leader makes the
//! private communicator of the neighbourhood collectives and attaches the topology.
//!
//! `EP_Comm_dup` keeps the topology ([`inherit`]).
//!
//! `reorder` is accepted and ranks are kept: rank `r` of the new communicator is rank `r` of
//! the old one (`EP_Cart_sub`: the old rank order within each subgrid). Endpoint ranks are
//! already numbered process by process, so with MPI's row-major grid order the neighbours
//! along the last dimensions already share a process wherever the per-process counts allow.

use super::{grid_size, of, Adjacency, Cart, Graph, Kind, Topology};
use crate::engine::coll::{self, AllgathervArgs, Blocks, Layout};
use crate::engine::comm::{CommShared, Endpoint};
use crate::engine::datatype::{type_info, UserBuf};
use crate::engine::split::{self, UNDEFINED};
use crate::ep_err;
use crate::error::{EpError, EpResult, ERR_ARG, ERR_DIMS, ERR_RANK};
use crate::host::{self, check, sys, HostComm, HOST};
use std::os::raw::{c_int, c_void};
use std::sync::Arc;

/// Checks the shape of `EP_Cart_create`: `EP_ERR_DIMS` for a non-positive dimension or a
/// grid larger than the communicator (`size` ranks).
pub fn check_grid(dims: &[i32], size: usize) -> EpResult<()> {
    if let Some((i, d)) = dims.iter().enumerate().find(|(_, &d)| d <= 0) {
        return Err(ep_err!(ERR_DIMS, "dims[{i}] = {d} is not positive"));
    }
    let n = grid_size(dims)?;
    if n as usize > size {
        return Err(ep_err!(ERR_DIMS, "the grid {dims:?} has {n} ranks, more than the communicator's {size}"));
    }
    Ok(())
}

/// `EP_Cart_create` for one endpoint: the first `product(dims)` ranks form the grid (ranks
/// kept), the others get `None` (`EP_COMM_NULL`). `cart` is `None` when the caller found its
/// arguments bad, with the error in `fault` (the call then fails on every endpoint).
pub fn cart_create(ep: &Endpoint, cart: Option<Cart>, fault: Option<EpError>) -> EpResult<Option<Endpoint>> {
    let fault = fault.or_else(|| cart.as_ref().and_then(|c| check_grid(&c.dims, ep.shared.map.size()).err()));
    let inside = fault.is_none() && cart.as_ref().is_some_and(|c| ep.rank < c.size());
    let color = if inside { 0 } else { UNDEFINED };
    let Some(new) = split::split(ep, color, ep.rank, fault)? else { return Ok(None) };
    let cart = cart.expect("a rank inside the grid had good arguments");
    attach(&new, None, move |_| Kind::Cart(cart))?;
    Ok(Some(new))
}

/// Checks the graph of `EP_Graph_create` for a communicator of `size` ranks: `EP_ERR_ARG`
/// for more nodes than ranks, a decreasing or negative `index`, an edge count that is not
/// `index[nnodes-1]`; `EP_ERR_RANK` for an edge outside `0..nnodes`.
pub fn check_graph(g: &Graph, size: usize) -> EpResult<()> {
    let n = g.index.len();
    if n > size {
        return Err(ep_err!(ERR_ARG, "nnodes {n} is above the communicator's size {size}"));
    }
    let mut last = 0;
    for (i, &x) in g.index.iter().enumerate() {
        if x < last {
            return Err(ep_err!(ERR_ARG, "index[{i}] = {x} is below index[{}] = {last}", i.max(1) - 1));
        }
        last = x;
    }
    if last as usize != g.edges.len() {
        return Err(ep_err!(ERR_ARG, "index ends at {last}, not at the {} edges given", g.edges.len()));
    }
    if let Some((i, e)) = g.edges.iter().enumerate().find(|(_, &e)| !(0..n as i32).contains(&e)) {
        return Err(ep_err!(ERR_RANK, "edges[{i}] = {e} is outside 0..{n}"));
    }
    Ok(())
}

/// `EP_Graph_create` for one endpoint: ranks `0..nnodes` form the graph (ranks kept), the
/// others get `None`. `graph` is `None` when the caller found its arguments bad (`fault`).
pub fn graph_create(ep: &Endpoint, graph: Option<Graph>, fault: Option<EpError>) -> EpResult<Option<Endpoint>> {
    let fault = fault.or_else(|| graph.as_ref().and_then(|g| check_graph(g, ep.shared.map.size()).err()));
    let inside = fault.is_none() && graph.as_ref().is_some_and(|g| (ep.rank as usize) < g.index.len());
    let color = if inside { 0 } else { UNDEFINED };
    let Some(new) = split::split(ep, color, ep.rank, fault)? else { return Ok(None) };
    let graph = graph.expect("a rank inside the graph had good arguments");
    attach(&new, None, move |_| Kind::Graph(graph))?;
    Ok(Some(new))
}

/// `EP_Cart_sub` for one endpoint: the subgrids that keep the dimensions with `remain[d]`
/// true, each a new communicator with its Cartesian topology (MPI 4.1 section 8.5.7).
/// `remain` is `None` when the caller found its arguments bad (`fault`).
pub fn cart_sub(ep: &Endpoint, remain: Option<Vec<bool>>, fault: Option<EpError>) -> EpResult<Endpoint> {
    let grid = super::cart_of(&ep.shared);
    let fault = fault.or_else(|| grid.as_ref().err().cloned());
    let (color, sub) = match (&grid, &remain, &fault) {
        (Ok(c), Some(remain), None) => {
            let coords = c.coords(ep.rank)?;
            // The subgrid's color: this rank's position in the dropped dimensions.
            let mut color = 0;
            let mut sub = Cart { dims: Vec::new(), periods: Vec::new() };
            for d in 0..c.ndims() {
                if remain[d] {
                    sub.dims.push(c.dims[d]);
                    sub.periods.push(c.periods[d]);
                } else {
                    color = color * c.dims[d] + coords[d];
                }
            }
            (color, Some(sub))
        }
        _ => (UNDEFINED, None),
    };
    let new = split::split(ep, color, ep.rank, fault)?.expect("every rank of a grid is in one subgrid");
    let sub = sub.expect("a split that succeeds had good arguments everywhere");
    attach(&new, None, move |_| Kind::Cart(sub))?;
    Ok(new)
}

/// `EP_Dist_graph_create_adjacent` for one endpoint: every rank kept, each with the edges it
/// gave (`adjacency`, `None` when the caller found its arguments bad, with `fault`).
pub fn dist_graph_create_adjacent(
    ep: &Endpoint,
    adjacency: Option<Adjacency>,
    fault: Option<EpError>,
) -> EpResult<Endpoint> {
    let color = if fault.is_none() { 0 } else { UNDEFINED };
    let new = split::split(ep, color, ep.rank, fault)?.expect("a split that succeeds keeps every rank");
    let mine = adjacency.expect("a split that succeeds had good arguments everywhere");
    attach(&new, Some(mine), |edges| Kind::DistGraph(edges.into_iter().map(|e| e.unwrap_or_default()).collect()))?;
    Ok(new)
}

/// `EP_Comm_dup` keeps the topology (MPI 4.1 section 7.4.2): attaches a copy of `old`'s
/// topology, if it has one, to `new`, its duplicate, with a private communicator of its own
/// (so the two communicators' neighbourhood collectives never match each other's messages).
/// Collective over `new`, as the dup was.
pub fn inherit(old: &Endpoint, new: &Endpoint) -> EpResult<()> {
    let Some(t) = of(&old.shared) else { return Ok(()) };
    match &t.kind {
        Kind::Cart(c) => {
            let c = c.clone();
            attach(new, None, move |_| Kind::Cart(c))
        }
        Kind::Graph(g) => {
            let g = g.clone();
            attach(new, None, move |_| Kind::Graph(g))
        }
        Kind::DistGraph(g) => {
            let mine = g[old.local as usize].clone();
            attach(new, Some(mine), |edges| Kind::DistGraph(edges.into_iter().map(|e| e.unwrap_or_default()).collect()))
        }
    }
}

/// The new communicator's endpoints of this process meet (each bringing its own edges, for a
/// graph); the leader duplicates the host communicator for the neighbourhood collectives and
/// attaches the topology that `kind` makes of every endpoint's input (by local index), before
/// any of them leaves.
fn attach(new: &Endpoint, input: Option<Adjacency>, kind: impl FnOnce(Vec<Option<Adjacency>>) -> Kind) -> EpResult<()> {
    let s = new.shared.clone();
    new.shared.meeting.meet((), s.local_count(), new.local as usize, input, None, move |g| {
        let exchange = exchange_comm(&s)?;
        let topology: Arc<Topology> = Arc::new(Topology { kind: kind(g.inputs), exchange });
        if s.topology.set(topology).is_err() {
            unreachable!("a new communicator gets its topology once");
        }
        Ok(())
    })?;
    debug_assert!(of(&new.shared).is_some());
    Ok(())
}

/// A private communicator with the same ranks as `s` (collective over its processes).
fn exchange_comm(s: &CommShared) -> EpResult<Arc<CommShared>> {
    let mut dup = HostComm(HOST.comm_null);
    // SAFETY: `s.host` lives while `s` is borrowed; every process of it makes this call (the
    // leader of each process's meeting); the host writes `dup.0`, a live local.
    unsafe { check(sys::MPI_Comm_dup(s.host.0, &mut dup.0), "MPI_Comm_dup")? };
    CommShared::internal(dup, s.map.clone()).inspect_err(|_| host::free_comm(dup))
}

/// `EP_Topo_test`'s answer: `EP_CART`, `EP_DIST_GRAPH` or `None` (`EP_UNDEFINED`).
pub fn status(shared: &CommShared) -> Option<c_int> {
    of(shared).map(|t| match t.kind {
        Kind::Cart(_) => super::CART,
        Kind::Graph(_) => super::GRAPH,
        Kind::DistGraph(_) => super::DIST_GRAPH,
    })
}

/// One edge of `EP_Dist_graph_create`: source, destination, weight (0 when unweighted).
pub type Edge = (i32, i32, i32);

/// Every endpoint's ints, concatenated in rank order, and how many each gave: `mine` from
/// this one (collective over `ep`'s communicator; counts may differ).
fn allgather_ints(ep: &Endpoint, mine: &[i32]) -> EpResult<(Vec<i32>, Vec<c_int>)> {
    let info = type_info(HOST.int_)?;
    let size = ep.shared.map.size();
    let one = |v: &[i32]| {
        // SAFETY: `v` lives until the collective returns and holds `v.len()` ints.
        unsafe { UserBuf::new(v.as_ptr() as *const c_void, v.len() as c_int, HOST.int_) }
    };
    let mut counts = vec![0 as c_int; size];
    let n = [mine.len() as c_int];
    let recv = Blocks { base: counts.as_mut_ptr() as *mut c_void, dtype: HOST.int_, info, layout: Layout::Uniform(1) };
    coll::allgatherv(ep, &AllgathervArgs { send: Some(one(&n)?), recv, rank: ep.rank })?;
    let displs: Vec<c_int> = counts.iter().scan(0, |at, &c| Some(std::mem::replace(at, *at + c))).collect();
    let mut all = vec![0; counts.iter().map(|&c| c as usize).sum::<usize>().max(1)];
    let layout = Layout::Varied { counts: &counts, displs: &displs };
    let recv = Blocks { base: all.as_mut_ptr() as *mut c_void, dtype: HOST.int_, info, layout };
    coll::allgatherv(ep, &AllgathervArgs { send: Some(one(mine)?), recv, rank: ep.rank })?;
    all.truncate(counts.iter().map(|&c| c as usize).sum());
    Ok((all, counts))
}

/// `EP_Dist_graph_create` for one endpoint (MPI 4.1 section 8.5.3): every endpoint gives any
/// edges (`edges`, or its error), all endpoints learn all of them (two allgathers), and each
/// keeps, in the order of the rank that gave them and then the order given, the edges that
/// end at it (its sources) and those that start at it (its destinations); then as
/// [`dist_graph_create_adjacent`]. `weighted`: false for `EP_UNWEIGHTED`. A bad argument on
/// any endpoint fails the call on every endpoint (its class travels in the first allgather).
pub fn dist_graph_create(ep: &Endpoint, edges: EpResult<Vec<Edge>>, weighted: bool) -> EpResult<Endpoint> {
    let (fault, mine) = match &edges {
        Ok(e) => (0, e.iter().flat_map(|&(s, d, w)| [s, d, w]).collect::<Vec<i32>>()),
        Err(e) => (e.class, Vec::new()),
    };
    let mut head = vec![fault, weighted as i32];
    head.extend(mine);
    let (all, lengths) = allgather_ints(ep, &head)?;
    // Walk the (fault, weighted, edges...) records of every rank, in rank order.
    let (mut at, mut worst, mut all_weighted, mut any_weighted) = (0, 0, true, false);
    let mut flat: Vec<Edge> = Vec::new();
    for &len in &lengths {
        let rec = &all[at..at + len as usize];
        at += len as usize;
        worst = worst.max(rec[0]);
        all_weighted &= rec[1] != 0;
        any_weighted |= rec[1] != 0;
        flat.extend(rec[2..].chunks(3).map(|c| (c[0], c[1], c[2])));
    }
    edges?;
    if worst != 0 {
        return Err(super::super::meeting::failed_elsewhere(worst));
    }
    if all_weighted != any_weighted {
        return Err(ep_err!(ERR_ARG, "some endpoints passed EP_UNWEIGHTED and others weights"));
    }
    let me = ep.rank;
    let adjacency = Adjacency {
        sources: flat.iter().filter(|e| e.1 == me).map(|e| e.0).collect(),
        source_weights: if weighted { flat.iter().filter(|e| e.1 == me).map(|e| e.2).collect() } else { Vec::new() },
        destinations: flat.iter().filter(|e| e.0 == me).map(|e| e.1).collect(),
        dest_weights: if weighted { flat.iter().filter(|e| e.0 == me).map(|e| e.2).collect() } else { Vec::new() },
        weighted,
    };
    dist_graph_create_adjacent(ep, Some(adjacency), None)
}
