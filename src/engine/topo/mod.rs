//! Process topologies on endpoint communicators (MPI 4.1 chapter 8): Cartesian grids and
//! distributed graphs, their queries, and the neighbourhood collectives that run on them.
//!
//! A topology is attached to the communicator made by the call that creates it
//! ([`create`]: a split of the old communicator, so the new one has its own contexts), in the
//! communicator's `topology` slot, once, before any endpoint of it leaves the creating call.
//! With it goes a private copy of the communicator (same ranks, its own host communicator,
//! never in direct mode) on which the neighbourhood collectives ([`neighbor`]) exchange their
//! blocks through the engine's point-to-point, so user messages never match theirs.
//!
//! Cartesian ranks are row-major (the last dimension varies fastest), as MPI says
//! (MPI 4.1 section 8.5.5).

pub mod create;
pub mod neighbor;

use super::comm::CommShared;
use super::envelope::PROC_NULL;
use crate::ep_err;
use crate::error::{EpResult, ERR_ARG, ERR_DIMS, ERR_RANK, ERR_TOPOLOGY};
use std::os::raw::c_int;
use std::sync::Arc;

/// A Cartesian grid: the extent and periodicity of each dimension.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Cart {
    pub dims: Vec<i32>,
    pub periods: Vec<bool>,
}

/// One endpoint's edges in a distributed graph, in the order it gave them (MPI 4.1 section
/// 8.5.4): the neighbourhood collectives use this order for their blocks.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Adjacency {
    pub sources: Vec<i32>,
    pub source_weights: Vec<i32>,
    pub destinations: Vec<i32>,
    pub dest_weights: Vec<i32>,
    /// False when the graph was created with `EP_UNWEIGHTED` (the weights are then empty).
    pub weighted: bool,
}

/// A graph given whole to every rank (`EP_Graph_create`, MPI 4.1 section 8.5.3): rank r's
/// neighbours are `edges[index[r-1]..index[r]]` (`index[-1]` = 0).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Graph {
    pub index: Vec<i32>,
    pub edges: Vec<i32>,
}

impl Graph {
    /// The neighbours of `rank`, in the order given; `EP_ERR_RANK` outside the graph.
    pub fn neighbours(&self, rank: i32) -> EpResult<&[i32]> {
        if !(0..self.index.len() as i32).contains(&rank) {
            return Err(ep_err!(ERR_RANK, "rank {rank} is outside 0..{}", self.index.len()));
        }
        let r = rank as usize;
        let start = if r == 0 { 0 } else { self.index[r - 1] as usize };
        Ok(&self.edges[start..self.index[r] as usize])
    }
}

/// The kind of topology and what each kind keeps.
pub enum Kind {
    Cart(Cart),
    Graph(Graph),
    /// Each of this process's endpoints' edges, by local index.
    DistGraph(Vec<Adjacency>),
}

/// A communicator's topology and the private communicator of its neighbourhood collectives.
pub struct Topology {
    pub kind: Kind,
    /// Same rank map as the communicator (local indices too), its own host communicator.
    pub exchange: Arc<CommShared>,
}

/// Values of `EP_CART`, `EP_GRAPH`, `EP_DIST_GRAPH`.
pub(crate) const CART: c_int = 1;
pub(crate) const GRAPH: c_int = 2;
pub(crate) const DIST_GRAPH: c_int = 3;

/// The topology of a communicator, if it has one.
pub fn of(shared: &CommShared) -> Option<&Topology> {
    let t = shared.topology.get()?;
    Some(t.downcast_ref::<Topology>().unwrap_or_else(|| unreachable!("a communicator's `topology` holds a `Topology`")))
}

/// The communicator's Cartesian grid, or `EP_ERR_TOPOLOGY`.
pub fn cart_of(shared: &CommShared) -> EpResult<&Cart> {
    match of(shared).map(|t| &t.kind) {
        Some(Kind::Cart(c)) => Ok(c),
        Some(_) => Err(ep_err!(ERR_TOPOLOGY, "the communicator has a graph topology, not a Cartesian one")),
        None => Err(ep_err!(ERR_TOPOLOGY, "the communicator has no Cartesian topology (make one with EP_Cart_create)")),
    }
}

/// The communicator's graph (`EP_Graph_create`), or `EP_ERR_TOPOLOGY`.
pub fn graph_whole_of(shared: &CommShared) -> EpResult<&Graph> {
    match of(shared).map(|t| &t.kind) {
        Some(Kind::Graph(g)) => Ok(g),
        Some(_) => Err(ep_err!(ERR_TOPOLOGY, "the communicator has another topology than a graph of EP_Graph_create")),
        None => Err(ep_err!(ERR_TOPOLOGY, "the communicator has no graph topology (make one with EP_Graph_create)")),
    }
}

/// Endpoint `local`'s edges in the communicator's distributed graph, or `EP_ERR_TOPOLOGY`.
pub fn graph_of(shared: &CommShared, local: u32) -> EpResult<&Adjacency> {
    match of(shared).map(|t| &t.kind) {
        Some(Kind::DistGraph(g)) => Ok(&g[local as usize]),
        Some(_) => Err(ep_err!(ERR_TOPOLOGY, "the communicator's topology is not a distributed graph")),
        None => Err(ep_err!(ERR_TOPOLOGY, "the communicator has no distributed graph topology")),
    }
}

/// Product of the dimensions, or `EP_ERR_DIMS` when it overflows an `int`.
pub fn grid_size(dims: &[i32]) -> EpResult<i32> {
    dims.iter()
        .try_fold(1i32, |acc, &d| acc.checked_mul(d))
        .ok_or_else(|| ep_err!(ERR_DIMS, "the product of the dimensions {dims:?} overflows an int"))
}

impl Cart {
    pub fn ndims(&self) -> usize {
        self.dims.len()
    }

    /// Number of ranks in the grid.
    pub fn size(&self) -> i32 {
        self.dims.iter().product()
    }

    /// Coordinates of `rank` (row-major). `EP_ERR_RANK` outside the grid.
    pub fn coords(&self, rank: i32) -> EpResult<Vec<i32>> {
        if !(0..self.size()).contains(&rank) {
            return Err(ep_err!(ERR_RANK, "rank {rank} is outside 0..{}", self.size()));
        }
        let mut c = vec![0; self.ndims()];
        let mut r = rank;
        for d in (0..self.ndims()).rev() {
            c[d] = r % self.dims[d];
            r /= self.dims[d];
        }
        Ok(c)
    }

    /// Rank at `coords`: periodic dimensions wrap around; a coordinate outside a
    /// non-periodic dimension is `EP_ERR_ARG` (MPI 4.1 section 8.5.5).
    pub fn rank(&self, coords: &[i32]) -> EpResult<i32> {
        let mut r = 0;
        for (d, &c) in coords.iter().enumerate() {
            let n = self.dims[d];
            let c = if self.periods[d] {
                c.rem_euclid(n)
            } else if (0..n).contains(&c) {
                c
            } else {
                return Err(ep_err!(ERR_ARG, "coordinate {c} of non-periodic dimension {d} is outside 0..{n}"));
            };
            r = r * n + c;
        }
        Ok(r)
    }

    /// The rank `disp` steps along `direction` from `rank`, or `PROC_NULL` past the edge of a
    /// non-periodic dimension.
    fn step(&self, rank: i32, direction: usize, disp: i64) -> EpResult<i32> {
        let mut c = self.coords(rank)?;
        let n = self.dims[direction] as i64;
        let moved = c[direction] as i64 + disp;
        c[direction] = if self.periods[direction] {
            moved.rem_euclid(n) as i32
        } else if (0..n).contains(&moved) {
            moved as i32
        } else {
            return Ok(PROC_NULL);
        };
        self.rank(&c)
    }

    /// `EP_Cart_shift`: (source, destination) of a shift of `rank` by `disp` along
    /// `direction` (MPI 4.1 section 8.5.6). `EP_ERR_DIMS` for a direction outside
    /// `0..ndims`.
    pub fn shift(&self, rank: i32, direction: c_int, disp: c_int) -> EpResult<(i32, i32)> {
        if !(0..self.ndims() as c_int).contains(&direction) {
            return Err(ep_err!(ERR_DIMS, "direction {direction} is outside 0..{}", self.ndims()));
        }
        let d = direction as usize;
        Ok((self.step(rank, d, -(disp as i64))?, self.step(rank, d, disp as i64)?))
    }

    /// The neighbours of `rank` in MPI's order for neighbourhood collectives (MPI 4.1
    /// section 8.6): for each dimension, the -1 then the +1 neighbour (`PROC_NULL` past a
    /// non-periodic edge). Sources and destinations are the same list.
    pub fn neighbours(&self, rank: i32) -> EpResult<Vec<i32>> {
        let mut v = Vec::with_capacity(2 * self.ndims());
        for d in 0..self.ndims() {
            v.push(self.step(rank, d, -1)?);
            v.push(self.step(rank, d, 1)?);
        }
        Ok(v)
    }
}

/// `EP_Dims_create` (MPI 4.1 section 8.5.2): fills the zero entries of `dims` so that the
/// product of all entries is `nnodes`, the filled entries as close to each other as possible
/// and non-increasing. "As close as possible" is: smallest difference between the largest and
/// the smallest filled entry, then smallest sum; this is MPICH's choice (checked against
/// MPICH 4.0.2 for every `nnodes` up to 400 and 1 to 4 dimensions). Open MPI 4.1 assigns
/// prime factors greedily and differs from it for some sizes (72 in 2 dimensions: 12 x 6
/// there, 9 x 8 here).
///
/// Errors: `EP_ERR_ARG` for `nnodes <= 0`, `EP_ERR_DIMS` for a negative entry or fixed
/// entries whose product does not divide `nnodes`.
pub fn dims_create(nnodes: i32, dims: &mut [i32]) -> EpResult<()> {
    if nnodes <= 0 {
        return Err(ep_err!(ERR_ARG, "nnodes {nnodes} is not positive"));
    }
    if let Some((i, d)) = dims.iter().enumerate().find(|(_, &d)| d < 0) {
        return Err(ep_err!(ERR_DIMS, "dims[{i}] = {d} is negative"));
    }
    let fixed: i64 = dims.iter().filter(|&&d| d > 0).map(|&d| d as i64).product();
    if fixed == 0 || nnodes as i64 % fixed != 0 {
        return Err(ep_err!(ERR_DIMS, "the fixed entries of dims (product {fixed}) do not divide nnodes {nnodes}"));
    }
    let free = dims.iter().filter(|&&d| d == 0).count();
    if free == 0 {
        if fixed != nnodes as i64 {
            return Err(ep_err!(ERR_DIMS, "the entries of dims multiply to {fixed}, not nnodes {nnodes}"));
        }
        return Ok(());
    }
    let mut best = None;
    balanced(nnodes as i64 / fixed, free, i64::MAX, &mut Vec::with_capacity(free), &mut best);
    let (_, factors) = best.expect("m = m x 1 x ... x 1 is a factorisation");
    let mut it = factors.into_iter();
    for d in dims.iter_mut().filter(|d| **d == 0) {
        *d = it.next().expect("one factor per free entry") as i32;
    }
    Ok(())
}

/// Searches the non-increasing factorisations of `m` into `k` more factors, none above
/// `max`, after the factors `chosen`; keeps in `best` the first one with the smallest
/// (largest - smallest, sum).
fn balanced(m: i64, k: usize, max: i64, chosen: &mut Vec<i64>, best: &mut Option<((i64, i64), Vec<i64>)>) {
    if k == 1 {
        if m <= max {
            chosen.push(m);
            let key = (chosen[0] - m, chosen.iter().sum());
            if best.as_ref().is_none_or(|(b, _)| key < *b) {
                *best = Some((key, chosen.clone()));
            }
            chosen.pop();
        }
        return;
    }
    let mut f = m.min(max);
    // The largest of k factors of m is at least the k-th root of m.
    while f >= 1 && (f as f64).powi(k as i32) >= m as f64 * (1.0 - 1e-9) {
        if m % f == 0 {
            chosen.push(f);
            balanced(m / f, k - 1, f, chosen, best);
            chosen.pop();
        }
        f -= 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dims(n: i32, mut d: Vec<i32>) -> Vec<i32> {
        dims_create(n, &mut d).unwrap();
        d
    }

    #[test]
    fn dims_are_balanced_and_non_increasing() {
        assert_eq!(dims(6, vec![0, 0]), [3, 2]);
        assert_eq!(dims(7, vec![0, 0]), [7, 1]);
        assert_eq!(dims(72, vec![0, 0]), [9, 8]);
        assert_eq!(dims(20, vec![0, 0, 0, 0]), [5, 2, 2, 1]);
        assert_eq!(dims(24, vec![0, 3, 0]), [4, 3, 2]);
        assert_eq!(dims(1, vec![]), Vec::<i32>::new());
        assert_eq!(dims(4, vec![2, 2]), [2, 2]);
        assert_eq!(dims_create(6, &mut [4, 0]).unwrap_err().class, ERR_DIMS);
        assert_eq!(dims_create(6, &mut [-1, 0]).unwrap_err().class, ERR_DIMS);
        assert_eq!(dims_create(6, &mut [2, 2]).unwrap_err().class, ERR_DIMS);
        assert_eq!(dims_create(0, &mut [0]).unwrap_err().class, ERR_ARG);
    }

    #[test]
    fn cartesian_coordinates_ranks_and_shifts() {
        let c = Cart { dims: vec![2, 3], periods: vec![false, true] };
        assert_eq!(c.coords(4).unwrap(), [1, 1]);
        assert_eq!(c.rank(&[1, 1]).unwrap(), 4);
        assert_eq!(c.rank(&[1, -1]).unwrap(), 5);
        assert_eq!(c.rank(&[2, 0]).unwrap_err().class, ERR_ARG);
        assert_eq!(c.shift(0, 0, 1).unwrap(), (PROC_NULL, 3));
        assert_eq!(c.shift(0, 1, 1).unwrap(), (2, 1));
        assert_eq!(c.shift(0, 1, -4).unwrap(), (1, 2));
        assert_eq!(c.shift(0, 2, 1).unwrap_err().class, ERR_DIMS);
        assert_eq!(c.neighbours(3).unwrap(), [0, PROC_NULL, 5, 4]);
        assert_eq!(c.coords(6).unwrap_err().class, ERR_RANK);
    }
}
